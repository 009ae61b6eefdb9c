"""Judge an update: what the API server would refuse when objects change from OLD to NEW.

Immutable fields and CEL transition rules (those using ``oldSelf``) only run on update, so
``check`` skips them; ``diff`` pairs the objects of two Runs and reports here, into NEW.
"""

from __future__ import annotations

from kueuelint.config import Config
from kueuelint.errors import internal_error_message
from kueuelint.findings import Finding, Location, RunResult, Severity, format_path
from kueuelint.run import Run


def check_update(old: Run, new: Run, config: Config, rules, crd_paths: list[str]) -> RunResult:
    """Findings on NEW for every change from OLD the API server would reject, plus the files
    of either side that could not be read (as ``check`` reports them)."""
    from kueuelint.index.inventory import Inventory
    from kueuelint.schema.sources import crd_index

    old_objects, new_objects = old.objects, new.objects
    index = crd_index(Inventory(old_objects + new_objects), crd_paths)
    findings, failure = _transition_findings(old_objects, new_objects, index, config, rules)
    problems, internal = _load_problems([e.loaded for e in old.files + new.files], rules)
    return RunResult(sorted(findings + problems, key=Finding.sort_key), files=len(new.files),
                     objects=len(new_objects), rules={code: rule.meta for code, rule in rules.items()},
                     internal_error=failure or internal or old.internal_error or new.internal_error)


def _transition_findings(old_objects, new_objects, index, config: Config, rules):
    from kueuelint.schema.transition import pair, transition_issues

    engine = None if config.cel_engine == "auto" else config.cel_engine
    findings, failure = [], None
    for old, new in pair(old_objects, new_objects):
        try:
            issues = transition_issues(new.group, new.version, new.kind, old.data, new.data, index, engine)
        except Exception as exc:  # a bug of ours: say so, keep the other objects' findings
            failure = failure or internal_error_message(exc, f"comparing {new.display()}")
            continue
        findings += [_finding(new, issue, rules) for issue in issues]
    return findings, failure


def _finding(new, issue, rules) -> Finding:
    rule = rules.get(issue.code)
    location = new.locate(issue.path, at_value=issue.at_value)
    message = f"{new.display()}: {issue.message}" + (f" [{issue.judge}]" if issue.judge else "")
    return Finding(issue.code, rule.meta.name if rule else "update-rejected",
                   rule.meta.severity if rule else Severity.ERROR, message, location,
                   new.ref(), format_path(issue.path), new.doc.source.line_text(location.line))


def _load_problems(files, rules) -> tuple[list[Finding], str | None]:
    """A file of OLD or NEW that cannot be read is a finding here too, as in ``check``."""
    by_kind = {kind: rule for rule in rules.values() for kind in rule.problem_kinds}
    findings, internal = [], None
    for loaded in files:
        for problem in loaded.problems:
            rule = by_kind.get(problem.kind)
            if problem.kind == "internal-error":
                internal = internal or problem.message
            elif rule is not None:
                findings.append(Finding(
                    rule.meta.code, rule.meta.name, rule.meta.severity, problem.message,
                    Location(problem.path, problem.line, problem.column),
                    source_line=loaded.source.line_text(problem.line)))
    return findings, internal
