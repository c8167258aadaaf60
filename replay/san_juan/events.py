"""What the San Juan rules did by themselves after a move, in words.

``rules.apply`` records each automatic event in the new state's ``events`` as a small tuple (code
first); this module only puts them in words, with player names. The sentences say how many cards a
seat drew but never which (a hand is secret), and name the cards a gold mine turns face up (everyone
sees them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from replay.san_juan.cards import CITY_SIZE_TO_END
from replay.words import and_list, plural, seat_name

#: Why a seat drew cards, by the code the rules record.
DRAW_REASONS = {
    "councillor": "councillor",
    "prospector": "prospector's privilege",
    "carpenter": "carpenter",
    "poor_house": "poor house",
    "well": "well",
    "market_stand": "market stand",
    "market_hall": "market hall",
}

#: Why a seat had nothing to decide in a phase, by (role, reason code).
SKIP_REASONS = {
    ("builder", "no_cards"): "cannot build: no cards in hand",
    ("builder", "cannot_afford"): "cannot afford any building in hand",
    ("producer", "no_cards_left"): "cannot produce: the draw and discard piles are empty",
    ("producer", "no_empty_building"): "cannot produce: no empty production building",
    ("trader", "no_goods"): "cannot sell: no goods",
}


def _cards(count: int) -> str:
    return plural(count, "card")


def sentence(event: tuple[Any, ...], names: Sequence[str]) -> str:
    """One recorded event in words ("Bruno draws 2 cards (councillor)").

    Raises ``ValueError`` for an event code this module does not know (a rules change without words)."""
    code = event[0]
    if code == "draw":
        _, seat, count, reason = event
        why = DRAW_REASONS.get(reason, str(reason))
        if count == 0:
            return f"{seat_name(names, seat)} draws no card ({why}): the draw and discard piles are empty"
        return f"{seat_name(names, seat)} draws {_cards(count)} ({why})"
    if code == "skip":
        _, seat, role, reason = event
        return f"{seat_name(names, seat)} {SKIP_REASONS.get((role, reason), f'has nothing to do ({role})')}"
    if code == "gold_mine":
        _, seat, shown, hit = event
        who = seat_name(names, seat)
        if not shown:
            return f"{who}'s gold mine turns up nothing: the draw and discard piles are empty"
        cards = and_list(list(shown))
        if hit:
            return f"{who}'s gold mine turns up {cards}: four different costs, {who} may keep one"
        if len(shown) < 4:
            return f"{who}'s gold mine turns up only {cards}; they go to the discard pile"
        return f"{who}'s gold mine turns up {cards}: two cost the same, so all go to the discard pile"
    if code == "reshuffle":
        return f"The discard pile is shuffled into a new draw pile ({_cards(event[1])})"
    if code == "round":
        _, number, governor = event
        return f"Round {number} begins; {seat_name(names, governor)} is governor"
    if code == "over":
        who = and_list([seat_name(names, s) for s in event[1]])
        verb = "has" if len(event[1]) == 1 else "have"
        return f"The game is over: {who} {verb} {CITY_SIZE_TO_END} buildings"
    raise ValueError(f"no words for the San Juan event {event!r}")


def describe(events: Sequence[tuple[Any, ...]], names: Sequence[str]) -> list[str]:
    """Every recorded event in words, in the order they happened."""
    return [sentence(event, names) for event in events]
