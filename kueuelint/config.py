"""Project configuration: ``[tool.kueuelint]`` in pyproject.toml or ``.kueuelint.yaml``.

The nearest file up the tree from the current directory wins unless ``--config`` names one.
Unknown keys are an error with a suggestion, so a typo never silently disables a check.
"""

from __future__ import annotations

import difflib
import glob
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from kueuelint.findings import Severity
from kueuelint.load.limits import Limits

CONFIG_FILES = (".kueuelint.yaml", ".kueuelint.yml", "pyproject.toml")
LATEST_KUEUE = (0, 19)
# Kueue releases kueuelint knows the behaviour of: every 0.x minor release up to the latest, and
# 0.20, the release in development that stops serving v1beta1.  Another version is a usage error:
# silently checking 0.25 as 0.19 would report things that may not hold.
KNOWN_KUEUE = tuple((0, minor) for minor in range(1, 21))
CEL_ENGINES = ("auto", "cel-expr-python", "cel-python")
FILE_TYPES = ("manifest", "anyscale-compute-config", "skypilot-config", "skypilot-task")


class ConfigError(Exception):
    """Bad configuration: reported as a usage error (exit 2)."""


# A NamedTuple: a frozen dataclass compiles its methods when every run defines it.
class ScopeSpec(NamedTuple):
    """One cluster's files in a repository that holds several (``scopes:`` in the configuration).

    Cross-object rules resolve only inside a scope. ``paths`` are globs or folders relative to
    the configuration file; ``context`` is read for this scope only; None means "as the run"."""

    name: str
    paths: tuple[str, ...]
    context: tuple[str, ...] = ()
    kueue_version: tuple[int, int] | None = None
    require_complete: bool | None = None


@dataclass
class Config:
    select: tuple[str, ...] = ("KQ",)
    ignore: tuple[str, ...] = ()
    severity: dict[str, Severity] = field(default_factory=dict)
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    context: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    kueue_version: tuple[int, int] = LATEST_KUEUE
    rule_dirs: tuple[str, ...] = ()
    require_complete: bool = False
    cel_engine: str = "auto"
    default_namespace: str = "default"
    types: dict[str, str] = field(default_factory=dict)   # glob -> forced file type
    crds: tuple[str, ...] = ()
    rule_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    scopes: tuple[ScopeSpec, ...] = ()
    root: Path = field(default_factory=Path.cwd)   # folder of the config file: paths resolve here
    source: str | None = None
    # (where, code) of every rule code or prefix the user wrote, so a typo can be named
    code_mentions: list[tuple[str, str]] = field(default_factory=list)

    def mention_codes(self, where: str, codes) -> None:
        self.code_mentions.extend((where, code) for code in codes)

    def is_selected(self, code: str) -> bool:
        selected = _longest_prefix(code, self.select)
        ignored = _longest_prefix(code, self.ignore)
        return selected > 0 and selected > ignored


def _longest_prefix(code: str, prefixes: tuple[str, ...]) -> int:
    return max((len(p) for p in prefixes if code.startswith(p)), default=0)


_KEYS = {
    "select": "select", "ignore": "ignore", "extend-select": None, "severity": "severity",
    "per-file-ignores": "per_file_ignores", "context": "context", "exclude": "exclude",
    "kueue-version": "kueue_version", "rule-dirs": "rule_dirs", "require-complete": "require_complete",
    "cel-engine": "cel_engine", "default-namespace": "default_namespace", "types": "types",
    "crds": "crds", "options": "rule_options", "rules": "rule_options", "max-file-bytes": None, "max-documents": None,
    "max-nodes": None, "max-file-nodes": None, "max-depth": None, "scopes": "scopes",
}
_SCOPE_KEYS = ("paths", "context", "kueue-configuration", "kueue-version", "require-complete")


def find_config_file(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        for name in CONFIG_FILES:
            candidate = directory / name
            if candidate.is_file() and (name != "pyproject.toml" or _has_tool_table(candidate)):
                return candidate
    return None


def _has_tool_table(path: Path) -> bool:
    try:
        return "[tool.kueuelint" in path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def load_config(explicit: str | None = None, start: Path | None = None) -> Config:
    path = Path(explicit) if explicit else find_config_file((start or Path.cwd()).resolve())
    if path is None:
        return Config()
    raw = _read_raw(path)
    config = from_mapping(raw, str(path))
    config.root = path.resolve().parent
    config.source = str(path)
    return config


def _read_raw(path: Path) -> dict:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config: {exc}") from None
    if path.name == "pyproject.toml" or path.suffix == ".toml":
        import tomllib

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: invalid TOML: {exc}") from None
        data = data.get("tool", {}).get("kueuelint", {}) if path.name == "pyproject.toml" else data
    else:
        import yaml

        try:
            data = yaml.safe_load(text) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path}: invalid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the configuration must be a mapping")
    return data


def from_mapping(raw: dict, origin: str = "config") -> Config:
    config = Config()
    unknown = [key for key in raw if key not in _KEYS]
    if unknown:
        key = unknown[0]
        hint = difflib.get_close_matches(key, list(_KEYS), n=1)
        suggestion = f"; did you mean {hint[0]!r}?" if hint else ""
        raise ConfigError(f"{origin}: unknown option {key!r}{suggestion}")
    for key, value in raw.items():
        _apply(config, key, value, origin)
    return config


def _apply(config: Config, key: str, value: Any, origin: str) -> None:
    where = f"{origin}: option {key!r}"
    if key in ("select", "ignore", "extend-select"):
        codes = tuple(c.upper() for c in _str_list(value, where))
        config.mention_codes(where, codes)
        if key == "extend-select":
            config.select = config.select + codes
        else:
            setattr(config, key, codes)
    elif key == "severity":
        config.severity = {code.upper(): _severity(sev, where) for code, sev in _mapping(value, where).items()}
        config.mention_codes(where, config.severity)
    elif key == "per-file-ignores":
        config.per_file_ignores = {pattern: tuple(c.upper() for c in _str_list(codes, where))
                                   for pattern, codes in _mapping(value, where).items()}
        for codes in config.per_file_ignores.values():
            config.mention_codes(where, codes)
    elif key == "kueue-version":
        config.kueue_version = parse_kueue_version(value, where)
    elif key == "cel-engine":
        if value not in CEL_ENGINES:
            raise ConfigError(f"{where} must be one of {', '.join(CEL_ENGINES)}")
        config.cel_engine = value
    elif key in ("require-complete",):
        if not isinstance(value, bool):
            raise ConfigError(f"{where} must be true or false")
        config.require_complete = value
    elif key == "types":
        _apply_types(config, _mapping(value, where), where)
    elif key.startswith("max-"):
        _apply_limit(config, key, value, where)
    elif key in ("options", "rules"):   # "rules" is the older name of the same table
        for code, opts in _mapping(value, where).items():
            config.rule_options[str(code).upper()] = dict(_mapping(opts, f"{where} {code!r}"))
    elif key == "default-namespace":
        config.default_namespace = str(value)
    elif key == "scopes":
        config.scopes = tuple(_scope(str(name), spec, f"{where}[{name!r}]")
                              for name, spec in _mapping(value, where).items())
    else:
        setattr(config, _KEYS[key], tuple(_str_list(value, where)))


def _scope(name: str, spec: Any, where: str) -> ScopeSpec:
    spec = _mapping(spec, where)
    unknown = [key for key in spec if key not in _SCOPE_KEYS]
    if unknown:
        hint = difflib.get_close_matches(str(unknown[0]), _SCOPE_KEYS, n=1)
        suggestion = f"; did you mean {hint[0]!r}?" if hint else ""
        raise ConfigError(f"{where}: unknown option {unknown[0]!r}{suggestion}")
    paths = tuple(_str_list(spec.get("paths"), f"{where}.paths") if "paths" in spec else ())
    if not paths:
        raise ConfigError(f"{where}: a scope needs paths (globs or folders of its files)")
    context = tuple(_str_list(spec.get("context", []), f"{where}.context"))
    if "kueue-configuration" in spec:  # the file with the cluster's Kueue Configuration
        context += tuple(_str_list(spec["kueue-configuration"], f"{where}.kueue-configuration"))
    version = parse_kueue_version(spec["kueue-version"], f"{where}.kueue-version") \
        if "kueue-version" in spec else None
    complete = spec.get("require-complete")
    if complete is not None and not isinstance(complete, bool):
        raise ConfigError(f"{where}.require-complete must be true or false")
    return ScopeSpec(name, paths, context, version, complete)


def _apply_types(config: Config, value: dict, where: str) -> None:
    for glob, file_type in value.items():
        if file_type not in FILE_TYPES:
            raise ConfigError(f"{where}: type {file_type!r} for {glob!r} must be one of {', '.join(FILE_TYPES)}")
        config.types[glob] = file_type


def _apply_limit(config: Config, key: str, value: Any, where: str) -> None:
    if not isinstance(value, int) or value <= 0:
        raise ConfigError(f"{where} must be a positive integer")
    name = key.replace("-", "_")
    config.limits = config.limits._replace(**{name: value})


def parse_kueue_version(value: Any, where: str = "kueue-version") -> tuple[int, int]:
    text = str(value).strip().lstrip("v")
    if text in ("latest", ""):
        return LATEST_KUEUE
    parts = text.split(".")
    try:
        major, minor = int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
        patch_ok = len(parts) < 3 or (len(parts) == 3 and int(parts[2]) >= 0)
    except ValueError:
        raise ConfigError(f"{where}: {value!r} is not a version like 0.19") from None
    if not patch_ok:
        raise ConfigError(f"{where}: {value!r} is not a version like 0.19")
    if (major, minor) not in KNOWN_KUEUE:
        first, last = KNOWN_KUEUE[0], KNOWN_KUEUE[-1]
        raise ConfigError(f"{where}: Kueue {major}.{minor} is not a version kueuelint knows "
                          f"(known: {first[0]}.{first[1]} to {last[0]}.{last[1]}, or latest)")
    return major, minor


def check_rule_codes(config: Config, known: list[str]) -> None:
    """Fail on a code or prefix that selects no rule: a typo must not silently disable a check
    (or enable nothing) in a gate."""
    for where, code in config.code_mentions:
        if not any(rule.startswith(code) for rule in known):
            raise ConfigError(f"{where}: {unknown_code_text(code, known)}")


def unknown_code_text(code: str, known: list[str]) -> str:
    # letters typed for look-alike digits are the usual typo ("KQ2O1")
    digits = code[:2] + code[2:].translate(str.maketrans("OILS", "0115"))
    if digits != code and any(rule.startswith(digits) for rule in known):
        close = [digits]
    else:
        close = difflib.get_close_matches(code, known, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else "; 'kueuelint rules' lists them"
    return f"{code!r} is not a rule code or prefix{hint}"


def check_input_paths(config: Config, cli_context: tuple[str, ...] = ()) -> None:
    """Fail on a context or CRD path that names nothing: a misspelt path would make every
    cross-reference look missing, or skip CRD validation, without a word."""
    named = [("context", path) for path in resolve_paths(config, config.context)]
    named += [("--context", path) for path in cli_context]
    named += [("--crd or crds", path) for path in resolve_paths(config, config.crds)]
    named += [(f"scopes[{scope.name!r}].context", path) for scope in config.scopes
              for path in resolve_paths(config, scope.context)]
    for option, path in named:
        if not (os.path.lexists(path) or (glob.has_magic(path) and glob.glob(path, recursive=True))):
            raise ConfigError(f"{option}: {path!r} does not exist")


def _str_list(value: Any, where: str) -> list[str]:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    raise ConfigError(f"{where} must be a list of strings")


def _mapping(value: Any, where: str) -> dict:
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a mapping")
    return value


def _severity(value: Any, where: str) -> Severity:
    try:
        return Severity.parse(str(value))
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def resolve_paths(config: Config, paths: tuple[str, ...]) -> list[str]:
    """Paths written in a config file are relative to that file's folder."""
    return [path if os.path.isabs(path) else str(config.root / path) for path in paths]
