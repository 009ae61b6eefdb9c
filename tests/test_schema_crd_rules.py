"""Every CEL rule in Kueue's CRDs has a passing and a failing fixture, on every CEL engine.

The test walks the CRDs (not the fixtures), so a CRD version with a new rule fails here as a
missing fixture until fixtures/schema/crd-rules/cases.py covers it.
"""

from __future__ import annotations

import glob
import os

import pytest
import yaml

from conftest import KUEUE_CRDS
from kueuelint.schema import crd
from kueuelint.schema.celrules import MISSING, sites_of
from kueuelint.schema.issues import CEL_RULE, CEL_UNSUPPORTED
from kueuelint.schema.sources import crd_index

CRD_DIR = str(KUEUE_CRDS)
FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "schema", "crd-rules")
ENGINES = ("cel-expr-python", "cel-python")



def _index():
    return crd_index(paths=[CRD_DIR])


def _sites():
    found = []
    for version in sorted(_index(), key=lambda v: (v.kind, v.version)):
        for number, site in enumerate(sites_of(version.schema), 1):
            found.append(pytest.param(version, site,
                                      id=f"{version.kind}-{version.version}-{number:02d}"))
    return found


def _fixtures() -> dict:
    table = {}
    for path in glob.glob(os.path.join(FIXTURES, "*.yaml")):
        with open(path, encoding="utf-8") as handle:
            case = yaml.safe_load(handle)
        table[(case["kind"], case["version"], case["path"], case["rule"])] = case
    return table


FIXTURE_TABLE = _fixtures()
SITES = _sites()


def _engine_or_skip(name: str) -> str:
    from kueuelint.cel.engine import available_engines

    if name not in available_engines():
        pytest.skip(f"{name} not installed")
    return name


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("version,site", SITES)
def test_rule_accepts_and_rejects(version, site, engine):
    engine = _engine_or_skip(engine)
    key = (version.kind, version.version, ".".join(site.schema_path), site.rule)
    case = FIXTURE_TABLE.get(key)
    assert case is not None, f"no fixture for {version.judge} rule at {key[2] or '<root>'}: " \
                             f"{site.rule}"
    old = case.get("old", MISSING)
    accepted, _ = crd.validate(version, case["pass"], old, engine=engine)
    assert accepted == [], f"pass fixture rejected: {[i.message for i in accepted]}"
    rejected, _ = crd.validate(version, case["fail"], old, engine=engine)
    assert not [i for i in rejected if i.code not in (CEL_RULE,)], \
        f"fail fixture breaks more than CEL rules: {[i.message for i in rejected]}"
    hits = [i for i in rejected if i.extra.get("rule") == site.rule]
    assert hits, f"rule did not reject the fail fixture; got {[i.message for i in rejected]}"
    assert all(_at_site(i.path, site.schema_path) for i in hits), \
        f"finding not at the rule's level {site.schema_path}: {[i.path for i in hits]}"
    assert CEL_UNSUPPORTED not in {i.code for i in rejected}


def _at_site(path: tuple, pattern: tuple) -> bool:
    """A concrete field path matches the rule's schema path ('[]' = any index, '{}' = any key)."""
    if len(path) != len(pattern):
        return False
    return all(p == q or (q == "[]" and isinstance(p, int)) or q == "{}"
               for p, q in zip(path, pattern))


def test_every_fixture_matches_a_rule():
    """Stale fixtures (rule text changed upstream) are reported too."""
    live = {(v.kind, v.version, ".".join(s.schema_path), s.rule)
            for v, s in (p.values for p in SITES)}
    stale = sorted(set(FIXTURE_TABLE) - live)
    assert not stale, f"fixtures for rules no longer in the CRDs: {stale}"


def test_rule_count():
    """The count the issue asks to report; update deliberately when the CRDs change."""
    assert len(SITES) == 75
    assert len({p.values[1].rule for p in SITES}) == 39


def test_committed_fixtures_match_cases(tmp_path):
    """fixtures/schema/crd-rules/*.yaml are generated from cases.py: regenerate and compare."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("crd_rules_generate",
                                                  os.path.join(FIXTURES, "_generate.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(CRD_DIR, str(tmp_path))
    fresh = {p.name: p.read_text() for p in tmp_path.glob("*.yaml")}
    committed = {os.path.basename(p): open(p, encoding="utf-8").read()
                 for p in glob.glob(os.path.join(FIXTURES, "*.yaml"))}
    assert fresh == committed, "run fixtures/schema/crd-rules/_generate.py and commit the result"
