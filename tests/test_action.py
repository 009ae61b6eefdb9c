"""The composite GitHub Action (action.yml): its shell steps run here as the runner would run
them, with the inputs as environment, GITHUB_PATH and GITHUB_OUTPUT honoured; the steps that
use other actions (setup-python, upload-sarif) are only checked for their wiring."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import jsonschema
import pytest
import yaml

from conftest import REPO

pytestmark = pytest.mark.slow
ACTION = yaml.safe_load((REPO / "action.yml").read_text())
SARIF_SCHEMA = REPO / "tests" / "data" / "schemas" / "sarif-schema-2.1.0.json"
EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


class Runner:
    """Just enough of a GitHub runner for a composite action's shell steps."""

    def __init__(self, workspace, temp, inputs: dict[str, str], action_ref: str = "main"):
        defaults = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
        unknown = set(inputs) - set(defaults)
        assert not unknown, unknown
        self.inputs = {**defaults, **inputs}
        self.workspace, self.temp = workspace, temp
        self.github = {"action_path": str(REPO), "action_ref": action_ref}
        self.outputs: dict[str, dict[str, str]] = {}
        self.path: list[str] = []

    def value(self, expression: str) -> str:
        head, _, rest = expression.partition(".")
        if head == "inputs":
            return self.inputs[rest]
        if head == "github":
            return self.github[rest]
        if head == "steps":
            step, _, name = rest.partition(".outputs.")
            return self.outputs.get(step, {}).get(name, "")
        raise AssertionError(f"unexpected expression {expression}")

    def expand(self, text: str) -> str:
        return EXPRESSION.sub(lambda m: self.value(m.group(1)), str(text))

    def condition(self, text: str) -> bool:
        python = re.sub(r"\b(inputs|steps|github)\.[\w.-]+", lambda m: repr(self.value(m.group(0))), text)
        return bool(eval(python.replace("&&", " and ").replace("||", " or ")))  # noqa: S307 - our own file

    def run_step(self, step: dict) -> subprocess.CompletedProcess:
        assert "${{" not in step["run"], "inputs go through env:, never into the script text"
        output, path_file = self.temp / "output", self.temp / "path"
        output.write_text("")
        path_file.write_text("")
        env = {**os.environ, "RUNNER_TEMP": str(self.temp), "GITHUB_OUTPUT": str(output),
               "GITHUB_PATH": str(path_file), "GITHUB_WORKSPACE": str(self.workspace),
               "PATH": os.pathsep.join([*self.path, os.environ["PATH"]]), "KUEUELINT_NO_CACHE": "1"}
        env.pop("VIRTUAL_ENV", None)
        env.update({name: self.expand(value) for name, value in step.get("env", {}).items()})
        assert step["shell"] == "bash"
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step["run"]],
                              cwd=self.workspace, env=env, capture_output=True, text=True, timeout=900)
        self.path = [line for line in path_file.read_text().splitlines() if line] + self.path
        if "id" in step:
            pairs = (line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
            self.outputs[step["id"]] = dict(pairs)
        return proc


def _step(name: str) -> dict:
    return next(step for step in ACTION["runs"]["steps"] if step.get("name") == name)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The install step, run once: a venv in RUNNER_TEMP with the action's own code."""
    temp = tmp_path_factory.mktemp("runner")
    runner = Runner(temp, temp, {}, action_ref="v9.9.9")
    proc = runner.run_step(_step("Install kueuelint"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return runner, proc


def _run_action(installed, tmp_path, inputs: dict[str, str]) -> tuple[Runner, list]:
    installer, _ = installed
    workspace = tmp_path / "repo"
    shutil.copytree(REPO / "fixtures" / "examples", workspace)
    runner = Runner(workspace, tmp_path, inputs)
    runner.path = installer.path
    results = [runner.run_step(_step("Check"))]
    results.append(runner.run_step(_step("Result")))
    return runner, results


def test_the_action_names_its_version_after_its_tag(installed):
    runner, proc = installed
    assert proc.stdout.strip().endswith("kueuelint 9.9.9")
    assert any(entry.endswith("kueuelint-venv/bin") for entry in runner.path)


def test_findings_become_annotations_and_a_valid_sarif_report_to_upload(installed, tmp_path):
    runner, (check, result) = _run_action(installed, tmp_path, {"paths": "jobs/\nqueues/"})
    assert runner.outputs["check"]["exit-code"] == "1", check.stderr
    assert "::error file=jobs/" in check.stdout
    sarif = json.loads((runner.workspace / "kueuelint.sarif").read_text())
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(sarif)
    assert sarif["runs"][0]["results"]
    upload = next(s for s in ACTION["runs"]["steps"] if s.get("name") == "Upload SARIF")
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert runner.condition(upload["if"]) is True
    assert runner.expand(upload["with"]["sarif_file"]) == "kueuelint.sarif"
    assert result.returncode == 1           # the job fails after the upload


def test_config_args_and_a_clean_run(installed, tmp_path):
    (tmp_path / "cfg.yaml").write_text("ignore: [KQ]\n")
    runner, (check, result) = _run_action(installed, tmp_path, {
        "config": str(tmp_path / "cfg.yaml"), "args": "--fail-on warning", "upload-sarif": "false",
        "sarif-file": "report.sarif"})
    assert runner.outputs["check"]["exit-code"] == "0", check.stdout + check.stderr
    assert "::error" not in check.stdout and result.returncode == 0
    assert (runner.workspace / "report.sarif").is_file()
    upload = next(s for s in ACTION["runs"]["steps"] if s.get("name") == "Upload SARIF")
    assert runner.condition(upload["if"]) is False


def test_a_mistyped_option_fails_the_job(installed, tmp_path):
    runner, (check, result) = _run_action(installed, tmp_path, {"args": "--fail-onn warning"})
    assert runner.outputs["check"]["exit-code"] == "2"
    assert result.returncode == 2


def test_setup_python_comes_first_and_every_input_is_used():
    steps = ACTION["runs"]["steps"]
    assert ACTION["runs"]["using"] == "composite"
    assert steps[0]["uses"].startswith("actions/setup-python@")
    text = (REPO / "action.yml").read_text()
    for name in ACTION["inputs"]:
        assert f"inputs.{name}" in text, name
