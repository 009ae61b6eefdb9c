"""Reading Kueue's quota tree from ClusterQueues and Cohorts: their resource groups and flavors,
the cohort a ClusterQueue joins and the parent of a Cohort (both API versions' spellings).

Objects are read through ``spec`` only, so any layer's object will do.
"""

from __future__ import annotations

from typing import Iterator


def resource_groups(obj) -> Iterator[tuple[int, dict, list]]:
    """(index, group, flavors) for every well-formed resource group of a CQ or Cohort."""
    groups = obj.spec.get("resourceGroups")
    for index, group in enumerate(groups if isinstance(groups, list) else []):
        if isinstance(group, dict):
            flavors = group.get("flavors")
            yield index, group, [f for f in flavors if isinstance(f, dict)] \
                if isinstance(flavors, list) else []


def group_path(index: int) -> tuple:
    return ("spec", "resourceGroups", index)


def covered(group: dict) -> list:
    items = group.get("coveredResources")
    return items if isinstance(items, list) else []


def flavor_names(obj) -> list[str]:
    return [f["name"] for _, _, flavors in resource_groups(obj) for f in flavors
            if isinstance(f.get("name"), str)]


def cohort_of(obj) -> str | None:
    """The cohort a ClusterQueue joins (v1beta2 cohortName; v1beta1 and misspelt v1beta2 cohort)."""
    return _first_name(obj, ("cohortName", "cohort"))


def parent_of(obj) -> str | None:
    """The parent of a Cohort (v1beta2 parentName; v1beta1 parent)."""
    return _first_name(obj, ("parentName", "parent"))


def _first_name(obj, keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = obj.spec.get(key)
        if isinstance(value, str) and value:
            return value
    return None
