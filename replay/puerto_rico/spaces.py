"""Puerto Rico for learning code: a seat's view (``replay/puerto_rico/view.py``) as a flat float vector,
and a fixed action space with a legal-action mask.

``encode`` makes the vector from a view dict; ``encode_state`` makes the same vector straight from
the game state, asking ``view.py`` (``seen_score``) for the one thing a seat may not see (others'
VP chips), at a fraction of the cost: what the environments observe at every step.

The vector is laid out by ``LAYOUT`` (documented index by index in docs/agents.md): the table (roles,
ships, trading house, supplies, buildings left), then one block per seat in turn order starting with
the observer (block 0 is always "me"). Seats a game does not have are zeros with ``present`` 0.
Another seat's VP chips are face down: its ``chips_known`` is 0 and its ``vp`` leaves them out.

Every Puerto Rico decision but the mayor's is one action (``ACTIONS``). The mayor's arrangement of
colonists (up to tens of thousands of legal arrangements) is one action, ``mayor``, that stands for
the arrangement the heuristic bot would make; the Python agent protocol (``governor.arena``) chooses
among every legal arrangement.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from replay.layout import Layout
from replay.packing import SeatVector, check_seat
from replay.protocol import Viewer
from replay.puerto_rico.bots import HeuristicPlayer
from replay.puerto_rico.catalogue import BUILDINGS, GOODS, TILE_KINDS, Role
from replay.puerto_rico.moves import (
    ROLE_CARDS,
    WHARF,
    Build,
    ChooseRole,
    ExtraGood,
    Hacienda,
    Load,
    Mayor,
    Pass,
    Produce,
    Sell,
    Settle,
    Store,
)
from replay.puerto_rico.state import PuertoRicoState, Stage
from replay.puerto_rico.view import chips_seen, seen_score

GAME: Final = "puerto_rico"
MAX_SEATS: Final = 5
BUILDING_NAMES: Final = tuple(BUILDINGS)
BUILDING_INDEX: Final = {name: i for i, name in enumerate(BUILDING_NAMES)}
GOOD_NAMES: Final = tuple(g.value for g in GOODS)
GOOD_INDEX: Final = {g: i for i, g in enumerate(GOOD_NAMES)}
TILE_INDEX: Final = {k: i for i, k in enumerate(TILE_KINDS)}
STAGES: Final = tuple(s.value for s in Stage)
ROLES: Final = tuple(r.value for r in Role)
SHIPS: Final = ("0", "1", "2", WHARF)

# -- actions ---------------------------------------------------------------------------------------


def _store_label(mask: int, keep: int) -> str:
    kept = "+".join(GOOD_NAMES[g] for g in range(len(GOOD_NAMES)) if mask >> g & 1) or "none"
    return f"warehouse:{kept} keep:{GOOD_NAMES[keep] if keep < len(GOOD_NAMES) else 'none'}"


ACTIONS: Final[tuple[str, ...]] = (
    tuple(f"role {c}" for c in ROLE_CARDS)
    + tuple(f"role-privilege {c}" for c in ROLE_CARDS)
    + ("hacienda draw",)
    + tuple(f"settle {k}" for k in TILE_KINDS)
    + tuple(f"settle-hospice {k}" for k in TILE_KINDS)
    + ("mayor arrangement",)
    + tuple(f"build {b}" for b in BUILDING_NAMES)
    + tuple(f"build-university {b}" for b in BUILDING_NAMES)
    + ("produce take", "produce decline")
    + tuple(f"extra_good {g}" for g in GOOD_NAMES)
    + tuple(f"sell {g}" for g in GOOD_NAMES)
    + tuple(f"load {g}@{s}" for g in GOOD_NAMES for s in SHIPS)
    + tuple(f"store {_store_label(m, k)}" for m in range(32) for k in range(len(GOOD_NAMES) + 1))
    + ("pass",)
)
ACTION_INDEX: Final = {name: i for i, name in enumerate(ACTIONS)}
_ROLE: Final = ACTION_INDEX[f"role {ROLE_CARDS[0]}"]
_ROLE_DECLINE: Final = ACTION_INDEX[f"role-privilege {ROLE_CARDS[0]}"]
_ROLE_CARD: Final = {c: i for i, c in enumerate(ROLE_CARDS)}
_HACIENDA: Final = ACTION_INDEX["hacienda draw"]
_SETTLE: Final = ACTION_INDEX[f"settle {TILE_KINDS[0]}"]
_SETTLE_DECLINE: Final = ACTION_INDEX[f"settle-hospice {TILE_KINDS[0]}"]
MAYOR: Final = ACTION_INDEX["mayor arrangement"]
_BUILD: Final = ACTION_INDEX[f"build {BUILDING_NAMES[0]}"]
_BUILD_DECLINE: Final = ACTION_INDEX[f"build-university {BUILDING_NAMES[0]}"]
_PRODUCE: Final = ACTION_INDEX["produce take"]
_EXTRA: Final = ACTION_INDEX[f"extra_good {GOOD_NAMES[0]}"]
_SELL: Final = ACTION_INDEX[f"sell {GOOD_NAMES[0]}"]
_LOAD: Final = ACTION_INDEX[f"load {GOOD_NAMES[0]}@0"]
_STORE: Final = ACTION_INDEX[f"store {_store_label(0, 0)}"]
_PASS: Final = ACTION_INDEX["pass"]


def action_of(move: Any) -> int:
    """The action of ``move`` (one action per move, every mayor arrangement being ``MAYOR``).
    Raises ``TypeError`` for something that is not a Puerto Rico move."""
    kind = type(move)
    if kind is ChooseRole:
        return (_ROLE if move.privilege else _ROLE_DECLINE) + _ROLE_CARD[move.role]
    if kind is Build:
        return (_BUILD if move.university else _BUILD_DECLINE) + BUILDING_INDEX[move.building]
    if kind is Settle:
        return (_SETTLE if move.hospice else _SETTLE_DECLINE) + TILE_INDEX[move.tile]
    if kind is Mayor:
        return MAYOR
    if kind is Pass:
        return _PASS
    if kind is Hacienda:
        return _HACIENDA
    if kind is Produce:
        return _PRODUCE + (0 if move.take else 1)
    if kind is ExtraGood:
        return _EXTRA + GOOD_INDEX[move.good.value]
    if kind is Sell:
        return _SELL + GOOD_INDEX[move.good.value]
    if kind is Load:
        ship = 3 if move.ship == WHARF else int(move.ship)
        return _LOAD + GOOD_INDEX[move.good.value] * 4 + ship
    if kind is Store:
        mask = sum(1 << GOOD_INDEX[g.value] for g in move.warehouse)
        keep = GOOD_INDEX[move.keep.value] if move.keep is not None else len(GOOD_NAMES)
        return _STORE + mask * (len(GOOD_NAMES) + 1) + keep
    raise TypeError(f"not a Puerto Rico move: {type(move).__name__}")


#: The mayor's arrangement is the heuristic bot's (deterministic: the mayor uses no random choice).
_ARRANGER: Final = HeuristicPlayer(0)


def representatives(engine: Any, state: Any) -> dict[int, Any]:
    """Each legal action of ``state`` and the move it stands for (the mayor's: the heuristic bot's
    arrangement, without listing the thousands of others)."""
    if state.stage is Stage.MAYOR:
        return {MAYOR: _ARRANGER.choose(state)}
    return {action_of(move): move for move in engine.legal_moves(state)}


# -- observation -----------------------------------------------------------------------------------

LAYOUT: Final = Layout()
_FROM_ME: Final = [f"seat+{k}" for k in range(MAX_SEATS)]
_PLAYERS: Final = LAYOUT.add("players", ["count"], "number of seats in the game (3-5)")
_ROUND: Final = LAYOUT.add("round", ["round"], "round number, from 1")
_STAGE: Final = LAYOUT.add("stage", STAGES, "1 for the stage the game is in")
_ROLE_NOW: Final = LAYOUT.add("role", ROLES, "1 for the role being carried out (all 0 while a role is chosen)")
_CARD_OPEN: Final = LAYOUT.add("role_card_open", ROLE_CARDS, "1 for each role card still on offer this round (0: taken or not in this game)")
_CARD_MONEY: Final = LAYOUT.add("role_card_doubloons", ROLE_CARDS, "doubloons lying on each role card")
_CHOOSER: Final = LAYOUT.add("chooser", _FROM_ME, "1 for the seat that chose the current role, counted from me in turn order (me = +0)")
_GOVERNOR: Final = LAYOUT.add("governor", _FROM_ME, "1 for the governor's seat, from me")
_TO_ACT: Final = LAYOUT.add("to_act", _FROM_ME, "1 for the seat to act, from me")
_SHIPS: Final = LAYOUT.add("ships", [f"ship{s} {f}" for s in range(3) for f in ("capacity", "load") + GOOD_NAMES],
                    "each cargo ship, smallest first: capacity, barrels on board, 1 for the good it carries")
_HOUSE: Final = LAYOUT.add("trading_house", GOOD_NAMES, "goods of each kind in the trading house")
_SUPPLY: Final = LAYOUT.add("supply", ["colonist_ship", "colonist_supply", "vp_chips_left", "plantation_stack",
                                "plantation_discard", "quarries_left", "bank"],
                     "colonists on the ship and in the supply, VP chips left, face-down plantations, "
                     "discarded plantations, quarries left, doubloons in the bank")
_FACE_UP: Final = LAYOUT.add("face_up_plantations", TILE_KINDS, "face-up plantations of each kind")
_GOODS_SUPPLY: Final = LAYOUT.add("goods_supply", GOOD_NAMES, "barrels of each good left in the supply")
_LEFT: Final = LAYOUT.add("buildings_left", BUILDING_NAMES, "copies of each building left to buy")
_SEAT_LABELS: Final = (("present", "doubloons", "chips_known", "vp_chips", "vp", "city_spaces", "san_juan")
                + tuple(f"tiles {k}" for k in TILE_KINDS) + tuple(f"occupied {k}" for k in TILE_KINDS)
                + tuple(f"built {b}" for b in BUILDING_NAMES) + tuple(f"colonists {b}" for b in BUILDING_NAMES)
                + tuple(f"goods {g}" for g in GOOD_NAMES))
_SEATS: Final = [LAYOUT.add(f"seat+{k}", _SEAT_LABELS,
                     ("me" if k == 0 else f"the seat {k} after me") + ": present (1), doubloons, whether its VP "
                     "chips are seen (1 for me and at the end), VP chips (0 when unseen), VP seen, city spaces "
                     "used, colonists in San Juan, island tiles and occupied tiles by kind, buildings owned, "
                     "colonists on each building, goods held")
          for k in range(MAX_SEATS)]
SIZE: Final = LAYOUT.size
_TILES: Final = 7
_OCCUPIED: Final = _TILES + len(TILE_KINDS)
_BUILT: Final = _OCCUPIED + len(TILE_KINDS)
_COLONISTS: Final = _BUILT + len(BUILDING_NAMES)
_GOODS: Final = _COLONISTS + len(BUILDING_NAMES)
_CARD_INDEX: Final = {c: i for i, c in enumerate(ROLE_CARDS)}
_ROLE_INDEX: Final = {r: i for i, r in enumerate(ROLES)}
_STAGE_INDEX: Final = {s: i for i, s in enumerate(STAGES)}


def encode(view: dict[str, Any]) -> np.ndarray:
    """The observation vector of a seat's view (``seat_view``: it must hold ``seat``)."""
    # Filled as a list and converted once: a numpy item assignment costs ten times a list's.
    out: list[float] = [0.0] * SIZE
    me = view["seat"]
    players = view["players"]
    n = len(players)
    out[_PLAYERS] = n
    out[_ROUND] = view["round"]
    out[_STAGE + _STAGE_INDEX[view["stage"]]] = 1
    if view["role"] is not None:
        out[_ROLE_NOW + _ROLE_INDEX[view["role"]]] = 1
    for card in view["roles"]:
        index = _CARD_INDEX[card["card"]]
        out[_CARD_OPEN + index] = 1.0 if card["taken_by"] is None else 0.0
        out[_CARD_MONEY + index] = card["doubloons"]
    for start, seat in ((_CHOOSER, view["chooser"]), (_GOVERNOR, view["governor"]), (_TO_ACT, view["to_act"])):
        if seat is not None:
            out[start + (seat - me) % n] = 1
    for s, ship in enumerate(view["ships"][:3]):
        base = _SHIPS + s * (2 + len(GOOD_NAMES))
        out[base] = ship["capacity"]
        out[base + 1] = ship["load"]
        if ship["good"] is not None:
            out[base + 2 + GOOD_INDEX[ship["good"]]] = 1
    for good in view["trading_house"]:
        out[_HOUSE + GOOD_INDEX[good]] += 1
    for offset, key in enumerate(("colonist_ship", "colonist_supply", "vp_chips_left", "plantation_stack",
                                  "plantation_discard", "quarries_left", "bank")):
        out[_SUPPLY + offset] = view[key]
    for kind in view["face_up_plantations"]:
        out[_FACE_UP + TILE_INDEX[kind]] += 1
    for good, count in view["goods_supply"].items():
        out[_GOODS_SUPPLY + GOOD_INDEX[good]] = count
    for name, count in view["buildings_left"].items():
        out[_LEFT + BUILDING_INDEX[name]] = count
    for player in players:
        base = _SEATS[(player["seat"] - me) % n]
        out[base] = 1
        out[base + 1] = player["doubloons"]
        chips = player.get("vp_chips")
        if chips is not None:
            out[base + 2] = 1
            out[base + 3] = chips
        out[base + 4] = player["vp"]
        out[base + 5] = player["city_spaces"]
        out[base + 6] = player["san_juan"]
        for tile in player["island"]:
            index = TILE_INDEX[tile["tile"]]
            out[base + _TILES + index] += 1
            if tile["occupied"]:
                out[base + _OCCUPIED + index] += 1
        for building in player["city"]:
            index = BUILDING_INDEX[building["name"]]
            out[base + _BUILT + index] += 1
            out[base + _COLONISTS + index] += building["colonists"]
        for good, count in player["goods"].items():
            out[base + _GOODS + GOOD_INDEX[good]] = count
    return np.array(out, dtype=np.float32)


_GOOD_OF: Final = {g: i for i, g in enumerate(GOODS)}
_ROLE_OF: Final = {r: i for i, r in enumerate(Role)}
_STAGE_OF: Final = {s: i for i, s in enumerate(Stage)}
_SHIP_STRIDE: Final = 2 + len(GOOD_NAMES)
#: Per building: its index and the city spaces it takes.
_BUILDING_SPACES: Final = {name: 2 if b.large else 1 for name, b in BUILDINGS.items()}
_VIEWERS: Final = tuple(Viewer.of_seat(seat) for seat in range(MAX_SEATS))


#: The table's part of the vector comes first, then one block per seat; a seat's block is kept by its
#: record's id and whether its chips are seen, for the next steps.
_PACKING: Final = SeatVector(_SEATS[0], len(_SEAT_LABELS), MAX_SEATS)
# Bound once: the vector is made at every step of an environment.
_KNOWN: Final = _PACKING.known
_KEEP_BLOCK: Final = _PACKING.keep
_VECTOR: Final = _PACKING.vector
_VECTORS: Final = _PACKING.vectors
_BLOCK: Final = _PACKING.block_size


def _seat_block(state: PuertoRicoState, viewer: Viewer, other: int) -> bytes:
    """Seat ``other``'s block of the vector as ``viewer`` sees it, as float32 bytes (shared between
    calls). A block made for a new record is made for the seats that see its chips and for those
    that do not at once: the acting seat changes at every step, and both are asked for."""
    player = state.players[other]
    seen = chips_seen(state, viewer, other)
    known = _KNOWN((id(player), seen), player)
    if known is not None:
        return known
    out = [0.0] * _BLOCK
    out[0] = 1
    out[1] = player.doubloons
    spaces = 0
    for name, workers in zip(player.city, player.city_workers):
        index = BUILDING_INDEX[name]
        spaces += _BUILDING_SPACES[name]
        out[_BUILT + index] += 1
        out[_COLONISTS + index] += workers
    out[5] = spaces
    out[6] = player.san_juan
    for kind, workers in zip(player.island, player.island_workers):
        index = TILE_INDEX[kind]
        out[_TILES + index] += 1
        if workers:
            out[_OCCUPIED + index] += 1
    out[_GOODS:_GOODS + len(GOOD_NAMES)] = player.goods
    block = b""
    # The viewer asked for, then one that sees the chips the other way (none once all are shown).
    n = len(state.players)
    for asked, who in ((True, viewer), (False, _VIEWERS[other] if not seen else _VIEWERS[(other + 1) % n])):
        sees = chips_seen(state, who, other)
        if not asked and sees == seen:
            break
        vp, chips = seen_score(state, who, other)
        out[2] = 1.0 if chips is not None else 0.0
        out[3] = chips if chips is not None else 0.0
        out[4] = vp
        made = _KEEP_BLOCK((id(player), sees), player, out)
        if asked:
            block = made
    return block


def _table(state: PuertoRicoState) -> list[float]:
    """The table's part of the vector that every seat sees alike (the seats counted from the observer
    left 0: ``_add_seen``)."""
    out = [0.0] * _PACKING.table_size
    out[_PLAYERS] = len(state.players)
    out[_ROUND] = state.round
    out[_STAGE + _STAGE_OF[state.stage]] = 1
    if state.role is not None:
        out[_ROLE_NOW + _ROLE_OF[state.role]] = 1
    taken = {card for card, _ in state.roles_taken}
    for card, money in zip(state.role_cards, state.role_doubloons):
        index = _CARD_INDEX[card]
        out[_CARD_OPEN + index] = 0.0 if card in taken else 1.0
        out[_CARD_MONEY + index] = money
    for s, (capacity, good, load) in enumerate(zip(state.ship_capacity[:3], state.ship_good, state.ship_load)):
        base = _SHIPS + s * _SHIP_STRIDE
        out[base] = capacity
        out[base + 1] = load
        if good is not None:
            out[base + 2 + _GOOD_OF[good]] = 1
    for good in state.trading_house:
        out[_HOUSE + _GOOD_OF[good]] += 1
    out[_SUPPLY] = state.colonist_ship
    out[_SUPPLY + 1] = state.colonist_supply
    out[_SUPPLY + 2] = max(0, state.vp_chips_left)
    out[_SUPPLY + 3] = len(state.plantation_stack)
    out[_SUPPLY + 4] = len(state.plantation_discard)
    out[_SUPPLY + 5] = state.quarries
    out[_SUPPLY + 6] = state.bank
    for kind in state.face_up:
        out[_FACE_UP + TILE_INDEX[kind]] += 1
    out[_GOODS_SUPPLY:_GOODS_SUPPLY + len(GOOD_NAMES)] = state.goods_supply
    out[_LEFT:_LEFT + len(BUILDING_NAMES)] = state.building_supply
    return out


def _add_seen(state: PuertoRicoState, out: list[float], seat: int) -> None:
    """Put into the table's part ``out`` the seats counted from the observer ``seat``."""
    n = len(state.players)
    if state.chooser is not None:
        out[_CHOOSER + (state.chooser - seat) % n] = 1
    out[_GOVERNOR + (state.governor - seat) % n] = 1
    acting = state.current_seat
    if acting is not None:
        out[_TO_ACT + (acting - seat) % n] = 1


def encode_state(state: PuertoRicoState, seat: int) -> np.ndarray:
    """``encode(seat_view(state, seat))`` made from the state itself, without the view dict: the
    same vector (a test proves it at every step of many games), VP chips hidden as ``view.py`` decides
    (``chips_seen``, ``seen_score``). A new array each call. Raises ``IndexError`` for a seat the game
    does not have."""
    players = state.players
    n = len(players)
    check_seat(seat, n)
    out = _table(state)
    _add_seen(state, out, seat)
    viewer = _VIEWERS[seat]
    return _VECTOR(out, [_seat_block(state, viewer, (seat + k) % n) for k in range(n)])


def encode_seats(state: PuertoRicoState) -> np.ndarray:
    """Every seat's ``encode_state`` at once: an array (players, SIZE) whose row ``s`` is
    ``encode_state(state, s)`` byte for byte (a test proves it at every step of many games), the
    table's shared part made once and each seat's block twice, as the seat itself sees it and as the
    others do (every other seat sees the same of it: ``chips_seen`` tells a seat's own chips from
    anyone else's), for the win chance's whole view, which reads every seat's vector at every step.
    A new array each call."""
    players = state.players
    n = len(players)
    common = _table(state)
    own = [_seat_block(state, _VIEWERS[seat], seat) for seat in range(n)]
    others = [_seat_block(state, _VIEWERS[(seat + 1) % n], seat) for seat in range(n)]
    rows = []
    for seat in range(n):
        out = list(common)
        _add_seen(state, out, seat)
        rows.append((out, [own[seat]] + [others[(seat + k) % n] for k in range(1, n)]))
    return _VECTORS(rows)
