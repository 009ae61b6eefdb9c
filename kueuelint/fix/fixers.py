"""The fixes kueuelint can apply, by rule code.

Each fixer returns the text edits for one object and, separately, applies the same change to
a copy of the object's data.  The file is rewritten only when re-reading the edited text
gives exactly that data, so a fix can never change more than it says.
"""

from __future__ import annotations

import json
from typing import Callable

from kueuelint.fix.edits import CannotFix, Edit, child, line_span, put_entry, rename_key, replace_scalar
from kueuelint.identify.objects import KObject

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
KUEUE_GROUP = "kueue.x-k8s.io"
# v1beta1 kinds whose conversion to v1beta2 is the apiVersion plus the renames below
PLAIN_BUMP = {"ResourceFlavor", "LocalQueue", "WorkloadPriorityClass", "Topology",
              "ProvisioningRequestConfig", "MultiKueueConfig", "ClusterQueue", "Cohort", "AdmissionCheck"}
FUNGIBILITY = {"Borrow": "MayStopSearch", "Preempt": "MayStopSearch"}


class Fixer:
    code: str
    summary: str

    def edits(self, obj: KObject, text: str) -> list[Edit]:
        raise NotImplementedError

    def expected(self, data: dict) -> dict:
        raise NotImplementedError


class QueueAnnotationToLabel(Fixer):
    code, summary = "KQ201", "moved kueue.x-k8s.io/queue-name from annotations to labels"

    def edits(self, obj, text):
        metadata = child(obj.doc.node, "metadata")[1]
        annotations_key, annotations = child(metadata, "annotations")
        entry_key, entry_value = child(annotations, QUEUE_LABEL)
        value = json.dumps(entry_value.value)
        edits = [Edit(*line_span(text, entry_key, entry_value), "")]
        if len(annotations.value) == 1:
            edits = [Edit(*line_span(text, annotations_key, annotations), "")]
        edits.append(put_entry(text, metadata, ("labels", QUEUE_LABEL), value))
        return edits

    def expected(self, data):
        metadata = data["metadata"]
        value = metadata["annotations"].pop(QUEUE_LABEL)
        if not metadata["annotations"]:
            del metadata["annotations"]
        labels = metadata.get("labels") or {}
        metadata["labels"] = {QUEUE_LABEL: value, **labels}
        return data


class KueueV1beta2(Fixer):
    """v1beta1 (and the unserved v1alpha1) to v1beta2 where the conversion is mechanical."""

    summary = "moved to kueue.x-k8s.io/v1beta2"

    def __init__(self, code: str) -> None:
        self.code = code

    def edits(self, obj, text):
        self._check_convertible(obj)
        edits = [replace_scalar(child(obj.doc.node, "apiVersion")[1], f"{KUEUE_GROUP}/v1beta2")]
        spec = child(obj.doc.node, "spec")
        if spec is None:
            return edits
        spec_node = spec[1]
        for old, new in (("cohort", "cohortName"), ("parent", "parentName")):
            found = child(spec_node, old)
            if found is not None:
                edits.append(rename_key(found[0], new))
        fungibility = child(spec_node, "flavorFungibility")
        for field in ("whenCanBorrow", "whenCanPreempt"):
            found = child(fungibility[1], field) if fungibility else None
            if found is not None and found[1].value in FUNGIBILITY:
                edits.append(replace_scalar(found[1], FUNGIBILITY[found[1].value]))
        return edits

    def expected(self, data):
        data["apiVersion"] = f"{KUEUE_GROUP}/v1beta2"
        spec = data.get("spec")
        if isinstance(spec, dict):
            for old, new in (("cohort", "cohortName"), ("parent", "parentName")):
                if old in spec:
                    spec[new] = spec.pop(old)
            fungibility = spec.get("flavorFungibility")
            if isinstance(fungibility, dict):
                for field in ("whenCanBorrow", "whenCanPreempt"):
                    if fungibility.get(field) in FUNGIBILITY:
                        fungibility[field] = FUNGIBILITY[fungibility[field]]
        return data

    @staticmethod
    def _check_convertible(obj: KObject) -> None:
        if obj.group != KUEUE_GROUP or obj.kind not in PLAIN_BUMP:
            raise CannotFix(f"{obj.kind} needs a manual conversion")
        spec = obj.spec
        if "admissionChecks" in spec or "retryDelayMinutes" in spec:
            raise CannotFix("admissionChecks/retryDelayMinutes need a manual conversion")
        if obj.version == "v1alpha1" and obj.kind not in ("Cohort", "Topology"):
            raise CannotFix(f"{obj.kind} never existed in v1alpha1")


class RayJobDeletesCluster(Fixer):
    code, summary = "KQ630", "set spec.shutdownAfterJobFinishes: true"

    def edits(self, obj, text):
        return [put_entry(text, obj.doc.node, ("spec", "shutdownAfterJobFinishes"), "true")]

    def expected(self, data):
        data["spec"]["shutdownAfterJobFinishes"] = True
        return data


FIXERS: dict[str, Callable[[], Fixer]] = {
    "KQ201": QueueAnnotationToLabel,
    "KQ102": lambda: KueueV1beta2("KQ102"),
    "KQ101": lambda: KueueV1beta2("KQ101"),
    "KQ630": RayJobDeletesCluster,
}


def fixer_for(code: str) -> Fixer | None:
    factory = FIXERS.get(code)
    return factory() if factory else None


def fix_summary(code: str) -> str | None:
    """What ``--fix`` does for the rule ``code``, or None when it has no fix."""
    fixer = fixer_for(code)
    return fixer.summary if fixer else None


__all__ = ["CannotFix", "FIXERS", "Fixer", "fix_summary", "fixer_for"]
