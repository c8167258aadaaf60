"""Climb's catalogue: the cards and the limits of the rules, as data."""

from __future__ import annotations

from typing import Final

#: The card values, lowest first; every value has ``COPIES`` cards.
VALUES: Final = tuple(range(1, 10))
COPIES: Final = 4
#: Cards dealt to each hand at the start.
HAND_START: Final = 3
#: A hand of this many cards cannot draw.
HAND_LIMIT: Final = 5
#: The game ends at the end of this round at the latest.
ROUNDS: Final = 8
#: Every name the game gives its things: none (its cards are numbers).
NAMES: Final[tuple[str, ...]] = ()
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 4


def deck() -> list[int]:
    """Every card of the game, in value order."""
    return [value for value in VALUES for _ in range(COPIES)]
