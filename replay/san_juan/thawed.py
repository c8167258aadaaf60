"""``ThawedSeats``: the per-seat lists of a working San Juan table, every one thawed. A module of its own
because it subclasses ``list``, which a class compiled by mypyc cannot (``replay.native`` compiles
``state.py``, not this)."""

from __future__ import annotations


class ThawedSeats(list):  # type: ignore[type-arg]
    """One list per seat, every one thawed: the ``SeatLists`` of a working table that lives across
    moves (``Table(state, working=True)``), where lazy thawing would only add a call per access."""

    __slots__ = ()
    read = edit = list.__getitem__

    def touched(self, seat: int) -> bool:
        return True
