"""Project configuration: ``[tool.kueuelint]`` in pyproject.toml or ``.kueuelint.yaml``.

The nearest file up the tree from the current directory wins unless ``--config`` names one.
Unknown keys are an error with a suggestion, so a typo never silently disables a check.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from kueuelint.findings import Severity
from kueuelint.load.limits import Limits

CONFIG_FILES = (".kueuelint.yaml", ".kueuelint.yml", "pyproject.toml")
LATEST_KUEUE = (0, 19)
CEL_ENGINES = ("auto", "cel-expr-python", "cel-python")
FILE_TYPES = ("manifest", "anyscale-compute-config", "skypilot-config", "skypilot-task")


class ConfigError(Exception):
    """Bad configuration: reported as a usage error (exit 2)."""


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
    root: Path = field(default_factory=Path.cwd)   # folder of the config file: paths resolve here
    source: str | None = None

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
    "max-nodes": None, "max-file-nodes": None, "max-depth": None,
}


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
        if key == "extend-select":
            config.select = config.select + codes
        else:
            setattr(config, key, codes)
    elif key == "severity":
        config.severity = {code.upper(): _severity(sev, where) for code, sev in _mapping(value, where).items()}
    elif key == "per-file-ignores":
        config.per_file_ignores = {glob: tuple(c.upper() for c in _str_list(codes, where))
                                   for glob, codes in _mapping(value, where).items()}
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
    else:
        setattr(config, _KEYS[key], tuple(_str_list(value, where)))


def _apply_types(config: Config, value: dict, where: str) -> None:
    for glob, file_type in value.items():
        if file_type not in FILE_TYPES:
            raise ConfigError(f"{where}: type {file_type!r} for {glob!r} must be one of {', '.join(FILE_TYPES)}")
        config.types[glob] = file_type


def _apply_limit(config: Config, key: str, value: Any, where: str) -> None:
    if not isinstance(value, int) or value <= 0:
        raise ConfigError(f"{where} must be a positive integer")
    name = key.replace("-", "_")
    values = {f.name: getattr(config.limits, f.name) for f in fields(config.limits)}
    values[name] = value
    config.limits = Limits(**values)


def parse_kueue_version(value: Any, where: str = "kueue-version") -> tuple[int, int]:
    text = str(value).strip().lstrip("v")
    if text in ("latest", ""):
        return LATEST_KUEUE
    parts = text.split(".")
    try:
        major, minor = int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
    except ValueError:
        raise ConfigError(f"{where}: {value!r} is not a version like 0.19") from None
    return major, minor


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
