"""Typed run facts: values computed once from an inventory (or one object) on first use.

Every fact is declared once, at module level, with its name and the function that computes
it; ``FACTS`` holds them all by name and a second declaration of a name is an error.  Three
sorts, by what the value depends on:

- ``Fact``: one value per inventory (``LOCAL_QUEUES_BY_NAME.of(inventory)``);
- ``ObjectFact``: one value per (inventory, object), for what an object means *in* a run
  (its derived workloads read the run's LimitRanges and Configuration; one object seen by
  two scopes is judged against each scope's inventory);
- ``ObjectMemo``: one value per object, for what the object's own data alone decides.

``of`` takes the inventory or anything that carries one (a rule's context), and hands that
same argument to the compute function, so a rule's fact may read the rule's settings.
Values live in the inventory's ``FactStore`` (dropped when an object is added) or, for
memos, in the object's ``memos``; nothing else may be stored there.
"""

from __future__ import annotations

from typing import Any, Callable, Generic, Protocol, TypeVar

T = TypeVar("T")


class HasFacts(Protocol):
    @property
    def facts(self) -> FactStore: ...


class FactStore:
    """One inventory's computed facts, keyed by their declaration (never by a string)."""

    __slots__ = ("_values",)

    def __init__(self) -> None:
        self._values: dict[Fact | ObjectFact, Any] = {}

    def clear(self) -> None:
        self._values.clear()

    def declared_keys(self) -> list:
        return list(self._values)


FACTS: dict[str, Fact | ObjectFact | ObjectMemo] = {}


def declared(name: str):
    """The fact declared as ``name`` (a fact pickles as its name)."""
    return FACTS[name]


class _Declared:
    """A fact's name and compute function; the name is unique in the program."""

    __slots__ = ("name", "compute")

    def __init__(self, name: str, compute: Callable) -> None:
        if name in FACTS:
            raise ValueError(f"run fact {name!r} is declared twice")
        self.name = name
        self.compute = compute
        FACTS[name] = self  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    def __reduce__(self):
        return declared, (self.name,)


class Fact(_Declared, Generic[T]):
    """A value computed once per inventory by ``compute(source)``."""

    __slots__ = ()

    def __init__(self, name: str, compute: Callable[[Any], T]) -> None:
        super().__init__(name, compute)

    def of(self, source: HasFacts) -> T:
        try:   # the common case first: asked again
            return source.facts._values[self]
        except KeyError:
            value = source.facts._values[self] = self.compute(source)
            return value

    def provide(self, source: HasFacts, value: T) -> None:
        """Set the value computed elsewhere (a parallel run merges the workers' parts)."""
        source.facts._values[self] = value


class ObjectFact(_Declared, Generic[T]):
    """A value per (inventory, object), computed once by ``compute(obj, source)``."""

    __slots__ = ()

    def __init__(self, name: str, compute: Callable[[Any, Any], T]) -> None:
        super().__init__(name, compute)

    def of(self, obj, source: HasFacts) -> T:
        try:   # the common case first: asked again (objects hash by identity)
            return source.facts._values[self][obj]
        except KeyError:
            value = self.compute(obj, source)
            source.facts._values.setdefault(self, {})[obj] = value
            return value


class ObjectMemo(_Declared, Generic[T]):
    """A value per object that only the object's own data decides, kept on the object."""

    __slots__ = ()

    def __init__(self, name: str, compute: Callable[[Any], T]) -> None:
        super().__init__(name, compute)

    def of(self, obj) -> T:
        try:
            return obj.memos[self]
        except KeyError:
            value = obj.memos[self] = self.compute(obj)
            return value
