"""Command-line entry point: ``kueuelint <command> ...``.

Exit codes follow ruff/ESLint: 0 clean, 1 findings at or above ``--fail-on``, 2 usage error
or a failure of the tool itself.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import sys

from kueuelint import __version__

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

# Each command module has add_arguments(parser) and run(args) -> int; only the chosen one runs.
COMMANDS = {
    "check": ("kueuelint.cli.check", "lint manifests and compute configs"),
    "admit": ("kueuelint.cli.admit", "predict whether Kueue would admit workloads, and why not"),
    "diff": ("kueuelint.cli.diff", "check what updating objects from OLD to NEW would break"),
    "rules": ("kueuelint.cli.rules_cmd", "list the rules (table, JSON or Markdown)"),
    "explain": ("kueuelint.cli.explain", "show a rule's documentation"),
    "test-rules": ("kueuelint.cli.test_rules", "run the pass/fail fixtures of a rule directory"),
    "export": ("kueuelint.cli.export", "write rules as ValidatingAdmissionPolicies (export vap)"),
    "review": ("kueuelint.cli.review", "what a change of the queue setup does to the workloads"),
    "map": ("kueuelint.cli.map_cmd", "draw the queue setup (Mermaid, Graphviz DOT or a self-contained HTML page)"),
}


class UsageError(Exception):
    """Reported as ``kueuelint: error: ...`` with exit code 2."""


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser for the command named in ``argv`` alone, or for all commands when none is
    named: one command's run does not import every other command's module (start-up time)."""
    parser = argparse.ArgumentParser(
        prog="kueuelint",
        description="Lint Kueue objects, the jobs that use them and compute configs; "
                    "predict admission against a cluster snapshot.",
        epilog="Run 'kueuelint <command> --help' for the options of a command.")
    parser.add_argument("--version", action="version", version=f"kueuelint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="<command>")
    chosen = _chosen_command(sys.argv[1:] if argv is None else argv)
    for name, (module_name, help_text) in COMMANDS.items():
        if chosen is not None and name != chosen:
            continue
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue  # a command whose module is not installed is simply not offered
        command = sub.add_parser(name, help=help_text, description=_describe(module, help_text))
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


def _chosen_command(argv: list[str]) -> str | None:
    # the top-level parser has only flags, so its first positional argument is the command
    first = next((arg for arg in argv if not arg.startswith("-")), None)
    return first if first in COMMANDS else None


def _describe(module, fallback: str) -> str:
    doc = (module.__doc__ or "").strip()
    return doc.split("\n\n")[0] if doc else fallback


def main(argv: list[str] | None = None) -> int:
    # Deeply nested (but legitimate) CRD schemas need more than Python's default frames.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4000))
    if argv is None:    # the program itself, not a caller in a longer-lived process
        atexit.register(_exit_without_collecting)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    args._program = argv is None
    if not getattr(args, "_run", None):
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    try:
        return args._run(args)
    except UsageError as exc:
        print(f"kueuelint: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("kueuelint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `kueuelint check . | head` closing the pipe is not an error worth a traceback.
        sys.stderr.close()
        return EXIT_OK
    except (Exception, RecursionError) as exc:  # a bug in kueuelint: one line, never a traceback
        from kueuelint.errors import internal_error_message

        print(f"kueuelint: {internal_error_message(exc, 'running ' + str(args.command))}", file=sys.stderr)
        return EXIT_ERROR


def _exit_without_collecting() -> None:
    """At exit, what is still alive is the operating system's to free, yet the interpreter's
    last collections would walk all of it.  Frozen objects are out of their sight.  Registered
    before the run's own exit handlers (the CEL program cache's save), so it runs after them."""
    gc.freeze()
