"""Load rule definitions (YAML data under ``rules/``) and bind them to an implementation.

A rule file holds the metadata every rule shares (code, name, severity, kinds, message,
docs; ``kinds`` may name kind groups, ``kueuelint.kueue.groups``) plus either a CEL program (``implementation: cel``) or a reference to a Python
function (``implementation: python``, ``python: module:function``).  Fixtures sit beside it
in a folder named after the code.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kueuelint.checks.meta import RuleDocs, RuleMeta
from kueuelint.findings import Severity
from kueuelint.kueue.groups import UnknownKind, expand

CODE_RE = re.compile(r"^KQ\d{3}$")
NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
IMPLEMENTATIONS = ("python", "cel", "builtin")


class RuleFileError(Exception):
    """A rule definition that cannot be used; the message names the file."""


@dataclass
class RuleDef:
    meta: RuleMeta
    implementation: str
    message: str
    python: str | None = None
    cel: dict[str, Any] | None = None
    problem_kinds: tuple[str, ...] = ()      # for builtin input rules: loader problem kinds
    options: dict[str, Any] = field(default_factory=dict)
    _func: Any = None

    def applies_to(self, kind_key: str) -> bool:
        for pattern in self.meta.kinds:
            if pattern == "*" or pattern == kind_key:
                return True
            if pattern.endswith("/*") and kind_key.startswith(pattern[:-1]):
                return True
        return False

    @property
    def fixtures_dir(self) -> Path | None:
        """The folder of pass/fail fixtures beside the rule file, named after the code."""
        folder = Path(self.meta.source).parent / self.meta.code
        return folder if folder.is_dir() else None

    def python_func(self):
        if self._func is None:
            module_name, _, func_name = (self.python or "").partition(":")
            module = import_rule_module(module_name, Path(self.meta.source).parent)
            self._func = getattr(module, func_name)
        return self._func


def import_rule_module(module_name: str, rule_folder: Path):
    """The module ``module_name`` from the rule's own folder when it is there (a project's rules
    work without PYTHONPATH, and cannot be shadowed by an installed module of the same name);
    otherwise an importable module such as ``kueuelint.checks.builtin.coverage``."""
    candidate = rule_folder.joinpath(*module_name.split(".")).with_suffix(".py")
    if not candidate.is_file():
        return importlib.import_module(module_name)
    # one module per file, even when two rule folders both have a ``checks.py``
    digest = hashlib.sha256(str(candidate.resolve()).encode()).hexdigest()[:12]
    unique_name = f"kueuelint_rules_{digest}.{module_name.replace('.', '_')}"
    module = sys.modules.get(unique_name)
    if module is None:
        spec = importlib.util.spec_from_file_location(unique_name, candidate)
        module = importlib.util.module_from_spec(spec)
        sys.modules[unique_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[unique_name]
            raise
    return module


def builtin_rules_dir() -> Path:
    """``rules/`` ships inside the wheel as ``kueuelint/builtin_rules``; in a source checkout
    (including editable installs) it is the top-level folder."""
    package_dir = Path(__file__).resolve().parent.parent
    installed = package_dir / "builtin_rules"
    return installed if installed.is_dir() else package_dir.parent / "rules"


def load_rules(config) -> dict[str, RuleDef]:
    """The built-in rules and those of the configuration's ``rule-dirs``."""
    from kueuelint.config import resolve_paths

    return load_rule_dirs([builtin_rules_dir()] + [Path(p) for p in resolve_paths(config, config.rule_dirs)])


def load_rule_dirs(dirs: list[Path]) -> dict[str, RuleDef]:
    from kueuelint.checks.rule_index import rule_file_data

    paths = [path for directory in dirs for path in _rule_files(directory)]
    rules: dict[str, RuleDef] = {}
    for path, data in zip(paths, rule_file_data(paths, _read_rule_data)):
        rule = _rule_from_data(data, path)
        if rule.meta.code in rules:
            other = rules[rule.meta.code].meta.source
            raise RuleFileError(f"{path}: rule code {rule.meta.code} is already defined in {other}")
        rules[rule.meta.code] = rule
    return dict(sorted(rules.items()))


def _rule_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        raise RuleFileError(f"{directory}: rule directory does not exist")
    found = []
    for root, subdirs, files in os.walk(directory):
        # fixture folders are named after a rule code and hold manifests, not rules
        subdirs[:] = sorted(d for d in subdirs if not CODE_RE.match(d) and not d.startswith("."))
        found.extend(Path(root) / name for name in files
                     if name.endswith((".yaml", ".yml")) and CODE_RE.match(name[:5]))
    return sorted(found)


def load_rule_file(path: Path) -> RuleDef:
    return _rule_from_data(_read_rule_data(path), path)


def _read_rule_data(path: Path) -> dict:
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise RuleFileError(f"{path}: cannot read rule file: {exc}") from None
    if not isinstance(data, dict):
        raise RuleFileError(f"{path}: a rule file must be a mapping")
    return data


def _rule_from_data(data: dict, path: Path) -> RuleDef:
    code = _required(data, "code", path)
    name = _required(data, "name", path)
    if not CODE_RE.match(code):
        raise RuleFileError(f"{path}: code {code!r} must look like KQ123")
    if not NAME_RE.match(name):
        raise RuleFileError(f"{path}: name {name!r} must be kebab-case")
    implementation = data.get("implementation", "cel" if "cel" in data else "python")
    if implementation not in IMPLEMENTATIONS:
        raise RuleFileError(f"{path}: implementation must be one of {', '.join(IMPLEMENTATIONS)}")
    try:
        severity = Severity.parse(str(data.get("severity", "warning")))
    except ValueError as exc:
        raise RuleFileError(f"{path}: {exc}") from None
    docs = data.get("docs") or {}
    kinds = data.get("kinds") or []
    if not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds):
        raise RuleFileError(f"{path}: 'kinds' must be a list of kind names like batch/Job")
    try:
        kinds = expand(kinds)
    except UnknownKind as exc:
        raise RuleFileError(f"{path}: kinds: {exc}") from None
    if not isinstance(docs, dict):
        raise RuleFileError(f"{path}: 'docs' must be a mapping of what/why/example/fix")
    meta = RuleMeta(code=code, name=name, severity=severity,
                    summary=str(data.get("summary", "")).strip(),
                    kinds=kinds,
                    docs=RuleDocs(**{k: str(docs.get(k, "")) for k in ("what", "why", "example", "fix")}),
                    source=str(path), engine=implementation)
    rule = RuleDef(meta=meta, implementation=implementation,
                   message=str(data.get("message", meta.summary)),
                   python=data.get("python"), cel=data.get("cel"),
                   problem_kinds=tuple(data.get("problem-kinds") or ()),
                   options=dict(data.get("options") or {}))
    _check_implementation(rule, path)
    return rule


def _check_implementation(rule: RuleDef, path: Path) -> None:
    if rule.implementation == "python" and not (rule.python and ":" in rule.python):
        raise RuleFileError(f"{path}: a python rule needs 'python: module:function'")
    if rule.implementation == "cel":
        cel = rule.cel
        if not isinstance(cel, dict) or not (cel.get("validations") or cel.get("violations")):
            raise RuleFileError(f"{path}: a cel rule needs 'cel.validations' or 'cel.violations'")


def _required(data: dict, key: str, path: Path) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise RuleFileError(f"{path}: missing required string field {key!r}")
    return value
