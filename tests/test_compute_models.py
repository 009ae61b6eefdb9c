from __future__ import annotations

import glob
import sys

import pytest
import yaml

from conftest import CORPUS
from kueuelint.models.anyscale import validate_compute_config
from kueuelint.models.skypilot import validate_sky_config, validate_sky_task

ANYSCALE_CORPUS = sorted(glob.glob(f"{CORPUS}/anyscale-templates/**/*.yaml", recursive=True)
                         + glob.glob(f"{CORPUS}/anyscale-templates/.claude/**/*.yaml", recursive=True))
SKY_TASKS = sorted(glob.glob(f"{CORPUS}/skypilot/examples/kueue/sky-*.yaml"))


@pytest.mark.parametrize("path", ANYSCALE_CORPUS)
def test_anyscale_corpus_validates(path):
    with open(path, encoding="utf-8") as handle:
        assert validate_compute_config(yaml.safe_load(handle)) == []


@pytest.mark.parametrize("path", SKY_TASKS)
def test_skypilot_corpus_tasks_validate(path):
    with open(path, encoding="utf-8") as handle:
        assert validate_sky_task(yaml.safe_load(handle)) == []


def messages(problems):
    return {path: message for path, message in problems}


def test_legacy_key_in_current_schema_suggests_new_name():
    found = messages(validate_compute_config({"head_node": {}, "worker_node_types": []}))
    assert "did you mean 'worker_nodes'" in found[("worker_node_types",)]
    found = messages(validate_compute_config({"head_node": {"instance_type": "a"},
                                              "worker_nodes": [{"max_workers": 3}]}))
    assert "did you mean 'max_nodes'" in found[("worker_nodes", 0, "max_workers")]


def test_legacy_file_validates_as_legacy():
    assert validate_compute_config({"head_node_type": {"name": "h", "instance_type": "m5"},
                                    "worker_node_types": [{"name": "w", "min_workers": 1}]}) == []


def test_type_errors_are_located():
    found = messages(validate_compute_config({"worker_nodes": [{"min_nodes": -1}],
                                              "head_node": {"labels": {"a": 1}}}))
    assert set(found) == {("worker_nodes", 0, "min_nodes"), ("head_node", "labels", "a")}


def test_skypilot_config_keys():
    assert validate_sky_config({"kubernetes": {"kueue": {"local_queue_name": "q", "admission_timeout": 60},
                                               "dws": {"enabled": True}},
                                "jobs": {"controller": {}}, "allowed_clouds": ["kubernetes"]}) == []
    found = messages(validate_sky_config({"kubernetes": {"custom_metadata": {"name": "x"}}}))
    assert ("kubernetes", "custom_metadata", "name") in found


def test_skypilot_task_override_limits():
    found = messages(validate_sky_task({"config": {"kubernetes": {"allowed_contexts": ["a"]}}}))
    assert ("config", "kubernetes", "allowed_contexts") in found


def test_pydantic_is_not_imported_by_the_shape_detector():
    import subprocess

    code = ("import sys; from kueuelint.identify import shapes; "
            "print('pydantic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
