"""KQ110–KQ113: schema validation by the built-in Kueue models or by the run's CRDs.

One validation per object feeds all four rules (a run fact). When the run holds a CRD
for the object's group/kind/version, the CRD judges (it is what the cluster runs) and the
built-in model stays silent; the finding names the CRD and version that judged it.
"""

from __future__ import annotations

from kueuelint.checks.api import RuleContext, Violation, rule
from kueuelint.checks.crd_index import crd_index_for, setting
from kueuelint.identify.objects import KObject
from kueuelint.kueue.facts import ObjectFact
from kueuelint.kueue.kinds import REMOVED_FRAMEWORKS  # frameworks Kueue's latest model no longer knows

_KUEUE_GROUPS = ("kueue.x-k8s.io", "config.kueue.x-k8s.io")


@rule("KQ110")
def check_kueue_schema(obj: KObject, ctx: RuleContext):
    yield from _violations(obj, ctx, "KQ110")


@rule("KQ111")
def check_crd_schema(obj: KObject, ctx: RuleContext):
    yield from _violations(obj, ctx, "KQ111")


@rule("KQ112")
def check_crd_cel_rules(obj: KObject, ctx: RuleContext):
    yield from _violations(obj, ctx, "KQ112")


@rule("KQ113")
def check_crd_cel_unsupported(obj: KObject, ctx: RuleContext):
    yield from _violations(obj, ctx, "KQ113")


def _violations(obj: KObject, ctx: RuleContext, code: str):
    if obj.key == "ConfigMap":
        if code == "KQ110":
            yield from _embedded_configuration(obj, ctx)
        return
    for issue in _issues(obj, ctx):
        if issue.code == code and not _framework_of_older_kueue(obj.data, issue.path, ctx):
            detail = issue.message if code == "KQ110" else f"{issue.message} [{issue.judge}]"
            yield Violation(path=issue.path, at_value=issue.at_value, args={"detail": detail})


def _framework_of_older_kueue(data, path: tuple, ctx: RuleContext) -> bool:
    """An enum error on a framework the target Kueue version still had (kubeflow.org/mxjob up to 0.10)."""
    if len(path) != 3 or tuple(path[:2]) != ("integrations", "frameworks") or not isinstance(data, dict):
        return False
    integrations = data.get("integrations")
    frameworks = integrations.get("frameworks") if isinstance(integrations, dict) else None
    index = path[2]
    value = frameworks[index] if isinstance(frameworks, list) and isinstance(index, int) \
        and index < len(frameworks) else None
    removed_in = REMOVED_FRAMEWORKS.get(value) if isinstance(value, str) else None
    return removed_in is not None and ctx.kueue_version < removed_in


def _embedded_configuration(obj: KObject, ctx: RuleContext):
    """The Configuration inside the manager ConfigMap, through the Kueue-config rules' view,
    which maps the embedded YAML onto the ConfigMap's lines so findings point inside it."""
    import yaml

    from kueuelint.checks.config_view import view

    try:
        config = view(obj)
    except yaml.YAMLError:
        return  # text the YAML reader refuses outright: not a Configuration to validate
    if config is None or config.problems or not config.data:
        return  # unreadable embedded text is KQ901's finding
    group, _, version = str(config.data.get("apiVersion", "")).rpartition("/")
    if group != "config.kueue.x-k8s.io":
        return
    from kueuelint.schema import builtin

    for issue in builtin.validate(group, version, str(config.data.get("kind")), config.data) or ():
        if not _framework_of_older_kueue(config.data, issue.path, ctx):
            yield config.violation(issue.path, issue.message, at_value=issue.at_value)


def _issues(obj: KObject, ctx: RuleContext) -> list:
    return SCHEMA_ISSUES.of(obj, ctx)


def _validate(obj: KObject, ctx: RuleContext) -> list:
    if not isinstance(obj.data, dict) or obj.kind == "CustomResourceDefinition":
        return []
    index = crd_index_for(ctx)
    if index is not None and index.has_kind(obj.group, obj.kind):
        return _by_crd(obj, ctx, index)
    if obj.group in _KUEUE_GROUPS:
        from kueuelint.schema import builtin

        return builtin.validate(obj.group, obj.version, obj.kind, obj.data) or []
    return []


SCHEMA_ISSUES = ObjectFact("schema-issues", _validate)


def _by_crd(obj: KObject, ctx: RuleContext, index) -> list:
    from kueuelint.schema import crd
    from kueuelint.schema.issues import OPENAPI, SchemaIssue

    version = index.get(obj.group, obj.kind, obj.version)
    if version is None or not version.served:
        served = sorted(v.version for v in index if v.group == obj.group and v.kind == obj.kind
                        and v.served)
        return [SchemaIssue(OPENAPI, ("apiVersion",), f"apiVersion: {obj.api_version} is not "
                            f"served by the CRD for {obj.kind} (served: {', '.join(served)})",
                            "CRD", at_value=True)]
    engine = setting(ctx, "cel_engine", "cel-engine")
    issues, runner = crd.validate(version, obj.data,
                                  engine=None if engine in (None, "", "auto") else engine)
    if runner is not None:
        ctx.stats.cel_rules_evaluated += runner.evaluated
        ctx.stats.transition_rules_skipped += runner.skipped_transition
    return issues
