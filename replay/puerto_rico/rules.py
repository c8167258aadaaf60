"""Puerto Rico rules: the initial state from a log's setup, ``apply`` (checked), and the legal moves.

Order of events follows ``../shared/rules/FACTS.md`` part 3. A decision with exactly one legal choice is
made automatically (no move in the log), and a seat with nothing to decide is skipped:

* settler: a seat that can take no tile and has no hacienda draw is skipped;
* mayor: the privilege colonist and the ship's colonists are handed out automatically; a seat whose
  arrangement is forced (no colonists, or at least as many colonists as circles) is placed for it;
* builder / trader: a seat that can build / sell nothing is skipped;
* craftsman: each seat that would receive goods takes or declines them (``produce``; a seat that would
  receive nothing is skipped, one whose kinds the supply lacks gets its nothing without a decision);
  the factory is automatic; the extra good is a move (or a pass);
* captain: a seat that can load nothing is skipped; a seat with exactly one possible load (one kind,
  one ship, no wharf) loads it; a seat holding no goods has no storage to choose;
* prospector: the doubloon is automatic.

Taking one's production, and a storage decision whose most-keeping outcome is unique, have a default
(``default_move``): a log may leave them out, as logs did when the engine made them alone, and the
replayer then takes the default.

A violation raises ``RuleViolation`` with a stable rule code; a malformed setup or a missing reshuffle
raises ``FieldError`` with the JSON path.

Each rule is said here once. What the bots, the move words or any other module need to know of it
(whether a building's power works, the barrels a load ships, what a seat may settle, build, sell, load
or store) they ask these public functions; nothing outside this module calls its private helpers
(``tests/replay/san_juan/test_sj_rules_helpers.py`` checks it).
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations
from typing import Any, Final

from replay.errors import FieldError, RuleViolation
from replay.puerto_rico.arrangements import Arrangements, bins_of, colonists_to_place
from replay.puerto_rico.catalogue import (
    BUILDING_ORDER,
    BUILDINGS,
    CATALOGUE,
    CITY_SPACES,
    DOUBLOONS_IN_GAME,
    FACTORY_INCOME,
    GOOD_INDEX,
    GOODS,
    GOODS_SUPPLY,
    ISLAND_SPACES,
    PRICES,
    QUARRIES,
    QUARRY,
    SETUPS,
    TILE_KINDS,
    TILE_ORDER,
    TRADING_HOUSE_SPACES,
    Good,
    Power,
    Role,
    plantation_stack,
    resolve_tile,
    role_cards,
    role_of,
)
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
    PuertoRicoMove,
    Sell,
    Settle,
    Store,
)
from replay.puerto_rico.state import MPlayer, PlayerState, PuertoRicoState, Stage, Table, seats_from

MIN_PLAYERS, MAX_PLAYERS = 3, 5
_PASS: Final = Pass()
_PRODUCE: Final = Produce()
_DECIDE: Final = "decide"
_SKIP: Final = "skip"
_CORN: Final = GOOD_INDEX[Good.CORN]

# Moves are immutable values: ``legal_moves`` hands out these prebuilt ones instead of making new ones
# on every call (most of its time went into building them).
_ROLE_MOVE: Final = {card: ChooseRole(card) for card in ROLE_CARDS}
_MAYOR_DECLINED: Final = ChooseRole(Role.MAYOR.value, privilege=False)
_SETTLE: Final = {(kind, hospice): Settle(kind, hospice) for kind in TILE_KINDS for hospice in (True, False)}
_HACIENDA: Final = Hacienda()
_BUILD: Final = {(b.name, university): Build(b.name, university) for b in CATALOGUE for university in (True, False)}
_EXTRA: Final = {g: ExtraGood(g) for g in GOODS}
_SELL: Final = {g: Sell(g) for g in GOODS}
_LOAD: Final = {(g, ship): Load(g, ship) for g in GOODS for ship in (0, 1, 2, WHARF)}
_DECLINE: Final = Produce(take=False)
#: ``(index, name, cost, quarry column, city spaces)`` of each building, in catalogue order.
_BUILD_FACTS: Final = tuple((i, b.name, b.cost, b.column, b.spaces) for i, b in enumerate(CATALOGUE))
#: ``_BUILD_FACTS`` by cost (then catalogue order), and their costs.
_BY_COST: Final = sorted(_BUILD_FACTS, key=lambda fact: (fact[2], fact[0]))
_COSTS: Final = [fact[2] for fact in _BY_COST]
#: The building holding each violet power, and the good index of each production building.
_HOLDER: Final = {b.power: b.name for b in CATALOGUE if b.good is None}
_GOOD_SLOT: Final = {b.name: GOOD_INDEX[b.good] for b in CATALOGUE if b.good is not None}

#: Stage names for events (a dict: `.value` of an enum runs interpreted code).
_STAGE_NAME: Final[dict[Stage, str]] = {stage: stage.value for stage in Stage}
_STAGE_OF_ROLE: Final = {
    Role.SETTLER: Stage.SETTLER,
    Role.MAYOR: Stage.MAYOR,
    Role.BUILDER: Stage.BUILDER,
    Role.CRAFTSMAN: Stage.PRODUCTION,
    Role.TRADER: Stage.TRADER,
    Role.CAPTAIN: Stage.CAPTAIN,
}


def ship_name(capacity: int) -> str:
    """How a cargo ship is named in messages: by its holds ("the 6-ship"). Raises nothing."""
    return f"the {capacity}-ship"


# -- setup ------------------------------------------------------------------------------------


def _tile_list(value: Any, path: str) -> list[str]:
    if not isinstance(value, list):
        raise FieldError(path, f"expected a list of plantation kinds, got {type(value).__name__}")
    out = []
    for i, item in enumerate(value):
        try:
            kind = resolve_tile(item)
        except ValueError as err:
            raise FieldError(f"{path}[{i}]", str(err)) from None
        if kind == QUARRY:
            raise FieldError(f"{path}[{i}]", "quarries are not in the plantation stack")
        out.append(kind)
    return out


def _diff(given: Sequence[str], expected: Sequence[str]) -> str:
    have, want = Counter(given), Counter(expected)
    parts = []
    missing = want - have
    extra = have - want
    if missing:
        parts.append("missing " + ", ".join(f"{n}x {k}" for k, n in sorted(missing.items(), key=lambda kv: TILE_ORDER[kv[0]])))
    if extra:
        parts.append("too many " + ", ".join(f"{n}x {k}" for k, n in sorted(extra.items(), key=lambda kv: TILE_ORDER[kv[0]])))
    return "; ".join(parts) or "same tiles"


def new_game(
    num_players: int, options: dict[str, Any], setup: dict[str, Any], shuffle_seed: int | None = None
) -> PuertoRicoState:
    """The state before the first move.

    ``setup`` holds every chance outcome: ``plantations`` (the face-down stack after the starting
    plantations are handed out, top first; the first N+1 form the face-up row) and ``reshuffles``
    (each new stack order made from the discarded plantations, in the order they happen).
    Raises ``FieldError`` for a malformed or impossible setup."""
    if not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise FieldError("players", f"Puerto Rico is for 3 to 5 players, not {num_players}")
    if options:
        raise FieldError(f"options.{sorted(options)[0]}", "unknown Puerto Rico option (there are none)")
    unknown = set(setup) - {"plantations", "reshuffles"}
    if unknown:
        raise FieldError(f"setup.{sorted(unknown)[0]}", "unknown setup field (known: plantations, reshuffles)")
    if "plantations" not in setup:
        raise FieldError("setup.plantations", "missing")
    stack = _tile_list(setup["plantations"], "setup.plantations")
    expected = plantation_stack(num_players)
    if Counter(stack) != Counter(expected):
        raise FieldError(
            "setup.plantations",
            f"is not an order of the {len(expected)} plantation tiles left after the starting ones: "
            + _diff(stack, expected),
        )
    reshuffles_raw = setup.get("reshuffles", [])
    if not isinstance(reshuffles_raw, list):
        raise FieldError("setup.reshuffles", "expected a list of plantation orders")
    reshuffles = tuple(tuple(_tile_list(o, f"setup.reshuffles[{i}]")) for i, o in enumerate(reshuffles_raw))
    conf = SETUPS[num_players]
    players = tuple(
        PlayerState(doubloons=conf.doubloons, island=(conf.starting[seat].value,), island_workers=(0,))
        for seat in range(num_players)
    )
    cards = role_cards(num_players)
    return PuertoRicoState(
        players=players,
        governor=0,
        round=1,
        step=0,
        stage=Stage.ROLE,
        role=None,
        chooser=None,
        queue=(),
        role_cards=cards,
        role_doubloons=(0,) * len(cards),
        roles_taken=(),
        plantation_stack=tuple(stack[num_players + 1:]),
        face_up=tuple(stack[: num_players + 1]),
        plantation_discard=(),
        quarries=QUARRIES,
        colonist_ship=conf.colonist_ship,
        colonist_supply=conf.colonist_supply,
        vp_chips_left=conf.vp_chips,
        bank=DOUBLOONS_IN_GAME - conf.doubloons * num_players,
        goods_supply=tuple(GOODS_SUPPLY[g] for g in GOODS),  # type: ignore[arg-type]
        building_supply=tuple(b.copies for b in CATALOGUE),
        ship_capacity=conf.ships,
        ship_good=(None, None, None),
        ship_load=(0, 0, 0),
        trading_house=(),
        hacienda_done=False,
        craft_kinds=(),
        captain_paid=False,
        wharf_used=(),
        idle=0,
        end=(),
        reshuffles=reshuffles,
        reshuffles_used=(),
        shuffle_seed=shuffle_seed,
    )


def random_setup(num_players: int, rng: random.Random) -> dict[str, Any]:
    """A shuffled setup (for simulation). Raises ``KeyError`` for a player count without a setup."""
    stack = plantation_stack(num_players)
    rng.shuffle(stack)
    return {"plantations": stack, "reshuffles": []}


# -- what a seat has and may do ------------------------------------------------------------------


def power_active(pv: PlayerState | MPlayer, power: Power) -> bool:
    """Whether the seat ``pv`` owns the building with ``power`` (a violet one) and it is occupied: a
    building's power works only with a colonist on it. Raises ``KeyError`` for a production good's
    power (no violet building holds it)."""
    # One building holds each violet power and a city has a building at most once: look it up
    # instead of scanning the city (asked several times a move).
    name = _HOLDER[power]
    city = pv.city
    return name in city and bool(pv.city_workers[city.index(name)])


def _occupied_quarries(pv: PlayerState | MPlayer) -> int:
    return sum(w for k, w in zip(pv.island, pv.island_workers) if k == QUARRY)


def _builder_discount(t: Table | PuertoRicoState, seat: int) -> int:
    """The builder's privilege: 1 doubloon off for the seat that chose the builder, in its phase."""
    return 1 if seat == t.chooser and t.role is Role.BUILDER else 0


def build_cost(t: Table | PuertoRicoState, seat: int, name: str) -> int:
    """What ``seat`` pays for ``name``: the cost, less 1 for the builder, less 1 per occupied quarry up
    to the building's column; never below 0. Raises ``KeyError`` for a name that is not a building."""
    building = BUILDINGS[name]
    pv = t.view(seat)
    discount = _builder_discount(t, seat)
    discount += min(_occupied_quarries(pv), building.column)
    return max(0, building.cost - discount)


def production(pv: PlayerState | MPlayer) -> list[int]:
    """Barrels of each kind (in good order) the seat's occupied plantations and production buildings
    make, before the supply limits them. Raises nothing."""
    tiles = [0, 0, 0, 0, 0]
    for kind, w in zip(pv.island, pv.island_workers):
        if w and kind != QUARRY:
            tiles[TILE_ORDER[kind]] += 1
    circles = [0, 0, 0, 0, 0]
    for b, w in zip(pv.city, pv.city_workers):
        if w:
            slot = _GOOD_SLOT.get(b)
            if slot is not None:
                circles[slot] += w
    out = [min(tiles[i], circles[i]) for i in range(5)]
    out[_CORN] = tiles[_CORN]
    return out


def received(t: Table | PuertoRicoState, made: Sequence[int]) -> list[int]:
    """Barrels of each kind a seat making ``made`` (``production``) receives: no more of a kind than
    the supply holds. Raises nothing."""
    supply = t.goods_supply
    return [made[i] if made[i] < supply[i] else supply[i] for i in range(5)]


def sale_price(t: Table | PuertoRicoState, seat: int, good: Good) -> int:
    """Doubloons ``seat`` gets for selling ``good`` now: price, +1 for the trader, +1 with an occupied
    small market, +2 with an occupied large market. Raises nothing."""
    pv = t.view(seat)
    price = PRICES[good] + (1 if seat == t.chooser and t.role is Role.TRADER else 0)
    if power_active(pv, Power.SMALL_MARKET):
        price += 1
    if power_active(pv, Power.LARGE_MARKET):
        price += 2
    return price


def _may_take_quarry(t: Table | PuertoRicoState, seat: int, pv: PlayerState | MPlayer) -> bool:
    return seat == t.chooser or power_active(pv, Power.CONSTRUCTION_HUT)


def settle_options(t: Table | PuertoRicoState, seat: int) -> list[str]:
    """The tiles ``seat`` may take in the settler phase, in tile order: each kind face up, then a
    quarry when one is left and the seat is the settler or has an occupied construction hut; none
    with a full island. Raises nothing."""
    pv = t.view(seat)
    if len(pv.island) >= ISLAND_SPACES:
        return []
    kinds = sorted(set(t.face_up), key=TILE_ORDER.__getitem__)
    if t.quarries > 0 and _may_take_quarry(t, seat, pv):
        kinds.append(QUARRY)
    return kinds


def hacienda_possible(t: Table | PuertoRicoState, seat: int) -> bool:
    """Whether ``seat`` may draw a face-down plantation now: an occupied hacienda not used this turn,
    room on the island and a plantation left to draw. Raises nothing."""
    pv = t.view(seat)
    return (
        not t.hacienda_done
        and len(pv.island) < ISLAND_SPACES
        and bool(t.plantation_stack or t.plantation_discard)
        and power_active(pv, Power.HACIENDA)
    )


def buildable(t: Table | PuertoRicoState, seat: int) -> list[str]:
    """The buildings ``seat`` can build now, in catalogue order: left in the supply, not owned, room in
    the city and ``build_cost`` within its doubloons (worked out here with the seat's quarries and
    builder discount once). Raises nothing."""
    pv = t.view(seat)
    free = CITY_SPACES - pv.city_spaces
    if free <= 0:
        return []
    quarries = _occupied_quarries(pv)
    base = _builder_discount(t, seat)
    money = pv.doubloons
    city = pv.city
    supply = t.building_supply
    # No discount exceeds the builder's plus every occupied quarry: dearer buildings are out of reach
    # (most are, so only the cheaper ones are looked at, then put back in catalogue order).
    reach = bisect_right(_COSTS, money + base + quarries)
    found = [
        fact
        for fact in _BY_COST[:reach]
        if fact[2] - base - min(quarries, fact[3]) <= money and supply[fact[0]] > 0 and fact[4] <= free
        and fact[1] not in city
    ]
    found.sort()
    return [fact[1] for fact in found]


def _can_build(t: Table | PuertoRicoState, seat: int) -> bool:
    """Whether ``buildable`` is not empty (checked cheaply: it runs for every seat in every builder
    phase of a replay)."""
    pv = t.view(seat)
    free = CITY_SPACES - pv.city_spaces
    if free <= 0:
        return False
    quarries = _occupied_quarries(pv)
    base = _builder_discount(t, seat)
    money = pv.doubloons
    city = pv.city
    supply = t.building_supply
    for i, name, cost, column, spaces in _BUILD_FACTS:
        if cost - base - min(quarries, column) <= money and supply[i] > 0 and spaces <= free and name not in city:
            return True
    return False


def sellable(t: Table | PuertoRicoState, seat: int) -> list[Good]:
    """The goods ``seat`` may sell now, in good order: those it holds that the trading house lacks (any
    it holds with an occupied office); none once the trading house is full. Raises nothing."""
    if len(t.trading_house) >= TRADING_HOUSE_SPACES:
        return []
    pv = t.view(seat)
    office = None
    out = []
    for i, g in enumerate(GOODS):
        if not pv.goods[i]:
            continue
        if g in t.trading_house:
            if office is None:
                office = power_active(pv, Power.OFFICE)
            if not office:
                continue
        out.append(g)
    return out


def loads(t: Table | PuertoRicoState, seat: int) -> tuple[list[Load], list[Load]]:
    """``(cargo, wharf)``: the loads on cargo ships the rules allow ``seat`` (for each kind, the ship
    of that kind, or the empty ships taking the most), and the wharf loads. Raises nothing."""
    pv = t.view(seat)
    cargo: list[Load] = []
    held = []
    for gi, g in enumerate(GOODS):
        have = pv.goods[gi]
        if not have:
            continue
        held.append(g)
        if g in t.ship_good:
            i = t.ship_good.index(g)
            if t.ship_load[i] < t.ship_capacity[i]:
                cargo.append(_LOAD[g, i])
            continue
        best, ships = 0, []
        for i in range(len(t.ship_capacity)):
            if t.ship_good[i] is None:
                amount = min(have, t.ship_capacity[i])
                if amount > best:
                    best, ships = amount, [i]
                elif amount == best:
                    ships.append(i)
        cargo.extend(_LOAD[g, i] for i in ships)
    wharf: list[Load] = []
    if held and seat not in t.wharf_used and power_active(pv, Power.WHARF):
        wharf = [_LOAD[g, WHARF] for g in held]
    return cargo, wharf


def load_amount(t: Table | PuertoRicoState, pv: PlayerState | MPlayer, move: Load) -> int:
    """Barrels the seat ``pv`` ships with ``move``: everything of the kind on the wharf, else as many
    as it holds up to the room left on the ship. Raises ``IndexError`` for a ship the game does not
    have."""
    have = pv.goods[GOOD_INDEX[move.good]]
    if move.ship == WHARF:
        return have
    i = int(move.ship)
    return min(have, t.ship_capacity[i] - t.ship_load[i])


def store_options(goods: tuple[int, ...], slots: int) -> tuple[Store, ...]:
    """One ``Store`` per distinct outcome for a seat holding ``goods`` (barrels by kind) with ``slots``
    warehouse kinds, in a fixed order: the outcomes keeping the most first (as the bots choose), then
    every smaller one. Raises nothing."""
    return _storage(goods, slots)[0]


def storage_slots(pv: PlayerState | MPlayer) -> int:
    """How many kinds of goods the seat's warehouses keep whole: 1 with an occupied small warehouse,
    2 more with an occupied large one. Raises nothing."""
    return (1 if power_active(pv, Power.SMALL_WAREHOUSE) else 0) + (2 if power_active(pv, Power.LARGE_WAREHOUSE) else 0)


def _store_outcome(goods: Sequence[int], warehouse: Sequence[Good], keep: Good | None) -> tuple[int, ...]:
    return tuple(
        goods[i] if g in warehouse else (1 if g is keep and goods[i] else 0) for i, g in enumerate(GOODS)
    )


def _store_choices(goods: Sequence[int], slots: int) -> list[tuple[Store, bool]]:
    """Every ``(store, keeps the most)`` for a seat holding ``goods`` with ``slots`` warehouse kinds:
    each subset of the kinds held that the warehouses can take (largest first), with each other kind or
    nothing on the windrose."""
    kinds = [g for i, g in enumerate(GOODS) if goods[i]]
    most = min(slots, len(kinds))
    out = []
    for size in range(most, -1, -1):
        for combo in combinations(kinds, size):
            rest = [g for g in kinds if g not in combo]
            for keep in [*rest, None]:
                out.append((Store(combo, keep), size == most and (keep is not None or not rest)))
    return out


@lru_cache(maxsize=4096)
def _storage(goods: tuple[int, ...], slots: int) -> tuple[tuple[Store, ...], Store | None]:
    """``(moves, default)`` of a seat holding ``goods`` with ``slots`` warehouse kinds: one ``Store`` per
    distinct outcome in a fixed order (the outcomes keeping the most first, as the rules used to be
    read and as the bots choose, then every smaller one), and the storage taken when a log leaves it out
    (the outcome keeping the most, if it is unique). Seats hold the same few goods again and again, so
    the answers are kept."""
    choices = _store_choices(goods, slots)
    seen: dict[tuple[int, ...], Store] = {}
    for most in (True, False):
        for move, keeps_most in choices:
            if keeps_most is most:
                seen.setdefault(_store_outcome(goods, move.warehouse, move.keep), move)
    best = {_store_outcome(goods, move.warehouse, move.keep) for move, keeps_most in choices if keeps_most}
    default = next(move for move, keeps_most in choices if keeps_most) if len(best) == 1 else None
    return tuple(seen.values()), default


def _store_moves(pv: PlayerState | MPlayer) -> list[Store]:
    """One ``Store`` per distinct outcome in a fixed order (see ``_storage``)."""
    return list(_storage(tuple(pv.goods), storage_slots(pv))[0])


def _store_default(pv: PlayerState | MPlayer) -> Store | None:
    """The storage taken when a log leaves it out: the outcome keeping the most, if it is unique."""
    return _storage(tuple(pv.goods), storage_slots(pv))[1]


def colonist_available(t: Table | PuertoRicoState) -> bool:
    """Whether a hospice or university would get a colonist (from the supply, else the ship). Raises
    nothing."""
    return t.colonist_supply > 0 or t.colonist_ship > 0


# -- moving things around ----------------------------------------------------------------------


def _draw_tile(t: Table) -> str | None:
    """The top plantation of the stack, reshuffling the discarded plantations when it is empty;
    None when both are empty. Raises ``FieldError`` when the log lacks a reshuffle order."""
    if not t.plantation_stack:
        if not t.plantation_discard:
            return None
        _reshuffle(t)
    tile = t.plantation_stack[0]
    t.plantation_stack = t.plantation_stack[1:]
    return tile


def _reshuffle(t: Table) -> None:
    number = len(t.reshuffles_used)
    discard = list(t.plantation_discard)
    if number < len(t.reshuffles):
        order = list(t.reshuffles[number])
        if Counter(order) != Counter(discard):
            raise FieldError(
                f"setup.reshuffles[{number}]",
                f"is not an order of the {len(discard)} discarded plantations at move {t.step + 1}: "
                + _diff(order, discard),
            )
    elif t.shuffle_seed is not None:
        order = sorted(discard, key=TILE_ORDER.__getitem__)
        random.Random(f"{t.shuffle_seed}:{number}").shuffle(order)
    else:
        raise FieldError(
            "setup.reshuffles",
            f"the plantation stack runs out at move {t.step + 1} and the log records {number} "
            f"reshuffle order(s); reshuffle {number + 1} is missing",
        )
    t.reshuffles_used = t.reshuffles_used + (tuple(order),)
    t.events.append(("reshuffle", len(order)))
    t.plantation_stack = tuple(order)
    t.plantation_discard = ()


def _colonist_from_supply_or_ship(t: Table) -> bool:
    """Take one colonist for a hospice or university: from the supply, else from the ship."""
    if t.colonist_supply > 0:
        t.colonist_supply -= 1
        return True
    if t.colonist_ship > 0:
        t.colonist_ship -= 1
        return True
    return False


def _pay_vp(t: Table, seat: int, points: int) -> None:
    """VP chips to ``seat``; once the last chip is handed out the game ends with the round, and
    points owed are still paid (the pool goes below zero, as points noted on paper)."""
    t.p(seat).vp_chips += points
    t.vp_chips_left -= points
    if t.vp_chips_left <= 0 and "vp_chips" not in t.end:
        t.end = t.end + ("vp_chips",)
        t.events.append(("end_trigger", "vp_chips", seat))


def _empty_building_circles(t: Table) -> int:
    total = 0
    for seat in range(t.n):
        pv = t.view(seat)
        for b, w in zip(pv.city, pv.city_workers):
            total += BUILDINGS[b].circles - w
    return total


# -- the flow of the game ------------------------------------------------------------------------


def _start_phase(t: Table, card: str, seat: int, privilege: bool = True) -> None:
    role = role_of(card)
    index = t.role_cards.index(card)
    if t.role_doubloons[index]:
        t.p(seat).doubloons += t.role_doubloons[index]
        t.role_doubloons[index] = 0
    t.roles_taken.append((card, seat))
    t.role, t.chooser = role, seat
    if role is Role.PROSPECTOR:
        t.p(seat).doubloons += 1
        t.bank -= 1
        t.events.append(("prospector", seat))
        _end_role(t)
        return
    t.stage = _STAGE_OF_ROLE[role]
    t.queue = seats_from(seat, t.n)
    t.hacienda_done = False
    if role is Role.MAYOR:
        if privilege and t.colonist_supply > 0:
            t.colonist_supply -= 1
            t.p(seat).san_juan += 1
            t.events.append(("mayor_privilege", seat))
        ship, t.colonist_ship = t.colonist_ship, 0
        dealt = [0] * t.n
        for i in range(ship):
            t.p((seat + i) % t.n).san_juan += 1
            dealt[(seat + i) % t.n] += 1
        t.events.append(("colonist_ship", seat, tuple(dealt)))
    elif role is Role.CRAFTSMAN:
        t.craft_kinds = ()
    elif role is Role.CAPTAIN:
        t.queue = [seat]
        t.idle = 0
        t.captain_paid = False
        t.wharf_used = ()


def _end_role(t: Table) -> None:
    t.role, t.chooser, t.queue = None, None, []
    t.craft_kinds = ()
    t.hacienda_done = False
    if len(t.roles_taken) < t.n:
        t.stage = Stage.ROLE
        return
    # Round end: a doubloon on each unchosen card, then the game ends or the governor passes left.
    taken = {card for card, _ in t.roles_taken}
    unchosen = []
    for i, card in enumerate(t.role_cards):
        if card not in taken:
            t.role_doubloons[i] += 1
            t.bank -= 1
            unchosen.append(card)
    if t.end:
        t.stage = Stage.OVER
        t.events.append(("over", t.end))
        return
    t.events.append(("role_doubloons", tuple(unchosen)))
    t.round += 1
    t.governor = (t.governor + 1) % t.n
    t.roles_taken = []
    t.stage = Stage.ROLE
    t.events.append(("round", t.round, t.governor))


def _end_stage(t: Table) -> None:
    stage = t.stage
    if stage is Stage.SETTLER:
        left = tuple(t.face_up)
        t.plantation_discard = t.plantation_discard + left
        t.face_up = []
        t.events.append(("plantations_discarded", left))
        for _ in range(t.n + 1):
            tile = _draw_tile(t)
            if tile is None:
                break
            t.face_up.append(tile)
        t.events.append(("plantations_drawn", tuple(t.face_up)))
    elif stage is Stage.MAYOR:
        need = max(t.n, _empty_building_circles(t))
        if t.colonist_supply >= need:
            t.colonist_ship = need
            t.colonist_supply -= need
            t.events.append(("colonist_ship_refilled", need, need))
        else:
            t.colonist_ship = t.colonist_supply
            t.colonist_supply = 0
            t.events.append(("colonist_ship_refilled", t.colonist_ship, need))
            if "colonists" not in t.end:
                t.end = t.end + ("colonists",)
                t.events.append(("end_trigger", "colonists", None))
    elif stage is Stage.TRADER:
        if len(t.trading_house) >= TRADING_HOUSE_SPACES:
            for g in t.trading_house:
                t.goods_supply[GOOD_INDEX[g]] += 1
            t.events.append(("trading_house_emptied", tuple(t.trading_house)))
            t.trading_house = []
    elif stage is Stage.PRODUCTION:
        # Everyone has taken or declined his goods: the craftsman's extra good comes next.
        t.stage = Stage.CRAFTSMAN
        t.queue = [t.chooser]  # type: ignore[list-item]
        return
    elif stage is Stage.STORAGE:
        for i, cap in enumerate(t.ship_capacity):
            if t.ship_load[i] >= cap:
                good = t.ship_good[i]
                assert good is not None
                t.goods_supply[GOOD_INDEX[good]] += t.ship_load[i]
                t.events.append(("ship_emptied", cap, good, t.ship_load[i]))
                t.ship_good[i], t.ship_load[i] = None, 0
        t.wharf_used = ()
    _end_role(t)


def _turn(t: Table, seat: int) -> Any:
    """Begin ``seat``'s turn in the current stage: ``_SKIP`` when it has nothing to decide, a move when
    exactly one is legal (forced), else ``_DECIDE``."""
    stage = t.stage
    if stage is Stage.SETTLER:
        return _DECIDE if settle_options(t, seat) or hacienda_possible(t, seat) else _SKIP
    if stage is Stage.BUILDER:
        return _DECIDE if _can_build(t, seat) else _SKIP
    if stage is Stage.TRADER:
        return _DECIDE if sellable(t, seat) else _SKIP
    if stage is Stage.PRODUCTION:
        made = production(t.view(seat))
        if not any(made):
            return _SKIP
        if not any(received(t, made)):
            # The supply lacks every kind the seat makes: it receives nothing, nothing to decline.
            return _PRODUCE
        return _DECIDE
    if stage is Stage.CRAFTSMAN:
        return _DECIDE if extra_goods(t) else _SKIP
    if stage is Stage.MAYOR:
        pv = t.view(seat)
        owned, circles, to_place = colonists_to_place(pv)
        if to_place == 0 or owned >= circles:
            return _full_arrangement(pv)
        bins = bins_of(pv)
        if len(bins) == 1:
            # One place with room to spare: the colonists all go there.
            name, _, is_tile = bins[0]
            return Mayor.of({name: to_place}, {}) if is_tile else Mayor.of({}, {name: to_place})
        return _DECIDE
    if stage is Stage.STORAGE:
        # Holding anything, a seat may keep it or return it: always a decision (see ``default_move``).
        return _DECIDE if any(t.view(seat).goods) else _SKIP
    raise AssertionError(f"no turn in stage {stage}")


def _full_arrangement(pv: PlayerState | MPlayer) -> Mayor:
    """The only arrangement when every circle can be filled (or there is nobody to place)."""
    owned, circles, _ = colonists_to_place(pv)
    if owned == 0:
        return Mayor()
    plantations: dict[str, int] = {}
    for kind in pv.island:
        plantations[kind] = plantations.get(kind, 0) + 1
    return Mayor.of(plantations, {b: BUILDINGS[b].circles for b in pv.city})


def extra_goods(t: Table | PuertoRicoState) -> list[Good]:
    """The kinds the craftsman may take an extra barrel of: those he produced this phase that the
    supply still holds. Raises nothing."""
    return [g for g in t.craft_kinds if t.goods_supply[GOOD_INDEX[g]] > 0]


def _captain_turns(t: Table) -> bool:
    """Run loading turns that need no decision; True when a seat must decide."""
    while t.idle < t.n:
        seat = t.queue[0]
        cargo, wharf = loads(t, seat)
        if not cargo and not wharf:
            t.events.append(("skip", seat, "captain"))
            t.idle += 1
            t.queue[0] = (seat + 1) % t.n
            continue
        if len(cargo) == 1 and not wharf:
            _do_load(t, seat, cargo[0], forced=True)
            t.idle = 0
            t.queue[0] = (seat + 1) % t.n
            continue
        return True
    t.stage = Stage.STORAGE
    t.queue = seats_from(t.chooser, t.n)  # type: ignore[arg-type]
    return False


def _advance(t: Table) -> None:
    """Run everything that needs no decision until a seat must decide or the game is over."""
    while True:
        stage = t.stage
        if stage is Stage.ROLE or stage is Stage.OVER:
            return
        if stage is Stage.CAPTAIN:
            if _captain_turns(t):
                return
            continue
        while t.queue:
            if stage is Stage.TRADER and len(t.trading_house) >= TRADING_HOUSE_SPACES:
                t.events.append(("trading_house_full", tuple(t.queue)))
                t.queue = []
                break
            seat = t.queue[0]
            result = _turn(t, seat)
            if result is _DECIDE:
                return
            if result is _SKIP:
                # A seat that makes no goods, or holds none at storage, has nothing to tell about (as
                # when production and storage were automatic).
                if stage is not Stage.STORAGE and stage is not Stage.PRODUCTION:
                    t.events.append(("skip", seat, _STAGE_NAME[stage]))
            elif stage is Stage.PRODUCTION:
                _do_produce(t, seat, result, forced=True)
            else:
                pv = t.view(seat)
                layout = (tuple(pv.island_workers), tuple(pv.city_workers))
                _do_mayor(t, seat, result)
                pv = t.view(seat)
                if layout != (tuple(pv.island_workers), tuple(pv.city_workers)):
                    t.events.append(("mayor", seat, result, colonists_to_place(pv)[0]))
            t.queue.pop(0)
            t.hacienda_done = False
        _end_stage(t)


# -- doing a move (checked) ---------------------------------------------------------------------


def _do_settle(t: Table, seat: int, move: Settle) -> None:
    pv = t.view(seat)
    if len(pv.island) >= ISLAND_SPACES:
        raise RuleViolation("settler.island_full", f"the island's {ISLAND_SPACES} spaces are full")
    if move.tile == QUARRY:
        if not _may_take_quarry(t, seat, pv):
            raise RuleViolation(
                "settler.quarry", "only the settler or the owner of an occupied construction hut may take a quarry"
            )
        if t.quarries <= 0:
            raise RuleViolation("settler.no_quarry", "no quarries are left")
        t.quarries -= 1
    else:
        if move.tile not in t.face_up:
            shown = ", ".join(sorted(t.face_up, key=TILE_ORDER.__getitem__)) or "none"
            raise RuleViolation("settler.face_up", f"no {move.tile} plantation is face up (face up: {shown})")
        t.face_up.remove(move.tile)
    hospice = power_active(pv, Power.HOSPICE)
    if not move.hospice:
        if not hospice:
            raise RuleViolation("hospice.owned", "declines the hospice's colonist but has no occupied hospice")
        if not colonist_available(t):
            raise RuleViolation(
                "hospice.none", "declines the hospice's colonist but no colonist is left (supply and ship are empty)"
            )
    mp = t.p(seat)
    mp.island.append(move.tile)
    occupied = 1 if hospice and move.hospice and _colonist_from_supply_or_ship(t) else 0
    mp.island_workers.append(occupied)


def _do_hacienda(t: Table, seat: int) -> None:
    pv = t.view(seat)
    if not power_active(pv, Power.HACIENDA):
        raise RuleViolation("hacienda.owned", "drawing a face-down plantation needs an occupied hacienda")
    if t.hacienda_done:
        raise RuleViolation("hacienda.used", "the hacienda was already used this turn")
    if len(pv.island) >= ISLAND_SPACES:
        raise RuleViolation("settler.island_full", f"the island's {ISLAND_SPACES} spaces are full")
    tile = _draw_tile(t)
    if tile is None:
        raise RuleViolation("hacienda.empty", "no plantation tiles are left to draw")
    mp = t.p(seat)
    mp.island.append(tile)
    mp.island_workers.append(0)
    t.hacienda_done = True


def _do_mayor(t: Table, seat: int, move: Mayor) -> None:
    mp = t.p(seat)
    owned, circles, to_place = colonists_to_place(mp)
    placed = 0
    for kind, count in move.plantations:
        have = mp.island.count(kind)
        if count > have:
            raise RuleViolation(
                "mayor.plantation", f"has {have} {kind} {'tile' if kind == QUARRY else 'plantation'}"
                f"{'s' if have != 1 else ''}, cannot occupy {count}",
            )
        placed += count
    for name, count in move.buildings:
        if name not in mp.city:
            raise RuleViolation("mayor.building", f"owns no {name}")
        if count > BUILDINGS[name].circles:
            circles_of = BUILDINGS[name].circles
            raise RuleViolation(
                "mayor.building", f"{name} has {circles_of} circle{'s' if circles_of != 1 else ''}, cannot hold {count}"
            )
        placed += count
    if placed > owned:
        raise RuleViolation("mayor.count", f"places {placed} colonists but owns only {owned}")
    if placed != to_place:
        raise RuleViolation(
            "mayor.count",
            f"must place {to_place} colonists (owns {owned}, {circles} circles): no colonist may stay in "
            f"San Juan while a circle is empty, but {placed} {'was' if placed == 1 else 'were'} placed",
        )
    want = dict(move.plantations)
    workers = []
    for kind in mp.island:
        left = want.get(kind, 0)
        workers.append(1 if left else 0)
        if left:
            want[kind] = left - 1
    mp.island_workers = workers
    on_building = dict(move.buildings)
    mp.city_workers = [on_building.get(b, 0) for b in mp.city]
    mp.san_juan = owned - placed


def _do_build(t: Table, seat: int, move: Build) -> None:
    building = BUILDINGS[move.building]
    pv = t.view(seat)
    if move.building in pv.city:
        raise RuleViolation("builder.unique", f"already owns a {move.building} (one of each building)")
    index = BUILDING_ORDER[move.building]
    if t.building_supply[index] <= 0:
        raise RuleViolation("builder.supply", f"no {move.building} is left to build")
    free = CITY_SPACES - pv.city_spaces
    if building.spaces > free:
        raise RuleViolation(
            "builder.space",
            f"{move.building} needs {building.spaces} city space{'s' if building.spaces != 1 else ''}, "
            f"{free} {'is' if free == 1 else 'are'} free",
        )
    cost = build_cost(t, seat, move.building)
    if cost > pv.doubloons:
        raise RuleViolation("builder.cost", f"{move.building} costs {cost} doubloons, has {pv.doubloons}")
    university = power_active(pv, Power.UNIVERSITY)
    if not move.university:
        if not university:
            raise RuleViolation("university.owned", "declines the university's colonist but has no occupied university")
        if not colonist_available(t):
            raise RuleViolation(
                "university.none",
                "declines the university's colonist but no colonist is left (supply and ship are empty)",
            )
        university = False
    mp = t.p(seat)
    mp.doubloons -= cost
    t.bank += cost
    t.building_supply = t.building_supply[:index] + (t.building_supply[index] - 1,) + t.building_supply[index + 1:]
    mp.city.append(move.building)
    colonist = 1 if university and _colonist_from_supply_or_ship(t) else 0
    mp.city_workers.append(colonist)
    if colonist:
        t.events.append(("university", seat, move.building))
    if mp.city_spaces >= CITY_SPACES and "city" not in t.end:
        t.end = t.end + ("city",)
        t.events.append(("end_trigger", "city", seat))


def _do_produce(t: Table, seat: int, move: Produce, forced: bool = False) -> None:
    """Take (or decline) the goods the seat makes, each kind limited by the supply; the factory pays
    for the kinds received. ``forced`` when the rules took them for the seat (a log that says nothing)."""
    if not move.take:
        return
    made = production(t.view(seat))
    mp = t.p(seat)
    barrels = received(t, made)
    kinds: list[Good] = []
    for i in range(5):
        amount = barrels[i]
        if amount:
            mp.goods[i] += amount
            t.goods_supply[i] -= amount
            kinds.append(GOODS[i])
    if seat == t.chooser:
        t.craft_kinds = tuple(kinds)
    if forced:
        t.events.append(("produce", seat, tuple(barrels), tuple(made)))
    income = FACTORY_INCOME[len(kinds)]
    if income and power_active(mp, Power.FACTORY):
        mp.doubloons += income
        t.bank -= income
        t.events.append(("factory", seat, income))


def _do_extra(t: Table, seat: int, move: ExtraGood) -> None:
    gi = GOOD_INDEX[move.good]
    if move.good not in t.craft_kinds:
        made = ", ".join(g.value for g in t.craft_kinds) or "nothing"
        raise RuleViolation(
            "craftsman.extra_kind", f"did not produce {move.good.value} this phase (produced: {made})"
        )
    if t.goods_supply[gi] <= 0:
        raise RuleViolation("craftsman.supply", f"no {move.good.value} is left in the supply")
    t.goods_supply[gi] -= 1
    t.p(seat).goods[gi] += 1


def _do_sell(t: Table, seat: int, move: Sell) -> None:
    gi = GOOD_INDEX[move.good]
    pv = t.view(seat)
    if len(t.trading_house) >= TRADING_HOUSE_SPACES:
        raise RuleViolation("trader.full", "the trading house is full")
    if not pv.goods[gi]:
        raise RuleViolation("trader.goods", f"has no {move.good.value} to sell")
    if move.good in t.trading_house and not power_active(pv, Power.OFFICE):
        raise RuleViolation(
            "trader.kind",
            f"the trading house already holds {move.good.value} (only an occupied office sells a kind twice)",
        )
    price = sale_price(t, seat, move.good)
    mp = t.p(seat)
    mp.goods[gi] -= 1
    mp.doubloons += price
    t.bank -= price
    t.trading_house.append(move.good)


def _do_load(t: Table, seat: int, move: Load, forced: bool = False) -> None:
    """Load without checks (the move comes from ``loads`` or was checked by ``_check_load``);
    ``forced`` when the rules made the seat's only possible load for it."""
    gi = GOOD_INDEX[move.good]
    mp = t.p(seat)
    amount = load_amount(t, mp, move)
    if move.ship == WHARF:
        t.goods_supply[gi] += amount
        t.wharf_used = t.wharf_used + (seat,)
    else:
        i = int(move.ship)
        t.ship_good[i] = move.good
        t.ship_load[i] += amount
    mp.goods[gi] -= amount
    points = amount
    bonuses: tuple[str, ...] = ()
    if power_active(mp, Power.HARBOR):
        points += 1
        bonuses += ("harbor",)
    if seat == t.chooser and not t.captain_paid:
        t.captain_paid = True
        points += 1
        bonuses += ("privilege",)
    ship = WHARF if move.ship == WHARF else t.ship_capacity[int(move.ship)]
    t.events.append(("load", seat, move.good, ship, amount, bonuses, forced))
    _pay_vp(t, seat, points)


def _check_load(t: Table, seat: int, move: Load) -> None:
    gi = GOOD_INDEX[move.good]
    pv = t.view(seat)
    if not pv.goods[gi]:
        raise RuleViolation("captain.goods", f"has no {move.good.value} to load")
    if move.ship == WHARF:
        if not power_active(pv, Power.WHARF):
            raise RuleViolation("wharf.owned", "loading on the wharf needs an occupied wharf")
        if seat in t.wharf_used:
            raise RuleViolation("wharf.used", "the wharf was already used this phase")
        return
    i = int(move.ship)
    cap = t.ship_capacity[i]
    if move.good in t.ship_good:
        j = t.ship_good.index(move.good)
        if j != i:
            raise RuleViolation(
                "captain.one_ship",
                f"{move.good.value} is already on {ship_name(t.ship_capacity[j])}: must load {move.good.value} on {ship_name(t.ship_capacity[j])}",
            )
        if t.ship_load[i] >= cap:
            raise RuleViolation("captain.ship_full", f"{ship_name(cap)} is full of {move.good.value}")
        return
    if t.ship_good[i] is not None:
        raise RuleViolation("captain.ship_kind", f"{ship_name(cap)} carries {t.ship_good[i]}, not {move.good.value}")
    have = pv.goods[gi]
    fits = min(have, cap)
    best = max(min(have, c) for c, g in zip(t.ship_capacity, t.ship_good) if g is None)
    if fits < best:
        j = next(k for k, (c, g) in enumerate(zip(t.ship_capacity, t.ship_good)) if g is None and min(have, c) == best)
        raise RuleViolation(
            "captain.most",
            f"must load {move.good.value} on {ship_name(t.ship_capacity[j])}, which takes {best} "
            f"({ship_name(cap)} takes only {fits})",
        )


def _do_store(t: Table, seat: int, move: Store, forced: bool = False) -> None:
    """Keep what ``move`` says and return the rest to the supply; ``forced`` when the rules chose the
    seat's only possible outcome for it."""
    pv = t.view(seat)
    slots = storage_slots(pv)
    for g in move.warehouse:
        if not pv.goods[GOOD_INDEX[g]]:
            raise RuleViolation("storage.goods", f"has no {g.value} to keep in a warehouse")
    if len(move.warehouse) > slots:
        kinds = len(move.warehouse)
        raise RuleViolation(
            "storage.warehouse",
            f"keeps {kinds} kind{'s' if kinds != 1 else ''} whole but its occupied warehouses take "
            f"{slots} kind{'s' if slots != 1 else ''}",
        )
    if move.keep is not None:
        if not pv.goods[GOOD_INDEX[move.keep]]:
            raise RuleViolation("storage.goods", f"has no {move.keep.value} to keep on the windrose")
        if move.keep in move.warehouse:
            raise RuleViolation(
                "storage.keep",
                f"{move.keep.value} is kept whole in a warehouse: the windrose keeps one barrel of another kind",
            )
    if not any(pv.goods):
        return
    mp = t.p(seat)
    returned = [0] * 5
    for i, g in enumerate(GOODS):
        if g in move.warehouse:
            continue
        keep = 1 if g is move.keep else 0
        if mp.goods[i] > keep:
            returned[i] = mp.goods[i] - keep
            t.goods_supply[i] += mp.goods[i] - keep
            mp.goods[i] = keep
    if forced or any(returned):
        t.events.append(("store", seat, move, tuple(returned), forced))


_ALLOWED: Final[dict[Stage, tuple[type, ...]]] = {
    Stage.ROLE: (ChooseRole,),
    Stage.SETTLER: (Settle, Hacienda, Pass),
    Stage.MAYOR: (Mayor,),
    Stage.BUILDER: (Build, Pass),
    Stage.PRODUCTION: (Produce,),
    Stage.CRAFTSMAN: (ExtraGood, Pass),
    Stage.TRADER: (Sell, Pass),
    Stage.CAPTAIN: (Load, Pass),
    Stage.STORAGE: (Store,),
}


def _check_kind(t: Table, move: PuertoRicoMove) -> None:
    if not isinstance(move, _ALLOWED[t.stage]):
        raise RuleViolation("turn.kind", f"{describe_pending(t)}, not '{move.text()}'")


def _check_privilege_decline(t: Table, move: ChooseRole) -> None:
    role = role_of(move.role)
    if role is not Role.MAYOR:
        raise RuleViolation(
            "role.privilege",
            f"only the mayor's privilege (a colonist) can be declined; the {role.value}'s is a pure gain",
        )
    if t.colonist_supply <= 0:
        raise RuleViolation("mayor.privilege", "declines the privilege colonist but the colonist supply is empty")


def describe_pending(t: Table | PuertoRicoState) -> str:
    """What the game waits for, in words ("seat 2 must choose a role"). Raises nothing."""
    seat = t.current_seat
    if seat is None:
        return "the game is over"
    what = {
        Stage.ROLE: "choose a role",
        Stage.SETTLER: "take a plantation or quarry (or use the hacienda) or pass",
        Stage.MAYOR: "place colonists (mayor)",
        Stage.BUILDER: "build or pass",
        Stage.PRODUCTION: "take the goods produced or decline them",
        Stage.CRAFTSMAN: "take the craftsman's extra good or pass",
        Stage.TRADER: "sell a good or pass",
        Stage.CAPTAIN: "load goods (captain)",
        Stage.STORAGE: "choose the goods to keep (storage)",
    }[t.stage]
    return f"seat {seat} must {what}"


#: The working table of the last snapshot ``apply`` (or ``apply_default``) returned, keyed by the
#: snapshot's id. A replay applies each move to the snapshot the previous one returned, so that table
#: can go on instead of thawing the snapshot again. It is popped (atomic, so two threads never share
#: one) and used only for that very snapshot object; any other state gets a fresh table.
_WARM: Final[dict[int, tuple[PuertoRicoState, Table]]] = {}


def _table(state: PuertoRicoState) -> Table:
    """A working table equal to ``state``: the handed-over one if ``state`` is the last result."""
    warm = _WARM.pop(id(state), None)
    if warm is not None and warm[0] is state:
        return warm[1]
    return Table(state)


def _result(t: Table) -> PuertoRicoState:
    """The snapshot of ``t``, handing ``t`` over to the next move from it."""
    state = t.freeze()
    _WARM.clear()
    _WARM[id(state)] = (state, t)
    return state


def apply(state: PuertoRicoState, move: PuertoRicoMove) -> PuertoRicoState:
    """The state after ``move`` by the seat to act. Raises ``RuleViolation`` if the move is illegal,
    and ``FieldError`` if a chance outcome the log must supply (a reshuffle order) is missing."""
    t = _table(state)
    _move(t, move)
    return _result(t)


def _move(t: Table, move: PuertoRicoMove) -> None:
    """Check ``move`` by the seat to act and make it on ``t``, then run what needs no decision. Raises
    as ``apply`` (``t`` is then half changed and must not be used again)."""
    if t.stage is Stage.OVER:
        raise RuleViolation("game.over", "the game is already over")
    t.events = []
    seat = t.current_seat
    assert seat is not None
    _check_kind(t, move)
    stage = t.stage
    if stage is Stage.ROLE:
        assert isinstance(move, ChooseRole)
        if move.role not in t.role_cards:
            raise RuleViolation(
                "role.unknown", f"there is no {move.role} card in a {t.n}-player game"
            )
        if any(card == move.role for card, _ in t.roles_taken):
            raise RuleViolation("role.taken", f"the {move.role} was already chosen this round")
        if not move.privilege:
            _check_privilege_decline(t, move)
        _start_phase(t, move.role, seat, move.privilege)
    elif stage is Stage.CAPTAIN:
        if isinstance(move, Pass):
            cargo, _ = loads(t, seat)
            if cargo:
                options = ", ".join(
                    f"{m.good.value} on {ship_name(t.ship_capacity[int(m.ship)])}" for m in cargo
                )
                raise RuleViolation("captain.must_load", f"must load when a cargo ship can take goods (can load: {options})")
            t.idle += 1
        else:
            assert isinstance(move, Load)
            _check_load(t, seat, move)
            _do_load(t, seat, move)
            t.idle = 0
        t.queue[0] = (seat + 1) % t.n
    elif isinstance(move, Hacienda):
        _do_hacienda(t, seat)
        t.step += 1
        _advance(t)
        return
    else:
        if isinstance(move, Settle):
            _do_settle(t, seat, move)
        elif isinstance(move, Mayor):
            _do_mayor(t, seat, move)
        elif isinstance(move, Build):
            _do_build(t, seat, move)
        elif isinstance(move, Produce):
            _do_produce(t, seat, move)
        elif isinstance(move, ExtraGood):
            _do_extra(t, seat, move)
        elif isinstance(move, Sell):
            _do_sell(t, seat, move)
        elif isinstance(move, Store):
            _do_store(t, seat, move)
        t.queue.pop(0)
        t.hacienda_done = False
    t.step += 1
    _advance(t)


def start(state: PuertoRicoState) -> PuertoRicoState:
    """Advance a freshly built state to its first decision (a no-op for a state at a role choice).
    Raises ``FieldError`` when the log lacks a reshuffle the rules need on the way."""
    t = Table(state)
    _advance(t)
    return t.freeze()


# -- legal moves --------------------------------------------------------------------------------


def legal_moves(state: PuertoRicoState) -> Sequence[PuertoRicoMove]:
    """Every legal decision of the seat to act, in a fixed order (pass last). For the mayor this is a
    lazy ``Arrangements`` sequence (there can be very many); none once the game is over. Raises
    nothing."""
    seat = state.current_seat
    if seat is None:
        return []
    # The read-only helpers take the snapshot itself (it has ``view`` like a ``Table``).
    t = state
    stage = state.stage
    if stage is Stage.ROLE:
        taken = {card for card, _ in state.roles_taken}
        out: list[PuertoRicoMove] = []
        for card in state.role_cards:
            if card not in taken:
                out.append(_ROLE_MOVE[card])
                if card == Role.MAYOR.value and state.colonist_supply > 0:
                    out.append(_MAYOR_DECLINED)
        return out
    if stage is Stage.SETTLER:
        out = [_HACIENDA] if hacienda_possible(t, seat) else []
        hospice = power_active(state.players[seat], Power.HOSPICE) and colonist_available(state)
        for kind in settle_options(t, seat):
            out.append(_SETTLE[kind, True])
            if hospice:
                out.append(_SETTLE[kind, False])
        return out + [_PASS]
    if stage is Stage.MAYOR:
        pv = state.players[seat]
        return Arrangements(bins_of(pv), colonists_to_place(pv)[2])
    if stage is Stage.BUILDER:
        out = []
        university = power_active(state.players[seat], Power.UNIVERSITY) and colonist_available(state)
        for name in buildable(t, seat):
            out.append(_BUILD[name, True])
            if university:
                out.append(_BUILD[name, False])
        return out + [_PASS]
    if stage is Stage.PRODUCTION:
        return [_PRODUCE, _DECLINE]
    if stage is Stage.CRAFTSMAN:
        return [_EXTRA[g] for g in extra_goods(t)] + [_PASS]
    if stage is Stage.TRADER:
        return [_SELL[g] for g in sellable(t, seat)] + [_PASS]
    if stage is Stage.CAPTAIN:
        cargo, wharf = loads(t, seat)
        return cargo + wharf + ([] if cargo else [_PASS])
    if stage is Stage.STORAGE:
        return _store_moves(state.players[seat])
    return []


def default_move(state: PuertoRicoState | Table) -> Store | Produce | None:
    """The decision a log may leave out at this point, or None: taking one's production, and the storage
    keeping the most when that outcome is unique (logs written when the engine made these choices alone
    have no move for them). Raises nothing."""
    stage = state.stage
    if stage is Stage.PRODUCTION:
        return _PRODUCE
    if stage is not Stage.STORAGE:
        return None
    seat = state.current_seat
    assert seat is not None
    return _store_default(state.view(seat))


def apply_default(state: PuertoRicoState) -> PuertoRicoState:
    """The state after the decision a log left out (``default_move``), taken as the engine took it
    alone before players could choose: it is not a move (``step`` stays), and its events follow the
    events already in ``state``, since they belong to the move that led here.

    Raises ``ValueError`` when there is no default at ``state``."""
    move = default_move(state)
    if move is None:
        raise ValueError(f"no decision to take by default: {describe_pending(state)}")
    t = _table(state)
    t.events = list(state.events)
    _take_default(t, move)
    return _result(t)


def _take_default(t: Table, move: Store | Produce) -> None:
    """Make the default ``move`` of the seat to act on ``t`` (see ``apply_default``)."""
    seat = t.queue[0]
    if isinstance(move, Produce):
        _do_produce(t, seat, move, forced=True)
    else:
        _do_store(t, seat, move, forced=True)
    t.queue.pop(0)
    _advance(t)


class Working:
    """A game changed in place, move after move (``replay.protocol.Working``), for a replay that keeps no
    state in between (validation): one working table for the whole game, changed by the very code
    ``apply`` runs, and frozen only when ``snapshot`` is asked for."""

    __slots__ = ("t",)
    #: Production and storage have defaults a log may leave out.
    takes_defaults = True

    def __init__(self, state: PuertoRicoState) -> None:
        self.t = Table(state)

    def current_seat(self) -> int | None:
        return self.t.current_seat

    def is_over(self) -> bool:
        return self.t.stage is Stage.OVER

    def apply(self, move: PuertoRicoMove) -> None:
        """Make ``move``. Raises as ``apply``; the game is then not to be used again."""
        _move(self.t, move)

    def default_move(self) -> Store | Produce | None:
        return default_move(self.t)

    def apply_default(self) -> None:
        """As ``apply_default``. Raises ``ValueError`` when there is no default."""
        move = default_move(self.t)
        if move is None:
            raise ValueError(f"no decision to take by default: {describe_pending(self.t)}")
        _take_default(self.t, move)

    def snapshot(self) -> PuertoRicoState:
        """The current state, immutable (equal to what ``apply`` move after move reaches)."""
        return self.t.freeze()

    def stuck(self) -> bool:
        """Never told: a game that runs on is stopped by the caller's move limit."""
        return False


def working(state: PuertoRicoState) -> Working:
    """A ``Working`` game from ``state`` (what ``Engine.working`` hands the replay's validation fold).
    Raises nothing."""
    return Working(state)


__all__ = [
    "apply", "apply_default", "default_move", "legal_moves", "new_game", "random_setup", "describe_pending", "build_cost", "production",
    "sale_price", "ship_name", "start", "working", "Working", "TILE_KINDS",
]
