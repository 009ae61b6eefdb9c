"""Rule options: declared with a schema in the rule file, set in the configuration, checked at
load time, and read by CEL rules as ``params``."""

from __future__ import annotations

import textwrap

import pytest

from kueuelint import pipeline
from kueuelint.checks.registry import (RuleOptionsError, builtin_rules_dir, load_rule_dirs, options_schema,
                                       validate_rule_options)
from kueuelint.config import ConfigError, from_mapping

ALLOWED_LABEL_RULE = """\
code: KQ950
name: allowed-team
severity: error
summary: Jobs name an allowed team.
kinds: [batch/Job]
message: "{object} names team {team}, which is not allowed"
options: {teams: [ml], strict: false, limit: 2}
options-schema:
  type: object
  properties:
    teams: {type: array, items: {type: string}}
    strict: {type: boolean}
    limit: {type: integer}
cel:
  violations: >-
    cel.bind(labels, has(object.metadata.labels) ? object.metadata.labels : {},
      'team' in labels && !(labels['team'] in params.teams)
        ? [{'path': "metadata.labels['team']", 'args': {'team': labels['team']}}]
        : (params.strict && !('team' in labels) ? [{'path': 'metadata', 'args': {'team': '(none)'}}] :
           (size(labels) > params.limit ? [{'path': 'metadata', 'args': {'team': 'too many labels'}}] : [])))
docs: {what: w, why: y, fix: f}
"""

JOBS = """\
apiVersion: batch/v1
kind: Job
metadata: {name: a, namespace: ns, labels: {team: ml}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: b, namespace: ns, labels: {team: web}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: c, namespace: ns}
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "KQ950-allowed-team.yaml").write_text(ALLOWED_LABEL_RULE)
    (tmp_path / "jobs.yaml").write_text(JOBS)
    return tmp_path


def write_config(project, text: str) -> None:
    (project / ".kueuelint.yaml").write_text("rule-dirs: [policies/]\nselect: [KQ950]\n" + textwrap.dedent(text))


def findings(cli, project):
    proc = cli("check", "--format", "json", "jobs.yaml", cwd=project)
    import json

    assert proc.returncode in (0, 1), proc.stderr
    return [(f["object"]["name"], f["message"]) for f in json.loads(proc.stdout)["findings"]]


def test_defaults_apply_when_nothing_is_configured(cli, project):
    write_config(project, "")
    assert findings(cli, project) == [("b", "Job ns/b names team web, which is not allowed")]


def test_configured_options_reach_the_expression_as_params(cli, project):
    write_config(project, "options: {KQ950: {teams: [ml, web], strict: true}}\n")
    assert findings(cli, project) == [("c", "Job ns/c names team (none), which is not allowed")]


def test_the_older_rules_table_still_sets_options(cli, project):
    write_config(project, "rules: {KQ950: {teams: [web]}}\n")
    assert [name for name, _ in findings(cli, project)] == ["a"]


@pytest.mark.parametrize("options, expected", [
    ("{KQ950: {team: [ml]}}", "option options.KQ950.team: unknown option of KQ950; did you mean 'teams'?"),
    ("{KQ950: {teams: ml}}", "option options.KQ950.teams: 'ml' is not of type 'array'"),
    ("{KQ950: {teams: [1]}}", "option options.KQ950.teams.0: 1 is not of type 'string'"),
    ("{KQ950: {strict: 'yes'}}", "option options.KQ950.strict: 'yes' is not of type 'boolean'"),
    ("{KQ905: {x: 1}}", "option options.KQ905.x: KQ905 takes no options"),
    ("{KQ959: {teams: []}}", "options for KQ959, which is not a rule; did you mean KQ950?"),
    ("{KQ852: {min-provision-timeout: soon}}",
     "option options.KQ852.min-provision-timeout: 'soon' is not of type 'integer'"),
])
def test_bad_options_are_a_usage_error_naming_the_key(cli, project, options, expected):
    write_config(project, f"options: {options}\n")
    proc = cli("check", "jobs.yaml", cwd=project)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert expected in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_options_must_be_a_mapping_per_code():
    with pytest.raises(ConfigError, match="option 'options' 'KQ950' must be a mapping"):
        from_mapping({"options": {"KQ950": ["ml"]}})


def test_a_default_without_a_schema_entry_is_a_rule_file_error(tmp_path):
    broken = ALLOWED_LABEL_RULE.replace("limit: 2}", "limit: 2, extra: 1}")
    (tmp_path / "KQ950-allowed-team.yaml").write_text(broken)
    with pytest.raises(Exception, match="option 'extra' has a default but no schema"):
        load_rule_dirs([tmp_path])


def test_every_builtin_rule_default_satisfies_its_schema():
    from kueuelint.checks.registry import schema_problem

    rules = load_rule_dirs([builtin_rules_dir()])
    with_options = [rule for rule in rules.values() if rule.options or rule.options_schema]
    assert len(with_options) >= 8
    for rule in with_options:
        assert schema_problem(options_schema(rule), rule.options) is None, rule.meta.code


def test_validation_runs_in_load_rules_for_every_command():
    config = from_mapping({"options": {"KQ852": {"min-provision-timeout": 30}}})
    assert "KQ852" in pipeline.load_rules(config)
    config = from_mapping({"options": {"KQ852": {"min-provision-timout": 30}}})
    with pytest.raises(RuleOptionsError, match="did you mean 'min-provision-timeout'"):
        pipeline.load_rules(config)


def test_a_null_default_accepts_any_value():
    rules = load_rule_dirs([builtin_rules_dir()])
    validate_rule_options(rules, {"KQ810": {"namespace": "team-a"}})
