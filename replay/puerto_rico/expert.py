"""A stronger hand-made Puerto Rico player (the arena's ``expert``): no search, rules of thumb only.

It plays as the heuristic bot does for the mayor's arrangement, the captain's loads, the craftsman's
extra good, the trader's sale and storage (``bots.HeuristicPlayer``), but:

- it chooses roles by what a role brings it *against the table*: every seat carries out the role
  chosen, so a role is worth what it brings the chooser (with its privilege) less a share
  (``OTHERS_WEIGHT``) of what it brings the others on average, plus the doubloons lying on it;
- it builds for a shipping economy (``building_worth``: harbor, wharf, warehouses, factory and the
  large buildings late; never the hacienda or the construction hut);
- it settles corn first (it needs no building), then plantations its buildings can use, quarries
  early, and never takes the hacienda's blind draw.

Like the heuristic bot it reads a mutable ``Table`` (a working game's or one made from a snapshot),
only what its seat sees: the whole table is open in Puerto Rico but for the plantation stack's order
and the VP chips of others, and it reads neither.
"""

from __future__ import annotations

import random
from typing import Final

from replay.puerto_rico import rules
from replay.puerto_rico.arrangements import colonists_to_place
from replay.puerto_rico.bots import _GOOD_OF_KIND, HeuristicPlayer, Seat, _tiles_and_circles
from replay.puerto_rico.catalogue import (
    BUILDINGS,
    GOOD_INDEX,
    GOODS,
    ISLAND_SPACES,
    PRICES,
    QUARRY,
    Good,
    Power,
    Role,
    role_of,
)
from replay.puerto_rico.moves import ROLE_CARDS, Build, ChooseRole, Pass, PuertoRicoMove, Settle
from replay.puerto_rico.state import PuertoRicoState, Stage, Table

#: How much of the others' average gain from a role counts against choosing it.
OTHERS_WEIGHT: Final = 1.3
#: The worth in VP of a doubloon, of a barrel kept, of a colonist on an empty circle.
DOUBLOON: Final = 0.45
_GOOD_WORTH: Final = (0.5, 0.8, 1.0, 1.3, 1.5)
_ROLE_OF: Final = {card: role_of(card) for card in ROLE_CARDS}
_CHOOSE: Final = {card: ChooseRole(card) for card in ROLE_CARDS}


class ExpertPlayer:
    """The heuristic bot with roles chosen by their gain against the table (deterministic given seed)."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        # The heuristic bot plays every decision the expert leaves to it. Held, not subclassed: the
        # bots' classes may be compiled (mypyc), and an interpreted class cannot inherit from those.
        self.base = HeuristicPlayer(seed)

    def choose(self, state: PuertoRicoState) -> PuertoRicoMove:
        """The move of the seat to act in ``state``."""
        return self.choose_table(Table(state))

    def choose_working(self, game: rules.Working) -> PuertoRicoMove:
        """The move of the seat to act in a working game (read from its table, left as it is)."""
        return self.choose_table(game.t)

    def choose_table(self, t: Table) -> PuertoRicoMove:
        """The move of the seat to act on ``t``, which is read and left as it was."""
        stage = t.stage
        if stage is Stage.ROLE or stage is Stage.BUILDER or stage is Stage.SETTLER:
            seat = t.current_seat
            assert seat is not None
            if stage is Stage.ROLE:
                return self._expert_role(t, seat)
            if stage is Stage.BUILDER:
                return self._expert_build(t, seat)
            return self._expert_settle(t, seat)
        return self.base.choose_table(t)

    def _expert_build(self, t: Table, seat: int) -> PuertoRicoMove:
        """The building worth most to a shipping economy (``building_worth``), if any is worth its price."""
        options = rules.buildable(t, seat)
        p = t.view(seat)
        best, best_score = None, MIN_BUILD
        for name in options:
            score = building_worth(name, p, t.round)
            if score > best_score:
                best, best_score = name, score
        return Build(best) if best is not None else Pass()

    def _expert_settle(self, t: Table, seat: int) -> PuertoRicoMove:
        """Corn first (it needs no building), then the plantations its buildings can use, quarries
        early; never the hacienda's blind draw."""
        options = rules.settle_options(t, seat)
        if not options:
            return Pass()
        p = t.view(seat)
        tiles, circles = _tiles_and_circles(p)

        def value(kind: str) -> float:
            if kind == QUARRY:
                return (2.2 if t.round < 8 else 0.8) - 0.7 * tiles.get(QUARRY, 0)
            good = _GOOD_OF_KIND[kind]
            need = circles.get(good, 0) - tiles.get(kind, 0)
            if good is Good.CORN:
                return 3.0 - 0.3 * tiles.get(kind, 0)
            return 1.0 + 0.2 * GOOD_INDEX[good] + (2.5 if need > 0 else 0)

        return Settle(max(options, key=value))

    def _expert_role(self, t: Table, seat: int) -> ChooseRole:
        taken = {card for card, _ in t.roles_taken}
        open_roles = {_ROLE_OF[card] for card in t.role_cards if card not in taken}
        others = [s for s in range(t.n) if s != seat]
        gains: dict[Role, float] = {}
        for role in open_roles:
            mine = self._gain(t, seat, role, True)
            theirs = sum(self._gain(t, s, role, False) for s in others) / len(others)
            gains[role] = mine - OTHERS_WEIGHT * theirs
        best_card, best = None, -1e9
        for card, coins in zip(t.role_cards, t.role_doubloons):
            if card in taken:
                continue
            score = gains[_ROLE_OF[card]] + coins * DOUBLOON + self.rng.random() * 0.05
            if score > best:
                best_card, best = card, score
        assert best_card is not None
        return _CHOOSE[best_card]

    def _gain(self, t: Table, seat: int, role: Role, chooser: bool) -> float:
        """What carrying out ``role`` brings ``seat``, in VP (roughly), as its chooser or not."""
        p = t.view(seat)
        if role is Role.PROSPECTOR:
            return DOUBLOON if chooser else 0.0
        if role is Role.CRAFTSMAN:
            made = rules.production(p)
            worth = sum(n * w for n, w in zip(made, _GOOD_WORTH))
            if chooser and any(made):
                worth += max(w for n, w in zip(made, _GOOD_WORTH) if n)
            return worth
        if role is Role.TRADER:
            return _trade_gain(t, seat, p, chooser)
        if role is Role.CAPTAIN:
            return _ship_gain(t, p, chooser)
        if role is Role.BUILDER:
            return _build_gain(t, seat, p, chooser)
        if role is Role.MAYOR:
            owned, circles, _ = colonists_to_place(p)
            empty = max(0, circles - owned)
            share = t.colonist_ship / t.n + (1 if chooser else 0)
            return 0.7 * min(empty, share) + (0.2 if chooser else 0)
        # Settler: a plantation (a quarry for the chooser) while the island has room.
        room = len(p.island) < ISLAND_SPACES
        return (1.0 + (0.6 if chooser else 0)) if room else 0.0


#: Each violet building's worth beyond its VP to a seat that ships (hand-tuned with the arena).
EXTRA: Final = {
    Power.SMALL_MARKET: 1.5, Power.HACIENDA: -1.0, Power.CONSTRUCTION_HUT: -1.0, Power.SMALL_WAREHOUSE: 2.5,
    Power.HOSPICE: 0.5, Power.OFFICE: 0.5, Power.LARGE_MARKET: 2.0, Power.LARGE_WAREHOUSE: 2.5,
    Power.FACTORY: 3.0, Power.UNIVERSITY: -0.5, Power.HARBOR: 5.0, Power.WHARF: 5.0,
    Power.GUILD_HALL: 6.0, Power.RESIDENCE: 4.0, Power.FORTRESS: 4.0, Power.CUSTOMS_HOUSE: 4.5,
    Power.CITY_HALL: 4.5,
}
#: A building must be worth more than this to be bought.
MIN_BUILD: Final = 1.0


def building_worth(name: str, p: Seat, round_: int) -> float:
    """What ``name`` is worth to seat ``p`` in round ``round_``: its VP, plus for a production building
    the barrels it would add (its circles the seat's plantations can fill), plus a violet building's
    power; large buildings count more late."""
    building = BUILDINGS[name]
    worth = float(building.vp)
    good = building.good
    if building.is_production and good is not None:
        tiles, circles = _tiles_and_circles(p)
        useful = max(0, min(building.circles, tiles.get(good.value, 0) + 1 - circles.get(good, 0)))
        worth += 1.2 * useful * (0.8 + 0.15 * GOOD_INDEX[good])
    else:
        worth += EXTRA[building.power]
        if building.large:
            worth += max(0, round_ - 7) * 0.6
    return worth


def _trade_gain(t: Table, seat: int, p: Seat, chooser: bool) -> float:
    if len(t.trading_house) >= 4:
        return 0.0
    best = 0
    for g in rules.sellable(t, seat):
        price = PRICES[g] + (1 if chooser else 0)
        if rules.power_active(p, Power.SMALL_MARKET):
            price += 1
        if rules.power_active(p, Power.LARGE_MARKET):
            price += 2
        best = max(best, price)
    return best * DOUBLOON


def _ship_gain(t: Table, p: Seat, chooser: bool) -> float:
    barrels = 0
    for i, have in enumerate(p.goods):
        if not have:
            continue
        good = GOODS[i]
        room = 0
        for s in range(len(t.ship_capacity)):
            if t.ship_good[s] is good:
                room = t.ship_capacity[s] - t.ship_load[s]
                break
            if t.ship_good[s] is None:
                room = max(room, t.ship_capacity[s])
        barrels = max(barrels, min(have, room))
    if barrels == 0:
        return 0.0
    held = sum(p.goods)
    # Shipping also spares the barrels that would spoil; the harbor pays a VP per load.
    harbor = 1 if rules.power_active(p, Power.HARBOR) else 0
    return barrels + harbor + (1 if chooser else 0) + 0.2 * max(0, held - barrels - 1)


def _build_gain(t: Table, seat: int, p: Seat, chooser: bool) -> float:
    # Priced as the rules price it for this seat (the builder's discount for the chooser), then the
    # table is put back as it was.
    saved = t.chooser, t.role
    t.chooser, t.role = (seat if chooser else -1), Role.BUILDER
    try:
        options = rules.buildable(t, seat)
    finally:
        t.chooser, t.role = saved
    if not options:
        return 0.0
    return max(building_worth(name, p, t.round) for name in options) * 0.5


def expert_bot(engine: object, seed: int) -> ExpertPlayer:
    """The expert bot (the declaration's ``expert``; ``engine`` is this game's own). Raises nothing."""
    return ExpertPlayer(seed)


__all__ = ["ExpertPlayer", "expert_bot"]
