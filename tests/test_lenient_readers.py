"""A duplicate key is an error where the reader refuses it, a warning where it does not."""

from __future__ import annotations

import json

KUSTOMIZATION = """apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
patches:
- path: first.yaml
patches:
- path: second.yaml
"""
CONFIGURATION = """apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: kueue-system
namespace: kueue
"""


def _duplicate_keys(cli, path):
    proc = cli("check", "--format", "json", "--select", "KQ002", str(path))
    return [(f["severity"], f["line"], f["message"]) for f in json.loads(proc.stdout)["findings"]]


def test_kustomize_keeps_the_last_value(cli, tmp_path):
    path = tmp_path / "kustomization.yaml"
    path.write_text(KUSTOMIZATION)
    assert _duplicate_keys(cli, path) == [
        ("warning", 5, "duplicate key 'patches'; kustomize keeps the last one and ignores the first")]


def test_the_same_mapping_elsewhere_is_still_an_error(cli, tmp_path):
    for name, text in (("overlay.yaml", KUSTOMIZATION), ("config.yaml", CONFIGURATION)):
        path = tmp_path / name
        path.write_text(text)
        [(severity, _, message)] = _duplicate_keys(cli, path)
        assert severity == "error" and "rejects duplicate fields" in message
