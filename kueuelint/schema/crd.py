"""CustomResourceDefinitions as validators: an index by group/kind/version, and the per-CRD
compiled state (JSON Schema validator, CEL programs) cached by the CRD's content hash so the
same CRD seen in several files, or runs, is prepared once.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Iterable

from kueuelint.schema import structural
from kueuelint.schema.celrules import MISSING, RuleRunner, cel_value, sites_of
from kueuelint.schema.issues import SchemaIssue

CRD_KEY = "apiextensions.k8s.io/CustomResourceDefinition"


@dataclass(eq=False)
class CrdVersion:
    group: str
    kind: str
    version: str
    crd_name: str
    schema: dict
    digest: str                 # content hash of the whole CRD (cache key)
    source: str = ""
    served: bool = True
    deprecated: bool = False
    _state: dict = field(default_factory=dict, repr=False)

    @property
    def judge(self) -> str:
        return f"CRD {self.crd_name} {self.version}"

    def validator(self):
        if "validator" not in self._state:
            from kueuelint.schema.openapi import build_validator

            self._state["validator"] = build_validator(structural.to_jsonschema(self.schema))
        return self._state["validator"]

    def sites(self):
        if "sites" not in self._state:
            self._state["sites"] = sites_of(self.schema)
        return self._state["sites"]


class CrdIndex:
    """CRD versions by (group, kind, version); the first CRD seen for a kind wins."""

    def __init__(self) -> None:
        self._versions: dict[tuple[str, str, str], CrdVersion] = {}
        self._kinds: set[tuple[str, str]] = set()   # every object asks: keep it O(1)
        self.problems: list[str] = []

    def __len__(self) -> int:
        return len(self._versions)

    def __iter__(self):
        return iter(self._versions.values())

    def get(self, group: str, kind: str, version: str) -> CrdVersion | None:
        return self._versions.get((group, kind, version))

    def has_kind(self, group: str, kind: str) -> bool:
        return (group, kind) in self._kinds

    def add(self, crd: Any, source: str = "") -> int:
        """Index one CRD object; returns how many versions with a schema it contributed."""
        spec = crd.get("spec") if isinstance(crd, dict) else None
        if not isinstance(spec, dict) or not isinstance(spec.get("names"), dict):
            self.problems.append(f"{source}: not a CustomResourceDefinition with spec.names")
            return 0
        if not _well_formed(crd):
            # the API server refuses such a CRD, so it judges no object here either
            self.problems.append(f"{source}: a CustomResourceDefinition the API server would refuse")
            return 0
        digest = _digest(crd)
        name = crd.get("metadata", {}).get("name") or spec["names"].get("plural", "?")
        added = 0
        for entry in spec.get("versions") or []:
            version = _version_of(spec, entry, name, digest, source)
            if version is not None:
                key = (version.group, version.kind, version.version)
                self._versions.setdefault(key, _shared(version))
                self._kinds.add((version.group, version.kind))
                added += 1
        return added

    def add_all(self, crds: Iterable[tuple[Any, str]]) -> None:
        for crd, source in crds:
            self.add(crd, source)


_TYPES = {"object", "array", "string", "integer", "number", "boolean", ""}
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf")


def _well_formed(crd: dict) -> bool:
    """Names and schemas of the shape the API server insists on, so that indexing and
    compiling the CRD cannot trip over junk in it."""
    metadata, spec = crd.get("metadata", {}), crd["spec"]
    if not isinstance(metadata, dict) or not isinstance(metadata.get("name", ""), str):
        return False
    if not isinstance(spec.get("group", ""), str) or not isinstance(spec["names"].get("kind", ""), str) \
            or not isinstance(spec["names"].get("plural", ""), str):
        return False
    versions = spec.get("versions") or []
    if not isinstance(versions, list):
        return False
    schemas = [(entry.get("schema") or {}) for entry in versions if isinstance(entry, dict)]
    schemas.append(spec.get("validation") or {})
    return all(isinstance(s, dict) and _well_formed_schema(s.get("openAPIV3Schema", {}), 0)
               for s in schemas)


def _well_formed_schema(node: Any, depth: int) -> bool:
    if not isinstance(node, dict) or depth > 64:
        return False
    kind = node.get("type", "")
    if not isinstance(kind, str) or kind not in _TYPES:
        return False
    properties = node.get("properties", {})
    if not isinstance(properties, dict) or not all(
            _well_formed_schema(child, depth + 1) for child in properties.values()):
        return False
    children = [node[key] for key in ("items", "not") if key in node]
    extra = node.get("additionalProperties")
    if extra is not None and not isinstance(extra, bool):
        children.append(extra)
    for key in _SCHEMA_LISTS:
        listed = node.get(key, [])
        if not isinstance(listed, list):
            return False
        children.extend(listed)
    rules = node.get("x-kubernetes-validations", [])
    if not isinstance(rules, list) or not all(
            isinstance(r, dict) and isinstance(r.get("rule"), str) for r in rules):
        return False
    required = node.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        return False
    return all(_well_formed_schema(child, depth + 1) for child in children)


def _version_of(spec, entry, name, digest, source) -> CrdVersion | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        return None
    schema = (entry.get("schema") or {}).get("openAPIV3Schema") or \
        (spec.get("validation") or {}).get("openAPIV3Schema")
    if not isinstance(schema, dict):
        return None
    return CrdVersion(spec.get("group", ""), spec["names"].get("kind", ""), entry["name"], name,
                      schema, digest, source, bool(entry.get("served", True)),
                      bool(entry.get("deprecated", False)))


_STATES: dict[tuple[str, str], dict] = {}


def _shared(version: CrdVersion) -> CrdVersion:
    """Give ``version`` the process-wide compiled state for its CRD content, so the same CRD
    seen in several files or indexes is converted and compiled once."""
    version._state = _STATES.setdefault((version.digest, version.version), {})
    return version


def _digest(crd: dict) -> str:
    text = json.dumps(crd.get("spec"), sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def validate(version: CrdVersion, data: Any, old: Any = MISSING,
             engine: str | None = None) -> tuple[list[SchemaIssue], RuleRunner | None]:
    """All issues the CRD finds in ``data`` (and the runner, for its skip counts)."""
    from kueuelint.schema import metadata, openapi

    data = cel_value(data)  # what kubectl sends: JSON, so string keys and string timestamps
    defaulted = structural.apply_defaults(version.schema, data)
    issues = openapi.check(version.validator(), defaulted, version.judge)
    issues.extend(metadata.check(data, version.judge))
    if not version.sites():
        return issues, None
    runner = RuleRunner(programs_for(version, engine), version.judge)
    old_value = MISSING if old is MISSING else cel_value(
        structural.apply_defaults(version.schema, old))
    issues.extend(runner.run(version.schema, defaulted, old_value))
    return issues, runner


def transition_issues(version: CrdVersion, old: Any, new: Any,
                      engine: str | None = None) -> list[SchemaIssue]:
    """Only what the update from ``old`` to ``new`` breaks: the CRD's transition rules."""
    if not any(site.transition for site in version.sites()):
        return []
    runner = RuleRunner(programs_for(version, engine), version.judge, only_transition=True)
    defaults = structural.apply_defaults
    return runner.run(version.schema, cel_value(defaults(version.schema, new)),
                      cel_value(defaults(version.schema, old)))


def programs_for(version: CrdVersion, engine: str | None):
    from kueuelint.schema.programs import Programs

    key = f"programs:{engine}"
    if key not in version._state:
        version._state[key] = Programs(engine, version.digest)
    return version._state[key]
