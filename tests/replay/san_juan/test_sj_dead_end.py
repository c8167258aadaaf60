"""A dead end (``rules.dead_end``): no card can ever move again, so the game cannot end. Random
players reach one; ``governor simulate`` and the arena then drop the attempt at once instead of at the
move limit. Each condition is tested by the one change that lifts it."""

from __future__ import annotations

import pytest

from replay.san_juan.rules import Working, dead_end
from replay.san_juan.state import Stage
from tests.replay.san_juan.positions import FILL, IP, SM, TS, position, seat

PALACE = "Palace"


def _stuck(**changes: object) -> object:
    """Two seats: one holds a Palace it cannot pay for (6, 5 with the privilege, with no other card),
    the other an empty hand; both piles empty, no goods."""
    first = changes.pop("first", seat(hand=[PALACE], buildings=[IP, "Chapel"]))
    second = changes.pop("second", seat(hand=[], buildings=[IP, SM]))
    return position([first, second], **changes)  # type: ignore[arg-type]


def test_the_dead_end() -> None:
    state = _stuck()
    assert dead_end(state) is True
    assert Working(state).stuck() is True


@pytest.mark.parametrize(("why", "changes"), [
    ("a card to draw", {"draw": [FILL]}),
    ("a card in the discard pile (reshuffled when drawing)", {"discard": [FILL]}),
    ("a councillor's cards being looked at", {"looking": [FILL]}),
    ("a good to sell", {"second": seat(hand=[], buildings=[IP, SM], goods={1: FILL})}),
    ("a hand over its limit, which discards", {"first": seat(hand=[PALACE] * 8, buildings=[IP, PALACE])}),
    ("a library's double privilege pays for a tobacco storage",
     {"first": seat(hand=[TS, PALACE], buildings=[IP, "Library"])}),
    ("a crane builds the tobacco storage over the indigo plant",
     {"first": seat(hand=[TS, PALACE], buildings=[IP, "Crane"])}),
    ("the game is over", {"stage": Stage.OVER}),
])
def test_what_keeps_a_game_out_of_a_dead_end(why: str, changes: dict[str, object]) -> None:
    state = _stuck(**changes)
    assert dead_end(state) is False, why
    assert Working(state).stuck() is False, why


def test_without_the_library_or_the_crane_the_tobacco_storage_stays_in_hand() -> None:
    """The cases above lifted by one building: without it, 3 less 1 privilege is 2 cards, and the
    hand has 1 to pay with."""
    assert dead_end(_stuck(first=seat(hand=[TS, PALACE], buildings=[IP, "Chapel"]))) is True
