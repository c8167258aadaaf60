"""Climb for learning code: a seat's view (``view.py``) as a flat float vector, and a fixed action
space with a legal-action mask. The declaration names this module (``spaces=``), and Governor's
PettingZoo environment ``governor.envs.toy_v0`` plays the game through it.

``encode`` makes the vector from a view dict (``play.views.seat_view``); ``encode_state`` makes the
same vector straight from the state, asking ``view.sees_hand`` which hands the seat sees: what the
environment observes at every step.

The vector is laid out by ``LAYOUT`` (index by index in the package's README): the table (players,
round, stage, who acts, the pile's size), then one block per seat in turn order starting with the
observer (block 0 is always "me"). A seat the game does not have is zeros with ``present`` 0. Another
seat's hand is its size only until the game ends (``hand_known`` 0, its cards 0). Every value is a
count or a 0/1 flag.

Every Climb decision is one action (``ACTIONS``): draw, stay, climb with a card of each value, rest.
Needs numpy (the environments' extra), which the rest of the game does not.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from replay.layout import Layout
from replay.packing import check_seat
from replay.protocol import Viewer
from toy_game.cards import MAX_PLAYERS, VALUES
from toy_game.moves import Climb, Draw, Rest, Stay
from toy_game.state import Stage, ToyState
from toy_game.view import sees_hand

GAME: Final = "toy"
MAX_SEATS: Final = MAX_PLAYERS
STAGES: Final = tuple(s.value for s in Stage)

# -- actions ---------------------------------------------------------------------------------------

ACTIONS: Final[tuple[str, ...]] = ("draw", "stay") + tuple(f"climb {v}" for v in VALUES) + ("rest",)
ACTION_INDEX: Final = {name: i for i, name in enumerate(ACTIONS)}
_CLIMB: Final = ACTION_INDEX[f"climb {VALUES[0]}"]


def action_of(move: Any) -> int:
    """The action of ``move`` (one action per move). Raises ``TypeError`` for something that is not
    a Climb move."""
    kind = type(move)
    if kind is Climb:
        return _CLIMB + VALUES.index(move.card)
    if kind is Draw or kind is Stay or kind is Rest:
        return ACTION_INDEX[move.text()]
    raise TypeError(f"not a Climb move: {kind.__name__}")


def representatives(engine: Any, state: Any) -> dict[int, Any]:
    """Each legal action of ``state`` and the move it stands for (its only one)."""
    return {action_of(move): move for move in engine.legal_moves(state)}


# -- observation -----------------------------------------------------------------------------------

LAYOUT: Final = Layout()
_FROM_ME: Final = [f"seat+{k}" for k in range(MAX_SEATS)]
_PLAYERS: Final = LAYOUT.add("players", ["count"], f"number of seats in the game (2-{MAX_SEATS})")
_ROUND: Final = LAYOUT.add("round", ["round"], "round number, from 1")
_STAGE: Final = LAYOUT.add("stage", STAGES, "1 for the decision the seat to act makes (draw or climb), or the end")
_TO_ACT: Final = LAYOUT.add("to_act", _FROM_ME, "1 for the seat to act, counted from me in turn order (me = +0)")
_PILE: Final = LAYOUT.add("pile", ["cards"], "cards left in the face-down pile")
_SEAT_LABELS: Final = (("present", "hand_size", "hand_known") + tuple(f"hand {v}" for v in VALUES)
                       + tuple(f"ladder {v}" for v in VALUES) + ("ladder_top",))
_SEATS: Final = [LAYOUT.add(f"seat+{k}", _SEAT_LABELS,
                            ("me" if k == 0 else f"the seat {k} after me") + ": present (1), cards in hand, whether "
                            "the hand is seen (1 for me and at the end), copies of each value in hand (0 when "
                            "unseen), 1 for each value on the ladder, the ladder's top card (0: empty)")
                 for k in range(MAX_SEATS)]
SIZE: Final = LAYOUT.size
_HAND: Final = 3
_LADDER: Final = _HAND + len(VALUES)
_TOP: Final = _LADDER + len(VALUES)
_VIEWERS: Final = tuple(Viewer.of_seat(seat) for seat in range(MAX_SEATS))


def _table(out: list[float], me: int, n: int, round_: int, stage: str, to_act: int | None, pile: int) -> None:
    out[_PLAYERS] = n
    out[_ROUND] = round_
    out[_STAGE + STAGES.index(stage)] = 1
    if to_act is not None:
        out[_TO_ACT + (to_act - me) % n] = 1
    out[_PILE] = pile


def _seat(out: list[float], base: int, hand_size: int, hand: Any, ladder: Any) -> None:
    """Fill a seat's block; ``hand`` is None when the observer does not see it."""
    out[base] = 1
    out[base + 1] = hand_size
    if hand is not None:
        out[base + 2] = 1
        for card in hand:
            out[base + _HAND + card - VALUES[0]] += 1
    for card in ladder:
        out[base + _LADDER + card - VALUES[0]] = 1
    out[base + _TOP] = ladder[-1] if ladder else 0


def encode(view: dict[str, Any]) -> np.ndarray:
    """The observation vector of a seat's view (``play.views.seat_view``: it must hold ``seat``)."""
    out = [0.0] * SIZE
    me = view["seat"]
    players = view["players"]
    n = len(players)
    _table(out, me, n, view["round"], view["stage"], view["to_act"], view["pile"])
    for player in players:
        _seat(out, _SEATS[(player["seat"] - me) % n], player["hand_size"], player.get("hand"), player["ladder"])
    return np.array(out, dtype=np.float32)


def encode_state(state: ToyState, seat: int) -> np.ndarray:
    """``encode(seat_view(state, seat))`` made from the state itself, without the view dict: the same
    vector (a test compares them at every step), another seat's hand left out as ``view.sees_hand``
    decides. A new array each call. Raises ``IndexError`` for a seat the game does not have."""
    players = state.players
    n = len(players)
    check_seat(seat, n)
    over = state.stage is Stage.OVER
    out = [0.0] * SIZE
    _table(out, seat, n, state.round, state.stage.value, state.current_seat, len(state.pile))
    for k, player in enumerate(players):
        hand = player.hand if sees_hand(_VIEWERS[seat], k, over) else None
        _seat(out, _SEATS[(k - seat) % n], len(player.hand), hand, player.ladder)
    return np.array(out, dtype=np.float32)
