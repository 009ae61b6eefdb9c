"""Strict-decoding parity: what the API server reads differently from what the file says."""

from __future__ import annotations

import pytest

from kueuelint.load.limits import Limits
from kueuelint.load.source import SourceFile, parse_text


def problems(text: str, kind: str = "yaml11-scalar"):
    loaded = parse_text(SourceFile("x.yaml", text), Limits())
    return loaded, [(p.line, p.column) for p in loaded.problems if p.kind == kind]


OBJECT = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n"


@pytest.mark.parametrize("scalar", ["yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON",
                                    "off", "Off", "OFF", "y", "Y", "n", "N"])
def test_word_booleans_are_reported_where_they_stand(scalar):
    _, found = problems(OBJECT + f"  country: {scalar}\n")
    assert found == [(5, 12)]


@pytest.mark.parametrize("scalar,value", [("0755", 493), ("012", 10), ("-017", -15), ("0_10", 8)])
def test_leading_zero_numbers_are_octal_and_reported(scalar, value):
    loaded, found = problems(OBJECT + f"  code: {scalar}\n")
    assert loaded.documents[0].data["data"]["code"] == value
    assert found == [(5, 9)]


@pytest.mark.parametrize("scalar", ["1:30", "10:00:00", "-1:30", "1:30.5"])
def test_base_60_numbers_stay_text_as_on_the_api_server_and_are_reported(scalar):
    loaded, found = problems(OBJECT + f"  at: {scalar}\n")
    assert loaded.documents[0].data["data"]["at"] == scalar
    assert found == [(5, 7)]


@pytest.mark.parametrize("scalar", ['"NO"', "'yes'", "true", "false", "True", "10", "0", "0.5",
                                    "1e3", "0x1F", "08", "v1.30", "!!str on", "|\n    on",
                                    "no-op", "yes please", "12:30pm"])
def test_quoted_canonical_and_ordinary_values_are_quiet(scalar):
    _, found = problems(OBJECT + f"  v: {scalar}\n")
    assert found == []


def test_permission_bits_are_meant_as_octal():
    _, found = problems(OBJECT.replace("data:\n", "") + "spec:\n  volumes:\n  - configMap:\n"
                        "      defaultMode: 0644\n      items: [{mode: 0755, path: p}]\n")
    assert found == []


def test_y_and_n_matter_only_to_the_api_servers_reader():
    # a SkyPilot or Anyscale config is read by PyYAML, where y and n are text
    _, found = problems("resources:\n  cloud: y\n  zone: n\n  spot: yes\n")
    assert found == [(4, 9)]


def test_keys_are_reported_once():
    loaded = parse_text(SourceFile("x.yaml", OBJECT + "  on: 1\n  y: 2\n"), Limits())
    kinds = [(p.kind, p.line) for p in loaded.problems]
    assert kinds == [("non-string-key", 5), ("yaml11-scalar", 6)]


def test_duplicate_and_non_string_keys_keep_their_positions():
    loaded = parse_text(SourceFile("x.yaml", OBJECT + "  a: x\n  a: w\n  1: z\n"), Limits())
    assert [(p.kind, p.line, p.column) for p in loaded.problems] == [
        ("duplicate-key", 6, 3), ("non-string-key", 7, 3)]


def test_cli_reports_kq007_as_a_warning(cli, tmp_path):
    (tmp_path / "cm.yaml").write_text(OBJECT + "  country: NO\n  zip: 0755\n")
    proc = cli("check", "--no-source", "-q", str(tmp_path / "cm.yaml"))
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert lines[0].endswith("cm.yaml:5:12: KQ007 [warning] NO is read as the boolean false (YAML 1.1); "
                             'quote it ("NO") if you mean the text, or write false (yaml11-scalar)')
    assert "0755" in lines[1] and "octal number 493" in lines[1]
