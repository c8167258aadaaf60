"""Words every game's descriptions use: lists joined with "and", counted nouns, seat names."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def and_list(items: Iterable[str], empty: str = "") -> str:
    """``a``, ``a and b``, ``a, b and c``; ``empty`` for no items."""
    items = list(items)
    if not items:
        return empty
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


def plural(count: int, word: str) -> str:
    """``1 card``, ``2 cards``: a count and its noun, an ``s`` added past one."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def seat_name(names: Sequence[str], seat: object) -> str:
    """The player's name at ``seat``; ``Seat N`` for a seat the names do not cover."""
    return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else f"Seat {seat}"
