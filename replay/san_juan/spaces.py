"""San Juan for learning code: a seat's view (``replay/san_juan/view.py``) as a flat float vector, and a
fixed action space with a legal-action mask.

The vector is laid out by ``LAYOUT`` (documented index by index in docs/agents.md): table facts, the
observer's own hand and looked-at cards, then one block per seat in turn order starting with the
observer (block 0 is always "me"). Seats a game does not have are zeros with ``present`` 0. Every
value is a count or a 0/1 flag, read from the view dict only.

San Juan decisions are combinatorial (which cards pay for a building), so an action names the kind of
a decision and one card or one count (``ACTIONS``); several legal moves can share an action, and the
action then stands for the first of them in ``legal_moves``' fixed order (its canonical payment). The
Python agent protocol (``governor.arena``) chooses among all legal moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from replay.layout import Layout
from replay.san_juan.cards import CARDS, Good, Role
from replay.san_juan.moves import Build, Chapel, ChooseRole, Councillor, Draft, GoldMine, HandLimit, Pass, Produce, Sell
from replay.san_juan.state import Stage

GAME: Final = "san_juan"
MAX_SEATS: Final = 4
CARD_NAMES: Final = tuple(CARDS)
CARD_INDEX: Final = {name: i for i, name in enumerate(CARD_NAMES)}
ROLES: Final = tuple(r.value for r in Role)
ROLE_INDEX: Final = {r: i for i, r in enumerate(ROLES)}
GOODS: Final = tuple(g.value for g in Good)
GOOD_INDEX: Final = {g: i for i, g in enumerate(GOODS)}
STAGES: Final = tuple(s.value for s in Stage)
#: Produce and sell actions count goods up to this many.
MAX_GOODS: Final = 12

# -- actions ---------------------------------------------------------------------------------------

_CARDS_OR_NONE = CARD_NAMES + ("nothing",)
ACTIONS: Final[tuple[str, ...]] = (
    tuple(f"role {r}" for r in ROLES)
    + tuple(f"role+library {r}" for r in ROLES)
    + tuple(f"role-privilege {r}" for r in ROLES)
    + tuple(f"build {c}" for c in CARD_NAMES)
    + tuple(f"chapel {c}" for c in CARD_NAMES)
    + tuple(f"gold_mine {c}" for c in CARD_NAMES)
    + tuple(f"councillor_keep {c}" for c in _CARDS_OR_NONE)
    + tuple(f"councillor_discard {c}" for c in _CARDS_OR_NONE)
    + tuple(f"hand_limit {c}" for c in CARD_NAMES)
    + tuple(f"draft {c}" for c in CARD_NAMES)
    + tuple(f"produce {k}" for k in range(MAX_GOODS + 1))
    + tuple(f"sell {k}" for k in range(MAX_GOODS + 1))
    + ("pass",)
)
ACTION_INDEX: Final = {name: i for i, name in enumerate(ACTIONS)}
_ROLE = ACTION_INDEX["role builder"]
_ROLE_LIBRARY = ACTION_INDEX["role+library builder"]
_ROLE_NO_PRIVILEGE = ACTION_INDEX["role-privilege builder"]
_BUILD = ACTION_INDEX[f"build {CARD_NAMES[0]}"]
_CHAPEL = ACTION_INDEX[f"chapel {CARD_NAMES[0]}"]
_GOLD_MINE = ACTION_INDEX[f"gold_mine {CARD_NAMES[0]}"]
_KEEP = ACTION_INDEX[f"councillor_keep {CARD_NAMES[0]}"]
_DISCARD = ACTION_INDEX[f"councillor_discard {CARD_NAMES[0]}"]
_HAND_LIMIT = ACTION_INDEX[f"hand_limit {CARD_NAMES[0]}"]
_DRAFT = ACTION_INDEX[f"draft {CARD_NAMES[0]}"]
_PRODUCE = ACTION_INDEX["produce 0"]
_SELL = ACTION_INDEX["sell 0"]
_PASS = ACTION_INDEX["pass"]
_NONE = len(CARD_NAMES)


def _first_card(cards: Sequence[str] | None) -> int:
    return CARD_INDEX[cards[0]] if cards else _NONE


def action_of(move: Any) -> int:
    """The action that stands for ``move`` (its kind and its first card, or its count of goods).
    Raises ``TypeError`` for something that is not a San Juan move."""
    kind = type(move)
    if kind is Build:
        return _BUILD + CARD_INDEX[move.building]
    if kind is ChooseRole:
        role = ROLE_INDEX[move.role.value]
        if not move.privilege:
            return _ROLE_NO_PRIVILEGE + role
        return (_ROLE_LIBRARY if move.library else _ROLE) + role
    if kind is Pass:
        return _PASS
    if kind is Produce:
        return _PRODUCE + min(len(move.goods), MAX_GOODS)
    if kind is Sell:
        return _SELL + min(len(move.goods), MAX_GOODS)
    if kind is Councillor:
        if move.discard is not None:
            return _DISCARD + _first_card(move.discard)
        return _KEEP + _first_card(move.keep)
    if kind is Chapel:
        return _CHAPEL + CARD_INDEX[move.card]
    if kind is GoldMine:
        return _GOLD_MINE + CARD_INDEX[move.keep]
    if kind is HandLimit:
        return _HAND_LIMIT + CARD_INDEX[move.discard[0]]
    if kind is Draft:
        return _DRAFT + CARD_INDEX[move.keep[0]]
    raise TypeError(f"not a San Juan move: {type(move).__name__}")


def representatives(engine: Any, state: Any) -> dict[int, Any]:
    """Each legal action of ``state`` and the move it stands for: the first legal move (in
    ``legal_moves``' order) of that action."""
    chosen: dict[int, Any] = {}
    for move in engine.legal_moves(state):
        chosen.setdefault(action_of(move), move)
    return chosen


# -- observation -----------------------------------------------------------------------------------

LAYOUT: Final = Layout()
_PLAYERS = LAYOUT.add("players", ["count"], "number of seats in the game (2-4)")
_ROUND = LAYOUT.add("round", ["round"], "round number, from 1")
_STAGE = LAYOUT.add("stage", STAGES, "1 for the stage the game is in")
_ROLE_NOW = LAYOUT.add("role", ROLES, "1 for the role being carried out (all 0 while a role is chosen)")
_TAKEN = LAYOUT.add("roles_taken", ROLES, "1 for each role already taken this round")
_CHOOSER = LAYOUT.add("chooser", [f"seat+{k}" for k in range(MAX_SEATS)],
                      "1 for the seat that chose the current role, counted from me in turn order (me = +0)")
_GOVERNOR = LAYOUT.add("governor", [f"seat+{k}" for k in range(MAX_SEATS)], "1 for the governor's seat, from me")
_TO_ACT = LAYOUT.add("to_act", [f"seat+{k}" for k in range(MAX_SEATS)], "1 for the seat to act, from me")
_PILES = LAYOUT.add("piles", ["draw", "discard"], "cards in the draw and discard piles")
_TILE = LAYOUT.add("tile", ["1", "2", "3", "4", "5"], "1 for the trading-house tile turned up (trader phase)")
_HAND = LAYOUT.add("my_hand", CARD_NAMES, "copies of each card in my hand")
_LOOKING = LAYOUT.add("my_looking", CARD_NAMES, "copies of each card I am looking at (my councillor's or gold mine's draw)")
_LOOKING_COUNT = LAYOUT.add("looking_count", ["cards"], "cards set aside for the seat to act (whoever it is)")
_SEAT_LABELS = ("present",) + tuple(f"built {c}" for c in CARD_NAMES) + tuple(f"goods {g}" for g in GOODS) + (
    "hand_size", "chapel", "vp")
_SEATS = [LAYOUT.add(f"seat+{k}", _SEAT_LABELS,
                     ("me" if k == 0 else f"the seat {k} after me") + ": present (1), buildings owned by card, "
                     "goods on them by kind, cards in hand, cards under the chapel, VP so far")
          for k in range(MAX_SEATS)]
SIZE: Final = LAYOUT.size
_SEAT_BUILT, _SEAT_GOODS = 1, 1 + len(CARD_NAMES)
_SEAT_HAND = _SEAT_GOODS + len(GOODS)


def encode(view: dict[str, Any]) -> np.ndarray:
    """The observation vector of a seat's view (``seat_view``: it must hold ``seat``)."""
    # Filled as a list and converted once: a numpy item assignment costs ten times a list's.
    out: list[float] = [0.0] * SIZE
    me = view["seat"]
    players = view["players"]
    n = len(players)
    out[_PLAYERS] = n
    out[_ROUND] = view["round"]
    out[_STAGE + STAGES.index(view["stage"])] = 1
    if view["role"] is not None:
        out[_ROLE_NOW + ROLE_INDEX[view["role"]]] = 1
    for taken in view["roles_taken"]:
        out[_TAKEN + ROLE_INDEX[taken["role"]]] = 1
    for start, seat in ((_CHOOSER, view["chooser"]), (_GOVERNOR, view["governor"]), (_TO_ACT, view["to_act"])):
        if seat is not None:
            out[start + (seat - me) % n] = 1
    out[_PILES] = view["draw_pile"]
    out[_PILES + 1] = view["discard_pile"]
    if view["tile"] is not None:
        out[_TILE + int(view["tile"]) - 1] = 1
    for card in players[me].get("hand", ()):
        out[_HAND + CARD_INDEX[card]] += 1
    looking = view.get("looking")
    if looking is not None:
        for card in looking:
            out[_LOOKING + CARD_INDEX[card]] += 1
        out[_LOOKING_COUNT] = len(looking)
    else:
        out[_LOOKING_COUNT] = view.get("looking_count", 0)
    for player in players:
        base = _SEATS[(player["seat"] - me) % n]
        out[base] = 1
        for building in player["buildings"]:
            out[base + _SEAT_BUILT + CARD_INDEX[building["name"]]] += 1
            if building["good"] is not None:
                out[base + _SEAT_GOODS + GOOD_INDEX[building["good"]]] += 1
        out[base + _SEAT_HAND] = player["hand_size"]
        out[base + _SEAT_HAND + 1] = player["chapel"]
        out[base + _SEAT_HAND + 2] = player["vp"]
    return np.array(out, dtype=np.float32)
