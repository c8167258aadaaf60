"""San Juan for learning code: a seat's view (``replay/san_juan/view.py``) as a flat float vector, and a
fixed action space with a legal-action mask.

``encode`` makes the vector from a view dict; ``encode_state`` makes the same vector straight from
the game state, asking ``view.py`` (``sees_hand``, ``sees_looking``) which hidden cards the seat
sees, at a fraction of the cost: what the environments observe at every step.

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
from replay.packing import SeatVector, check_seat
from replay.protocol import Viewer
from replay.san_juan.cards import CARDS, Good, Role
from replay.san_juan.moves import Build, Chapel, ChooseRole, Councillor, Draft, GoldMine, HandLimit, Pass, Produce, Sell
from replay.san_juan.scoring import score_parts
from replay.san_juan.state import SanJuanState, Stage
from replay.san_juan.view import sees_hand, sees_looking

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

_CARDS_OR_NONE: Final = CARD_NAMES + ("nothing",)
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
_ROLE: Final = ACTION_INDEX["role builder"]
_ROLE_LIBRARY: Final = ACTION_INDEX["role+library builder"]
_ROLE_NO_PRIVILEGE: Final = ACTION_INDEX["role-privilege builder"]
_BUILD: Final = ACTION_INDEX[f"build {CARD_NAMES[0]}"]
_CHAPEL: Final = ACTION_INDEX[f"chapel {CARD_NAMES[0]}"]
_GOLD_MINE: Final = ACTION_INDEX[f"gold_mine {CARD_NAMES[0]}"]
_KEEP: Final = ACTION_INDEX[f"councillor_keep {CARD_NAMES[0]}"]
_DISCARD: Final = ACTION_INDEX[f"councillor_discard {CARD_NAMES[0]}"]
_HAND_LIMIT: Final = ACTION_INDEX[f"hand_limit {CARD_NAMES[0]}"]
_DRAFT: Final = ACTION_INDEX[f"draft {CARD_NAMES[0]}"]
_PRODUCE: Final = ACTION_INDEX["produce 0"]
_SELL: Final = ACTION_INDEX["sell 0"]
_PASS: Final = ACTION_INDEX["pass"]
_NONE: Final = len(CARD_NAMES)


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
_PLAYERS: Final = LAYOUT.add("players", ["count"], "number of seats in the game (2-4)")
_ROUND: Final = LAYOUT.add("round", ["round"], "round number, from 1")
_STAGE: Final = LAYOUT.add("stage", STAGES, "1 for the stage the game is in")
_ROLE_NOW: Final = LAYOUT.add("role", ROLES, "1 for the role being carried out (all 0 while a role is chosen)")
_TAKEN: Final = LAYOUT.add("roles_taken", ROLES, "1 for each role already taken this round")
_CHOOSER: Final = LAYOUT.add("chooser", [f"seat+{k}" for k in range(MAX_SEATS)],
                      "1 for the seat that chose the current role, counted from me in turn order (me = +0)")
_GOVERNOR: Final = LAYOUT.add("governor", [f"seat+{k}" for k in range(MAX_SEATS)], "1 for the governor's seat, from me")
_TO_ACT: Final = LAYOUT.add("to_act", [f"seat+{k}" for k in range(MAX_SEATS)], "1 for the seat to act, from me")
_PILES: Final = LAYOUT.add("piles", ["draw", "discard"], "cards in the draw and discard piles")
_TILE: Final = LAYOUT.add("tile", ["1", "2", "3", "4", "5"], "1 for the trading-house tile turned up (trader phase)")
_HAND: Final = LAYOUT.add("my_hand", CARD_NAMES, "copies of each card in my hand")
_LOOKING: Final = LAYOUT.add("my_looking", CARD_NAMES, "copies of each card I am looking at (my councillor's or gold mine's draw)")
_LOOKING_COUNT: Final = LAYOUT.add("looking_count", ["cards"], "cards set aside for the seat to act (whoever it is)")
_SEAT_LABELS: Final = ("present",) + tuple(f"built {c}" for c in CARD_NAMES) + tuple(f"goods {g}" for g in GOODS) + (
    "hand_size", "chapel", "vp")
_SEATS: Final = [LAYOUT.add(f"seat+{k}", _SEAT_LABELS,
                     ("me" if k == 0 else f"the seat {k} after me") + ": present (1), buildings owned by card, "
                     "goods on them by kind, cards in hand, cards under the chapel, VP so far")
          for k in range(MAX_SEATS)]
SIZE: Final = LAYOUT.size
_SEAT_BUILT, _SEAT_GOODS = 1, 1 + len(CARD_NAMES)
_SEAT_HAND: Final = _SEAT_GOODS + len(GOODS)


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


_STAGE_OF: Final = {s: i for i, s in enumerate(Stage)}
_ROLE_OF: Final = {r: i for i, r in enumerate(Role)}
#: Per card: the index of the good its building produces (None for a card that produces none).
_PRODUCES: Final = {name: (GOOD_INDEX[card.good.value] if card.good is not None else None) for name, card in CARDS.items()}
_VIEWERS: Final = tuple(Viewer.of_seat(seat) for seat in range(MAX_SEATS))
#: The table's part of the vector comes first (with my hand and what I look at), then one block per
#: seat; a seat's block is kept by its record's id for the next steps.
_PACKING: Final = SeatVector(_SEATS[0], len(_SEAT_LABELS), MAX_SEATS)
# Bound once: the vector is made at every step of an environment.
_KNOWN: Final = _PACKING.known
_KEEP_BLOCK: Final = _PACKING.keep
_VECTOR: Final = _PACKING.vector
_VECTORS: Final = _PACKING.vectors
_BLOCK: Final = _PACKING.block_size


def _seat_block(player: Any) -> bytes:
    """A seat's block of the vector as float32 bytes (shared between calls): nothing in it is hidden."""
    block = _KNOWN(id(player), player)
    if block is not None:
        return block
    out = [0.0] * _BLOCK
    out[0] = 1
    for name, good in zip(player.buildings, player.goods):
        out[_SEAT_BUILT + CARD_INDEX[name]] += 1
        if good is not None:
            produced = _PRODUCES[name]
            if produced is not None:
                out[_SEAT_GOODS + produced] += 1
    out[_SEAT_HAND] = len(player.hand)
    out[_SEAT_HAND + 1] = len(player.chapel)
    out[_SEAT_HAND + 2] = score_parts(player)[0]
    return _KEEP_BLOCK(id(player), player, out)


def _table(state: SanJuanState) -> list[float]:
    """The table's part of the vector that every seat sees alike (the seat-relative and hidden parts
    left 0: ``_add_seen``)."""
    out = [0.0] * _PACKING.table_size
    out[_PLAYERS] = len(state.players)
    out[_ROUND] = state.round
    out[_STAGE + _STAGE_OF[state.stage]] = 1
    if state.role is not None:
        out[_ROLE_NOW + _ROLE_OF[state.role]] = 1
    for role, _ in state.roles_taken:
        out[_TAKEN + _ROLE_OF[role]] = 1
    out[_PILES] = len(state.draw_pile)
    out[_PILES + 1] = len(state.discard)
    if state.tile is not None:
        out[_TILE + int(state.tile) - 1] = 1
    out[_LOOKING_COUNT] = len(state.looking)
    return out


def _add_seen(state: SanJuanState, out: list[float], seat: int) -> None:
    """Put into the table's part ``out`` what depends on the observer ``seat``: the seats counted from
    it, and the hidden cards it sees as ``view.py`` decides (``sees_hand``, ``sees_looking``)."""
    n = len(state.players)
    viewer = _VIEWERS[seat]
    if state.chooser is not None:
        out[_CHOOSER + (state.chooser - seat) % n] = 1
    out[_GOVERNOR + (state.governor - seat) % n] = 1
    acting = state.current_seat
    if acting is not None:
        out[_TO_ACT + (acting - seat) % n] = 1
    if sees_hand(viewer, seat):
        for card in state.players[seat].hand:
            out[_HAND + CARD_INDEX[card]] += 1
    if sees_looking(state, viewer):
        for card in state.looking:
            out[_LOOKING + CARD_INDEX[card]] += 1


def encode_state(state: SanJuanState, seat: int) -> np.ndarray:
    """``encode(seat_view(state, seat))`` made from the state itself, without the view dict: the
    same vector (a test proves it at every step of many games), the hidden cards left out as
    ``view.py`` decides (``sees_hand``, ``sees_looking``). A new array each call. Raises
    ``IndexError`` for a seat the game does not have."""
    players = state.players
    n = len(players)
    check_seat(seat, n)
    out = _table(state)
    _add_seen(state, out, seat)
    return _VECTOR(out, [_seat_block(players[(seat + k) % n]) for k in range(n)])


def encode_seats(state: SanJuanState) -> np.ndarray:
    """Every seat's ``encode_state`` at once: an array (players, SIZE) whose row ``s`` is
    ``encode_state(state, s)`` byte for byte (a test proves it at every step of many games), the
    table's shared part and the seats' blocks made once for all seats (the win chance's whole view
    reads every seat's vector at every step). A new array each call."""
    players = state.players
    n = len(players)
    common = _table(state)
    blocks = [_seat_block(player) for player in players]
    rows = []
    for seat in range(n):
        out = list(common)
        _add_seen(state, out, seat)
        rows.append((out, [blocks[(seat + k) % n] for k in range(n)]))
    return _VECTORS(rows)
