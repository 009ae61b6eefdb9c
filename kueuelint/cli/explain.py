"""Show the documentation of one rule, by code (KQ201) or name (queue-name-annotation)."""

from __future__ import annotations

import argparse
import difflib

from kueuelint.cli import UsageError
from kueuelint.cli.common import add_config_file_argument


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rule", metavar="CODE_OR_NAME")
    add_config_file_argument(parser)


def run(args: argparse.Namespace) -> int:
    from kueuelint.cli.rules_cmd import configured_rules
    from kueuelint.fix.fixers import fix_summary

    rules, _ = configured_rules(args)
    wanted = args.rule.strip()
    for rule in rules.values():
        meta = rule.meta
        if wanted.upper() == meta.code or wanted == meta.name:
            print(f"{meta.code} {meta.name} ({meta.severity})\n\n{meta.summary}\n")
            print(meta.docs.as_markdown().rstrip())
            fix = fix_summary(meta.code)
            print(f"\nApplies to: {', '.join(meta.kinds) or 'files'}\nDefined in: {meta.source}")
            print(f"Fix: {'kueuelint check --fix ' + fix if fix else 'none (a manual change)'}")
            return 0
    names = [r.meta.code for r in rules.values()] + [r.meta.name for r in rules.values()]
    close = difflib.get_close_matches(wanted, names, n=1)
    raise UsageError(f"no rule {wanted!r}" + (f"; did you mean {close[0]!r}?" if close else ""))
