"""The on-disk memory of parsed rule files: reused while a file is unchanged, never trusted blindly."""

import os
from pathlib import Path

import pytest

from kueuelint.checks.registry import RuleFileError, builtin_rules_dir, load_rule_dirs
from kueuelint.checks.rule_index import rule_file_data

RULE = """code: KQ901
name: local-rule
severity: warning
kinds: [batch/Job]
summary: {summary}
message: local
python: os.path:join
"""


@pytest.fixture
def cache_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("KUEUELINT_NO_CACHE", raising=False)
    return tmp_path / "cache" / "kueuelint"


def _rules_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "rules"
    directory.mkdir()
    for number in (1, 2):
        (directory / f"KQ90{number}-r.yaml").write_text(f"value: {number}\n")
    return directory


def _counting_parser(calls: list):
    def parse(path: Path):
        calls.append(path.name)
        return {"text": path.read_text()}
    return parse


def test_unchanged_files_are_not_parsed_again(cache_home, tmp_path):
    paths = sorted(_rules_dir(tmp_path).iterdir())
    calls: list = []
    first = rule_file_data(paths, _counting_parser(calls))
    second = rule_file_data(paths, _counting_parser(calls))
    assert first == second == [{"text": "value: 1\n"}, {"text": "value: 2\n"}]
    assert calls == ["KQ901-r.yaml", "KQ902-r.yaml"]
    assert len(list(cache_home.glob("rules-*.marshal"))) == 1


def test_a_changed_file_is_parsed_again_alone(cache_home, tmp_path):
    paths = sorted(_rules_dir(tmp_path).iterdir())
    rule_file_data(paths, _counting_parser([]))
    paths[1].write_text("value: changed, longer\n")
    calls: list = []
    values = rule_file_data(paths, _counting_parser(calls))
    assert calls == ["KQ902-r.yaml"]
    assert values[1] == {"text": "value: changed, longer\n"}


@pytest.mark.parametrize("damage", [lambda blob: b"\x00garbage", lambda blob: blob[:len(blob) // 2]],
                         ids=["garbage", "cut short"])
def test_a_corrupt_cache_file_costs_only_a_parse(cache_home, tmp_path, damage):
    paths = sorted(_rules_dir(tmp_path).iterdir())
    rule_file_data(paths, _counting_parser([]))
    for cached in cache_home.glob("rules-*.marshal"):
        cached.write_bytes(damage(cached.read_bytes()))
    calls: list = []
    assert rule_file_data(paths, _counting_parser(calls))[0] == {"text": "value: 1\n"}
    assert len(calls) == 2


def test_no_cache_when_disabled(cache_home, tmp_path, monkeypatch):
    monkeypatch.setenv("KUEUELINT_NO_CACHE", "1")
    paths = sorted(_rules_dir(tmp_path).iterdir())
    calls: list = []
    rule_file_data(paths, _counting_parser(calls))
    rule_file_data(paths, _counting_parser(calls))
    assert len(calls) == 4
    assert not cache_home.exists()


def test_builtin_rules_are_the_same_from_the_cache(cache_home):
    fresh = load_rule_dirs([builtin_rules_dir()])
    cached = load_rule_dirs([builtin_rules_dir()])
    assert list(cached) == list(fresh)
    assert all(cached[code].meta == fresh[code].meta and cached[code].cel == fresh[code].cel
               for code in fresh)


def test_an_edited_rule_file_is_read_again(cache_home, tmp_path):
    directory = tmp_path / "own-rules"
    directory.mkdir()
    rule_file = directory / "KQ901-local-rule.yaml"
    rule_file.write_text(RULE.format(summary="first"))
    assert load_rule_dirs([directory])["KQ901"].meta.summary == "first"
    rule_file.write_text(RULE.format(summary="second, edited"))
    assert load_rule_dirs([directory])["KQ901"].meta.summary == "second, edited"


def test_a_broken_rule_file_is_reported_even_after_a_cached_run(cache_home, tmp_path):
    directory = tmp_path / "own-rules"
    directory.mkdir()
    rule_file = directory / "KQ901-local-rule.yaml"
    rule_file.write_text(RULE.format(summary="fine"))
    load_rule_dirs([directory])
    rule_file.write_text("code: [unclosed\n")
    stat = rule_file.stat()
    os.utime(rule_file, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    with pytest.raises(RuleFileError, match="KQ901-local-rule.yaml: cannot read rule file"):
        load_rule_dirs([directory])
