"""Load rule definitions (YAML data under ``rules/``) and bind them to an implementation.

A rule file holds the metadata every rule shares (code, name, severity, kinds, message,
docs; ``kinds`` may name kind groups, ``kueuelint.kueue.groups``) plus either a CEL program (``implementation: cel``) or a reference to a Python
function (``implementation: python``, ``python: module:function``).  Fixtures sit beside it
in a folder named after the code.
"""

from __future__ import annotations

import difflib
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
    options: dict[str, Any] = field(default_factory=dict)   # defaults of the rule's options
    options_schema: dict[str, Any] | None = None             # JSON Schema of the options object
    cel_expanded: dict[str, str] = field(default_factory=dict)  # CEL source -> cel.bind rewritten
    # the same with only the bindings of comprehensions rewritten, for an engine with cel.bind
    cel_expanded_computed: dict[str, str] = field(default_factory=dict)
    # the parts of `object` the CEL sources read (kueuelint.cel.text.object_paths); None: all
    cel_object_paths: dict | None = None
    vap: dict[str, Any] | None = None   # a Python rule's policy form for `export vap`, or why it has none
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
            func = getattr(module, func_name, None)
            if not callable(func):
                where = getattr(module, "__file__", None) or module_name
                raise AttributeError(f"{where} has no function {func_name!r} (named by 'python: {self.python}')")
            self._func = func
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
    """The built-in rules and those of the configuration's ``rule-dirs``, with the options the
    configuration sets for them checked."""
    from kueuelint.config import resolve_paths

    rules = load_rule_dirs([builtin_rules_dir()] + [Path(p) for p in resolve_paths(config, config.rule_dirs)])
    if config.rule_options:
        validate_rule_options(rules, config.rule_options, config.source or "config")
    return rules


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
    sources = _cel_sources(data.get("cel"))
    if sources:
        from kueuelint.cel.text import object_paths

        data[EXPANDED_KEY] = _expanded_binds(sources)
        data[COMPUTED_EXPANDED_KEY] = _expanded_binds(sources, computed_only=True)
        data[OBJECT_PATHS_KEY] = object_paths(" ".join(sources))
    return data


# not keys YAML gives; kept with the parsed file in the rule cache, so runs that reuse the
# parsed file do not work them out again
EXPANDED_KEY = "\0cel-expanded"
COMPUTED_EXPANDED_KEY = "\0cel-expanded-computed"
OBJECT_PATHS_KEY = "\0cel-object-paths"


def _cel_sources(cel: Any) -> list[str]:
    if not isinstance(cel, dict):
        return []
    sources = [cel.get("match"), cel.get("violations")]
    for validation in cel.get("validations") or ():
        if isinstance(validation, dict):
            sources += [validation.get("expression"), validation.get("messageExpression")]
    return [source for source in sources if isinstance(source, str)]


def _expanded_binds(sources: list[str], computed_only: bool = False) -> dict[str, str]:
    """The CEL sources of the rule with cel.bind rewritten (kueuelint.cel.text.expand_binds):
    every binding, for an engine without cel.bind, or (``computed_only``) those cel-expr-python
    may get wrong; the sources it leaves as they are are compiled as written."""
    from kueuelint.cel.text import CelTextError, expand_binds

    expanded = {}
    for source in sources:
        if "bind" in source:
            try:
                rewritten = expand_binds(source, computed_only=computed_only)
            except CelTextError:
                continue   # compiled as written: the engine reports the malformed call
            if rewritten != source:
                expanded[source] = rewritten
    return expanded


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
                   options=dict(data.get("options") or {}),
                   options_schema=data.get("options-schema"),
                   cel_expanded=dict(data.get(EXPANDED_KEY) or {}),
                   cel_expanded_computed=dict(data.get(COMPUTED_EXPANDED_KEY) or {}),
                   cel_object_paths=data.get(OBJECT_PATHS_KEY),
                   vap=data.get("vap"))
    _check_implementation(rule, path)
    _check_vap(rule, path)
    _check_options_schema(rule, path)
    return rule


def _check_implementation(rule: RuleDef, path: Path) -> None:
    if rule.implementation == "python" and not (rule.python and ":" in rule.python):
        raise RuleFileError(f"{path}: a python rule needs 'python: module:function'")
    if rule.implementation == "cel":
        cel = rule.cel
        if not isinstance(cel, dict) or not (cel.get("validations") or cel.get("violations")):
            raise RuleFileError(f"{path}: a cel rule needs 'cel.validations' or 'cel.violations'")


VAP_KEYS = {"facts", "match", "violations", "not-exportable"}


def _check_vap(rule: RuleDef, path: Path) -> None:
    """``vap:`` gives a Python rule that reads other objects a CEL form for the API server, fed
    with facts of the run (``facts``, ``violations``), or says why it has none
    (``not-exportable``)."""
    vap = rule.vap
    if vap is None:
        return
    if not isinstance(vap, dict) or rule.implementation != "python":
        raise RuleFileError(f"{path}: 'vap' must be a mapping, in a python rule")
    unknown = sorted(set(vap) - VAP_KEYS)
    if unknown:
        raise RuleFileError(f"{path}: vap: unknown key {unknown[0]!r} (known: {', '.join(sorted(VAP_KEYS))})")
    if ("violations" in vap) == ("not-exportable" in vap):
        raise RuleFileError(f"{path}: vap needs either 'violations' (CEL) or 'not-exportable' (the reason)")
    if not all(isinstance(vap.get(key, ""), str) for key in ("match", "violations", "not-exportable")) \
            or not (isinstance(vap.get("facts", []), list) and all(isinstance(f, str) for f in vap.get("facts", []))):
        raise RuleFileError(f"{path}: vap: 'violations', 'match' and 'not-exportable' are text, 'facts' a list of names")


def _check_options_schema(rule: RuleDef, path: Path) -> None:
    """The cheap shape check at every load; the full JSON Schema check runs when options are
    configured (jsonschema is a slow import) and in the rule tests."""
    schema = rule.options_schema
    if schema is None:
        return
    if not isinstance(schema, dict) or schema.get("type") != "object" \
            or not isinstance(schema.get("properties"), dict):
        raise RuleFileError(f"{path}: 'options-schema' must be a JSON Schema of type object "
                            "with 'properties'")
    undeclared = sorted(set(rule.options) - set(schema["properties"]))
    if undeclared:
        raise RuleFileError(f"{path}: option {undeclared[0]!r} has a default but no schema in "
                            "'options-schema.properties'")


def _required(data: dict, key: str, path: Path) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise RuleFileError(f"{path}: missing required string field {key!r}")
    return value


# --- rule options ------------------------------------------------------------------------------
#
# A rule file declares its options with defaults (``options:``) and, for typed parameters, a JSON
# Schema of the options object (``options-schema:``); without a schema, each default's type is
# its schema.  The configuration sets them per code (``options: {KQ701: {...}}``); an unknown
# code, an unknown option or a value of the wrong type is a configuration error naming the key,
# found before any file is read.

_JSON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
               (list, "array"), (dict, "object"))


class RuleOptionsError(RuleFileError):
    """Options in the configuration that no rule takes, or of the wrong type."""


def options_schema(rule: RuleDef) -> dict[str, Any]:
    """The JSON Schema the rule's options object must satisfy."""
    if rule.options_schema is not None:
        return rule.options_schema
    properties = {name: _schema_of_default(value) for name, value in rule.options.items()}
    return {"type": "object", "properties": properties}


def _schema_of_default(value: Any) -> dict[str, Any]:
    if value is None:
        return {}   # a null default says nothing about the type
    return {"type": next(name for kind, name in _JSON_TYPES if isinstance(value, kind))}


def effective_options(rule: RuleDef, configured: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The rule's defaults with the configured values on top."""
    return {**rule.options, **configured.get(rule.meta.code, {})}


def validate_rule_options(rules: dict[str, RuleDef], configured: dict[str, dict[str, Any]],
                          origin: str = "config") -> None:
    for code, values in configured.items():
        rule = rules.get(code)
        if rule is None:
            raise RuleOptionsError(f"{origin}: options for {code}, which is not a rule"
                                   f"{_suggestion(code, rules)}")
        schema = options_schema(rule)
        for key in values:
            if key not in schema["properties"]:
                raise RuleOptionsError(_unknown_option(origin, code, key, schema))
        problem = schema_problem(schema, values)
        if problem is not None:
            where, message = problem
            raise RuleOptionsError(f"{origin}: option {'.'.join(['options', code, *where])}: {message}")


def schema_problem(schema: dict[str, Any], values: dict[str, Any]) -> tuple[list[str], str] | None:
    """The first place where ``values`` break ``schema`` (its key path and the reason), or None."""
    import jsonschema  # ~60 ms: only runs when options are configured

    validator_class = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        validator_class.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return [], f"the rule's options-schema is not a valid JSON Schema: {exc.message}"
    error = jsonschema.exceptions.best_match(validator_class(schema).iter_errors(values))
    if error is None:
        return None
    return [str(part) for part in error.absolute_path], error.message


def _unknown_option(origin: str, code: str, key: str, schema: dict[str, Any]) -> str:
    known = sorted(schema["properties"])
    if not known:
        return f"{origin}: option options.{code}.{key}: {code} takes no options"
    hint = difflib.get_close_matches(key, known, n=1)
    suggestion = f"; did you mean {hint[0]!r}?" if hint else f" (it takes {', '.join(known)})"
    return f"{origin}: option options.{code}.{key}: unknown option of {code}{suggestion}"


def _suggestion(code: str, rules: dict[str, RuleDef]) -> str:
    hint = difflib.get_close_matches(code, list(rules), n=1)
    return f"; did you mean {hint[0]}?" if hint else ""
