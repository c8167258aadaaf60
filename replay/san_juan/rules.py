"""San Juan rules: the initial state from a log's setup, ``apply`` (checked), and the legal moves.

Order of events follows ``../shared/rules/FACTS.md`` part 3. A violation raises ``RuleViolation``
with a stable rule code; a malformed setup raises ``FieldError`` with the JSON path.

Each rule is said here once. What the bots, the move words or any other module need to know of it (a
build's discounts, the goods a black market takes, the hand, production, sale and councillor limits,
whether the library works) they ask these public functions; nothing outside this module calls its
private helpers (``tests/replay/san_juan/test_sj_rules_helpers.py`` checks it).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Any, Final

from replay.errors import FieldError, RuleViolation
from replay.frozen import fast_constructor
from replay.san_juan.cards import (
    AQUEDUCT,
    ARCHIVE,
    CARD_NAMES,
    CARPENTER,
    CHAPEL,
    CITY_SIZE_TO_END,
    COST,
    CRANE,
    DECK_SIZE,
    GOLD_MINE,
    GOOD_OF,
    HAND_LIMIT,
    HOLDER,
    LIBRARY,
    MARKET_HALL,
    MARKET_STAND,
    ORDER,
    POOR_HOUSE,
    PREFECTURE,
    PRODUCER_OF,
    STARTING_BUILDING,
    TILES,
    TOWER,
    TOWER_HAND_LIMIT,
    TRADING_POST,
    VIOLET,
    WELL,
    Good,
    Power,
    Role,
    full_deck,
    resolve_card,
    sort_cards,
)
from replay.san_juan.moves import (
    Build,
    Chapel,
    ChooseRole,
    Councillor,
    Draft,
    GoldMine,
    HandLimit,
    Pass,
    Produce,
    SanJuanMove,
    Sell,
)
from replay.san_juan.state import PlayerState, SanJuanState, Stage, Table, role_order, seats_from

DRAFT_DRAW: Final = (5, 6, 7, 8)
_FULL_DECK: Final = Counter(full_deck())
STARTING_HAND: Final = 4
MIN_PLAYERS, MAX_PLAYERS = 2, 4


# -- setup ------------------------------------------------------------------------------------


def _card_list(value: Any, path: str) -> list[str]:
    if not isinstance(value, list):
        raise FieldError(path, f"expected a list of card names, got {type(value).__name__}")
    out = []
    for i, item in enumerate(value):
        try:
            out.append(resolve_card(item))
        except ValueError as err:
            raise FieldError(f"{path}[{i}]", str(err)) from None
    return out


def _diff(given: Counter[str], expected: Counter[str]) -> str:
    missing = expected - given
    extra = given - expected
    parts = []
    if missing:
        parts.append("missing " + ", ".join(f"{n}x {c}" for c, n in sorted(missing.items())))
    if extra:
        parts.append("too many " + ", ".join(f"{n}x {c}" for c, n in sorted(extra.items())))
    return "; ".join(parts)


def new_game(
    num_players: int, options: dict[str, Any], setup: dict[str, Any], shuffle_seed: int | None = None
) -> SanJuanState:
    """The state before the first move.

    ``setup`` holds every chance outcome: ``hands`` (each seat's dealt cards; 5 to 8 by seat with the
    draft start), ``deck`` (the draw pile, top first), ``tiles`` (trading-house tile order, top first)
    and ``reshuffles`` (each new draw-pile order made from the discard pile, in the order they happen).
    Raises ``FieldError`` for a malformed or impossible setup."""
    if not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise FieldError("players", f"San Juan is for 2 to 4 players, not {num_players}")
    unknown_opts = set(options) - {"draft_start"}
    if unknown_opts:
        raise FieldError(f"options.{sorted(unknown_opts)[0]}", "unknown San Juan option (known: draft_start)")
    draft = options.get("draft_start", False)
    if not isinstance(draft, bool):
        raise FieldError("options.draft_start", "expected true or false")
    unknown = set(setup) - {"hands", "deck", "tiles", "reshuffles"}
    if unknown:
        raise FieldError(f"setup.{sorted(unknown)[0]}", "unknown setup field (known: hands, deck, tiles, reshuffles)")
    for key in ("hands", "deck", "tiles"):
        if key not in setup:
            raise FieldError(f"setup.{key}", "missing")
    hands_raw = setup["hands"]
    if not isinstance(hands_raw, list) or len(hands_raw) != num_players:
        raise FieldError("setup.hands", f"expected one hand for each of the {num_players} players")
    hands = []
    for seat, hand in enumerate(hands_raw):
        cards = _card_list(hand, f"setup.hands[{seat}]")
        want = DRAFT_DRAW[seat] if draft else STARTING_HAND
        if len(cards) != want:
            raise FieldError(f"setup.hands[{seat}]", f"seat {seat} is dealt {want} cards, not {len(cards)}")
        hands.append(cards)
    deck = _card_list(setup["deck"], "setup.deck")
    tiles_raw = setup["tiles"]
    if (
        not isinstance(tiles_raw, list)
        or any(not isinstance(t, int) or isinstance(t, bool) for t in tiles_raw)
        or sorted(tiles_raw) != [1, 2, 3, 4, 5]
    ):
        raise FieldError("setup.tiles", f"expected an order of the tiles 1 to 5, got {tiles_raw!r}")
    reshuffles_raw = setup.get("reshuffles", [])
    if not isinstance(reshuffles_raw, list):
        raise FieldError("setup.reshuffles", "expected a list of card orders")
    reshuffles = tuple(
        tuple(_card_list(order, f"setup.reshuffles[{i}]")) for i, order in enumerate(reshuffles_raw)
    )
    everything = Counter(deck + [STARTING_BUILDING] * num_players + [card for hand in hands for card in hand])
    if everything != _FULL_DECK:
        raise FieldError(
            "setup",
            f"starting buildings, hands and deck are not the {DECK_SIZE} cards of the game: "
            + _diff(everything, _FULL_DECK),
        )
    players = tuple(
        PlayerState(hand=sort_cards(hand), buildings=(STARTING_BUILDING,), goods=(None,)) for hand in hands
    )
    state = SanJuanState(
        players=players,
        draw_pile=tuple(deck),
        discard=(),
        tiles=tuple(tiles_raw),
        tile_index=0,
        tile=None,
        round=1,
        governor=0,
        role_turn=0,
        roles_taken=(),
        stage=Stage.DRAFT if draft else Stage.CHAPEL,
        role=None,
        chooser=None,
        library=False,
        queue=seats_from(0, num_players),
        looking=(),
        step=0,
        reshuffles=reshuffles,
        reshuffles_used=(),
        shuffle_seed=shuffle_seed,
        draft=draft,
    )
    table = Table(state)
    _advance(table)
    return table.freeze()


def random_setup(num_players: int, rng: random.Random, draft: bool = False) -> dict[str, Any]:
    """A shuffled setup (for simulation): the starting Indigo plants out first, then deal. Raises
    ``IndexError`` for more than 4 seats with the draft start."""
    deck = full_deck()
    for _ in range(num_players):
        deck.remove(STARTING_BUILDING)
    rng.shuffle(deck)
    hands = []
    for seat in range(num_players):
        count = DRAFT_DRAW[seat] if draft else STARTING_HAND
        hands.append(deck[:count])
        del deck[:count]
    tiles = [1, 2, 3, 4, 5]
    rng.shuffle(tiles)
    return {"hands": hands, "deck": deck, "tiles": tiles, "reshuffles": []}


# -- what a seat has ---------------------------------------------------------------------------


def has_power(t: Table, seat: int, power: Power, without: str | None = None) -> bool:
    """Whether the seat owns the building with ``power`` (not counting ``without``, a building being
    covered by a crane, which gives nothing to the build that covers it). Raises nothing."""
    name = HOLDER[power]
    return name != without and name in t.buildings.read(seat)


def hand_limit(city: Sequence[str]) -> int:
    """The hand limit of the owner of ``city`` (its buildings): 7, or 12 with a tower. Raises nothing."""
    return TOWER_HAND_LIMIT if TOWER in city else HAND_LIMIT


def library_usable(state: Table | SanJuanState, seat: int) -> bool:
    """Whether ``seat`` may double its privilege with a library now: it owns one and, with 2 players,
    has not used it yet this round. Raises nothing."""
    return LIBRARY in state.seat_buildings(seat) and not (state.num_players == 2 and state.library_used_by(seat))


def privilege(t: Table | SanJuanState, seat: int) -> int:
    """How many privileges ``seat`` has in the current phase: 0 when it did not choose the role, 1, or
    2 with the library working this phase. Raises nothing."""
    if seat != t.chooser:
        return 0
    return 2 if t.library else 1


def max_produce(t: Table | SanJuanState, seat: int, city: Sequence[str]) -> int:
    """How many goods the seat may produce in this producer phase (``city``: its buildings): 1, plus
    its privileges, plus 1 with an aqueduct; the cards left in the piles may allow fewer
    (``produce_limit``). Raises nothing."""
    return 1 + privilege(t, seat) + (1 if AQUEDUCT in city else 0)


def produce_limit(t: Table | SanJuanState, seat: int, city: Sequence[str]) -> int:
    """How many goods the seat can produce now: ``max_produce``, and no more than the cards in the draw
    and discard piles (each good is a card from them). Raises nothing."""
    return min(max_produce(t, seat, city), t.cards_left())


def max_sell(t: Table | SanJuanState, seat: int, city: Sequence[str]) -> int:
    """How many goods the seat may sell in this trader phase (``city``: its buildings): 1, plus its
    privileges, plus 1 with a trading post. Raises nothing."""
    return 1 + privilege(t, seat) + (1 if TRADING_POST in city else 0)


def councillor_keep(city: Sequence[str]) -> int:
    """How many of the cards a councillor draws the owner of ``city`` keeps: 1, or 2 with a
    prefecture. Raises nothing."""
    return 2 if PREFECTURE in city else 1


def archive_discards(drawn: int, city: Sequence[str]) -> tuple[int, int]:
    """``(fewest, most)`` cards a councillor who owns an archive (``city``: his buildings) discards
    from his hand and the ``drawn`` cards together: he keeps as many cards as ``councillor_keep``
    allows him to take. Raises nothing."""
    return max(0, drawn - councillor_keep(city)), drawn


def sale_income(tile: int, goods: Sequence[Good]) -> int:
    """Cards the sale of ``goods`` brings at the prices of trading-house tile ``tile`` (before the
    market stand's and market hall's cards). Raises ``KeyError`` for a tile that is not 1 to 5."""
    prices = TILES[tile]
    income = 0
    for good in goods:
        income += prices[good]
    return income


def empty_by_good(city: Sequence[str], goods: Sequence[str | None]) -> dict[Good, int]:
    """How many empty production buildings a city (its buildings and the good on each) has of each
    good (goods with none left out): what it can produce. Raises nothing."""
    out: dict[Good, int] = {}
    for b, g in zip(city, goods):
        if g is None:
            good = GOOD_OF[b]
            if good is not None:
                out[good] = out.get(good, 0) + 1
    return out


def goods_by_kind(
    city: Sequence[str], goods: Sequence[str | None], without_index: int | None = None
) -> dict[Good, int]:
    """How many goods of each kind lie on a city's buildings (but the one at ``without_index``, a
    building being covered by a crane): what it can sell or pay the black market with. Raises
    nothing."""
    out: dict[Good, int] = {}
    for i, (b, g) in enumerate(zip(city, goods)):
        if g is not None and i != without_index:
            good: Good = GOOD_OF[b]  # type: ignore[assignment]
            out[good] = out.get(good, 0) + 1
    return out


def _replace_index(t: Table, seat: int, name: str) -> int:
    """Which building a crane covers when the player names a kind he has several of: the first one
    without a good, else the first one (a good on it is lost)."""
    candidates = [i for i, b in enumerate(t.buildings.read(seat)) if b == name]
    for i in candidates:
        if t.goods[seat][i] is None:
            return i
    return candidates[0]


#: The most goods a black market takes for one building.
BLACK_MARKET_GOODS: Final = 2


def build_discounts(t: Table, seat: int, replace: str | None = None) -> tuple[int, int]:
    """``(violet, production)``: what ``seat`` takes off the printed cost of a violet and of a
    production building now: its privileges, plus 1 with a quarry (violet) or a smithy (production).
    A building ``replace`` being covered by a crane gives no discount of its own. Raises nothing."""
    privileges = privilege(t, seat)
    return (
        privileges + has_power(t, seat, Power.QUARRY, replace),
        privileges + has_power(t, seat, Power.SMITHY, replace),
    )


def discounted_cost(building: str, discounts: tuple[int, int], replace: str | None = None) -> int:
    """What ``building`` costs with the builder's ``discounts`` (``build_discounts``) and, built over
    ``replace`` with a crane, less the cost of the building covered; never below 0. Raises
    ``KeyError`` for a name that is not a card."""
    discount = discounts[0] if building in VIOLET else discounts[1]
    if replace is not None:
        discount += COST[replace]
    cost = COST[building] - discount
    return cost if cost > 0 else 0


def build_cost(t: Table, seat: int, building: str, replace: str | None) -> int:
    """Cards (and black-market goods) ``seat`` owes for ``building``: printed cost less its privileges,
    smithy or quarry, and with a crane the cost of the building covered; never below 0. A building
    being covered gives no discount of its own. Raises ``KeyError`` for a name that is not a card."""
    return discounted_cost(building, build_discounts(t, seat, replace), replace)


def black_market_goods(t: Table, seat: int, replace: str | None = None) -> dict[Good, int]:
    """The goods ``seat`` may pay a building with, by kind: those on its buildings when it owns a black
    market (not the good on a building ``replace`` being covered, nor with the black market itself
    covered), else none. Raises nothing."""
    if not has_power(t, seat, Power.BLACK_MARKET, replace):
        return {}
    replace_index = _replace_index(t, seat, replace) if replace is not None else None
    return goods_by_kind(t.buildings.read(seat), t.goods.read(seat), replace_index)


def black_market_count(t: Table, seat: int) -> int:
    """How many goods ``seat`` may pay a building on a new lot with: every good on its buildings when
    it owns a black market, else 0 (``black_market_goods`` counted, without a crane). Raises nothing."""
    if not has_power(t, seat, Power.BLACK_MARKET):
        return 0
    goods = t.goods.read(seat)
    return len(goods) - goods.count(None)


def goods_payable(cost: int, goods: int) -> int:
    """How many of ``goods`` black-market goods can pay a building costing ``cost``: at most
    ``BLACK_MARKET_GOODS``, and never more than the cost. Raises nothing."""
    return min(BLACK_MARKET_GOODS, cost, goods)


# -- the flow of the game ----------------------------------------------------------------------


def _turn_needs_decision(t: Table, seat: int) -> bool:
    """Begin ``seat``'s part of the current stage; do what needs no decision and say whether one is
    needed. Called exactly once per seat and stage."""
    stage = t.stage
    if stage is Stage.PHASE:
        role = t.role
        if role is Role.BUILDER:
            if _can_build(t, seat):
                return True
            t.events.append(("skip", seat, "builder", "no_cards" if not t.hands.read(seat) else "cannot_afford"))
            return False
        if role is Role.PRODUCER:
            if not t.cards_left():
                t.events.append(("skip", seat, "producer", "no_cards_left"))
                return False
            for b, g in zip(t.buildings.read(seat), t.goods.read(seat)):
                if g is None and GOOD_OF[b] is not None:
                    return True
            t.events.append(("skip", seat, "producer", "no_empty_building"))
            return False
        if role is Role.TRADER:
            for g in t.goods.read(seat):
                if g is not None:
                    return True
            t.events.append(("skip", seat, "trader", "no_goods"))
            return False
    elif stage is Stage.DRAFT:
        return True
    elif stage is Stage.CHAPEL:
        return CHAPEL in t.buildings.read(seat) and bool(t.hands.read(seat))
    elif stage is Stage.HAND_LIMIT:
        return len(t.hands.read(seat)) > hand_limit(t.buildings.read(seat))
    role = t.role
    if role is Role.COUNCILLOR:
        # The chooser's turn starts within the role move, so ``privilege_declined`` is still set.
        count = 2 + 3 * (0 if t.privilege_declined else privilege(t, seat))
        t.looking = t.draw(count)
        t.events.append(("draw", seat, len(t.looking), "councillor"))
        return bool(t.looking)
    if role is Role.PROSPECTOR:
        # Only gold-mine owners are queued in this phase.
        shown = t.draw(4)
        hit = len(shown) == 4 and len({COST[c] for c in shown}) == 4
        t.events.append(("gold_mine", seat, tuple(shown), hit))
        if hit:
            t.looking = shown
            return True
        t.discard.extend(shown)
        return False
    raise AssertionError(f"no turn in stage {t.stage}")


def _advance(t: Table) -> None:
    """Run everything that needs no decision until a seat must decide or the game is over."""
    while True:
        if t.stage is Stage.OVER or t.stage is Stage.ROLE:
            return
        while t.queue:
            if _turn_needs_decision(t, t.queue[0]):
                return
            t.queue.pop(0)
        # The current stage is over for everyone.
        if t.stage is Stage.DRAFT:
            t.stage, t.queue = Stage.CHAPEL, list(seats_from(t.governor, t.n))
        elif t.stage is Stage.CHAPEL:
            t.stage, t.queue = Stage.HAND_LIMIT, list(seats_from(t.governor, t.n))
        elif t.stage is Stage.HAND_LIMIT:
            t.stage, t.role_turn = Stage.ROLE, 0
        else:
            _end_phase(t)


def _end_phase(t: Table) -> None:
    if t.role is Role.TRADER:
        t.tile_index = (t.tile_index + 1) % len(t.tiles)
        t.tile = None
    if t.role is Role.BUILDER and any(len(b) >= CITY_SIZE_TO_END for b in t.buildings):
        t.stage, t.role, t.chooser, t.library = Stage.OVER, None, None, False
        t.events.append(("over", tuple(s for s in range(t.n) if len(t.buildings.read(s)) >= CITY_SIZE_TO_END)))
        return
    t.role, t.chooser, t.library = None, None, False
    t.role_turn += 1
    if t.role_turn < len(role_order(t.governor, t.n)):
        t.stage = Stage.ROLE
        return
    # Round end: the next governor; chapels, then the hand limit.
    t.round += 1
    t.governor = (t.governor + 1) % t.n
    t.roles_taken = []
    t.role_turn = 0
    t.library_used = [False] * t.n
    t.stage, t.queue = Stage.CHAPEL, list(seats_from(t.governor, t.n))
    t.events.append(("round", t.round, t.governor))


def _start_phase(t: Table, role: Role, seat: int, move: ChooseRole) -> None:
    t.role, t.chooser = role, seat
    t.roles_taken.append((role, seat))
    t.stage = Stage.PHASE
    if role is Role.TRADER:
        t.tile = t.tiles[t.tile_index]
    if role is Role.PROSPECTOR:
        if move.privilege:
            drawn = t.draw(privilege(t, seat))
            t.hands[seat].extend(drawn)
            t.events.append(("draw", seat, len(drawn), "prospector"))
        t.queue = [
            s for s in seats_from(seat, t.n)
            if GOLD_MINE in t.buildings.read(s) and s not in move.gold_mine_declined
        ]
    elif role is Role.COUNCILLOR:
        # A seat that refrains from the action draws nothing: the cards stay on the draw pile.
        t.queue = [s for s in seats_from(seat, t.n) if s not in move.councillor_refrained]
    else:
        t.queue = list(seats_from(seat, t.n))


#: The roles whose privilege can be declined: their privilege draws cards. The others only lower a
#: cost or raise a limit, which a player declines by not using it.
_DECLINABLE_PRIVILEGE: Final = (Role.COUNCILLOR, Role.PROSPECTOR)


def _check_seats_exist(t: Table, seats: Iterable[int], rule: str) -> None:
    """Raise ``RuleViolation`` (``rule``) for a seat a role move names that the game does not have."""
    for other in seats:
        if other >= t.n:
            raise RuleViolation(rule, f"there is no seat {other} in a {t.n}-player game")


def _check_role_declines(t: Table, seat: int, move: ChooseRole) -> None:
    """Raise ``RuleViolation`` for a declined privilege or gold mine the role move cannot decline."""
    if not move.privilege and move.role not in _DECLINABLE_PRIVILEGE:
        raise RuleViolation(
            "privilege.decline",
            f"the {move.role.value}'s privilege cannot be declined (it only lowers a cost or raises a limit); "
            "only the councillor's and the prospector's can",
        )
    if not move.privilege and move.library:
        raise RuleViolation("library.use", "the privilege is declined, so the library has nothing to double")
    if move.councillor_refrained:
        if move.role is not Role.COUNCILLOR:
            raise RuleViolation(
                "councillor.refrain", f"only the councillor's draw is refrained from this way, not the {move.role.value}'s action"
            )
        _check_seats_exist(t, move.councillor_refrained, "councillor.refrain")
        if seat in move.councillor_refrained and (not move.privilege or move.library):
            raise RuleViolation(
                "councillor.refrain", "the councillor refrains from the draw, so there is no privilege to decline or double"
            )
    if move.gold_mine_declined:
        if move.role is not Role.PROSPECTOR:
            raise RuleViolation(
                "gold_mine.decline", f"gold mines turn up cards only in the prospector phase, not the {move.role.value}'s"
            )
        _check_seats_exist(t, move.gold_mine_declined, "gold_mine.decline")
        for other in move.gold_mine_declined:
            if GOLD_MINE not in t.buildings.read(other):
                raise RuleViolation("gold_mine.decline", f"seat {other} owns no gold mine to decline")


# -- checks -----------------------------------------------------------------------------------


def _take(cards: list[str], wanted: Sequence[str], rule: str, what: str) -> None:
    """Remove ``wanted`` from ``cards`` or raise naming what is missing (and leave ``cards`` as it was)."""
    rest = cards.copy()
    try:
        for card in wanted:
            rest.remove(card)
    except ValueError:
        have = Counter(cards)
        need = Counter(wanted)
        name, count = sorted((need - have).items())[0]
        raise RuleViolation(rule, f"{what} has {have[name]}x {name}, needs {need[name]}") from None
    cards[:] = rest


def _can_build(t: Table, seat: int) -> bool:
    """Whether any build is affordable (exactly when ``_legal_builds`` is not empty, but cheaper)."""
    hand = t.hands.read(seat)
    if not hand:
        return False
    owned = t.buildings.read(seat)
    if has_power(t, seat, Power.CRANE):
        return _can_build_with_crane(t, seat)
    discounts = build_discounts(t, seat)
    goods = black_market_count(t, seat)
    cards = len(hand) - 1
    for name in set(hand):
        if name in VIOLET and name in owned:
            continue
        cost = discounted_cost(name, discounts)
        if cost - goods_payable(cost, goods) <= cards:
            return True
    return False


def _can_build_with_crane(t: Table, seat: int) -> bool:
    """``_can_build`` for an owner of a crane: every building may also go over another one."""
    hand = t.hands.read(seat)
    for building in set(hand):
        for replace in _replace_options(t, seat, building):
            if replace is None and building in VIOLET and building in t.buildings.read(seat):
                continue
            cost = build_cost(t, seat, building, replace)
            goods = sum(black_market_goods(t, seat, replace).values())
            if cost - goods_payable(cost, goods) <= len(hand) - 1:
                return True
    return False


def _replace_options(t: Table, seat: int, building: str) -> list[str | None]:
    options: list[str | None] = [None]
    if CRANE in t.buildings.read(seat):
        for b in sorted(set(t.buildings.read(seat)), key=ORDER.__getitem__):
            if b == CRANE or b == building:
                continue
            if building in VIOLET and building in t.buildings.read(seat):
                continue
            options.append(b)
    return options


def _apply_build(t: Table, seat: int, move: Build) -> None:
    violet = move.building in VIOLET
    owned = t.buildings.edit(seat)
    replace = move.replace
    if move.building not in t.hands[seat]:
        raise RuleViolation("builder.in_hand", f"{move.building} is not in the hand")
    if replace is not None:
        if CRANE not in owned:
            raise RuleViolation("crane.owned", "building over another building needs a crane")
        if replace not in owned:
            raise RuleViolation("crane.target", f"no {replace} to build over")
        if replace == CRANE:
            raise RuleViolation("crane.target", "the crane cannot be built over")
        if replace == move.building:
            raise RuleViolation("crane.target", f"{replace} cannot be built over with the same building")
    if violet and move.building in owned:
        raise RuleViolation("builder.unique", f"already owns a {move.building} (one of each violet building)")
    cost = build_cost(t, seat, move.building, replace)
    replace_index = _replace_index(t, seat, replace) if replace is not None else None
    if move.goods:
        if not has_power(t, seat, Power.BLACK_MARKET, replace):
            raise RuleViolation("black_market.owned", "paying with goods needs a black market")
        if len(move.goods) > BLACK_MARKET_GOODS:
            raise RuleViolation(
                "black_market.limit", f"the black market takes at most {BLACK_MARKET_GOODS} goods, not {len(move.goods)}"
            )
        have = black_market_goods(t, seat, replace)
        for good in dict.fromkeys(move.goods):
            count = move.goods.count(good)
            if have.get(good, 0) < count:
                raise RuleViolation("black_market.goods", f"has {have.get(good, 0)} {good.value}, pays {count}")
    paid = len(move.pay) + len(move.goods)
    if paid != cost:
        raise RuleViolation(
            "builder.cost",
            f"{move.building} costs {cost} after discounts"
            + (f" over {replace}" if replace else "")
            + f", but {paid} {'was' if paid == 1 else 'were'} paid",
        )
    hand = t.hands[seat]
    hand.remove(move.building)
    _take(hand, move.pay, "builder.payment", "the hand (besides the building)")
    t.discard.extend(move.pay)
    for good in move.goods:
        index = next(
            i
            for i, (b, g) in enumerate(zip(owned, t.goods[seat]))
            if g is not None and i != replace_index and GOOD_OF[b] is good
        )
        t.discard.append(t.goods[seat][index])  # type: ignore[arg-type]
        t.goods[seat][index] = None
    # Read before the new building is in the city: it gives nothing in the phase it is built.
    carpenter = violet and has_power(t, seat, Power.CARPENTER, replace)
    poor_house = has_power(t, seat, Power.POOR_HOUSE, replace)
    if replace_index is not None:
        lost_good = t.goods[seat][replace_index]
        if lost_good is not None:
            t.discard.append(lost_good)
        t.covered[seat].append(owned[replace_index])
        owned[replace_index] = move.building
        t.goods[seat][replace_index] = None
    else:
        owned.append(move.building)
        t.goods[seat].append(None)
    if CARPENTER in move.decline:
        if not carpenter:
            raise RuleViolation("carpenter.decline", _no_carpenter_card(t, seat, move))
    elif carpenter:
        drawn = t.draw(1)
        hand.extend(drawn)
        t.events.append(("draw", seat, len(drawn), "carpenter"))
    poor_house = poor_house and len(hand) <= 1
    if POOR_HOUSE in move.decline:
        if not poor_house:
            raise RuleViolation("poor_house.decline", _no_poor_house_card(t, seat, move, len(hand)))
    elif poor_house:
        drawn = t.draw(1)
        hand.extend(drawn)
        t.events.append(("draw", seat, len(drawn), "poor_house"))


def _not_owned(t: Table, seat: int, name: str, replace: str | None, built: str | None = None) -> str | None:
    """Why seat's ``name`` gives no card to this move when it does not own it, covers it or has just
    built it; None when it owns it."""
    if built == name:
        return f"the {name.lower()} works only from the end of the builder phase in which it is built"
    if replace == name:
        return f"the {name.lower()} is being built over and gives no card"
    if name not in t.buildings.read(seat):
        return f"seat {seat} owns no {name.lower()} to decline"
    return None


def _no_carpenter_card(t: Table, seat: int, move: Build) -> str:
    return _not_owned(t, seat, CARPENTER, move.replace, move.building) or (
        f"the carpenter draws a card only after a violet building, not after {move.building}"
    )


def _no_poor_house_card(t: Table, seat: int, move: Build, hand_size: int) -> str:
    return _not_owned(t, seat, POOR_HOUSE, move.replace, move.building) or (
        f"the poor house draws a card only with 0 or 1 cards in hand after building, and {hand_size} are left"
    )


def _apply_produce(t: Table, seat: int, move: Produce) -> None:
    limit = max_produce(t, seat, t.buildings.read(seat))
    if len(move.goods) > limit:
        raise RuleViolation("producer.limit", f"may produce at most {limit} goods, not {len(move.goods)}")
    empty = empty_by_good(t.buildings.read(seat), t.goods.read(seat))
    for good in dict.fromkeys(move.goods):
        count = move.goods.count(good)
        if empty.get(good, 0) < count:
            have = empty.get(good, 0)
            raise RuleViolation(
                "producer.empty_building",
                f"has {have} empty {PRODUCER_OF[good]}{'s' if have != 1 else ''}, cannot produce {count} {good.value}",
            )
    if len(move.goods) > t.cards_left():
        raise RuleViolation("producer.no_cards", "there are not enough cards left to produce that many goods")
    for good in move.goods:
        name = PRODUCER_OF[good]
        index = next(i for i, (b, g) in enumerate(zip(t.buildings.read(seat), t.goods[seat])) if b == name and g is None)
        t.goods[seat][index] = t.draw(1)[0]
    well = len(move.goods) >= 2 and WELL in t.buildings.read(seat)
    if WELL in move.decline:
        if not well:
            raise RuleViolation(
                "well.decline",
                _not_owned(t, seat, WELL, None)
                or f"the well draws a card only when 2 or more goods are produced, not {len(move.goods)}",
            )
    elif well:
        drawn = t.draw(1)
        t.hands[seat].extend(drawn)
        t.events.append(("draw", seat, len(drawn), "well"))


def _apply_sell(t: Table, seat: int, move: Sell) -> None:
    limit = max_sell(t, seat, t.buildings.read(seat))
    if len(move.goods) > limit:
        raise RuleViolation("trader.limit", f"may sell at most {limit} goods, not {len(move.goods)}")
    have = goods_by_kind(t.buildings.read(seat), t.goods.read(seat))
    for good in dict.fromkeys(move.goods):
        count = move.goods.count(good)
        if have.get(good, 0) < count:
            raise RuleViolation("trader.goods", f"has {have.get(good, 0)} {good.value} to sell, not {count}")
    assert t.tile is not None
    income = sale_income(t.tile, move.goods)
    for good in move.goods:
        name = PRODUCER_OF[good]
        index = next(
            i for i, (b, g) in enumerate(zip(t.buildings.read(seat), t.goods[seat])) if b == name and g is not None
        )
        t.discard.append(t.goods[seat][index])  # type: ignore[arg-type]
        t.goods[seat][index] = None
    bonuses = []
    stand = len(move.goods) >= 2 and MARKET_STAND in t.buildings.read(seat)
    if MARKET_STAND in move.decline:
        if not stand:
            raise RuleViolation(
                "market_stand.decline",
                _not_owned(t, seat, MARKET_STAND, None)
                or f"the market stand draws a card only when 2 or more goods are sold, not {len(move.goods)}",
            )
    elif stand:
        bonuses.append("market_stand")
    hall = MARKET_HALL in t.buildings.read(seat)
    if MARKET_HALL in move.decline:
        if not hall:
            raise RuleViolation(
                "market_hall.decline",
                _not_owned(t, seat, MARKET_HALL, None) or "the market hall draws a card only when a good is sold",
            )
    elif hall:
        bonuses.append("market_hall")
    drawn = t.draw(income + len(bonuses))
    t.hands[seat].extend(drawn)
    # The sale's own cards are in the move's words; what the markets add (when the piles held it) is not.
    extra = len(drawn) - income
    for bonus in bonuses:
        if extra > 0:
            t.events.append(("draw", seat, 1, bonus))
            extra -= 1


def _apply_councillor(t: Table, seat: int, move: Councillor) -> None:
    keep_limit = councillor_keep(t.buildings.read(seat))
    drawn = t.looking
    # An archive owner who names the cards kept ('keep') declines the archive.
    if move.discard is not None:
        if ARCHIVE not in t.buildings.read(seat):
            raise RuleViolation("councillor.archive", "discarding from the whole hand needs an archive; name the cards kept ('keep')")
        low, high = archive_discards(len(drawn), t.buildings.read(seat))
        if not low <= len(move.discard) <= high:
            wanted = f"{low}" if low == high else f"{low} to {high}"
            raise RuleViolation(
                "councillor.discard_count", f"must discard {wanted} of {len(drawn)} drawn cards, not {len(move.discard)}"
            )
        pool = t.hands[seat] + drawn
        _take(pool, move.discard, "councillor.discard", "the hand with the drawn cards")
        t.hands[seat] = pool
        t.discard.extend(move.discard)
    else:
        assert move.keep is not None
        if len(move.keep) > keep_limit:
            raise RuleViolation("councillor.keep_count", f"may keep at most {keep_limit} of the drawn cards, not {len(move.keep)}")
        rest = list(drawn)
        _take(rest, move.keep, "councillor.keep", "the drawn cards")
        t.hands[seat].extend(move.keep)
        t.discard.extend(rest)
    t.looking = []


#: The kinds of move each stage (and, in a role's phase, each role) expects.
_MOVES_BY_STAGE: Final[dict[Stage, frozenset[type]]] = {
    Stage.DRAFT: frozenset({Draft}),
    Stage.CHAPEL: frozenset({Chapel, Pass}),
    Stage.HAND_LIMIT: frozenset({HandLimit}),
    Stage.ROLE: frozenset({ChooseRole}),
}
_MOVES_BY_ROLE: Final[dict[Role, frozenset[type]]] = {
    Role.BUILDER: frozenset({Build, Pass}),
    Role.PRODUCER: frozenset({Produce, Pass}),
    Role.TRADER: frozenset({Sell, Pass}),
    Role.COUNCILLOR: frozenset({Councillor}),
    Role.PROSPECTOR: frozenset({GoldMine, Pass}),
}


def describe_pending(state: Table | SanJuanState) -> str:
    """What the game waits for, in words ("seat 2 must choose a role"). Raises nothing."""
    seat = state.current_seat
    if seat is None:
        return "the game is over"
    what = {
        Stage.DRAFT: "keep 4 of the drafted cards",
        Stage.CHAPEL: "tuck a card under the chapel or pass",
        Stage.HAND_LIMIT: "discard down to the hand limit",
        Stage.ROLE: "choose a role",
    }.get(state.stage)
    if what is None:
        what = {
            Role.BUILDER: "build or pass",
            Role.PRODUCER: "produce or pass",
            Role.TRADER: "sell or pass",
            Role.COUNCILLOR: "keep drawn cards (councillor)",
            Role.PROSPECTOR: "keep a gold-mine card or pass",
        }[state.role]  # type: ignore[index]
    return f"seat {seat} must {what}"


def apply(state: SanJuanState, move: SanJuanMove) -> SanJuanState:
    """The state after ``move`` by the seat to act. Raises ``RuleViolation`` if the move is illegal,
    and ``FieldError`` if a chance outcome the log must supply (a reshuffle order) is missing."""
    if state.stage is Stage.OVER:
        raise RuleViolation("game.over", "the game is already over")
    t = Table(state)
    _play(t, move)
    return t.freeze()


class Working:
    """A game changed in place move after move, for a replay that needs no snapshot in between
    (validation): ``apply`` runs the very rules of ``apply`` above on one working ``Table`` that is
    never frozen, so a move costs no copying; ``snapshot`` gives the immutable state (equal to the
    one the pure ``apply`` reaches) when it is asked for."""

    __slots__ = ("table",)
    takes_defaults = False

    def __init__(self, state: SanJuanState) -> None:
        self.table = Table(state, working=True)

    def current_seat(self) -> int | None:
        return self.table.current_seat

    def is_over(self) -> bool:
        return self.table.stage is Stage.OVER

    def apply(self, move: SanJuanMove) -> None:
        """Make ``move``; raises as ``apply`` (after an error the working state is not to be used)."""
        t = self.table
        if t.stage is Stage.OVER:
            raise RuleViolation("game.over", "the game is already over")
        t.events = []
        t.privilege_declined = False
        _play(t, move)

    def default_move(self) -> None:
        """San Juan has no decision a log may leave out."""
        return None

    def apply_default(self) -> None:
        raise ValueError(f"no decision to take by default: {describe_pending(self.table)}")

    def snapshot(self) -> SanJuanState:
        return self.table.freeze()

    def stuck(self) -> bool:
        """``dead_end`` of the current state; at once False while a pile holds a card."""
        t = self.table
        if t.cards_left() or t.looking:
            return False
        return dead_end(self.snapshot())


def dead_end(state: SanJuanState) -> bool:
    """Whether no card can ever move again, so the game can never end (a dead end the rules have no
    exit for, which random players reach: every card tucked under chapels, covered by cranes or stuck
    in hands). True when the draw and discard piles are empty and no card is being looked at (nothing
    can be drawn: producing, selling, councillor, prospector, gold mine and every card a building draws
    give nothing; an archive discards only as many as were drawn), no good lies on a building (nothing
    to sell, nor to pay a black market with), no hand is over its limit (no discard), and no seat could
    build from its hand even as the builder with every privilege it may have (a library's too): hands
    only shrink from here (a chapel), and discounts come only from new buildings. Raises nothing."""
    if state.stage is Stage.OVER or state.draw_pile or state.discard or state.looking:
        return False
    for player in state.players:
        if len(player.hand) > hand_limit(player.buildings):
            return False
        for good in player.goods:
            if good is not None:
                return False
    table = Table(state)
    for seat, player in enumerate(state.players):
        table.chooser = seat
        table.library = LIBRARY in player.buildings
        if _can_build(table, seat):
            return False
    return True


def working(state: SanJuanState) -> Working:
    """A ``Working`` game starting from ``state`` (which is left as it is). Raises nothing."""
    return Working(state)


def _play(t: Table, move: SanJuanMove) -> None:
    """Make ``move`` on ``t`` for the seat to act: the rules of ``apply``."""
    seat = t.current_seat
    assert seat is not None
    kind = type(move)
    allowed = _MOVES_BY_STAGE.get(t.stage) or _MOVES_BY_ROLE[t.role]  # type: ignore[index]
    if kind not in allowed:
        raise RuleViolation("turn.kind", f"{describe_pending(t)}, not '{move.text()}'")
    _PLAY[kind](t, seat, move)
    if kind is not ChooseRole:
        t.queue.pop(0)
    # Advance before counting the move: cards drawn by what follows (a councillor's draw, the next
    # seat's turn) belong to this move, and a missing reshuffle must name it.
    _advance(t)
    t.step += 1


def _play_pass(t: Table, seat: int, move: Pass) -> None:
    if t.looking:
        t.discard.extend(t.looking)
        t.looking = []


def _play_draft(t: Table, seat: int, move: Draft) -> None:
    if len(move.keep) != STARTING_HAND:
        raise RuleViolation("draft.count", f"must keep exactly {STARTING_HAND} cards, not {len(move.keep)}")
    rest = list(t.hands[seat])
    _take(rest, move.keep, "draft.keep", "the drafted cards")
    t.discard.extend(rest)
    t.hands[seat] = list(move.keep)


def _play_chapel(t: Table, seat: int, move: Chapel) -> None:
    _take(t.hands[seat], [move.card], "chapel.card", "the hand")
    t.chapel[seat].append(move.card)


def _play_hand_limit(t: Table, seat: int, move: HandLimit) -> None:
    over = len(t.hands[seat]) - hand_limit(t.buildings.read(seat))
    if len(move.discard) != over:
        raise RuleViolation(
            "hand_limit.count",
            f"holds {len(t.hands[seat])} cards with a limit of {hand_limit(t.buildings.read(seat))}: must discard {over}, not {len(move.discard)}",
        )
    _take(t.hands[seat], move.discard, "hand_limit.card", "the hand")
    t.discard.extend(move.discard)


def _play_role(t: Table, seat: int, move: ChooseRole) -> None:
    for taken, _ in t.roles_taken:
        if taken == move.role:
            raise RuleViolation("role.taken", f"the {move.role.value} was already chosen this round")
    has_library = library_usable(t, seat)
    if move.library and not has_library:
        reason = "owns no library" if LIBRARY not in t.buildings.read(seat) else "already used the library this round (2 players)"
        raise RuleViolation("library.use", reason)
    _check_role_declines(t, seat, move)
    t.library = has_library and move.library is not False and seat not in move.councillor_refrained and move.privilege
    if t.library:
        t.library_used[seat] = True
    t.privilege_declined = not move.privilege
    _start_phase(t, move.role, seat, move)


def _play_produce(t: Table, seat: int, move: Produce) -> None:
    if not move.goods:
        raise RuleViolation("producer.empty", "produce at least one good, or pass")
    _apply_produce(t, seat, move)


def _play_sell(t: Table, seat: int, move: Sell) -> None:
    if not move.goods:
        raise RuleViolation("trader.empty", "sell at least one good, or pass")
    _apply_sell(t, seat, move)


def _play_gold_mine(t: Table, seat: int, move: GoldMine) -> None:
    rest = list(t.looking)
    _take(rest, [move.keep], "gold_mine.keep", "the turned-up cards")
    t.hands[seat].append(move.keep)
    t.discard.extend(rest)
    t.looking = []


#: What each kind of move does (after the check that the stage expects that kind).
_PLAY: Final[dict[type, Any]] = {
    Pass: _play_pass,
    Draft: _play_draft,
    Chapel: _play_chapel,
    HandLimit: _play_hand_limit,
    ChooseRole: _play_role,
    Build: _apply_build,
    Produce: _play_produce,
    Sell: _play_sell,
    Councillor: _apply_councillor,
    GoldMine: _play_gold_mine,
}


# -- legal moves --------------------------------------------------------------------------------


_GOODS: Final = tuple(Good)
# The moves legal_moves lists, made without a frozen dataclass's per-field ``__setattr__`` (all fields,
# positionally): a builder's list can hold hundreds.
_build = fast_constructor(Build)
_produce = fast_constructor(Produce)
_sell = fast_constructor(Sell)
_councillor = fast_constructor(Councillor)
_draft = fast_constructor(Draft)
_hand_limit_move = fast_constructor(HandLimit)
_gold_mine = fast_constructor(GoldMine)
_chapel = fast_constructor(Chapel)


def _distinct(cards: Iterable[str]) -> list[str]:
    """The distinct cards, in catalogue order."""
    return sorted(set(cards), key=ORDER.__getitem__)


#: Sub-multisets by (catalogue positions, size): hands recur from state to state (a hand stays as it is
#: while the others play), so each list is made once. Bounded: cleared when full.
_RANK_MULTISETS: Final[dict[tuple[tuple[int, ...], int], tuple[tuple[str, ...], ...]]] = {}


def _rank_multisets(ranks: Sequence[int], size: int) -> tuple[tuple[str, ...], ...]:
    """Distinct sub-multisets with ``size`` cards of the cards whose catalogue positions are ``ranks``
    (ascending), as names in catalogue order, listed in lexicographic order of positions."""
    if size < 0 or size > len(ranks):
        return ()
    if size == 0:
        return ((),)
    key = (tuple(ranks), size)
    found = _RANK_MULTISETS.get(key)
    if found is None:
        # Combinations of a sorted list are sorted tuples; positions compare as the catalogue orders.
        name = CARD_NAMES.__getitem__
        found = tuple([tuple(map(name, c)) for c in sorted(set(combinations(ranks, size)))])
        if len(_RANK_MULTISETS) >= 1 << 15:
            _RANK_MULTISETS.clear()
        _RANK_MULTISETS[key] = found
    return found


def _multisets(cards: Sequence[str], size: int) -> tuple[tuple[str, ...], ...]:
    """Distinct sub-multisets of ``cards`` with ``size`` elements, in catalogue order."""
    return _rank_multisets(sorted(map(ORDER.__getitem__, cards)), size)


#: Sub-multisets of goods by (count of each good, size): goods are few, so the table stays small.
_GOOD_MULTISETS: Final[dict[tuple[tuple[int, ...], int], tuple[tuple[Good, ...], ...]]] = {}


def _good_multisets(goods: dict[Good, int], size: int) -> tuple[tuple[Good, ...], ...]:
    """Distinct sub-multisets of ``goods`` (count by kind) with ``size`` elements, in good order."""
    key = (tuple([goods.get(g, 0) for g in _GOODS]), size)
    found = _GOOD_MULTISETS.get(key)
    if found is None:
        pool = [g for g, count in zip(_GOODS, key[0]) for _ in range(count)]
        order = {g: i for i, g in enumerate(_GOODS)}
        found = tuple(sorted(set(combinations(pool, size)), key=lambda c: [order[g] for g in c]))
        if len(_GOOD_MULTISETS) > 1 << 14:
            _GOOD_MULTISETS.clear()
        _GOOD_MULTISETS[key] = found
    return found


#: Role choices by (seat, players, roles taken, library usable, gold-mine owners): the same few hundred
#: positions recur, and the moves are frozen values, so each list is made once.
_ROLE_CHOICES: Final[dict[tuple[Any, ...], tuple[ChooseRole, ...]]] = {}


def _role_choices(seat: int, n: int, taken: frozenset[Role], has_library: bool, owners: tuple[int, ...]) -> tuple[ChooseRole, ...]:
    """Every role move of ``seat``: each role not ``taken``, with the library used or declined, the
    privilege declined where it draws cards, the gold mines of ``owners`` declined, seats refraining
    from the councillor's draw."""
    declined_sets = [tuple(sorted(c)) for size in range(len(owners) + 1) for c in combinations(owners, size)]
    refrain_sets = [tuple(c) for size in range(n + 1) for c in combinations(range(n), size)]
    moves: list[ChooseRole] = []
    for role in Role:
        if role in taken:
            continue
        gold = declined_sets if role is Role.PROSPECTOR else [()]
        for library in ((True, False) if has_library else (None,)):
            moves += [ChooseRole(role, library, True, g) for g in gold]
        if role in _DECLINABLE_PRIVILEGE:
            moves += [ChooseRole(role, None, False, g) for g in gold]
        if role is Role.COUNCILLOR:
            # Seats refraining from the draw (the chooser's own refusal carries no privilege).
            for refrain in refrain_sets[1:]:
                libraries = (None,) if seat in refrain else ((True, False) if has_library else (None,))
                moves += [ChooseRole(role, library, True, (), refrain) for library in libraries]
                if seat not in refrain:
                    moves.append(ChooseRole(role, None, False, (), refrain))
    return tuple(moves)


def legal_moves(state: SanJuanState) -> list[SanJuanMove]:
    """Every legal decision of the seat to act, in a fixed order (pass last); none once the game is
    over. Raises nothing."""
    seat = state.current_seat
    if seat is None:
        return []
    stage = state.stage
    hand = state.players[seat].hand
    if stage is Stage.ROLE:
        n = len(state.players)
        has_library = library_usable(state, seat)
        owners = tuple(s for s in seats_from(seat, n) if GOLD_MINE in state.players[s].buildings)
        key = (seat, n, frozenset(r for r, _ in state.roles_taken), has_library, owners)
        choices = _ROLE_CHOICES.get(key)
        if choices is None:
            if len(_ROLE_CHOICES) > 4096:
                _ROLE_CHOICES.clear()
            choices = _ROLE_CHOICES[key] = _role_choices(*key)
        return list(choices)
    if stage is Stage.DRAFT:
        return [_draft(k) for k in _multisets(hand, STARTING_HAND)]
    if stage is Stage.CHAPEL:
        chapel: list[SanJuanMove] = [_chapel(c) for c in _distinct(hand)]
        return chapel + [Pass()]
    player = state.players[seat]
    city = player.buildings
    if stage is Stage.HAND_LIMIT:
        return [_hand_limit_move(d) for d in _multisets(hand, len(hand) - hand_limit(city))]
    phase = state.role
    if phase is Role.BUILDER:
        return _legal_builds(Table(state), seat) + [Pass()]
    if phase is Role.PRODUCER:
        empty = empty_by_good(city, player.goods)
        most = produce_limit(state, seat, city)
        out: list[SanJuanMove] = []
        well = WELL in city
        for size in range(1, most + 1):
            for goods in _good_multisets(empty, size):
                out.append(_produce(goods, ()))
                if well and size >= 2:
                    out.append(_produce(goods, (WELL,)))
        return out + [Pass()]
    if phase is Role.TRADER:
        have = goods_by_kind(city, player.goods)
        out = []
        for size in range(1, max_sell(state, seat, city) + 1):
            declinable = tuple(b for b in (MARKET_STAND, MARKET_HALL) if b in city and (size >= 2 or b == MARKET_HALL))
            for goods in _good_multisets(have, size):
                out += [_sell(goods, d) for d in _subsets(declinable)]
        return out + [Pass()]
    if phase is Role.COUNCILLOR:
        keep_limit = councillor_keep(city)
        drawn = list(state.looking)
        if ARCHIVE in city:
            pool = list(hand) + drawn
            out = []
            fewest, most = archive_discards(len(drawn), city)
            for size in range(most, fewest - 1, -1):
                out += [_councillor(None, d) for d in _multisets(pool, size)]
        else:
            out = []
        # Without an archive these are the only choices; with one, they decline it.
        for size in range(min(keep_limit, len(drawn)), -1, -1):
            out += [_councillor(k, None) for k in _multisets(drawn, size)]
        return out
    if phase is Role.PROSPECTOR:
        keeps: list[SanJuanMove] = [_gold_mine(c) for c in _distinct(state.looking)]
        return keeps + [Pass()]
    return []


def _legal_builds(t: Table, seat: int) -> list[SanJuanMove]:
    hand = t.hands.read(seat)
    owned = t.buildings.read(seat)
    ranks = sorted(map(ORDER.__getitem__, hand))
    crane = has_power(t, seat, Power.CRANE)
    # What building over ``replace`` (None: on a new lot) leaves: the index covered, the goods the
    # black market can take, the discounts, whether the carpenter and poor house still work.
    sites: dict[str | None, tuple[int | None, dict[Good, int], int, tuple[int, int], bool, bool]] = {}
    out: list[SanJuanMove] = []
    for rank in sorted(set(ranks)):
        building = CARD_NAMES[rank]
        # The hand without the building: what can pay for it.
        rest = ranks.copy()
        rest.remove(rank)
        violet = building in VIOLET
        for replace in _replace_options(t, seat, building) if crane else _NEW_LOT:
            if replace is None and violet and building in owned:
                continue
            site = sites.get(replace)
            if site is None:
                replace_index = _replace_index(t, seat, replace) if replace is not None else None
                goods = black_market_goods(t, seat, replace)
                site = sites[replace] = (
                    replace_index, goods, sum(goods.values()), build_discounts(t, seat, replace),
                    has_power(t, seat, Power.CARPENTER, replace), has_power(t, seat, Power.POOR_HOUSE, replace),
                )
            replace_index, goods, goods_count, discounts, carpenter_works, poor_house = site
            # A good on the building covered goes to the discard pile, where the carpenter draws from.
            lost_good = replace_index is not None and t.goods.read(seat)[replace_index] is not None
            carpenter = violet and carpenter_works
            cost = discounted_cost(building, discounts, replace)
            for n_goods in range(goods_payable(cost, goods_count) + 1):
                variants = _NO_DECLINE
                if carpenter or poor_house:
                    # Every payment of this many cards leaves the same hand and piles.
                    paid = cost - n_goods
                    can_draw = t.cards_left() + paid + n_goods + (1 if lost_good else 0) > 0
                    variants = [(), *_build_declines(carpenter, poor_house, len(hand) - 1 - paid, can_draw)]
                for goods_paid in _good_multisets(goods, n_goods) if n_goods else _NO_GOODS:
                    out += [
                        _build(building, pay, goods_paid, replace, decline)
                        for pay in _rank_multisets(rest, cost - n_goods)
                        for decline in variants
                    ]
    return out


_NEW_LOT: Final[tuple[None]] = (None,)
_NO_DECLINE: Final[list[tuple[str, ...]]] = [()]
_NO_GOODS: Final[tuple[tuple[Good, ...], ...]] = ((),)


def _subsets(items: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every subset of ``items`` (kept in their order), the empty one first, then by size."""
    return [c for size in range(len(items) + 1) for c in combinations(items, size)]


def _build_declines(carpenter: bool, poor_house: bool, hand_after: int, can_draw: bool) -> list[tuple[str, ...]]:
    """What a build may decline besides nothing: the carpenter's card, the poor house's card or both,
    as far as each would draw one (the poor house counts the hand after the carpenter's card).
    ``carpenter`` and ``poor_house``: whether each works for this build; ``hand_after``: the cards left
    in hand once built; ``can_draw``: whether the piles (with the payment) hold a card to draw."""
    out: list[tuple[str, ...]] = []
    for carpenter_declined in ((False, True) if carpenter else (False,)):
        hand = hand_after + (1 if carpenter and not carpenter_declined and can_draw else 0)
        declines: list[tuple[str, ...]] = [()]
        if poor_house and hand <= 1:
            declines.append((POOR_HOUSE,))
        for decline in declines:
            full = decline + ((CARPENTER,) if carpenter_declined else ())
            if full:
                out.append(full)
    return out
