"""A sensible San Juan player for generating games: builds the best building it can afford, produces
and sells as much as it may, keeps the most valuable cards and picks roles by what they bring it now.

It returns moves that ``rules.apply`` accepts; it builds moves directly rather than scoring every
legal move, so that simulating thousands of games stays fast. It reads a mutable ``Table``: the one
of a ``rules.Working`` game (rollouts and simulation play without a snapshot per move) or one made
from a snapshot, so there is one logic for both.
"""

from __future__ import annotations

import random
from typing import Final

from replay.frozen import fast_constructor
from replay.san_juan import rules
from replay.san_juan.cards import (
    ARCHIVE,
    CARDS,
    GOLD_MINE,
    ORDER,
    PRODUCER_OF,
    TILES,
    VIOLET,
    Good,
    Power,
    Role,
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
from replay.san_juan.state import SanJuanState, Stage, Table

# How much the bot likes to own each violet building beyond its VP (a rough, hand-tuned table).
_EXTRA: Final = {
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
_VALUE: Final[dict[str, float]] = {name: _base_value(name) for name in CARDS}
_GOODS: Final = tuple(Good)
_GOOD_RANK: Final = {g: i for i, g in enumerate(_GOODS)}
_GOODS_DEAREST_FIRST: Final = _GOODS[::-1]


def card_value(name: str, owned: list[str] | tuple[str, ...]) -> float:
    """How much the bot wants to build ``name`` given what it owns (higher is better)."""
    if name in VIOLET and name in owned:
        return -1.0
    return _VALUE[name]


#: The moves the bot makes most, made without a frozen dataclass's per-field ``__setattr__`` (all fields,
#: positionally; see ``replay.frozen``) or made once.
_new_build = fast_constructor(Build)
_new_produce = fast_constructor(Produce)
_new_sell = fast_constructor(Sell)
_PASS: Final = Pass()
_ROLES: Final = tuple(Role)
_CHOOSE_ROLE: Final = {(role, library): ChooseRole(role, True) if library else ChooseRole(role) for role in Role
                for library in (True, False)}


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
        owned = t.buildings.read(seat)
        stage = t.stage
        role = t.role
        if stage is Stage.PHASE:
            if role is Role.PRODUCER:
                return self._produce(t, seat, owned)
            if role is Role.TRADER:
                return self._sell(t, seat, owned)
        if stage is Stage.ROLE:
            # Reads only which cards the hand holds and how many.
            return self._role(t, seat, t.hands.read(seat), owned)
        # In catalogue order, as a snapshot holds it (a working table's hand is in no order): ties
        # between equally valued cards go to the first.
        hand = sorted(t.hands.read(seat), key=ORDER.__getitem__)

        def keep_value(c: str) -> float:
            return -1.0 if c in VIOLET and c in owned else _VALUE[c]

        if stage is Stage.DRAFT:
            return Draft(sort_cards(sorted(hand, key=keep_value, reverse=True)[: rules.STARTING_HAND]))
        if stage is Stage.CHAPEL:
            if len(hand) >= 3:
                return Chapel(min(hand, key=keep_value))
            return _PASS
        if stage is Stage.HAND_LIMIT:
            over = len(hand) - rules.hand_limit(owned)
            return HandLimit(sort_cards(sorted(hand, key=keep_value)[:over]))
        if role is Role.BUILDER:
            return self._build(t, seat, hand, owned) or _PASS
        if role is Role.COUNCILLOR:
            drawn = list(t.looking)
            if ARCHIVE in owned:
                pool = hand + drawn
                discard = sorted(pool, key=keep_value)[: rules.archive_discards(len(drawn), owned)[0]]
                return Councillor(discard=sort_cards(discard))
            keep = sorted(drawn, key=keep_value, reverse=True)[: rules.councillor_keep(owned)]
            return Councillor(keep=sort_cards(keep))
        if role is Role.PROSPECTOR:
            return GoldMine(max(t.looking, key=keep_value))
        raise AssertionError(stage)

    def _produce(self, t: Table, seat: int, owned: list[str] | tuple[str, ...]) -> SanJuanMove:
        """As many goods as may be made, the dearest kinds first."""
        empty = rules.empty_by_good(owned, t.goods.read(seat))
        if not empty:
            return _PASS
        most = rules.produce_limit(t, seat, owned)
        # The goods last in Good order (the dearer) first, then listed in Good order, the form
        # legal_moves lists.
        best: list[Good] = []
        for good in _GOODS_DEAREST_FIRST:
            best += [good] * empty.get(good, 0)
        best = best[:most]
        best.reverse()
        return _new_produce(tuple(best), ()) if best else _PASS

    def _sell(self, t: Table, seat: int, owned: list[str] | tuple[str, ...]) -> SanJuanMove:
        """As many goods as may be sold, the best paid first (in Good order among equal prices)."""
        have = rules.goods_by_kind(owned, t.goods.read(seat))
        if not have:
            return _PASS
        prices = TILES[t.tile or 1]
        goods = sorted((g for g in _GOODS for _ in range(have.get(g, 0))), key=lambda g: -prices[g])
        goods = goods[: rules.max_sell(t, seat, owned)]
        return _new_sell(tuple(sorted(goods, key=_GOOD_RANK.__getitem__)), ()) if goods else _PASS

    def _role(self, t: Table, seat: int, hand: list[str] | tuple[str, ...], owned: list[str] | tuple[str, ...]
              ) -> SanJuanMove:
        taken = {r for r, _ in t.roles_taken}
        goods_on = t.goods.read(seat)
        # Only the roles not taken yet are scored (what a taken one would bring is never read).
        scores: dict[Role, float] = {}
        goods = len(goods_on) - goods_on.count(None)
        if Role.BUILDER not in taken:
            # Priced as the builder's chooser (the privilege), then the table as it was.
            chooser, library = t.chooser, t.library
            t.chooser, t.library = seat, False
            try:
                build = self._best_build(t, seat, hand, owned)
            finally:
                t.chooser, t.library = chooser, library
            scores[Role.BUILDER] = 4.0 + _VALUE[build[0]] if build else 0.5
        if Role.PRODUCER not in taken:
            empty = sum(rules.empty_by_good(owned, goods_on).values())
            scores[Role.PRODUCER] = 1.5 * min(2, empty) + (0.5 if goods == 0 else 0)
        scores[Role.TRADER] = 1.8 * min(2, goods)
        scores[Role.COUNCILLOR] = 2.5 - 0.2 * len(hand)
        scores[Role.PROSPECTOR] = 1.2 + (1.0 if GOLD_MINE in owned else 0)
        options = [r for r in _ROLES if r not in taken]
        best = max(options, key=lambda r: scores[r] + self.rng.random() * 1.5)
        return _CHOOSE_ROLE[best, rules.library_usable(t, seat)]

    def _build(self, t: Table, seat: int, hand: list[str], owned: list[str] | tuple[str, ...]) -> Build | None:
        """The most valued build the seat can afford with ``hand`` (its hand in catalogue order), paid
        with its least valued cards (and black-market goods first), or None when nothing is worth it."""
        found = self._best_build(t, seat, hand, owned)
        if found is None:
            return None
        building, cards, use_goods = found
        rest = list(hand)
        rest.remove(building)
        pay = sorted(rest, key=lambda c: card_value(c, owned))[:cards]
        goods: list[Good] = []
        if use_goods:
            have = rules.black_market_goods(t, seat)
            goods = [g for g in _GOODS for _ in range(have.get(g, 0))][:use_goods]
        return _new_build(building, sort_cards(pay), tuple(goods), None, ())

    def _best_build(self, t: Table, seat: int, hand: list[str] | tuple[str, ...], owned: list[str] | tuple[str, ...]
                    ) -> tuple[str, int, int] | None:
        """``(building, cards paid, goods paid)`` of ``_build``: the highest valued building in hand the
        seat can afford (the first in catalogue order among equals), less 0.15 a card paid; None when
        there is none or it is not worth it (valued under 1.5 with a small city and hand)."""
        # The rules' discounts and black-market goods, asked once for the whole hand.
        discounts = rules.build_discounts(t, seat)
        goods_count = rules.black_market_count(t, seat)
        cards = len(hand) - 1
        best_value = 0.0
        best: tuple[str, int, int] | None = None
        for building in set(hand):
            if building in VIOLET and building in owned:
                continue
            cost = rules.discounted_cost(building, discounts)
            use_goods = rules.goods_payable(cost, goods_count)
            paid = cost - use_goods
            if paid > cards:
                continue
            value = _VALUE[building] - 0.15 * paid
            if best is None or value > best_value or (value == best_value and ORDER[building] < ORDER[best[0]]):
                best_value, best = value, (building, paid, use_goods)
        if best is not None and best_value < 1.5 and len(owned) < 8 and len(hand) < 4:
            return None
        return best


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
