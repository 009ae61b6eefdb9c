"""The compiled-program cache: in-process reuse, disk round trip, and damaged files."""

from __future__ import annotations

import pytest

from kueuelint.cel import CelCompileError, available_engines, get_engine
from kueuelint.cel import cache as cel_cache
from kueuelint.cel.cache import MAGIC, ProgramCache, decode, default_directory, encode

RULE = "self.spec.resourceGroups.all(rg, rg.flavors.size() > 0)"
VALUES = {"self": {"spec": {"resourceGroups": [{"flavors": [1]}, {"flavors": []}]}}}
CACHING_ENGINES = [n for n in available_engines() if n == "cel-expr-python"]


class CountingEngine:
    """Delegates to a real engine, counting compile calls."""

    def __init__(self, engine):
        self._engine = engine
        self.compiled = 0

    def __getattr__(self, name):
        return getattr(self._engine, name)

    def compile(self, source, variables):
        self.compiled += 1
        return self._engine.compile(source, variables)


@pytest.fixture(params=available_engines())
def engine(request):
    return CountingEngine(get_engine(request.param))


@pytest.fixture(params=CACHING_ENGINES)
def caching_engine(request):
    return CountingEngine(get_engine(request.param))


def _result(engine, program):
    return program.evaluate(engine.activation(VALUES))


def test_in_process_compiles_once(engine, tmp_path):
    cache = ProgramCache(engine, tmp_path)
    first = cache.get(RULE, ["self"])
    assert cache.get(RULE, ("self",)) is first
    assert engine.compiled == 1
    assert _result(engine, first) is False


def test_compile_error_is_remembered(engine, tmp_path):
    cache = ProgramCache(engine, tmp_path)
    for _ in range(2):
        with pytest.raises(CelCompileError):
            cache.get("self.a.all(x, x >", ["self"])
    assert engine.compiled == 1


def test_disk_round_trip(caching_engine, tmp_path):
    writer = ProgramCache(caching_engine, tmp_path)
    expected = _result(caching_engine, writer.get(RULE, ["self"]))
    writer.save()
    assert writer.path.is_file()
    assert not list(tmp_path.glob("*.tmp")), "temp file left behind"

    reader_engine = CountingEngine(caching_engine._engine)
    reader = ProgramCache(reader_engine, tmp_path)
    program = reader.get(RULE, ["self"])
    assert reader_engine.compiled == 0
    assert program.source == RULE
    assert _result(reader_engine, program) == expected


def test_variables_are_part_of_the_key(caching_engine, tmp_path):
    writer = ProgramCache(caching_engine, tmp_path)
    writer.get(RULE, ["self"])
    writer.save()
    reader = ProgramCache(caching_engine, tmp_path)
    reader.get(RULE, ["self", "oldSelf"])
    assert caching_engine.compiled == 2


def test_processes_merge_their_entries(caching_engine, tmp_path):
    for rule in ("1 + 1", "2 + 2"):
        cache = ProgramCache(caching_engine, tmp_path)
        cache.get(rule, [])
        cache.save()
    reader = ProgramCache(caching_engine, tmp_path)
    assert [reader.get(r, []).evaluate(caching_engine.activation({})) for r in ("1 + 1", "2 + 2")] == [2, 4]
    assert caching_engine.compiled == 2


def _damage(data: bytes) -> list[bytes]:
    middle = len(data) // 2
    flipped = data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1 :]
    return [b"", b"garbage", MAGIC, data[:-5], flipped, data + b"x", data.replace(MAGIC, b"X" * len(MAGIC))]


def test_damaged_file_only_costs_a_recompile(caching_engine, tmp_path):
    writer = ProgramCache(caching_engine, tmp_path)
    writer.get(RULE, ["self"])
    writer.save()
    good = writer.path.read_bytes()
    for damaged in _damage(good):
        writer.path.write_bytes(damaged)
        counting = CountingEngine(caching_engine._engine)
        cache = ProgramCache(counting, tmp_path)
        assert _result(counting, cache.get(RULE, ["self"])) is False
        assert counting.compiled == 1
        cache.save()
        assert decode(writer.path.read_bytes(), cache._header()), "the rewrite must be valid"


def test_undeserializable_blob_is_recompiled(caching_engine, tmp_path):
    cache = ProgramCache(caching_engine, tmp_path)
    key = cache._key(RULE, ("self",))
    cache.path.write_bytes(encode({key: b"not a program"}, cache._header()))
    assert _result(caching_engine, cache.get(RULE, ["self"])) is False
    assert caching_engine.compiled == 1


def test_other_engine_version_is_ignored(caching_engine, tmp_path):
    cache = ProgramCache(caching_engine, tmp_path)
    key = cache._key(RULE, ("self",))
    blob = caching_engine.serialize(caching_engine.compile(RULE, ["self"]))
    cache.path.write_bytes(encode({key: blob}, b"cel-expr-python 0.0.1 other\n"))
    assert decode(cache.path.read_bytes(), cache._header()) == {}


class OtherBuild(CountingEngine):
    """The same engine as another kueuelint version sees it: other declarations."""

    fingerprint = "another-kueuelint-version"


def test_two_versions_in_turn_keep_each_others_programs(caching_engine, tmp_path):
    other = OtherBuild(caching_engine._engine)
    for engine in (caching_engine, other, caching_engine, other):
        cache = ProgramCache(engine, tmp_path)
        assert _result(engine, cache.get(RULE, ["self"])) is False
        cache.save()
    assert (caching_engine.compiled, other.compiled) == (1, 1)
    assert len(list(tmp_path.glob("cel-*.bin"))) == 2


def test_unwritable_directory_is_silent(caching_engine, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cache = ProgramCache(caching_engine, blocker / "kueuelint")
    cache.get(RULE, ["self"])
    cache.save()  # must not raise
    assert cache.path is None


def test_no_directory_means_memory_only(engine):
    cache = ProgramCache(engine, None)
    cache.get(RULE, ["self"])
    cache.save()
    assert cache.path is None


def test_trims_to_entries_in_use(caching_engine, tmp_path, monkeypatch):
    monkeypatch.setattr(cel_cache, "MAX_ENTRIES", 2)
    old = ProgramCache(caching_engine, tmp_path)
    for rule in ("1", "2", "3"):
        old.get(rule, [])
    old.save()
    current = ProgramCache(caching_engine, tmp_path)
    current.get("1", [])
    current.get("4", [])
    current.save()
    assert len(decode(current.path.read_bytes(), current._header())) == 2


def test_default_directory(monkeypatch, tmp_path):
    monkeypatch.delenv("KUEUELINT_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_directory() == tmp_path / "xdg" / "kueuelint"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_directory() == tmp_path / ".cache" / "kueuelint"
    monkeypatch.setenv("KUEUELINT_NO_CACHE", "1")
    assert default_directory() is None


def test_compile_cached_uses_default_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("KUEUELINT_NO_CACHE", raising=False)
    monkeypatch.setattr(cel_cache, "_default_caches", {})
    monkeypatch.setattr(cel_cache.atexit, "register", lambda fn: None)
    program = cel_cache.compile_cached("1 + 2", [])
    assert program is cel_cache.compile_cached("1 + 2", [])
    assert program.evaluate(get_engine().activation({})) == 3
