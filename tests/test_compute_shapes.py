from __future__ import annotations

import pytest

from test_compute_support import load


def kinds(text: str, path: str = "input.yaml", file_type: str | None = None) -> list[str]:
    return [obj.key for obj in load(text, path, file_type)]


def test_anyscale_by_shape_current_and_legacy():
    assert kinds("head_node: {instance_type: m5.2xlarge}\n") == ["anyscale.com/ComputeConfig"]
    assert kinds("head_node_type: {name: h, instance_type: m5}\nworker_node_types: []\n") == [
        "anyscale.com/ComputeConfig"]


def test_anyscale_by_file_name_even_without_markers():
    assert kinds("cloud: my-cloud\n", "configs/compute_config_gpu.yaml") == ["anyscale.com/ComputeConfig"]


def test_inline_compute_config_in_job_yaml():
    text = "name: job\nentrypoint: python x.py\ncompute_config:\n  head_node: {instance_type: a}\n"
    assert kinds(text) == ["anyscale.com/ComputeConfig"]
    # a compute config named by reference is not inline
    assert kinds("name: job\nentrypoint: python x.py\ncompute_config: my-config:1\n") == []


def test_skypilot_task_and_config_by_shape():
    assert kinds("resources: {cpus: 2}\nrun: echo hi\n") == ["skypilot.co/Task"]
    assert kinds("kubernetes:\n  kueue: {local_queue_name: q}\n") == ["skypilot.co/Config"]
    assert kinds("workspaces:\n  ws:\n    kubernetes: {namespace: x}\n") == ["skypilot.co/Config"]


def test_skypilot_config_by_file_name():
    assert kinds("kubernetes: {}\n", "home/.sky/config.yaml") == ["skypilot.co/Config"]
    assert kinds("allowed_clouds: [kubernetes]\n", "project/.sky.yaml") == ["skypilot.co/Config"]
    assert kinds("server: {port: 8080}\n", "app/config.yaml") == []


@pytest.mark.parametrize("forced,key", [
    ("anyscale-compute-config", "anyscale.com/ComputeConfig"),
    ("skypilot-config", "skypilot.co/Config"),
    ("skypilot-task", "skypilot.co/Task"),
])
def test_forced_type_wins(forced, key):
    assert kinds("foo: bar\n", file_type=forced) == [key]


@pytest.mark.parametrize("text", [
    "name: ci\njobs:\n  build:\n    runs-on: ubuntu-latest\n",              # GitHub Actions
    "services:\n  web:\n    image: nginx\n",                                # docker compose
    "run: make\n",                                                           # a bare run key
    "workloads:\n  instanceTypes: {defaults: {}}\n",                         # Helm values
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n",                      # has a kind
])
def test_other_yaml_is_not_claimed(text):
    assert all(not key.startswith(("anyscale", "skypilot")) for key in kinds(text))


def test_forced_manifest_type_turns_detection_off():
    assert kinds("head_node: {instance_type: a}\n", file_type="manifest") == []


def test_cli_type_option(cli, tmp_path):
    task = tmp_path / "job.yaml"
    task.write_text("resources:\n  cpu: 2\n")
    result = cli("check", "--type", "skypilot-task", str(task))
    assert "KQ850" in result.stdout and "did you mean 'cpus'" in result.stdout


def test_named_sky_yaml_is_judged_by_its_keys():
    assert kinds("resources: {cpus: 2}\nrun: x\n", "train.sky.yaml") == ["skypilot.co/Task"]
