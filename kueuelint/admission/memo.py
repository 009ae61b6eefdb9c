"""Answers about one cohort tree that stay valid until its usage of their resources changes.

A preemption search for a flavor/resource reads only the usage and the holders of that
flavor/resource inside the preemptor's cohort tree. Kueue requeues an inadmissible workload only
when quota in its cohort changes, and the same holds here: the answer computed in an earlier
cycle is reused while no workload using one of its flavor/resources was admitted or removed in
that tree. Temporary charges (trial removals, reservations of one cycle) are always undone before
the next nomination phase, so admissions and removals are the only changes that count.
"""

from __future__ import annotations

from typing import Any, Callable

from kueuelint.accounting.quota import FR


class UsageMemo:
    def __init__(self) -> None:
        # root -> flavor/resource -> version. Keyed by the root itself (hashed by identity): an
        # id() would be a new int object at every look-up, compared by value.
        self._versions: dict[object, dict[FR, int]] = {}
        self._any_change = 0
        self._answers: dict[tuple, tuple[int, Any]] = {}

    def changed(self, root: object, frs) -> None:
        """Usage of ``frs`` changed somewhere below ``root``."""
        self._any_change += 1
        versions = self._versions.setdefault(root, {})
        for fr in frs:
            versions[fr] = versions.get(fr, 0) + 1

    def forget(self) -> None:
        """Drop every answer; the versions stay. For a cohort tree whose simulation is over:
        no later question is about it, and a process simulating tree after tree would
        otherwise carry all their answers in memory."""
        self._answers = {}

    def recall(self, key: tuple, root: object, frs, compute: Callable[..., Any], *args: Any) -> Any:
        """The answer to the question ``key`` about the usage of ``frs`` below ``root`` (None:
        about all usage): the stored one while that usage is unchanged, else ``compute(*args)``,
        stored. The stamp is taken before computing: usage that changed meanwhile makes the
        answer look stale, never current. An answer must not be None (None means "not stored")."""
        # The stamp: versions of ``frs`` below ``root``, added up (versions only grow, so the
        # sum stays the same exactly while every one of them does). Spelled out here, as a
        # quarter of a million questions are asked at the scale.
        if frs is None:
            stamp = self._any_change
        else:
            versions = self._versions.get(root)
            if versions is None:
                stamp = 0
            elif len(frs) == 1:
                stamp = versions.get(frs[0], 0)
            elif len(frs) == 2:       # a flavor's cpu and memory: most answers
                stamp = versions.get(frs[0], 0) + versions.get(frs[1], 0)
            else:
                stamp = sum([versions.get(fr, 0) for fr in frs])
        found = self._answers.get(key)
        if found is not None and found[0] == stamp:
            return found[1]
        answer = compute(*args)
        self._answers[key] = (stamp, answer)
        return answer
