"""A sensible San Juan player for generating games: builds the best building it can afford, produces
and sells as much as it may, keeps the most valuable cards and picks roles by what they bring it now.

It returns moves that ``rules.apply`` accepts; it builds moves directly rather than scoring every
legal move, so that simulating thousands of games stays fast. It reads a mutable ``Table``: the one
of a ``rules.Working`` game (rollouts and simulation play without a snapshot per move) or one made
from a snapshot, so there is one logic for both.
"""

from __future__ import annotations

import random

from replay.san_juan import rules
from replay.san_juan.cards import CARDS, ORDER, PRODUCER_OF, TILES, VIOLET, Good, Power, Role, sort_cards
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
from replay.san_juan.state import SanJuanState, Stage, Table

# How much the bot likes to own each violet building beyond its VP (a rough, hand-tuned table).
_EXTRA = {
    Power.SMITHY: 2, Power.GOLD_MINE: 1, Power.ARCHIVE: 1, Power.POOR_HOUSE: 1.5, Power.BLACK_MARKET: 1.5,
    Power.TRADING_POST: 2, Power.WELL: 2, Power.MARKET_STAND: 1.5, Power.CRANE: 0.5, Power.CHAPEL: 3,
    Power.TOWER: 1.5, Power.AQUEDUCT: 2.5, Power.CARPENTER: 2.5, Power.PREFECTURE: 2, Power.MARKET_HALL: 2,
    Power.QUARRY: 2.5, Power.LIBRARY: 3, Power.MONUMENT: 0, Power.GUILD_HALL: 6, Power.CITY_HALL: 6,
    Power.TRIUMPHAL_ARCH: 5, Power.PALACE: 6,
}


def _base_value(name: str) -> float:
    card = CARDS[name]
    value = card.vp + (_EXTRA.get(card.power, 0) if card.power else 0) + (1.5 if card.is_production else 0)
    return value + 0.3 * card.cost


#: ``card_value`` of a card its owner does not hold yet, worked out once per card kind (the bot asks
#: for it dozens of times a decision).
_VALUE: dict[str, float] = {name: _base_value(name) for name in CARDS}
_GOODS = tuple(Good)
_GOOD_RANK = {g: i for i, g in enumerate(_GOODS)}


def card_value(name: str, owned: list[str] | tuple[str, ...]) -> float:
    """How much the bot wants to build ``name`` given what it owns (higher is better)."""
    if name in VIOLET and name in owned:
        return -1.0
    return _VALUE[name]


class HeuristicPlayer:
    """A deterministic-given-seed sensible player."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: SanJuanState) -> SanJuanMove:
        """The move of the seat to act in ``state``."""
        return self.choose_table(Table(state))

    def choose_working(self, game: rules.Working) -> SanJuanMove:
        """The move of the seat to act in a working game (read from its table, left as it is)."""
        return self.choose_table(game.table)

    def choose_table(self, t: Table) -> SanJuanMove:
        """The move of the seat to act on ``t``, which is read and left as it was."""
        seat = t.current_seat
        assert seat is not None
        # In catalogue order, as a snapshot holds it (a working table's hand is in no order): ties
        # between equally valued cards go to the first.
        hand = list(sort_cards(t.hands.read(seat)))
        owned = t.buildings.read(seat)
        stage = t.stage

        def keep_value(c: str) -> float:
            return -1.0 if c in VIOLET and c in owned else _VALUE[c]

        if stage is Stage.DRAFT:
            return Draft(sort_cards(sorted(hand, key=keep_value, reverse=True)[:4]))
        if stage is Stage.CHAPEL:
            if len(hand) >= 3:
                return Chapel(min(hand, key=keep_value))
            return Pass()
        if stage is Stage.HAND_LIMIT:
            over = len(hand) - rules._hand_limit(owned)
            return HandLimit(sort_cards(sorted(hand, key=keep_value)[:over]))
        if stage is Stage.ROLE:
            return self._role(t, seat, hand)
        role = t.role
        if role is Role.BUILDER:
            return self._build(t, seat, hand) or Pass()
        if role is Role.PRODUCER:
            empty = rules._empty_by_good(owned, t.goods.read(seat))
            most = min(rules._max_produce(t, seat, owned), t.cards_left())
            best = sorted((g for g in _GOODS for _ in range(empty.get(g, 0))), key=lambda g: -_GOOD_RANK[g])[:most]
            # Listed in Good order, the form legal_moves lists.
            return Produce(tuple(sorted(best, key=_GOOD_RANK.__getitem__))) if best else Pass()
        if role is Role.TRADER:
            have = rules._goods_by_kind(owned, t.goods.read(seat))
            prices = TILES[t.tile or 1]
            goods = sorted((g for g in _GOODS for _ in range(have.get(g, 0))), key=lambda g: -prices[g])
            goods = goods[: rules._max_sell(t, seat, owned)]
            return Sell(tuple(sorted(goods, key=_GOOD_RANK.__getitem__))) if goods else Pass()
        if role is Role.COUNCILLOR:
            keep_n = 2 if "Prefecture" in owned else 1
            drawn = list(t.looking)
            if "Archive" in owned:
                pool = hand + drawn
                discard = sorted(pool, key=keep_value)[: max(0, len(drawn) - keep_n)]
                return Councillor(discard=sort_cards(discard))
            keep = sorted(drawn, key=keep_value, reverse=True)[:keep_n]
            return Councillor(keep=sort_cards(keep))
        if role is Role.PROSPECTOR:
            return GoldMine(max(t.looking, key=keep_value))
        raise AssertionError(stage)

    def _role(self, t: Table, seat: int, hand: list[str]) -> SanJuanMove:
        taken = {r for r, _ in t.roles_taken}
        owned = t.buildings.read(seat)
        goods_on = t.goods.read(seat)
        scores: dict[Role, float] = {}
        goods = sum(1 for g in goods_on if g is not None)
        empty = sum(rules._empty_by_good(owned, goods_on).values())
        # What the builder would bring: priced as its chooser (the privilege), then the table as it was.
        chooser, library = t.chooser, t.library
        t.chooser, t.library = seat, False
        try:
            build = self._build(t, seat, hand)
        finally:
            t.chooser, t.library = chooser, library
        scores[Role.BUILDER] = 4.0 + card_value(build.building, owned) if build else 0.5
        scores[Role.PRODUCER] = 1.5 * min(2, empty) + (0.5 if goods == 0 else 0)
        scores[Role.TRADER] = 1.8 * min(2, goods)
        scores[Role.COUNCILLOR] = 2.5 - 0.2 * len(hand)
        scores[Role.PROSPECTOR] = 1.2 + (1.0 if "Gold mine" in owned else 0)
        options = [r for r in Role if r not in taken]
        best = max(options, key=lambda r: scores[r] + self.rng.random() * 1.5)
        if "Library" in owned and not (t.n == 2 and t.library_used[seat]):
            return ChooseRole(best, True)
        return ChooseRole(best)

    def _build(self, t: Table, seat: int, hand: list[str]) -> Build | None:
        """The most valued build the seat can afford with ``hand`` (its hand in catalogue order), or
        None when nothing is worth it."""
        owned = t.buildings.read(seat)
        best: tuple[float, Build] | None = None
        goods_have = (
            rules._goods_by_kind(owned, t.goods.read(seat)) if rules._has(t, seat, Power.BLACK_MARKET) else {}
        )
        goods_count = sum(goods_have.values())
        # build_cost's discounts, worked out once for every building in hand.
        privilege = rules._privilege(t, seat)
        smithy = rules._has(t, seat, Power.SMITHY)
        quarry = rules._has(t, seat, Power.QUARRY)
        cards = len(hand) - 1
        for building in set(hand):
            if building in VIOLET and building in owned:
                continue
            cost = rules._cost(building, None, privilege, smithy, quarry)
            use_goods = min(2, cost, goods_count)
            if cost - use_goods > cards:
                continue
            value = _VALUE[building] - 0.15 * (cost - use_goods)
            if best is None or value > best[0] or (value == best[0] and ORDER[building] < ORDER[best[1].building]):
                rest = list(hand)
                rest.remove(building)
                pay = sorted(rest, key=lambda c: card_value(c, owned))[: cost - use_goods]
                goods = [g for g in _GOODS for _ in range(goods_have.get(g, 0))][:use_goods]
                best = (value, Build(building, sort_cards(pay), tuple(goods)))
        if best is not None and best[0] < 1.5 and len(owned) < 8 and len(hand) < 4:
            return None
        return best[1] if best else None


class RandomPlayer:
    """Uniformly random among the legal moves (any game with ``legal_moves``)."""

    def __init__(self, engine: object, seed: int = 0) -> None:
        self.engine = engine
        self.rng = random.Random(seed)

    def choose(self, state: object) -> object:
        return self.rng.choice(self.engine.legal_moves(state))  # type: ignore[attr-defined]

    def choose_working(self, game: object) -> object:
        """The move in a working game: its legal moves are listed from its snapshot."""
        return self.choose(game.snapshot())  # type: ignore[attr-defined]


__all__ = ["HeuristicPlayer", "RandomPlayer", "card_value", "PRODUCER_OF"]
