"""Scopes and uncertain facts: a monorepo with two clusters, tutorials and namespace-less
workloads is linted in one run without false errors (tests/data/monorepo)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kueuelint.config import ConfigError, from_mapping
from kueuelint.index.scopes import DEFAULT_SCOPE, scope_of, split

MONOREPO = Path(__file__).parent / "data" / "monorepo"


@pytest.fixture()
def repo(tmp_path):
    target = tmp_path / "monorepo"
    shutil.copytree(MONOREPO, target)
    return target


def _run(cli, repo, config=".kueuelint.yaml", *extra):
    proc = cli("check", "--format", "json", "--config", str(repo / config), *extra, str(repo))
    assert proc.returncode in (0, 1), proc.stderr
    return [(str(Path(f["file"]).relative_to(repo)), f["code"], f["severity"])
            for f in json.loads(proc.stdout)["findings"]]


def test_the_monorepo_has_only_its_one_real_error(cli, repo):
    found = _run(cli, repo)
    errors = [f for f in found if f[2] == "error"]
    assert errors == [("clusters/prod/jobs/typo.yaml", "KQ205", "error")]
    # what is left is uncertain and says so, or a note on the template
    assert {(path, code) for path, code, severity in found if severity != "error"} == {
        ("tutorials/ray/rayjob.yaml", "KQ205"),            # its queue is made by another step
        ("tutorials/gke/job-template.yaml", "KQ012"),      # envsubst placeholders
    }


def test_each_scope_follows_its_own_kueue_version(cli, repo):
    found = _run(cli, repo)
    assert not any(path.startswith("clusters/staging/") for path, _, _ in found)
    (repo / ".kueuelint.yaml").write_text((repo / ".kueuelint.yaml").read_text().replace('"0.14"', '"0.19"'))
    staging = {(path, code, sev) for path, code, sev in _run(cli, repo) if path.startswith("clusters/staging/")}
    assert ("clusters/staging/train.yaml", "KQ201", "error") in staging
    assert ("clusters/staging/kueue.yaml", "KQ102", "warning") in staging


def test_without_scopes_cross_folder_facts_are_never_errors(cli, repo):
    (repo / "plain.yaml").write_text("{}\n")
    found = _run(cli, repo, "plain.yaml")
    errors = {(path, code) for path, code, severity in found if severity == "error"}
    # the only error left is the annotation, judged at the default (latest) Kueue version
    assert errors == {("clusters/staging/train.yaml", "KQ201")}
    warned = {(path, code) for path, code, severity in found if severity == "warning"}
    assert ("clusters/prod/jobs/typo.yaml", "KQ205") in warned     # not declared complete
    assert ("clusters/prod/jobs/web.yaml", "KQ203") in warned      # two Configurations: unknown


def test_a_scope_never_resolves_against_another(cli, repo):
    # prod's LocalQueue user-queue must not satisfy the Volcano sample in the tutorials
    found = _run(cli, repo)
    assert not any(path.startswith("tutorials/volcano") for path, _, _ in found)
    # and a tutorial queue does not rescue prod's typo, even with the same name
    (repo / "tutorials" / "gke" / "typo-queue.yaml").write_text(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: user-queu\n"
        "  namespace: ml\nspec:\n  clusterQueue: tutorial-cq\n")
    assert ("clusters/prod/jobs/typo.yaml", "KQ205", "error") in _run(cli, repo)


def test_a_pre_commit_run_on_one_file_agrees_with_the_whole_run(cli, repo):
    whole = [f for f in _run(cli, repo) if f[0] == "clusters/prod/jobs/typo.yaml"]
    proc = cli("check", "--format", "json", "--config", str(repo / ".kueuelint.yaml"), "--context",
               str(repo), str(repo / "clusters/prod/jobs/typo.yaml"))
    one = [(str(Path(f["file"]).relative_to(repo)), f["code"], f["severity"])
           for f in json.loads(proc.stdout)["findings"]]
    assert one == whole


def test_scope_of_matches_folders_and_globs(tmp_path):
    config = from_mapping({"scopes": {"prod": {"paths": ["clusters/prod/"]},
                                      "staging": {"paths": ["clusters/staging/**/*.yaml"]}}})
    config.root = tmp_path
    assert scope_of(str(tmp_path / "clusters/prod/a/job.yaml"), config) == "prod"
    assert scope_of(str(tmp_path / "clusters/staging/x/q.yaml"), config) == "staging"
    assert scope_of(str(tmp_path / "clusters/production/q.yaml"), config) == DEFAULT_SCOPE
    assert scope_of("-", config) == DEFAULT_SCOPE


def test_split_gives_each_scope_its_files_and_own_context(tmp_path):
    config = from_mapping({"require-complete": False, "kueue-version": "0.18", "scopes": {
        "prod": {"paths": ["prod/"], "context": ["shared/"], "require-complete": True}}})
    config.root = tmp_path
    files = [str(tmp_path / p) for p in ("prod/job.yaml", "other/job.yaml")]
    context = [str(tmp_path / p) for p in ("shared/queues.yaml", "prod/queues.yaml")]
    parts = {part.name: part for part in split(files, context, str, config)}
    assert parts["prod"].checked == [files[0]] and parts["prod"].complete
    assert set(parts["prod"].context) == set(context)
    assert parts[DEFAULT_SCOPE].checked == [files[1]]
    assert parts[DEFAULT_SCOPE].context == [context[0]]       # shared/ lies in no scope
    assert parts["prod"].kueue_version == parts[DEFAULT_SCOPE].kueue_version == (0, 18)


@pytest.mark.parametrize("scopes,message", [
    ({"prod": {"path": ["prod/"]}}, "did you mean 'paths'"),
    ({"prod": {}}, "needs paths"),
    ({"prod": {"paths": ["p/"], "kueue-version": "0.42"}}, "not a version kueuelint knows"),
    ({"prod": {"paths": ["p/"], "require-complete": "yes"}}, "true or false"),
])
def test_bad_scopes_are_configuration_errors(scopes, message):
    with pytest.raises(ConfigError, match=message):
        from_mapping({"scopes": scopes})


def test_a_missing_scope_context_is_a_usage_error(cli, repo):
    (repo / ".kueuelint.yaml").write_text("scopes:\n  prod:\n    paths: [clusters/prod/]\n"
                                          "    context: [clusters/prod-queues/]\n")
    proc = cli("check", "--config", str(repo / ".kueuelint.yaml"), str(repo))
    assert proc.returncode == 2 and "does not exist" in proc.stderr


CONFIG_MAP = """apiVersion: v1
kind: ConfigMap
metadata:
  name: kueue-manager-config
  namespace: kueue-system
data:
  controller_manager_config.yaml: |
    apiVersion: config.kueue.x-k8s.io/v1beta2
    kind: Configuration
    manageJobsWithoutQueueName: {manage}
"""


def _inventory(tmp_path, *texts):
    from helpers_load import load_objects

    from kueuelint.index.inventory import Inventory

    paths = []
    for number, text in enumerate(texts):
        path = tmp_path / f"c{number}.yaml"
        path.write_text(text)
        paths.append(str(path))
    return Inventory(load_objects(*paths))


def test_two_different_kueue_configurations_mean_none_is_known(tmp_path):
    inventory = _inventory(tmp_path, CONFIG_MAP.format(manage="true"), CONFIG_MAP.format(manage="false"))
    assert inventory.kueue_configuration() is None
    assert len(inventory.kueue_configurations()) == 2


def test_the_same_configuration_twice_is_known(tmp_path):
    inventory = _inventory(tmp_path, CONFIG_MAP.format(manage="true"), CONFIG_MAP.format(manage="true"))
    assert inventory.kueue_configuration()["manageJobsWithoutQueueName"] is True


def test_a_hook_run_reads_only_the_context_of_its_files_scopes(tmp_path):
    from kueuelint.index.scopes import wanted_context

    config = from_mapping({"scopes": {"prod": {"paths": ["prod/"], "context": ["shared/"]},
                                      "staging": {"paths": ["staging/"]}}})
    config.root = tmp_path
    wanted = wanted_context([str(tmp_path / "prod/job.yaml")], config)
    assert wanted(str(tmp_path / "prod/queues.yaml")) and wanted(str(tmp_path / "shared/q.yaml"))
    assert not wanted(str(tmp_path / "staging/queues.yaml"))
    assert not wanted(str(tmp_path / "tutorials/x.yaml"))      # the default scope has no changed file
    assert wanted_context([], from_mapping({}))("anything.yaml")   # no scopes: everything counts


def test_parallel_workers_judge_each_scope_as_one_process_does(repo, monkeypatch):
    from kueuelint import pipeline
    from kueuelint.checks import parallel
    from kueuelint.config import load_config

    monkeypatch.setattr(parallel, "MIN_FILES_PER_WORKER", 1)
    config = load_config(str(repo / ".kueuelint.yaml"))
    rules = pipeline.load_rules(config)

    def found(jobs):
        result = pipeline.run_check([str(repo)], config, rules, jobs=jobs)
        assert result.internal_error is None
        return [(f.location.path, f.location.line, f.code, str(f.severity), f.message) for f in result.findings]

    serial = found(1)
    assert ("KQ205", "error") in {(code, sev) for _, _, code, sev, _ in serial}
    assert found(2) == serial
