"""A stronger hand-made San Juan player (the arena's ``expert``): no search, rules of thumb only.

It plays as the heuristic bot does (``bots.HeuristicPlayer``: producing and selling the dearest goods,
councillor and gold-mine picks) but chooses roles by what a role brings it *against the table*:
every seat carries out the role chosen, so a role is worth what it brings the chooser (with its
privilege) less a share of what the others get from it on average. What the others get is judged
from what the seat sees only: their cities, goods and the number of cards in their hands, never the
cards. Builds follow the heuristic bot's valuation, with the six-cost monuments that score the most
(guild hall, city hall, palace) and the buildings that feed them valued higher.
"""

from __future__ import annotations

import random
from typing import Final

from replay.san_juan import rules
from replay.san_juan.bots import HeuristicPlayer
from replay.san_juan.cards import CARDS, TILES, VIOLET, Good, Role
from replay.san_juan.moves import ChooseRole, SanJuanMove
from replay.san_juan.state import SanJuanState, Stage, Table

#: How much of the others' average gain from a role counts against choosing it.
OTHERS_WEIGHT: Final = 2.0
_ROLES: Final = tuple(Role)
_CHOOSE_ROLE: Final = {(role, library): ChooseRole(role, True) if library else ChooseRole(role) for role in Role
                       for library in (True, False)}
#: The average price of a good over the trading-house tiles.
_PRICE: Final = {g: sum(tile[g] for tile in TILES.values()) / len(TILES) for g in Good}


class ExpertPlayer:
    """The heuristic bot with roles chosen by their gain against the table (deterministic given seed)."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        # The heuristic bot plays every decision the expert leaves to it. Held, not subclassed: the
        # bots' classes may be compiled (mypyc), and an interpreted class cannot inherit from those.
        self.base = HeuristicPlayer(seed)

    def choose(self, state: SanJuanState) -> SanJuanMove:
        """The move of the seat to act in ``state``."""
        return self.choose_table(Table(state))

    def choose_working(self, game: rules.Working) -> SanJuanMove:
        """The move of the seat to act in a working game (read from its table, left as it is)."""
        return self.choose_table(game.table)

    def choose_table(self, t: Table) -> SanJuanMove:
        """The move of the seat to act on ``t``, which is read and left as it was."""
        if t.stage is Stage.ROLE:
            seat = t.current_seat
            assert seat is not None
            return self._expert_role(t, seat)
        return self.base.choose_table(t)

    def _expert_role(self, t: Table, seat: int) -> SanJuanMove:
        taken = {r for r, _ in t.roles_taken}
        owned = t.buildings.read(seat)
        hand = t.hands.read(seat)
        others = [s for s in range(t.n) if s != seat]
        best_role, best = None, -1e9
        for role in _ROLES:
            if role in taken:
                continue
            mine = self._mine(t, seat, role, hand, owned)
            theirs = sum(_theirs(t, s, role) for s in others) / len(others)
            score = mine - OTHERS_WEIGHT * theirs + self.rng.random() * 0.05
            if score > best:
                best_role, best = role, score
        assert best_role is not None
        return _CHOOSE_ROLE[best_role, rules.library_usable(t, seat)]

    def _mine(self, t: Table, seat: int, role: Role, hand: list[str] | tuple[str, ...],
              owned: list[str] | tuple[str, ...]) -> float:
        """What ``role`` brings this seat as its chooser, in cards."""
        goods_on = t.goods.read(seat)
        if role is Role.BUILDER:
            chooser, library = t.chooser, t.library
            t.chooser, t.library = seat, False
            try:
                build = self.base._best_build(t, seat, sorted(hand), owned)
            finally:
                t.chooser, t.library = chooser, library
            if build is None:
                return 0.0
            name, paid, _ = build
            return 1.0 + CARDS[name].vp * 1.2 + _power_worth(name) - 0.4 * paid
        if role is Role.PRODUCER:
            empty = rules.empty_by_good(owned, goods_on)
            slots = min(sum(empty.values()), rules.max_produce(t, seat, owned))
            dearest = max((_PRICE[g] for g in empty), default=0.0)
            return slots * 0.6 + 0.3 * dearest
        if role is Role.TRADER:
            have = rules.goods_by_kind(owned, goods_on)
            count = min(sum(have.values()), rules.max_sell(t, seat, owned) + 1)
            dearest = max((_PRICE[g] for g in have), default=0.0)
            return count * 1.0 + 0.5 * dearest if count else 0.0
        if role is Role.COUNCILLOR:
            return 1.3 + (0.3 if "Archive" in owned or "Prefecture" in owned else 0) - 0.1 * max(0, len(hand) - 5)
        # Prospector: one card for the chooser.
        return 1.0 + (0.4 if "Gold mine" in owned else 0)


def _theirs(t: Table, seat: int, role: Role) -> float:
    """What ``role`` brings another seat, judged from what everyone sees (its city, its goods, how many
    cards it holds)."""
    owned = t.buildings.read(seat)
    goods_on = t.goods.read(seat)
    if role is Role.BUILDER:
        size = len(t.hands.read(seat))  # only the size, which everyone sees
        return 1.5 if size >= 3 else 0.6 if size >= 2 else 0.0
    if role is Role.PRODUCER:
        empty = sum(rules.empty_by_good(owned, goods_on).values())
        return 0.6 * min(empty, 1 + (1 if "Aqueduct" in owned else 0))
    if role is Role.TRADER:
        have = sum(rules.goods_by_kind(owned, goods_on).values())
        return 1.0 * min(have, 1 + (1 if "Trading post" in owned else 0))
    if role is Role.COUNCILLOR:
        return 0.5
    return 0.3 if "Gold mine" in owned else 0.0


def _power_worth(name: str) -> float:
    card = CARDS[name]
    if name in VIOLET:
        return {"Guild hall": 4.0, "City hall": 4.0, "Palace": 3.5, "Triumphal arch": 2.5, "Library": 2.0,
                "Prefecture": 1.5, "Quarry": 1.5, "Smithy": 1.0, "Carpenter": 1.0, "Aqueduct": 1.0,
                "Trading post": 1.0, "Well": 1.0, "Market hall": 1.0, "Chapel": 0.5}.get(name, 0.5)
    return 0.8 + 0.2 * card.cost


def expert_bot(engine: object, seed: int) -> ExpertPlayer:
    """The expert bot (the declaration's ``expert``; ``engine`` is this game's own). Raises nothing."""
    return ExpertPlayer(seed)


__all__ = ["ExpertPlayer", "expert_bot"]
