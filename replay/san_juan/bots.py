"""A sensible San Juan player for generating games: builds the best building it can afford, produces
and sells as much as it may, keeps the most valuable cards and picks roles by what they bring it now.

It returns moves that ``rules.apply`` accepts; it builds moves directly rather than scoring every
legal move, so that simulating thousands of games stays fast.
"""

from __future__ import annotations

import random

from replay.san_juan import rules
from replay.san_juan.cards import CARDS, ORDER, PRODUCER_OF, TILES, Good, Power, Role, sort_cards
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


def card_value(name: str, owned: list[str] | tuple[str, ...]) -> float:
    """How much the bot wants to build ``name`` given what it owns (higher is better)."""
    card = CARDS[name]
    if card.is_violet and name in owned:
        return -1.0
    value = card.vp + (_EXTRA.get(card.power, 0) if card.power else 0) + (1.5 if card.is_production else 0)
    return value + 0.3 * card.cost


class HeuristicPlayer:
    """A deterministic-given-seed sensible player."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: SanJuanState) -> SanJuanMove:
        seat = state.current_seat
        assert seat is not None
        t = Table(state)
        hand = list(state.players[seat].hand)
        owned = state.players[seat].buildings
        keep_value = lambda c: card_value(c, owned)  # noqa: E731
        if state.stage is Stage.DRAFT:
            return Draft(sort_cards(sorted(hand, key=keep_value, reverse=True)[:4]))
        if state.stage is Stage.CHAPEL:
            if len(hand) >= 3:
                return Chapel(min(hand, key=keep_value))
            return Pass()
        if state.stage is Stage.HAND_LIMIT:
            over = len(hand) - rules._hand_limit(t.buildings.read(seat))
            return HandLimit(sort_cards(sorted(hand, key=keep_value)[:over]))
        if state.stage is Stage.ROLE:
            return self._role(state, t, seat)
        role = state.role
        if role is Role.BUILDER:
            return self._build(t, seat) or Pass()
        if role is Role.PRODUCER:
            empty = rules._empty_by_good(t.buildings.read(seat), t.goods.read(seat))
            most = min(rules._max_produce(t, seat, t.buildings.read(seat)), len(t.draw_pile) + len(t.discard))
            best = sorted((g for g in Good for _ in range(empty.get(g, 0))), key=lambda g: -list(Good).index(g))[:most]
            # Listed in Good order, the form legal_moves lists.
            return Produce(tuple(sorted(best, key=list(Good).index))) if best else Pass()
        if role is Role.TRADER:
            have = rules._goods_by_kind(t.buildings.read(seat), t.goods.read(seat))
            prices = TILES[state.tile or 1]
            goods = sorted((g for g in Good for _ in range(have.get(g, 0))), key=lambda g: -prices[g])
            goods = goods[: rules._max_sell(t, seat, t.buildings.read(seat))]
            return Sell(tuple(sorted(goods, key=list(Good).index))) if goods else Pass()
        if role is Role.COUNCILLOR:
            keep_n = 2 if "Prefecture" in owned else 1
            drawn = list(state.looking)
            if "Archive" in owned:
                pool = hand + drawn
                discard = sorted(pool, key=keep_value)[: max(0, len(drawn) - keep_n)]
                return Councillor(discard=sort_cards(discard))
            keep = sorted(drawn, key=keep_value, reverse=True)[:keep_n]
            return Councillor(keep=sort_cards(keep))
        if role is Role.PROSPECTOR:
            return GoldMine(max(state.looking, key=keep_value))
        raise AssertionError(state.stage)

    def _role(self, state: SanJuanState, t: Table, seat: int) -> SanJuanMove:
        taken = {r for r, _ in state.roles_taken}
        player = state.players[seat]
        t.chooser = seat
        t.library = False
        scores: dict[Role, float] = {}
        goods = sum(1 for g in player.goods if g is not None)
        empty = sum(rules._empty_by_good(t.buildings.read(seat), t.goods.read(seat)).values())
        build = self._build(t, seat)
        scores[Role.BUILDER] = 4.0 + card_value(build.building, player.buildings) if build else 0.5
        scores[Role.PRODUCER] = 1.5 * min(2, empty) + (0.5 if goods == 0 else 0)
        scores[Role.TRADER] = 1.8 * min(2, goods)
        scores[Role.COUNCILLOR] = 2.5 - 0.2 * len(player.hand)
        scores[Role.PROSPECTOR] = 1.2 + (1.0 if "Gold mine" in player.buildings else 0)
        options = [r for r in Role if r not in taken]
        best = max(options, key=lambda r: scores[r] + self.rng.random() * 1.5)
        if "Library" in player.buildings and not (state.num_players == 2 and player.library_used):
            return ChooseRole(best, True)
        return ChooseRole(best)

    def _build(self, t: Table, seat: int) -> Build | None:
        hand = t.hands[seat]
        owned = t.buildings[seat]
        best: tuple[float, Build] | None = None
        powers = rules._powers(t, seat)
        goods_have = rules._goods_by_kind(t.buildings.read(seat), t.goods.read(seat)) if Power.BLACK_MARKET in powers else {}
        for building in set(hand):
            if CARDS[building].is_violet and building in owned:
                continue
            cost = rules.build_cost(t, seat, building, None)
            use_goods = min(2, cost, sum(goods_have.values()))
            rest = list(hand)
            rest.remove(building)
            if cost - use_goods > len(rest):
                continue
            value = card_value(building, owned) - 0.15 * (cost - use_goods)
            if best is None or value > best[0] or (value == best[0] and ORDER[building] < ORDER[best[1].building]):
                pay = sorted(rest, key=lambda c: card_value(c, owned))[: cost - use_goods]
                goods = [g for g in Good for _ in range(goods_have.get(g, 0))][:use_goods]
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


__all__ = ["HeuristicPlayer", "RandomPlayer", "card_value", "PRODUCER_OF"]
