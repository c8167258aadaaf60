"""Climb's state: immutable; ``rules.apply`` makes a new one."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Stage(StrEnum):
    """Which decision the seat to act makes, or the end."""

    DRAW = "draw"
    CLIMB = "climb"
    OVER = "over"


@dataclass(frozen=True)
class Seat:
    """One player's cards: the hand (sorted, hidden from the others until the end) and the ladder
    (face up, rising)."""

    hand: tuple[int, ...]
    ladder: tuple[int, ...] = ()

    @property
    def top(self) -> int:
        """The ladder's top card, 0 for an empty ladder (any card climbs on it)."""
        return self.ladder[-1] if self.ladder else 0


@dataclass(frozen=True)
class ToyState:
    """The whole game: every seat, the pile (top first), the round (from 1), the stage and the seat
    to act (None once over), the number of moves made, and the events of the last move."""

    players: tuple[Seat, ...]
    pile: tuple[int, ...]
    round: int = 1
    stage: Stage = Stage.DRAW
    current_seat: int | None = 0
    step: int = 0
    #: What the rules did by themselves with the last move (``pile_empty``, ``over``).
    events: tuple[str, ...] = ()
