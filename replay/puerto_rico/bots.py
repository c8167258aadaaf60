"""A sensible Puerto Rico player for generating games: values roles by what they bring it now, builds
the most useful building it can afford, staffs production it can use, ships the biggest load and sells
the dearest good.

It returns moves that ``rules.apply`` accepts, built directly from the rules' helpers rather than by
scoring every legal move (the mayor alone can have thousands), so simulation stays fast. It reads a
mutable ``Table``: the one of a ``rules.Working`` game (rollouts and simulation play without a snapshot
per move) or one made from a snapshot, so there is one logic for both.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import lru_cache
from typing import Final

from replay.puerto_rico import rules
from replay.puerto_rico.arrangements import colonists_to_place
from replay.puerto_rico.catalogue import (
    BUILDINGS,
    GOOD_INDEX,
    GOODS,
    ISLAND_SPACES,
    PRICES,
    QUARRY,
    TRADING_HOUSE_SPACES,
    Good,
    Power,
    Role,
    role_of,
)
from replay.puerto_rico.moves import (
    ROLE_CARDS,
    Build,
    ChooseRole,
    ExtraGood,
    Hacienda,
    Mayor,
    Pass,
    Produce,
    PuertoRicoMove,
    Sell,
    Settle,
    Store,
)
from replay.puerto_rico.state import MPlayer, PlayerState, PuertoRicoState, Stage, Table

# How much the bot likes owning each violet building beyond its VP (hand-tuned).
_EXTRA: Final = {
    Power.SMALL_MARKET: 1.5, Power.HACIENDA: 0.5, Power.CONSTRUCTION_HUT: 1.0, Power.SMALL_WAREHOUSE: 1.5,
    Power.HOSPICE: 1.5, Power.OFFICE: 1.5, Power.LARGE_MARKET: 2.5, Power.LARGE_WAREHOUSE: 2.0,
    Power.FACTORY: 3.0, Power.UNIVERSITY: 1.0, Power.HARBOR: 4.0, Power.WHARF: 4.0,
    Power.GUILD_HALL: 5.0, Power.RESIDENCE: 5.0, Power.FORTRESS: 4.5, Power.CUSTOMS_HOUSE: 4.5,
    Power.CITY_HALL: 5.0,
}
_GOOD_VALUE: Final = {Good.CORN: 1.0, Good.INDIGO: 1.5, Good.SUGAR: 2.0, Good.TOBACCO: 2.6, Good.COFFEE: 3.0}


#: A seat as the bot reads it: a snapshot's record or a table's mutable copy (the same fields).
Seat = PlayerState | MPlayer


def building_value(name: str, p: Seat, state: PuertoRicoState | Table) -> float:
    """How much the bot wants to build ``name`` now (higher is better)."""
    return _valuer(p, state.round)(name)


#: Per building what ``building_value`` reads: VP (a float), production good (None for a violet
#: building), circles, the violet extra, whether it is large.
_FACTS: Final = {
    name: (float(b.vp), b.good if b.is_production else None, b.circles, None if b.is_production else _EXTRA[b.power], b.large)
    for name, b in BUILDINGS.items()
}
#: Each good's bot value and the tile kind that grows it.
_GOOD_FACTS: Final = {g: (_GOOD_VALUE[g], g.value) for g in _GOOD_VALUE}


def _tiles_and_circles(p: Seat) -> tuple[dict[str, int], dict[Good | None, int]]:
    """The seat's island tiles by kind and its production circles by good."""
    tiles: dict[str, int] = {}
    for kind in p.island:
        tiles[kind] = tiles.get(kind, 0) + 1
    circles: dict[Good | None, int] = {}
    for c in p.city:
        b = BUILDINGS[c]
        circles[b.good] = circles.get(b.good, 0) + b.circles
    return tiles, circles


def _valuer(p: Seat, round_: int) -> Callable[[str], float]:
    """``building_value`` of any building for seat ``p`` in round ``round_``, the seat's tiles and
    production circles counted once (a builder's decision values every building it can afford)."""
    tiles, circles = _tiles_and_circles(p)
    late = max(0, round_ - 8) * 0.5

    def value_of(name: str) -> float:
        value, good, own_circles, extra, large = _FACTS[name]
        if good is not None:
            worth, kind = _GOOD_FACTS[good]
            useful = max(0, min(own_circles, tiles.get(kind, 0) + 1 - circles.get(good, 0)))
            value += 1.5 * useful * worth / 2
        else:
            value += extra  # type: ignore[operator]
            if large:
                value += late
        return value

    return value_of


#: A build without the university declined, by building (moves are values: made once).
_BUILD: Final = {name: Build(name) for name in BUILDINGS}
#: A role choice by card (without declining the privilege).
_CHOOSE_ROLE: Final = {card: ChooseRole(card) for card in ROLE_CARDS}
#: The bot's worth of each good, in good order.
_GOOD_WORTH: Final = tuple(_GOOD_VALUE[g] for g in GOODS)
#: The goods whose plantations the mayor pairs with production buildings, the dearest first.
_PAIRED_GOODS: Final = tuple((g, g.value) for g in reversed(GOODS[1:]))
_CORN_KIND: Final = Good.CORN.value
#: The good grown on each plantation kind.
_GOOD_OF_KIND: Final = {g.value: g for g in GOODS}
#: The role of each role card (``role_of``), looked up for every card at every role choice.
_ROLE_OF: Final = {card: role_of(card) for card in ROLE_CARDS}


class HeuristicPlayer:
    """A deterministic-given-seed sensible player."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: PuertoRicoState) -> PuertoRicoMove:
        """The move of the seat to act in ``state``."""
        return self.choose_table(Table(state))

    def choose_working(self, game: rules.Working) -> PuertoRicoMove:
        """The move of the seat to act in a working game (read from its table, left as it is)."""
        return self.choose_table(game.t)

    def choose_table(self, t: Table) -> PuertoRicoMove:
        """The move of the seat to act on ``t``, which is read and left as it was."""
        seat = t.current_seat
        assert seat is not None
        stage = t.stage
        p = t.view(seat)
        if stage is Stage.ROLE:
            return self._role(t, seat, p)
        if stage is Stage.SETTLER:
            return self._settle(t, seat, p)
        if stage is Stage.MAYOR:
            return self._mayor(p)
        if stage is Stage.BUILDER:
            return self._build(t, seat, p) or Pass()
        if stage is Stage.PRODUCTION:
            return Produce()
        if stage is Stage.CRAFTSMAN:
            kinds = rules.extra_goods(t)
            return ExtraGood(max(kinds, key=lambda g: PRICES[g])) if kinds else Pass()
        if stage is Stage.TRADER:
            goods = rules.sellable(t, seat)
            if not goods:
                return Pass()
            return Sell(max(goods, key=lambda g: (rules.sale_price(t, seat, g), GOOD_INDEX[g])))
        if stage is Stage.CAPTAIN:
            return self._load(t, seat, p)
        if stage is Stage.STORAGE:
            return self._store(p)
        raise AssertionError(stage)

    # -- roles -----------------------------------------------------------------------------------

    def _role(self, t: Table, seat: int, p: Seat) -> ChooseRole:
        taken = {card for card, _ in t.roles_taken}
        # Only the roles still on the table are scored (what a taken one would bring is never read).
        open_roles = {_ROLE_OF[card] for card in t.role_cards if card not in taken}
        scores: dict[Role, float] = {}
        if Role.BUILDER in open_roles:
            # Priced as the builder's chooser (the discount), then the table as it was.
            chooser, role = t.chooser, t.role
            t.chooser, t.role = seat, Role.BUILDER
            try:
                best_build = self._best_build(t, seat, p)
            finally:
                t.chooser, t.role = chooser, role
            scores[Role.BUILDER] = 1.0 + (best_build[1] if best_build else -1.0)
        held = p.goods
        if Role.CRAFTSMAN in open_roles:
            made = rules.production(p)
            # Summed left to right from 0, as ``sum`` does.
            craft = 0.0
            for i in range(5):
                craft += made[i] * _GOOD_WORTH[i]
            scores[Role.CRAFTSMAN] = craft * 0.8
        if Role.TRADER in open_roles:
            house = t.trading_house
            trade = [PRICES[g] + 1 for g, have in zip(GOODS, held) if have and g not in house]
            scores[Role.TRADER] = (max(trade) if trade and len(house) < TRADING_HOUSE_SPACES else 0) * 0.9
        goods = sum(held)
        scores[Role.CAPTAIN] = min(goods, 8) * 0.7 + (0.5 if goods else -1)
        if Role.MAYOR in open_roles:
            owned, circles, _ = colonists_to_place(p)
            scores[Role.MAYOR] = 1.0 + 0.6 * max(0, circles - owned) + t.colonist_ship / t.n * 0.3
        tiles = len(p.island)
        scores[Role.SETTLER] = 1.2 + (1.0 if tiles < 8 else 0) - (2 if tiles >= ISLAND_SPACES else 0)
        scores[Role.PROSPECTOR] = 1.0
        best_card, best_score = None, -1e9
        random_ = self.rng.random
        for card, coins in zip(t.role_cards, t.role_doubloons):
            if card in taken:
                continue
            score = scores[_ROLE_OF[card]] + coins * 1.1 + random_() * 1.2
            if score > best_score:
                best_card, best_score = card, score
        assert best_card is not None
        return _CHOOSE_ROLE[best_card]

    # -- settler ---------------------------------------------------------------------------------

    def _settle(self, t: Table, seat: int, p: Seat) -> PuertoRicoMove:
        if rules.hacienda_possible(t, seat) and len(p.island) <= ISLAND_SPACES - 2:
            return Hacienda()
        options = rules.settle_options(t, seat)
        if not options:
            return Pass()

        tiles, circles = _tiles_and_circles(p)

        def value(kind: str) -> float:
            # A quarry draws no random number: only plantations are valued with a little noise.
            if kind == QUARRY:
                return 3.0 - 0.6 * tiles.get(QUARRY, 0)
            good = _GOOD_OF_KIND[kind]
            need = circles.get(good, 0) - tiles.get(kind, 0)
            base = 2.5 if good is Good.CORN and tiles.get(kind, 0) < 2 else _GOOD_VALUE[good]
            return base + (2.0 if need > 0 else 0) + self.rng.random() * 0.5

        return Settle(max(options, key=value))

    # -- mayor -----------------------------------------------------------------------------------

    def _mayor(self, p: Seat) -> Mayor:
        _, _, to_place = colonists_to_place(p)
        plantations: dict[str, int] = {}
        buildings: dict[str, int] = {}
        left = to_place
        tiles: dict[str, int] = {}
        for k in p.island:
            tiles[k] = tiles.get(k, 0) + 1

        def put(target: dict[str, int], name: str, count: int) -> None:
            nonlocal left
            if count > left:
                count = left
            if count > 0:
                target[name] = target.get(name, 0) + count
                left -= count

        # Large and dear violet buildings first, then production pairs (dearest good first), corn,
        # quarries, the other violet buildings, then whatever circles are left.
        # The city's violet buildings and its production buildings of each good, in city order.
        violets: list[str] = []
        producing: dict[Good, list[str]] = {}
        for b in p.city:
            good = BUILDINGS[b].good
            if good is None:
                violets.append(b)
            else:
                producing.setdefault(good, []).append(b)
        violets.sort(key=lambda b: -BUILDINGS[b].cost)
        for b in violets:
            if BUILDINGS[b].cost >= 7:
                put(buildings, b, 1)
        for good, kind in _PAIRED_GOODS:
            circles = producing.get(good, [])
            capacity = sum(BUILDINGS[b].circles for b in circles)
            pairs = min(tiles.get(kind, 0), capacity)
            if pairs and left >= 2:
                pairs = min(pairs, left // 2)
                put(plantations, kind, pairs)
                need = pairs
                for b in circles:
                    take = min(need, BUILDINGS[b].circles)
                    put(buildings, b, take)
                    need -= take
        # Once everyone is placed, what follows places nobody.
        if left:
            put(plantations, _CORN_KIND, tiles.get(_CORN_KIND, 0))
            put(plantations, QUARRY, tiles.get(QUARRY, 0))
            for b in violets:
                put(buildings, b, 1 - buildings.get(b, 0))
            for k, n in tiles.items():
                put(plantations, k, n - plantations.get(k, 0))
            for b in p.city:
                if not left:
                    break
                put(buildings, b, BUILDINGS[b].circles - buildings.get(b, 0))
        return Mayor.of(plantations, buildings)

    # -- builder ---------------------------------------------------------------------------------

    def _build(self, t: Table, seat: int, p: Seat) -> Build | None:
        found = self._best_build(t, seat, p)
        return _BUILD[found[0]] if found else None

    def _best_build(self, t: Table, seat: int, p: Seat) -> tuple[str, float] | None:
        """The building ``_build`` builds and its ``building_value``: of those the seat can build, the
        highest value plus a tenth of the cost, then the cheapest, then the first in catalogue order (as
        ``max`` over the key ``(value + 0.1 * cost, -cost)``); None when none is valued 1.5 or more."""
        options = rules.buildable(t, seat)
        if not options:
            return None
        value = _valuer(p, t.round)
        best, best_value, best_score, best_cost = options[0], 0.0, 0.0, 0
        for i, name in enumerate(options):
            worth = value(name)
            cost = BUILDINGS[name].cost
            score = worth + 0.1 * cost
            if i == 0 or score > best_score or (score == best_score and cost < best_cost):
                best, best_value, best_score, best_cost = name, worth, score, cost
        if best_value < 1.5:
            return None
        return best, best_value

    # -- captain ---------------------------------------------------------------------------------

    def _load(self, t: Table, seat: int, p: Seat) -> PuertoRicoMove:
        cargo, wharf = rules.loads(t, seat)
        # No nested function here: compiled, one that a lambda calls makes a reference cycle per
        # call, which only the cyclic collector frees.
        best_cargo = max(cargo, key=lambda m: (rules.load_amount(t, p, m), -GOOD_INDEX[m.good])) if cargo else None
        best_wharf = max(wharf, key=lambda m: (rules.load_amount(t, p, m), GOOD_INDEX[m.good])) if wharf else None
        if best_wharf is not None and (
            best_cargo is None or rules.load_amount(t, p, best_wharf) > rules.load_amount(t, p, best_cargo) + 1
        ):
            return best_wharf
        if best_cargo is not None:
            return best_cargo
        return Pass()

    def _store(self, p: Seat) -> Store:
        return _best_store(tuple(p.goods), rules.storage_slots(p))


@lru_cache(maxsize=4096)
def _best_store(goods: tuple[int, ...], slots: int) -> Store:
    """The storage keeping the most worth of a seat holding ``goods`` with ``slots`` warehouse kinds
    (the first such of ``rules.store_options``). Seats hold the same few goods again and again."""
    moves = rules.store_options(goods, slots)

    def value(m: Store) -> float:
        kept = 0.0
        for g in m.warehouse:
            kept += goods[GOOD_INDEX[g]] * _GOOD_VALUE[g]
        if m.keep is not None:
            kept += _GOOD_VALUE[m.keep]
        return kept

    return max(moves, key=value)


__all__ = ["HeuristicPlayer", "building_value"]
