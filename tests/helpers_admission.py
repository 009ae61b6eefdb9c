"""The dry admission with its JSON report, as ``kueuelint admit --format json`` prints it."""

from __future__ import annotations

from kueuelint.admission import admit
from kueuelint.admission.explain import explain
from kueuelint.report import admission_json


def admit_json(snapshot_objects: list, incoming_objects: list, max_cycles: int | None = None,
               jobs: int | None = None) -> tuple:
    """``admission.admit``, with the JSON report in place of the explanation."""
    result, explained = admit(snapshot_objects, incoming_objects, max_cycles, jobs)
    return result, admission_json.to_json(result, explained)


def to_json(result) -> dict:
    return admission_json.to_json(result, explain(result))
