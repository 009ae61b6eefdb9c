"""Configuration files: discovery, validation with suggestions, and their effect on a run."""

from __future__ import annotations

import pytest

from kueuelint.config import Config, ConfigError, from_mapping, load_config
from kueuelint.findings import Severity


def test_pyproject_table_is_found_up_the_tree(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.kueuelint]\nignore = ["KQ102"]\nkueue-version = "0.20"\n')
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    config = load_config(start=nested)
    assert config.ignore == ("KQ102",)
    assert config.kueue_version == (0, 20)
    assert config.root == tmp_path


def test_pyproject_without_our_table_is_skipped(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "pyproject.toml").write_text("[tool.black]\n")
    assert load_config(start=tmp_path / "sub").source is None


def test_yaml_config_and_options(tmp_path):
    path = tmp_path / ".kueuelint.yaml"
    path.write_text("select: [KQ1, KQ2]\nseverity: {KQ102: error}\nper-file-ignores: {'legacy/*': [KQ1]}\n"
                    "context: [queues/]\nrequire-complete: true\nmax-file-bytes: 1000\n")
    config = load_config(str(path))
    assert config.severity == {"KQ102": Severity.ERROR}
    assert config.per_file_ignores == {"legacy/*": ("KQ1",)}
    assert config.require_complete and config.limits.max_file_bytes == 1000


def test_unknown_key_suggests_the_right_one():
    with pytest.raises(ConfigError, match="did you mean 'per-file-ignores'"):
        from_mapping({"per-file-ignore": {}})


@pytest.mark.parametrize("raw,match", [
    ({"severity": {"KQ1": "fatal"}}, "unknown severity"),
    ({"kueue-version": "latest-ish"}, "not a version"),
    ({"cel-engine": "rust"}, "must be one of"),
    ({"select": 3}, "list of strings"),
    ({"types": {"*.yaml": "helm"}}, "must be one of"),
])
def test_invalid_values_are_usage_errors(raw, match):
    with pytest.raises(ConfigError, match=match):
        from_mapping(raw)


def test_selection_prefers_the_longest_prefix():
    config = Config(select=("KQ",), ignore=("KQ1",))
    assert config.is_selected("KQ201") and not config.is_selected("KQ101")
    config = Config(select=("KQ", "KQ101"), ignore=("KQ1",))
    assert config.is_selected("KQ101") and not config.is_selected("KQ102")


def test_every_input_bound_can_be_set(tmp_path):
    config = from_mapping({"max-nodes": 10, "max-file-nodes": 20, "max-depth": 5, "max-documents": 3})
    limits = config.limits
    assert (limits.max_nodes, limits.max_file_nodes, limits.max_depth, limits.max_documents) == (10, 20, 5, 3)
    with pytest.raises(ConfigError, match="'max-depth' must be a positive integer"):
        from_mapping({"max-depth": 0})


def test_a_configured_depth_bound_is_applied(cli, tmp_path):
    (tmp_path / ".kueuelint.yaml").write_text("max-depth: 3\n")
    (tmp_path / "deep.yaml").write_text("a: {b: {c: {d: {e: 1}}}}\n")
    proc = cli("check", "--no-source", "deep.yaml", cwd=tmp_path)
    assert proc.returncode == 1
    assert "KQ006" in proc.stdout and "deeper than 3 levels" in proc.stdout
