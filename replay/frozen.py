"""Fast construction of frozen dataclasses, for the engines' hot path.

A frozen dataclass sets each field through ``object.__setattr__`` in ``__init__``, which costs more
than the rest of a small move. ``fast_constructor`` builds the same object through an unfrozen twin
with the same slots and then gives it the frozen class, so snapshots stay immutable
(assignment still raises ``FrozenInstanceError``) at a fraction of the cost.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def fast_constructor(cls: type[T]) -> Callable[..., T]:
    """A function taking the fields of ``cls`` positionally, in declaration order, and returning an
    instance of ``cls``. ``cls`` must be a ``dataclass(frozen=True, slots=True)`` with no base fields."""
    params = dataclasses.fields(cls)  # type: ignore[arg-type]
    twin = dataclasses.make_dataclass(
        f"_Mutable{cls.__name__}", [(f.name, f.type) for f in params], slots=True, init=True, eq=False, repr=False
    )
    if twin.__slots__ != cls.__slots__:  # type: ignore[attr-defined]
        raise TypeError(f"{cls.__name__} has slots {cls.__slots__} unlike its twin")  # type: ignore[attr-defined]

    def build(*args: Any) -> T:
        obj = twin(*args)
        obj.__class__ = cls
        return obj  # type: ignore[return-value]

    return build
