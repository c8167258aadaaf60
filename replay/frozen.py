"""Fast construction of frozen dataclasses, for the engines' hot path.

A frozen dataclass sets each field through ``object.__setattr__`` in ``__init__``, which costs more
than the rest of a small move. ``fast_constructor`` builds the same object through an unfrozen twin
with the same slots and then gives it the frozen class, so snapshots stay immutable
(assignment still raises ``FrozenInstanceError``) at a fraction of the cost.

Compiled by mypyc (``replay.native``), a dataclass keeps the ``__init__`` the dataclasses module writes,
interpreted, and a compiled class's type cannot be given to another object. Its module then registers
builders (``register_builders``): compiled functions that store each field themselves, which compiled
code does directly, without the frozen ``__setattr__`` (an eighth of ``__init__``'s cost, measured).
"""

from __future__ import annotations

import copyreg
import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar, cast

T = TypeVar("T")


#: The compiled builders of the classes compiled by mypyc, by class (``register_builders``).
_BUILDERS: dict[type, Callable[..., Any]] = {}


def register_builders(builders: dict[type, Callable[..., Any]]) -> None:
    """Note the builders of the classes, by class: each a function taking its class's fields
    positionally, in declaration order, that stores them itself. Written beside the classes, in their module; used only where that
    module is compiled (interpreted builders would meet the frozen ``__setattr__``)."""
    _BUILDERS.update(builders)


def fast_constructor(cls: type[T]) -> Callable[..., T]:
    """A function taking the fields of ``cls`` positionally, in declaration order, and returning an
    instance of ``cls``. ``cls`` must be a ``dataclass(frozen=True, slots=True)`` with no base fields."""
    if not hasattr(cls, "__slots__"):
        # Compiled by mypyc (``replay.native``): the builders registered, else its own constructor.
        return _BUILDERS.get(cls, cls)
    params = dataclasses.fields(cls)  # type: ignore[arg-type]
    twin = dataclasses.make_dataclass(
        f"_Mutable{cls.__name__}", [(f.name, f.type) for f in params], slots=True, init=True, eq=False, repr=False
    )
    if twin.__slots__ != cls.__slots__:  # type: ignore[attr-defined]
        raise TypeError(f"{cls.__name__} has slots {cls.__slots__} unlike its twin")  # type: ignore[attr-defined]

    def build(*args: Any) -> T:
        obj = twin(*args)
        obj.__class__ = cls
        return cast(T, obj)

    return build


def _reduce(obj: Any) -> tuple[Any, tuple[Any, ...]]:
    return type(obj), tuple(getattr(obj, f.name) for f in dataclasses.fields(obj))


def picklable(*classes: type) -> None:
    """Pickle (and copy) instances of these frozen dataclasses by their constructor. Python's own way
    sets the fields one by one after making the object, which a class compiled by mypyc
    (``replay.native``) refuses as it is frozen; moves and states go to worker processes this way."""
    for cls in classes:
        copyreg.pickle(cls, _reduce)
