"""Options shared by several commands (the project configuration, -j)."""

from __future__ import annotations

import argparse

from kueuelint.cli import UsageError


def add_config_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("configuration")
    add_config_file_argument(group)
    group.add_argument("--kueue-version", metavar="X.Y", help="Kueue version to check against (default: latest)")
    group.add_argument("--cel-engine", choices=("auto", "cel-expr-python", "cel-python"),
                       help="CEL engine for CEL rules (default: cel-expr-python when installed)")
    group.add_argument("--require-complete", action="store_true",
                       help="treat the inputs as the complete set of objects: report every missing reference")


def add_config_file_argument(parser) -> None:
    parser.add_argument("--config", metavar="FILE",
                        help="pyproject.toml or .kueuelint.yaml to use (default: nearest up the tree)")


def load_cli_config(args: argparse.Namespace):
    from kueuelint.config import ConfigError, load_config, parse_kueue_version

    try:
        config = load_config(args.config)
        if getattr(args, "kueue_version", None):
            config.kueue_version = parse_kueue_version(args.kueue_version, "--kueue-version")
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    if getattr(args, "cel_engine", None):
        config.cel_engine = args.cel_engine
    if getattr(args, "require_complete", False):
        config.require_complete = True
    for option in ("select", "ignore"):
        value = getattr(args, option, None)
        if value:
            setattr(config, option, _codes(value))
            config.mention_codes(f"--{option}", _codes(value))
    extend = getattr(args, "extend_select", None)
    if extend:
        config.select += _codes(extend)
        config.mention_codes("--extend-select", _codes(extend))
    return config


def load_cli_rules(config):
    """The built-in rules and the configuration's, with its rule options checked."""
    from kueuelint import pipeline
    from kueuelint.checks.registry import RuleFileError

    try:
        return pipeline.load_rules(config)
    except RuleFileError as exc:
        raise UsageError(str(exc)) from None


def _codes(value: str) -> tuple[str, ...]:
    return tuple(c.strip().upper() for c in value.split(",") if c.strip())


def check_config_against_rules(config, rules, cli_context=()) -> None:
    """Usage errors for rule codes that name no rule and input paths that do not exist."""
    from kueuelint.config import ConfigError, check_input_paths, check_rule_codes

    try:
        check_rule_codes(config, sorted(rules))
        check_input_paths(config, tuple(cli_context))
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def add_jobs_argument(parser, what: str) -> None:
    parser.add_argument("-j", "--jobs", type=positive_int, default=None, metavar="N",
                        help=f"processes for {what} (default: the cores not busy right now)")


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def add_change_arguments(parser: argparse.ArgumentParser, old: str, new: str, paths_help: str) -> None:
    """The two ways a command takes a change: OLD NEW, or --baseline REF [PATH ...]."""
    parser.usage = f"%(prog)s [options] {old} {new}\n       %(prog)s [options] --baseline REF [PATH ...]"
    parser.add_argument("paths", nargs="*", metavar=f"{old} {new}", help=paths_help)
    parser.add_argument("--baseline", metavar="REF",
                        help=f"take {old} from git: PATHs (default .) as they are at REF, e.g. origin/main")


def change_paths(args: argparse.Namespace, command: str, old: str, new: str) -> tuple[list | None, list]:
    """(OLD's paths, NEW's paths); OLD's are None with --baseline, whose NEW defaults to '.'."""
    if args.baseline is not None:
        return None, args.paths or ["."]
    if len(args.paths) != 2:
        raise UsageError(f"{command} needs {old} and {new}, or --baseline REF and the paths to compare")
    return [args.paths[0]], [args.paths[1]]


def files_at_baseline(revision: str, paths: list[str], config) -> list:
    """The files of ``paths`` as git has them at ``revision``; a git failure is a usage error."""
    from kueuelint.load.git_revision import GitError, files_at_revision

    try:
        return files_at_revision(revision, paths, config.limits, config.exclude)
    except GitError as exc:
        raise UsageError(f"--baseline {revision}: {exc}") from None
