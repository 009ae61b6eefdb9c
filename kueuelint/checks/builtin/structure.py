"""KQ401–KQ411: what Kueue's ClusterQueue and Cohort webhooks reject beyond the CRD schema.

The schema rules (KQ110–KQ113) already report unknown fields, types, enums, list sizes and the
CRD's CEL rules (coveredResources count, borrowingLimit without a cohort, ...). The checks here
are the ones Kueue only makes in Go (pkg/webhooks/clusterqueue_webhook.go, cohort_webhook.go,
common.go), plus a few semantic mistakes; each stays silent where a schema finding already
covers the same field, so one mistake gives one finding.
"""

from __future__ import annotations

import difflib
from decimal import Decimal
from typing import Iterator

from kueuelint.accounting.quantity import safe_parse
from kueuelint.checks.api import RuleContext, Violation, rule
from kueuelint.findings import Severity
from kueuelint.identify.objects import KObject
from kueuelint.kueue.label_syntax import label_key_problem, selector_problems
from kueuelint.kueue.quota_tree import cohort_of, covered, flavor_names, group_path, parent_of, resource_groups

SCHEMA_CODES = ("KQ110", "KQ111")   # built-in model and CRD openAPI judges
MAX_TOTAL_FLAVORS = 256
MAX_TOTAL_RESOURCES = 256
MAX_GROUP_COMBINATIONS = 512
MIN_POSITIVE_WEIGHT = Decimal("1e-9")


def _quantity(value: object) -> Decimal | None:
    parsed, _ = safe_parse(value) if value is not None else (None, None)
    return parsed  # invalid syntax is the schema rules' finding


def _quotas(obj: KObject) -> Iterator[tuple[tuple, str, str, dict]]:
    """(path, flavor, resource, quota) for every resource quota entry."""
    for gi, _, flavors in resource_groups(obj):
        for fi, flavor in enumerate(flavors):
            items = flavor.get("resources")
            for ri, quota in enumerate(items if isinstance(items, list) else []):
                if isinstance(quota, dict):
                    yield (group_path(gi) + ("flavors", fi, "resources", ri), str(flavor.get("name")),
                           str(quota.get("name")), quota)


# --- KQ401: flavor resources in coveredResources order -------------------------------------------

@rule("KQ401")
def flavor_resources_order(obj: KObject, ctx: RuleContext):
    for gi, group, flavors in resource_groups(obj):
        names = covered(group)
        for fi, flavor in enumerate(flavors):
            items = flavor.get("resources")
            if not isinstance(items, list) or len(items) != len(names):
                continue  # a count mismatch is the CRD's CEL rule (KQ110/KQ112)
            listed = [q.get("name") if isinstance(q, dict) else None for q in items]
            for ri, (have, want) in enumerate(zip(listed, names)):
                if have != want:
                    path = group_path(gi) + ("flavors", fi, "resources", ri, "name")
                    yield Violation(path=path, at_value=True, args={
                        "detail": _order_detail(flavor.get("name"), have, want, listed, names)})
                    break


def _order_detail(flavor, have, want, listed: list, names: list) -> str:
    order = ", ".join(map(str, names))
    head = f"flavor {flavor!r} lists {have!r} where coveredResources has {want!r}"
    if sorted(map(str, listed)) == sorted(map(str, names)):
        return (f"{head}; Kueue wants each flavor's resources in the order of coveredResources "
                f"({order}): reorder them (Kueue: \"must match the name in coveredResources\")")
    close = difflib.get_close_matches(str(have), [str(n) for n in names], n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return (f"{head}{hint}; each flavor must list exactly the covered resources ({order}), in "
            "that order (Kueue: \"must match the name in coveredResources\")")


# --- KQ402: a resource or flavor in two places ------------------------------------------------

@rule("KQ402")
def duplicate_resource_or_flavor(obj: KObject, ctx: RuleContext):
    resources: dict[str, int] = {}
    flavors: dict[str, int] = {}
    for gi, group, items in resource_groups(obj):
        for ci, name in enumerate(covered(group)):
            if isinstance(name, str) and name in resources:
                where = "earlier in this group" if resources[name] == gi else \
                    f"in resourceGroups[{resources[name]}]"
                yield Violation(path=group_path(gi) + ("coveredResources", ci), at_value=True,
                                args={"detail": f"resource {name!r} is already covered {where}; "
                                      "a resource may belong to only one resource group"})
            if isinstance(name, str):
                resources.setdefault(name, gi)
        for fi, flavor in enumerate(items):
            name = flavor.get("name")
            if isinstance(name, str) and flavors.get(name, gi) != gi:
                yield Violation(path=group_path(gi) + ("flavors", fi, "name"), at_value=True,
                                args={"detail": f"flavor {name!r} already appears in resourceGroups"
                                      f"[{flavors[name]}]; a flavor may appear in only one resource "
                                      "group (give the second one its own ResourceFlavor)"})
            if isinstance(name, str):
                flavors.setdefault(name, gi)


# --- KQ403: limits without a cohort / parent -------------------------------------------------

@rule("KQ403")
def limit_without_cohort(obj: KObject, ctx: RuleContext):
    is_cohort = obj.kind == "Cohort"
    if (parent_of(obj) if is_cohort else cohort_of(obj)) is not None:
        return
    # The CRD's CEL rule already rejects a ClusterQueue's borrowingLimit; the webhook adds the rest.
    fields = ("borrowingLimit", "lendingLimit") if is_cohort else ("lendingLimit",)
    missing = "parentName" if is_cohort else "cohortName"
    for path, flavor, resource, quota in _quotas(obj):
        for field in fields:
            if field in quota:
                yield Violation(path=path + (field,), args={"detail": (
                    f"{field} for {resource} in flavor {flavor!r} needs a {missing}: Kueue rejects "
                    f"it with \"must be nil when {'parent' if is_cohort else 'cohort'} is empty\"; "
                    f"set spec.{missing} or remove the limit")})


# --- KQ404: lendingLimit above nominalQuota -----------------------------------------------------

@rule("KQ404")
def lending_limit_above_nominal(obj: KObject, ctx: RuleContext):
    for path, flavor, resource, quota in _quotas(obj):
        lending, nominal = _quantity(quota.get("lendingLimit")), _quantity(quota.get("nominalQuota"))
        if lending is not None and nominal is not None and lending > nominal:
            yield Violation(path=path + ("lendingLimit",), at_value=True, args={"detail": (
                f"lendingLimit {quota['lendingLimit']} for {resource} in flavor {flavor!r} is above "
                f"its nominalQuota {quota['nominalQuota']}; Kueue rejects it (\"must be less than "
                "or equal to the nominalQuota\"): a queue can lend at most what it has")})


# --- KQ406: totals across resource groups ----------------------------------------------------

@rule("KQ406")
def resource_group_totals(obj: KObject, ctx: RuleContext):
    groups = list(resource_groups(obj))
    total_flavors = sum(len(flavors) for _, _, flavors in groups)
    total_resources = sum(len(covered(group)) for _, group, _ in groups)
    for label, total, limit in (("flavors", total_flavors, MAX_TOTAL_FLAVORS),
                                ("covered resources", total_resources, MAX_TOTAL_RESOURCES)):
        if total > limit:
            yield Violation(path=("spec", "resourceGroups"), args={"detail": (
                f"total number of {label} across all resourceGroups must be <= {limit}, "
                f"got {total}; split the queue")})
    for gi, group, flavors in groups:
        combinations = len(flavors) * len(covered(group))
        if combinations > MAX_GROUP_COMBINATIONS:
            yield Violation(path=group_path(gi), args={"detail": (
                f"resourceGroups[{gi}] has {len(flavors)} flavors x {len(covered(group))} "
                f"resources = {combinations} flavor-resource combinations; Kueue allows at most "
                f"{MAX_GROUP_COMBINATIONS} per group")})


# --- KQ407: v1beta1 spellings ------------------------------------------------------------------

_V1BETA1_VALUES = {"whenCanBorrow": "Borrow", "whenCanPreempt": "Preempt"}


@rule("KQ407")
def v1beta1_spellings(obj: KObject, ctx: RuleContext):
    spec = obj.spec
    if obj.version == "v1beta1":
        if spec.get("admissionChecks") and spec.get("admissionChecksStrategy"):
            yield Violation(path=("spec", "admissionChecks"), severity=Severity.WARNING, args={
                "detail": "both admissionChecks and admissionChecksStrategy are set; on conversion "
                          "to v1beta2 the plain list overwrites the strategy and its onFlavors are "
                          "lost: keep only admissionChecksStrategy"})
        return
    fungibility = spec.get("flavorFungibility")
    for field, old in _V1BETA1_VALUES.items():
        if isinstance(fungibility, dict) and fungibility.get(field) == old:
            path = ("spec", "flavorFungibility", field)
            yield Violation(path=path, at_value=True, replaces=_schema(path), args={"detail": (
                f"{field}: {old} is the v1beta1 spelling, removed in {obj.api_version}; write "
                f"{field}: MayStopSearch (what Kueue converts {old} to) or TryNextFlavor")})
    checks = spec.get("admissionChecks")
    if checks is not None:
        names = [c for c in checks if isinstance(c, str)] if isinstance(checks, list) else []
        shown = ", ".join(f"{{name: {n}}}" for n in names) or "{name: ...}"
        path = ("spec", "admissionChecks")
        yield Violation(path=path, replaces=_schema(path), args={"detail": (
            f"spec.admissionChecks is the v1beta1 field, removed in {obj.api_version}; write "
            f"admissionChecksStrategy: {{admissionChecks: [{shown}]}}")})


def _schema(path: tuple) -> tuple:
    return tuple((code, path) for code in SCHEMA_CODES)


# --- KQ408: flavor resources indented at the group level -----------------------------------

@rule("KQ408")
def misindented_flavor_resources(obj: KObject, ctx: RuleContext):
    for gi, group, flavors in resource_groups(obj):
        stray = group.get("resources")
        bare = [fi for fi, flavor in enumerate(flavors) if "resources" not in flavor]
        if stray is None or not bare:
            continue
        names = ", ".join(repr(flavors[fi].get("name")) for fi in bare)
        path = group_path(gi) + ("resources",)
        replaced = _schema(path) + tuple(
            (code, group_path(gi) + ("flavors", fi)) for fi in bare for code in SCHEMA_CODES)
        yield Violation(path=path, replaces=replaced + (("KQ112", group_path(gi)),), args={
            "detail": (f"'resources:' sits at the resource-group level (beside coveredResources "
                       f"and flavors), so flavor {names} has no quotas; indent the block so it "
                       f"belongs to the flavor (aligned with that flavor's 'name:')")})


# --- KQ409: fair-sharing weight -------------------------------------------------------------

@rule("KQ409")
def fair_sharing_weight(obj: KObject, ctx: RuleContext):
    fair = obj.spec.get("fairSharing")
    raw = fair.get("weight") if isinstance(fair, dict) else None
    weight = _quantity(raw)
    if weight is None:
        return
    path = ("spec", "fairSharing", "weight")
    if weight < 0:
        yield Violation(path=path, at_value=True, args={"detail": (
            f"fairSharing.weight {raw} is negative; Kueue rejects it (\"must be greater than or "
            "equal to 0\")")})
    elif 0 < weight <= MIN_POSITIVE_WEIGHT:
        yield Violation(path=path, at_value=True, args={"detail": (
            f"fairSharing.weight {raw} is too small to compute shares with; Kueue rejects it "
            "(\"When not 0, weight must be > 10e-9\"): use 0 or a larger weight")})


# --- KQ410 / KQ411: names and selectors ------------------------------------------------------

@rule("KQ410")
def covered_resource_name(obj: KObject, ctx: RuleContext):
    for gi, group, _ in resource_groups(obj):
        for ci, name in enumerate(covered(group)):
            problem = label_key_problem(name) if isinstance(name, str) else None
            if problem:
                yield Violation(path=group_path(gi) + ("coveredResources", ci), at_value=True,
                                args={"detail": f"coveredResources entry {problem}; resource names "
                                      "look like cpu, memory or example.com/gpu"})


@rule("KQ411")
def namespace_selector_syntax(obj: KObject, ctx: RuleContext):
    path = ("spec", "namespaceSelector")
    for where, problem in selector_problems(obj.spec.get("namespaceSelector"), path):
        yield Violation(path=where, at_value=True, args={"detail": (
            f"namespaceSelector is invalid: {problem}; Kueue rejects the ClusterQueue")})


# --- KQ412: cohort-only settings on a queue without a cohort -----------------------------------

@rule("KQ412")
def cohort_settings_without_cohort(obj: KObject, ctx: RuleContext):
    if cohort_of(obj) is not None:
        return
    preemption = obj.spec.get("preemption")
    preemption = preemption if isinstance(preemption, dict) else {}
    borrow = preemption.get("borrowWithinCohort")
    settings = []
    if preemption.get("reclaimWithinCohort") not in (None, "Never"):
        settings.append(("reclaimWithinCohort", preemption["reclaimWithinCohort"]))
    if isinstance(borrow, dict) and borrow.get("policy") not in (None, "Never"):
        settings.append(("borrowWithinCohort", borrow["policy"]))
    if settings:
        shown = ", ".join(f"{name}: {value}" for name, value in settings)
        yield Violation(path=("spec", "preemption", settings[0][0]), args={"detail": (
            f"preemption {shown} only acts between queues of a cohort, and this ClusterQueue has "
            "no cohortName, so it never preempts or borrows anything; set spec.cohortName or "
            "drop these settings")})


# --- KQ413: concurrentAdmissionPolicy ---------------------------------------------------------

MAX_CONCURRENT_FLAVORS = 16


@rule("KQ413")
def concurrent_admission_policy(obj: KObject, ctx: RuleContext):
    policy = obj.spec.get("concurrentAdmissionPolicy")
    if not isinstance(policy, dict):
        return
    base = ("spec", "concurrentAdmissionPolicy")
    groups = list(resource_groups(obj))
    flavors = flavor_names(obj)
    if len(groups) != 1:
        yield Violation(path=base, args={"detail": (
            f"the ClusterQueue has {len(groups)} resource groups; Kueue requires exactly one "
            "when concurrentAdmissionPolicy is set")})
    elif len(flavors) > MAX_CONCURRENT_FLAVORS:
        yield Violation(path=base, args={"detail": (
            f"{len(flavors)} flavors; concurrentAdmissionPolicy allows at most "
            f"{MAX_CONCURRENT_FLAVORS}")})
    if obj.spec.get("queueingStrategy") == "StrictFIFO":
        yield Violation(path=("spec", "queueingStrategy"), at_value=True, args={"detail": (
            "StrictFIFO queueing strategy cannot be used when ConcurrentAdmissionPolicy is "
            "defined; use BestEffortFIFO")})
    yield from _migration_problems(policy, base, flavors)


def _migration_problems(policy: dict, base: tuple, flavors: list[str]):
    migration = policy.get("migration")
    migration = migration if isinstance(migration, dict) else {}
    constraints = migration.get("constraints")
    if not isinstance(constraints, dict):
        return
    path = base + ("migration", "constraints")
    if migration.get("mode") != "TryPreferredFlavors":
        yield Violation(path=path, args={"detail": (
            f"migration.constraints only apply with mode TryPreferredFlavors, not "
            f"{migration.get('mode')!r}")})
    last = constraints.get("lastAcceptableFlavorName")
    if isinstance(last, str) and last not in flavors:
        yield Violation(path=path + ("lastAcceptableFlavorName",), at_value=True, args={
            "detail": (f"lastAcceptableFlavorName {last!r} is not one of the ClusterQueue's "
                       f"flavors ({', '.join(flavors) or 'none'})")})
