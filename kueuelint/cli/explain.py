"""Show the documentation of one rule, by code (KQ201) or name (queue-name-annotation)."""

from __future__ import annotations

import argparse
import difflib

from kueuelint.cli import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rule", metavar="CODE_OR_NAME")


def run(args: argparse.Namespace) -> int:
    from kueuelint import pipeline
    from kueuelint.config import Config

    rules = pipeline.load_rules(Config())
    wanted = args.rule.strip()
    for rule in rules.values():
        meta = rule.meta
        if wanted.upper() == meta.code or wanted == meta.name:
            print(f"{meta.code} {meta.name} ({meta.severity})\n\n{meta.summary}\n")
            print(meta.docs.as_markdown().rstrip())
            print(f"\nApplies to: {', '.join(meta.kinds) or 'files'}\nDefined in: {meta.source}")
            return 0
    names = [r.meta.code for r in rules.values()] + [r.meta.name for r in rules.values()]
    close = difflib.get_close_matches(wanted, names, n=1)
    raise UsageError(f"no rule {wanted!r}" + (f"; did you mean {close[0]!r}?" if close else ""))
