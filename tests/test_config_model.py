"""The built-in model of the Kueue Configuration follows Kueue's Go types of the version claimed.

The field lists under tests/data/kueue-config-fields were derived from Kueue v0.19.2's
apis/config (see SOURCES.md there): a field Kueue accepts but the model lacks would make
kueuelint report a valid Configuration as broken (KQ110), and a field the model accepts but
Kueue lacks would pass a Configuration the controller refuses to start with.
"""

from __future__ import annotations

import types
import typing
from pathlib import Path

import pytest
from pydantic import BaseModel

from kueuelint.models import config as models

FIELDS = Path(__file__).parent / "data" / "kueue-config-fields"
MODELS = {"v1beta2": models.ConfigurationV1Beta2, "v1beta1": models.ConfigurationV1Beta1}


def _unwrap(annotation):
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
        else:
            return annotation


def model_paths(model: type[BaseModel], prefix: str = "") -> set[str]:
    found = set()
    for name, info in model.model_fields.items():
        path = prefix + (info.alias or name)
        found.add(path)
        inner = _unwrap(info.annotation)
        if typing.get_origin(inner) is list:
            inner, path = _unwrap(typing.get_args(inner)[0]), path + "[]"
        if isinstance(inner, type) and issubclass(inner, BaseModel) and inner.__module__ == models.__name__:
            found |= model_paths(inner, path + ".")
    return found


def kueue_paths(version: str) -> set[str]:
    return set((FIELDS / f"kueue-v0.19.2-{version}.txt").read_text().split())


@pytest.mark.parametrize("version", sorted(MODELS))
def test_every_field_of_kueues_configuration_is_in_the_model(version):
    missing = kueue_paths(version) - model_paths(MODELS[version])
    assert not missing, f"fields of Kueue's {version} Configuration the model lacks: {sorted(missing)}"


@pytest.mark.parametrize("version", sorted(MODELS))
def test_the_model_has_no_field_kueue_lacks(version):
    real = kueue_paths(version)
    # below a type of another Go package (LeaderElectionConfiguration, LabelSelector) the list
    # stops; the model may describe those types itself
    extra = {path for path in model_paths(MODELS[version]) - real
             if not any(path.startswith(leaf + ".") or path.startswith(leaf + "[].") for leaf in real)}
    assert not extra, f"fields the {version} model accepts that Kueue's Configuration lacks: {sorted(extra)}"


def test_the_field_lists_are_real_data():
    v1beta2 = kueue_paths("v1beta2")
    assert "resources.deviceClassMappings[].sources[].counter.driver" in v1beta2
    assert "queueVisibility" in kueue_paths("v1beta1") and "queueVisibility" not in v1beta2


def test_device_class_sources_validate(tmp_path, cli):
    config = tmp_path / "config.yaml"
    config.write_text(
        "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nresources:\n"
        "  deviceClassMappings:\n  - name: example.com/gpu\n    deviceClassNames: [gpu.example.com]\n"
        "    sources:\n    - counter: {name: memory, driver: gpu.example.com, deviceSelector: {}}\n")
    assert cli("check", "--select", "KQ110", str(config)).returncode == 0
    config.write_text(config.read_text().replace("counter:", "countr:"))
    proc = cli("check", "--select", "KQ110", str(config))
    assert proc.returncode == 1 and "countr" in proc.stdout
