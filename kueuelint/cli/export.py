"""Export rules for other tools: `kueuelint export vap` writes ValidatingAdmissionPolicies.

Each selected CEL rule that needs no object but the one admitted becomes a
ValidatingAdmissionPolicy and its binding (admissionregistration.k8s.io/v1), plus a ConfigMap
with its options; the API server then enforces the rule. A rule about other objects (KQ701:
the flavors behind a job's queue) takes what the context (--context, and the configuration's)
shows of them as parameters in that ConfigMap. Rules that cannot run there are listed on standard error
with the reason (--list prints every selected rule).
"""

from __future__ import annotations

import argparse
import sys

from kueuelint.cli import EXIT_FINDINGS, EXIT_OK, UsageError
from kueuelint.cli.common import add_config_arguments, load_cli_config, load_cli_rules
from kueuelint.cli.output import write_text

ACTION_CHOICES = ("Deny", "Warn", "Audit")
TARGETS = ("vap",)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", choices=TARGETS, help="what to write: vap (ValidatingAdmissionPolicy)")
    parser.add_argument("--context", action="append", default=[], metavar="PATH",
                        help="manifests holding the LocalQueues, ClusterQueues and ResourceFlavors that rules "
                             "about other objects (KQ701) are exported with (also: context in the configuration)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the objects here (default: stdout)")
    parser.add_argument("--select", metavar="CODES", help="codes or prefixes to export (e.g. KQ7,KQ201)")
    parser.add_argument("--ignore", metavar="CODES", help="codes or prefixes to leave out")
    parser.add_argument("--audit", action="store_true",
                        help="only record violations in the audit log (validationActions: [Audit])")
    parser.add_argument("--action", action="append", default=[], metavar="KEY=ACTIONS",
                        help="validationActions for a severity or code, e.g. warning=Deny or "
                             "KQ701=Warn,Audit (default: error=Deny, warning=Warn, info=Audit)")
    parser.add_argument("--params-namespace", default="kube-system", metavar="NS",
                        help="namespace of the ConfigMaps holding rule options (default: kube-system)")
    parser.add_argument("--list", action="store_true",
                        help="print which selected rules can be exported, and why not, instead of the objects")
    add_config_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from kueuelint.export.vap import ExportSettings, export_rules

    config = load_cli_config(args)
    rules = load_cli_rules(config)
    _check_selection(config, rules)
    settings = ExportSettings(audit=args.audit, actions=parse_actions(args.action),
                              params_namespace=args.params_namespace)
    exported, refused = export_rules(rules, config, settings, _inventories(args.context, config))
    if args.list:
        _print_list(exported, refused, sys.stdout)
        return EXIT_OK
    for code, reason in refused.items():
        print(f"kueuelint: {code} not exported: {reason}", file=sys.stderr)
    for item in exported:
        if item.note:
            print(f"kueuelint: {item.rule.meta.code}: {item.note}", file=sys.stderr)
    if not exported:
        print("kueuelint: no selected rule can be exported", file=sys.stderr)
        return EXIT_FINDINGS
    write_text(render(exported), args.output)
    return EXIT_OK


def _inventories(context: list[str], config) -> list:
    """One inventory per scope of what the context (``--context`` and the configuration's)
    holds; its problems are printed, one a line, and the export goes on."""
    from kueuelint import pipeline
    from kueuelint.config import ConfigError, check_input_paths

    try:
        check_input_paths(config, tuple(context))
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    if not context and not config.context and not config.scopes:
        return []
    run = pipeline.load_inputs([], config, extra_context=tuple(context))
    for line in run.problem_lines():
        print(f"kueuelint: {line}", file=sys.stderr)
    return [scope.inventory for scope in run.scopes]


def _check_selection(config, rules) -> None:
    for prefix in (*config.select, *config.ignore):
        if not any(code.startswith(prefix) for code in rules):
            raise UsageError(f"{prefix!r} matches no rule code")


def parse_actions(items: list[str]) -> dict[str, list[str]]:
    from kueuelint.findings import Severity

    actions = {}
    for item in items:
        key, _, value = item.partition("=")
        names = [name.strip().capitalize() for name in value.split(",") if name.strip()]
        key = key.strip()
        is_code = key.upper().startswith("KQ")
        if not value or not names or any(name not in ACTION_CHOICES for name in names) or \
                (not is_code and key.upper() not in Severity.__members__):
            raise UsageError(f"--action {item!r}: use SEVERITY=ACTIONS or CODE=ACTIONS with actions "
                             f"from {', '.join(ACTION_CHOICES)}")
        if "Deny" in names and "Warn" in names:
            raise UsageError(f"--action {item!r}: Deny and Warn cannot be combined")
        actions[key.upper() if is_code else key.lower()] = names
    return actions


def render(exported) -> str:
    import yaml

    header = ("# Written by `kueuelint export vap`: kueuelint's rules enforced by the API server "
              "(admissionregistration.k8s.io/v1).\n")
    documents = [obj for item in exported for obj in item.objects]
    return header + yaml.safe_dump_all(documents, sort_keys=False, width=100, explicit_start=True)



def _print_list(exported, refused, stream) -> None:
    rows = [(item.rule.meta.code, "exported", _kinds_note(item)) for item in exported]
    rows += [(code, "not exported", reason) for code, reason in refused.items()]
    for code, status, note in sorted(rows):
        stream.write(f"{code}  {status:<12}  {note}\n")


def _kinds_note(item) -> str:
    note = f"{len(item.kinds)} kinds"
    if item.left_out:
        note += "; left out: " + "; ".join(f"{kind} ({why})" for kind, why in item.left_out.items())
    return note
