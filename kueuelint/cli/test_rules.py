"""Run the pass/fail fixtures of rule directories, like `kyverno test` or `conftest verify`.

Each rule file RULE.yaml may have a folder named after its code holding fail*.yaml and
pass*.yaml manifests; `# expect: KQ123` comments mark the lines that must be reported.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kueuelint.cli import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dirs", nargs="*", metavar="DIR",
                        help="rule directories to test (default: the built-in rules)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every fixture")


def run(args: argparse.Namespace) -> int:
    from kueuelint.checks.fixtures import missing_fixtures, run_all
    from kueuelint.checks.registry import RuleFileError, builtin_rules_dir, load_rule_dirs

    user_dirs = [Path(d) for d in args.dirs]
    try:
        # user rules are tested alongside the built-in ones, as a real run would see them
        rules = load_rule_dirs([builtin_rules_dir(), *user_dirs])
    except RuleFileError as exc:
        raise UsageError(str(exc)) from None
    builtin_root = str(builtin_rules_dir())
    tested = {code: rule for code, rule in rules.items()
              if not user_dirs or not rule.meta.source.startswith(builtin_root)}
    if not tested:
        # an empty or mistyped folder must not pass as "all rules tested"
        folders = ", ".join(str(d) for d in user_dirs)
        print(f"kueuelint: no rule files (KQ<code>-<name>.yaml) in {folders}", file=sys.stderr)
        return EXIT_ERROR
    results = run_all(rules, only=tested)
    failed = [r for r in results if not r.ok]
    for result in results:
        if not result.ok:
            print(result.explain())
        elif args.verbose:
            print(f"ok       {result.path}")
    missing = missing_fixtures(tested)
    for code in missing:
        print(f"{code}: needs at least one pass*.yaml and one fail*.yaml fixture in {tested[code].meta.source}")
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed"
          f"{f', {len(missing)} rules without fixtures' if missing else ''}")
    if not results:
        return EXIT_ERROR
    return EXIT_FINDINGS if failed or missing else EXIT_OK
