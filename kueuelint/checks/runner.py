"""Apply the selected rules to a Run (see ``kueuelint.run``), then suppressions and statistics."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import os
import time
from dataclasses import dataclass, field
from types import GeneratorType
from typing import Any, Callable

from kueuelint.checks import suppress
from kueuelint.identify import placeholders as templates
from kueuelint.checks.api import PYTHON_RULES, RuleContext, Violation
from kueuelint.checks.registry import RuleDef, effective_options
from kueuelint.config import Config, resolve_paths
from kueuelint.errors import internal_error_message
from kueuelint.findings import Finding, Fix, Location, RunResult, RunStatistics, Severity, format_path
from kueuelint.identify.objects import KObject
from kueuelint.index.inventory import Inventory
from kueuelint.load.source import LoadedFile
from kueuelint.run import Run

RULE_ERROR = "KQ009"
UNUSED_SUPPRESSION = "KQ010"
SUPPRESSION_WITHOUT_REASON = "KQ011"


@dataclass
class FileState:
    loaded: LoadedFile
    objects: list[KObject] = field(default_factory=list)
    suppressions: suppress.FileSuppressions = field(default_factory=suppress.FileSuppressions)
    placeholders: list[tuple[Location, str, str]] = field(default_factory=list)  # (where, value, path)


class Checker:
    """Applies one set of rules to the checked files of a Run (its context only informs them)."""

    def __init__(self, rules: dict[str, RuleDef], config: Config, *, use_suppressions: bool = True,
                 progress: Callable[[int, int], None] | None = None) -> None:
        self.rules = rules
        self.config = config
        self.use_suppressions = use_suppressions
        self.progress = progress
        self.findings: list[Finding] = []
        self._problem_codes = {kind: rule for rule in rules.values() for kind in rule.problem_kinds}
        self._cel_rules: dict[str, object] = {}
        self._engine = None
        self._cel_values: Callable | None = None    # cel_rules.activation_values, once imported
        self._by_kind: dict[str, list[RuleDef]] = {}
        self._cel_inputs_by_kind: dict[str, tuple] = {}
        self._cel_groups: dict[str, object] = {}    # kind -> cel_rules.CelRuleGroup
        self._rule_ctxs: dict[str, tuple[RuleContext, RuleContext]] = {}
        self.stats = RunStatistics()
        # A bug in kueuelint itself (not in a rule, not in the input): the run goes on with the
        # other files so their findings are still written, and the exit status says "report this".
        self.internal_error: str | None = None

    # --- the run ------------------------------------------------------------------------

    def run(self, run: Run) -> RunResult:
        """Check the checked files of ``run`` against its inventory."""
        started = time.perf_counter()
        self.internal_error = self.internal_error or run.internal_error
        with _loaded_data_frozen():
            states = self._check_scopes(run)
        return RunResult(sorted(self.findings, key=Finding.sort_key), files=len(states),
                         objects=sum(len(s.objects) for s in states),
                         seconds=time.perf_counter() - started,
                         rules={code: rule.meta for code, rule in self.rules.items()},
                         internal_error=self.internal_error, stats=self.stats)

    def _check_scopes(self, run: Run) -> list[FileState]:
        states = []
        for scope in run.scopes:   # cross-object rules resolve only inside a scope
            scope_states = [FileState(entry.loaded, entry.objects) for entry in scope.checked]
            self.check_states(scope_states, scope.inventory, scope.kueue_version)
            states += scope_states
        return states

    def note_internal_error(self, exc: BaseException, where: str) -> None:
        if self.internal_error is None:
            self.internal_error = internal_error_message(exc, where)

    def rule_context(self, inventory: Inventory, kueue_version: tuple[int, int] | None = None) -> RuleContext:
        config = self.config
        return RuleContext(inventory, kueue_version or config.kueue_version,
                           crds=tuple(resolve_paths(config, config.crds)),
                           cel_engine=None if config.cel_engine == "auto" else config.cel_engine)

    def check_states(self, states: list[FileState], inventory: Inventory,
                     kueue_version: tuple[int, int] | None = None) -> list[Finding]:
        """Check the given files against an inventory that may hold objects of other files."""
        ctx = self.rule_context(inventory, kueue_version)
        with _loaded_data_frozen():
            for number, state in enumerate(states, start=1):
                try:
                    self._check_file(state, ctx)
                except Exception as exc:
                    self.note_internal_error(exc, f"checking {state.loaded.source.path}")
                if self.progress:
                    self.progress(number, len(states))
        self.stats.add(ctx.stats)
        return self.findings

    def _check_file(self, state: FileState, ctx: RuleContext) -> None:
        source = state.loaded.source
        if self.use_suppressions:
            state.suppressions.items = self._comment_suppressions(state)
        for problem in state.loaded.problems:
            self._report_problem(state, problem)
        for obj in state.objects:
            try:
                if self.use_suppressions:
                    self._collect_annotation_suppression(state, obj)
                self._check_object(state, obj, ctx)
            except Exception as exc:
                self.note_internal_error(exc, f"checking {obj.display()} in {source.path}:{obj.doc.line}")
        self._report_placeholders(state)
        if self.use_suppressions:
            self._report_suppression_hygiene(state)

    def _check_object(self, state: FileState, obj: KObject, ctx: RuleContext) -> None:
        applicable = self._applicable(obj.key)
        activation = values = together = None
        results = []
        for rule in applicable:
            try:
                if rule.implementation == "python":
                    returned = rule.python_func()(obj, self._rule_ctx(ctx, rule))
                    # what nearly every rule gives: a generator that yields nothing, nothing to vet
                    violations = list(returned) if returned.__class__ is GeneratorType else returned
                    if violations or violations is returned:
                        violations = returned_violations(violations)
                else:
                    if values is None:
                        if not api_shaped(obj.data):
                            continue
                        values = self._activation_values(obj, ctx, applicable)
                        together = self._cel_group(obj.key, applicable).evaluate(values)
                    violations = together.get(rule.meta.code)
                    if violations is None:   # not answered together: alone, with its own errors
                        if activation is None:
                            activation = self._engine.activation(values)
                        violations = self._cel_rule(rule).evaluate(activation, values)
            except Exception as exc:  # a broken rule must not stop the others
                self._report_rule_error(state, rule, obj, exc)
                continue
            results.append((rule, violations))
        found = [(rule, violations) for rule, violations in results if violations]
        if not found:
            return
        replaced = {(code, tuple(path)) for _, violations in found for v in violations
                    for code, path in getattr(v, "replaces", ())}
        for rule, violations in found:
            for violation in violations:
                if replaced and violation.obj is None and \
                        (rule.meta.code, tuple(violation.path)) in replaced:
                    continue  # another rule reports the same mistake with a better message
                try:
                    self._report_violation(state, rule, obj, violation)
                except Exception as exc:  # e.g. a path that names no field: the rule's mistake
                    self._report_rule_error(state, rule, obj, exc)

    def _applicable(self, kind_key: str) -> list[RuleDef]:
        found = self._by_kind.get(kind_key)
        if found is None:
            found = self._by_kind[kind_key] = [
                r for r in self.rules.values()
                if r.implementation != "builtin" and self.config.is_selected(r.meta.code)
                and r.applies_to(kind_key)]
        return found

    def _rule_ctx(self, ctx: RuleContext, rule: RuleDef) -> RuleContext:
        """The context with the rule's options; made once per rule and context, not per object."""
        known = self._rule_ctxs.get(rule.meta.code)
        if known is not None and known[0] is ctx:
            return known[1]
        options = effective_options(rule, self.config.rule_options)
        rule_ctx = dataclasses.replace(ctx, options=options) if options else ctx
        self._rule_ctxs[rule.meta.code] = (ctx, rule_ctx)
        return rule_ctx

    # --- CEL ----------------------------------------------------------------------------

    def _cel_rule(self, rule: RuleDef):
        cel_rule = self._cel_rules.get(rule.meta.code)
        if cel_rule is None:
            from kueuelint.cel.engine import get_engine
            from kueuelint.checks.cel_rules import CelRule

            if self._engine is None:
                name = None if self.config.cel_engine == "auto" else self.config.cel_engine
                self._engine = get_engine(name)
            params = effective_options(rule, self.config.rule_options)
            cel_rule = self._cel_rules[rule.meta.code] = CelRule(rule, self._engine, params)
        return cel_rule

    def _cel_group(self, kind_key: str, rules: list[RuleDef]):
        group = self._cel_groups.get(kind_key)
        if group is None:
            from kueuelint.checks.cel_rules import CelRuleGroup

            cel_rules = [self._cel_rule(rule) for rule in rules if rule.implementation == "cel"]
            group = self._cel_groups[kind_key] = CelRuleGroup(cel_rules, self._engine)
        return group

    def _activation_values(self, obj: KObject, ctx: RuleContext, rules: list[RuleDef]) -> dict:
        if self._cel_values is None:    # imported once: this runs for every object
            from kueuelint.checks.cel_rules import activation_values

            self._cel_values = activation_values
        needs, paths = self._cel_inputs(obj.key, rules)
        return self._cel_values(obj, ctx, needs, paths)

    def _cel_inputs(self, kind_key: str, rules: list[RuleDef]) -> tuple[set[str], dict | None]:
        """The variables, and the parts of ``object`` (None: all of it), that the CEL rules of
        a kind read; the same for every object of the kind."""
        known = self._cel_inputs_by_kind.get(kind_key)
        if known is None:
            from kueuelint.checks.cel_rules import merged_paths

            needs: set[str] = set()
            paths: dict | None = {}
            for rule in rules:
                if rule.implementation == "cel":
                    cel_rule = self._cel_rule(rule)
                    needs |= cel_rule.needs
                    paths = merged_paths(paths, cel_rule.object_paths)
            known = self._cel_inputs_by_kind[kind_key] = (needs, paths)
        return known

    # --- turning results into findings --------------------------------------------------

    def _report_violation(self, state: FileState, rule: RuleDef, obj: KObject, violation: Violation) -> None:
        target = violation.obj or obj
        if target.doc.source is not obj.doc.source:
            # Findings must belong to the file being checked, or parallel runs (-j) would lose
            # them; a rule that needs to point elsewhere runs on the other object's kind.
            raise_on = f"{target.display()} in {target.path}"
            self._report_rule_error(state, rule, obj, ValueError(f"reported on {raise_on}, another file"))
            return
        if target.is_context:
            return
        location = target.locate(violation.path, at_value=violation.at_value)
        value = target.get(*violation.path) if violation.path else None
        if templates.is_placeholder(value):
            state.placeholders.append((location, value, format_path(violation.path)))
            return
        message = violation.message or _render(rule.message, target, violation.args)
        self._emit(state, rule.meta.code, rule.meta.name, violation.severity or rule.meta.severity,
                   message, location, target, format_path(violation.path) if violation.path else None,
                   Fix(violation.fix) if violation.fix else None)

    def _report_placeholders(self, state: FileState) -> None:
        """One note per file for the findings dropped because they judged a placeholder."""
        rule = self.rules.get(templates.UNRENDERED_TEMPLATE)
        if not state.placeholders or rule is None:
            return
        location, value, where = min(state.placeholders, key=lambda item: (item[0].line, item[0].column))
        values = {item[1] for item in state.placeholders}
        self._emit(state, rule.meta.code, rule.meta.name, rule.meta.severity,
                   templates.note_text(len(values), value, where), location)

    def _report_problem(self, state: FileState, problem) -> None:
        if problem.kind == "internal-error":
            self.internal_error = self.internal_error or problem.message
            return
        rule = self._problem_codes.get(problem.kind)
        if rule is None:
            return
        location = Location(problem.path, problem.line, problem.column)
        severity, message = rule.meta.severity, problem.message
        if problem.kind == "duplicate-key" and _read_by_kustomize(problem.path):
            # kustomize decodes leniently (the last value wins); nothing reaches an API server
            severity = Severity.WARNING
            message = message.split(";")[0] + "; kustomize keeps the last one and ignores the first"
        self._emit(state, rule.meta.code, rule.meta.name, severity, message, location)

    def _report_rule_error(self, state: FileState, rule: RuleDef, obj: KObject, exc: Exception) -> None:
        meta = self.rules.get(RULE_ERROR)
        name = meta.meta.name if meta else "rule-error"
        detail = f"{type(exc).__name__}: {exc}" if not str(exc).startswith("CEL") else str(exc)
        message = (f"rule {rule.meta.code} ({rule.meta.name}) failed on {obj.display()}: {detail}"
                   f" ({rule_error_origin(rule, exc)})")
        self._emit(state, RULE_ERROR, name, Severity.ERROR, message, obj.locate(()), obj, force=True)

    def _emit(self, state: FileState, code: str, name: str, severity: Severity, message: str,
              location: Location, obj: KObject | None = None, field_path: str | None = None,
              fix: Fix | None = None, force: bool = False) -> None:
        if not force and not self._wanted(code, location.path):
            return
        if self.use_suppressions and state.suppressions.match(code, location.line):
            return
        severity = self.config.severity.get(code, severity)
        source_line = state.loaded.source.line_text(location.line)
        self.findings.append(Finding(code, name, severity, message, location,
                                     obj.ref() if obj else None, field_path, source_line, fix))

    def _wanted(self, code: str, path: str) -> bool:
        if not self.config.is_selected(code) or code not in self.rules:
            return False
        return not _per_file_ignored(self.config.per_file_ignores, code, path)

    # --- suppressions -------------------------------------------------------------------

    def _comment_suppressions(self, state: FileState) -> list[suppress.Suppression]:
        source = state.loaded.source
        if suppress.MARKER not in source.text:
            return []
        in_strings = suppress.block_scalar_lines(doc.node for doc in state.loaded.documents)
        return suppress.scan_comments(source.path, source.text, in_strings)

    def _collect_annotation_suppression(self, state: FileState, obj: KObject) -> None:
        value = obj.annotations.get(suppress.ANNOTATION)
        if value is None:
            return
        path = ("metadata", "annotations", suppress.ANNOTATION)
        loc = obj.locate(path)
        node = obj.doc.node
        end = node.end_mark.line + 1 if node is not None else loc.line
        state.suppressions.items.append(
            suppress.from_annotation(value, loc.path, loc.line, loc.column, (obj.doc.line, end)))

    def _report_suppression_hygiene(self, state: FileState) -> None:
        hygiene = []
        for item in state.suppressions.items:
            location = Location(item.path, item.line, item.column)
            if not item.reason:
                hygiene.append((SUPPRESSION_WITHOUT_REASON,
                                "suppression has no reason; say why after the codes", location))
            typo = suppress.unknown_code_message(item, self.rules)
            if typo:
                hygiene.append((UNUSED_SUPPRESSION, typo, location, Severity.ERROR))
            elif not item.used:
                codes = ",".join(item.codes) or "all codes"
                hygiene.append((UNUSED_SUPPRESSION,
                                f"suppression of {codes} matched no finding; remove it", location))
        for code, message, location, *forced in hygiene:
            rule = self.rules.get(code)
            if rule is not None and self._wanted(code, location.path):
                source_line = state.loaded.source.line_text(location.line)
                severity = forced[0] if forced else self.config.severity.get(code, rule.meta.severity)
                self.findings.append(Finding(code, rule.meta.name, severity, message, location,
                                             source_line=source_line))


KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def _read_by_kustomize(path: str) -> bool:
    return os.path.basename(path) in KUSTOMIZATION_FILES


@contextlib.contextmanager
def _loaded_data_frozen():
    """Everything loaded lives until the run ends, yet each full collection the rules' own
    allocations trigger would walk all of it again (a tenth of the rule phase).  Freezing moves
    it out of the collector's sight for the rules, and the run gives it back afterwards.  The
    rules' garbage is short-lived and acyclic, so young collections run less often too (a third
    of what was left).  Someone else's frozen objects are left alone: then nothing changes here.
    A run freezes before it indexes its scopes and builds its file states: at 5,000 manifests
    those allocations alone set off a full collection over everything loaded (90 ms)."""
    if gc.get_freeze_count():
        yield
        return
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(thresholds[0], YOUNG_COLLECTION_EVERY), *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


YOUNG_COLLECTION_EVERY = 20_000   # allocations; Python's default is 700


def returned_violations(returned) -> list[Violation]:
    """What a Python rule gave back, which must be Violations: anything else is the rule's
    mistake and is reported as such (KQ009), not as kueuelint's crash."""
    if returned is None:
        return []
    if isinstance(returned, (str, bytes, dict, Violation)):
        raise TypeError(f"a rule returns a list of Violation (or yields them), not one {type(returned).__name__}")
    violations = list(returned)
    for item in violations:
        if not isinstance(item, Violation):
            raise TypeError(f"a rule returns Violation objects (kueuelint.checks.api.Violation), "
                            f"got {type(item).__name__} {_short(item)}")
    return violations


def rule_error_origin(rule: RuleDef, exc: BaseException) -> str:
    """Where a failing rule is defined, and for a Python rule the line of its own code that
    raised: what its author needs to find the mistake."""
    import os
    import traceback

    origin = f"rule file {_shown_path(rule.meta.source)}"
    module = (rule.python or "").partition(":")[0]
    folder = os.path.dirname(os.path.abspath(rule.meta.source))
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith(folder + os.sep)]
    if isinstance(exc, SyntaxError) and exc.filename and exc.filename.startswith(folder + os.sep):
        return f"{origin}, {_shown_path(exc.filename)}:{exc.lineno}"
    if module and frames:
        return f"{origin}, {_shown_path(frames[-1].filename)}:{frames[-1].lineno}"
    return origin


def _shown_path(path: str) -> str:
    import os

    relative = os.path.relpath(path) if os.path.isabs(path) else path
    return path if relative.startswith(os.pardir) else relative


def _short(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _render(template: str, obj: KObject, args: dict) -> str:
    values = {"object": obj.display(), "kind": obj.kind, "name": obj.name,
              "namespace": obj.namespace or "", "apiVersion": obj.api_version, **args}
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError):
        return template


def _per_file_ignored(per_file: dict[str, tuple[str, ...]], code: str, path: str) -> bool:
    if not per_file:
        return False
    import fnmatch

    for pattern, codes in per_file.items():
        if fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(path, f"*/{pattern}"):
            if any(code.startswith(prefix) for prefix in codes):
                return True
    return False


def ensure_python_rules_loaded(rules: dict[str, RuleDef]) -> None:
    """Bind python rules eagerly (used by ``rules`` listings and tests to catch typos)."""
    for rule in rules.values():
        if rule.implementation == "python":
            rule.python_func()
    _ = PYTHON_RULES


def api_shaped(data: Any) -> bool:
    """False for a manifest whose metadata or spec is not a mapping. The API server refuses such
    an object before any webhook or admission policy sees it (the schema and label rules report
    it), so CEL rules, written as those policies are, never see one either."""
    if not isinstance(data, dict) or "apiVersion" not in data:
        return True    # not a Kubernetes manifest (a compute config): the rule guards itself
    return isinstance(data.get("metadata", {}), dict) and isinstance(data.get("spec", {}), dict)
