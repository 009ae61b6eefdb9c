"""Kueue API versions: what the API server still serves, and what is on its way out."""

from __future__ import annotations

import difflib

from kueuelint.checks.api import RuleContext, Violation, rule
from kueuelint.findings import Severity
from kueuelint.identify.kinds import KINDS, KUEUE_CONFIG_GROUP, KUEUE_GROUP
from kueuelint.identify.objects import KObject

SERVED = ("v1beta1", "v1beta2")
V1BETA2_SERVED_FROM = (0, 15)
V1BETA1_UNSERVED_FROM = (0, 20)
# Before 0.15 some kinds were still served as v1alpha1 (Cohort, Topology, MultiKueue's):
# which ones, per release, is not modelled, so only v1beta2 is judged there.
SERVED_BEFORE_V1BETA2 = ("v1alpha1", "v1beta1")


@rule("KQ101")
def unserved_api_version(obj: KObject, ctx: RuleContext):
    if obj.info is None:
        yield Violation(path=("kind",), args={"detail": _unknown_kind(obj)})
    elif ctx.kueue_version < V1BETA2_SERVED_FROM:
        if obj.version not in SERVED_BEFORE_V1BETA2:
            yield Violation(path=("apiVersion",), at_value=True, args={
                "detail": f"{obj.api_version} is served only from Kueue 0.15; Kueue "
                          f"{'.'.join(map(str, ctx.kueue_version))} serves {obj.group}/v1beta1"})
    elif obj.version not in SERVED:
        yield Violation(path=("apiVersion",), at_value=True, args={
            "detail": f"{obj.api_version} is not served by Kueue (served: "
                      f"{', '.join(f'{obj.group}/{v}' for v in SERVED)}); use {obj.group}/v1beta2"})


def _unknown_kind(obj: KObject) -> str:
    kinds = [info.kind for info in KINDS.values() if info.group in (KUEUE_GROUP, KUEUE_CONFIG_GROUP)
             and info.group == obj.group]
    close = difflib.get_close_matches(obj.kind, kinds, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"{obj.group} has no kind {obj.kind!r}{hint}"


@rule("KQ102")
def deprecated_api_version(obj: KObject, ctx: RuleContext):
    if obj.info is None or obj.version != "v1beta1" or ctx.kueue_version < V1BETA2_SERVED_FROM:
        return  # before Kueue 0.15 there is no v1beta2 to move to
    unserved = ctx.kueue_version >= V1BETA1_UNSERVED_FROM
    when = "is no longer served by" if unserved else "is deprecated since Kueue 0.16 and no longer served from"
    yield Violation(path=("apiVersion",), at_value=True,
                    severity=Severity.ERROR if unserved else None,
                    args={"detail": f"{obj.api_version} {when} Kueue 0.20"})
