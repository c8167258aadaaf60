"""A stronger hand-made San Juan player (the arena's ``expert``): no search, rules of thumb only.

It values every card by what it does for *this* city (``Plan``): the points it adds to the city's score
(asked of ``scoring``; a six-cost building's bonus counted on the city as it will likely be at the end:
a guild hall on the production buildings it will have, a city hall on its violet ones, a palace on its
score), plus what its power or its goods bring while the game lasts (much early, little at the end: the
values were tuned in self-play). A card in hand is worth what its building brings less what it costs,
at least its worth as a payment. With those values it builds the building worth most for what it pays
(each card paid is a card less to build with, the least useful paid first; a build worth too little
waits for a better hand), over one of its own buildings when a crane makes that better, ends the game
when that wins it and not when that loses it, tucks its least useful card under a chapel, and keeps
the most useful cards at a councillor, a gold mine, the hand limit and the draft. Every discount, limit
and payment is asked of ``rules``. It produces and sells as the heuristic bot does.

It chooses roles by what a role brings it *against the table*: every seat carries out the role
chosen, so a role is worth what it brings the chooser (with its privilege) less a share of what the
others get from it on average. What the others get is judged from what the seat sees only: their
cities, goods and the number of cards in their hands, never the cards. From round ``STALL_ROUND`` on
(seats that will not build and none willing to end the game) it builds whatever it can, so that every
game ends.
"""

from __future__ import annotations

import random
from typing import Final

from replay.frozen import fast_constructor
from replay.san_juan import rules
from replay.san_juan.bots import HeuristicPlayer
from replay.san_juan.cards import (
    AQUEDUCT,
    ARCHIVE,
    CARDS,
    CATALOGUE,
    CITY_SIZE_TO_END,
    COST,
    CRANE,
    GOLD_MINE,
    GOOD_OF,
    HOLDER,
    MARKET_STAND,
    ORDER,
    PREFECTURE,
    PRODUCER_OF,
    TILES,
    TRADING_POST,
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
    SanJuanMove,
)
from replay.san_juan.scoring import score_parts
from replay.san_juan.state import PlayerState, SanJuanState, Stage, Table

#: How much of the others' average gain from a role counts against choosing it.
OTHERS_WEIGHT: Final = 2.0
#: What a card in hand is worth, in points: what it pays towards a building.
CARD_WORTH: Final = 0.6
#: What a good paid to a black market is worth, in points (it would have been sold).
GOOD_WORTH: Final = 0.5
#: Of the value of the cards paid, the share counted besides their worth as payment.
KEEP_SHARE: Final = 0.25
#: The build slots left in the game (12 less the largest city) from which a power or a production
#: building is worth all it brings; with fewer it is worth proportionally less.
EARLY_SLOTS: Final = 9.0
#: A build is made only when worth at least this much for what it costs.
BUILD_LEAST: Final = 1.0
#: The role of builder is worth this much per point of the best build's worth.
BUILDER_SCALE: Final = 1.1
#: What the other roles bring their chooser, in cards: a good produced (and a point of the dearest
#: price), a good sold (and a point of the dearest price), the councillor's and the prospector's draw.
PRODUCER_GOOD: Final = 0.6
PRODUCER_DEAREST: Final = 0.3
TRADER_GOOD: Final = 1.0
TRADER_DEAREST: Final = 0.5
COUNCILLOR_WORTH: Final = 1.3
PROSPECTOR_WORTH: Final = 1.6
#: Ending the game with the most points (or not) is worth this much.
END_WIN: Final = 20.0
END_LOSE: Final = 15.0
#: With fewer build slots left in the game than this, a card in hand is less likely to be built, and
#: worth proportionally less than its building beyond its worth as a payment.
KEEP_SLOTS: Final = 3.0
#: From this round on the game is stuck (seats that will not build, none wanting to end it): every
#: build is made and the builder chosen whenever a build can be made, so that the game ends.
STALL_ROUND: Final = 30
#: A chapel takes a card when the hand holds at least this many.
CHAPEL_HAND: Final = 3

#: What each power brings over a whole game, in points, beyond its building's own points.
POWER_WORTH: Final[dict[Power, float]] = {
    Power.SMITHY: 2.0, Power.GOLD_MINE: 3.2, Power.ARCHIVE: 1.0, Power.POOR_HOUSE: 1.9, Power.BLACK_MARKET: 1.2,
    Power.TRADING_POST: 2.0, Power.WELL: 2.0, Power.MARKET_STAND: 1.5, Power.CRANE: 0.3, Power.CHAPEL: 1.0,
    Power.TOWER: 1.5, Power.AQUEDUCT: 2.5, Power.CARPENTER: 2.5, Power.PREFECTURE: 4.0, Power.MARKET_HALL: 2.0,
    Power.QUARRY: 4.0, Power.LIBRARY: 4.0,
}
#: The powers that work on the goods a city makes: worth more the more production buildings it has.
_GOODS_POWERS: Final = frozenset({Power.TRADING_POST, Power.WELL, Power.AQUEDUCT, Power.MARKET_STAND,
                                  Power.MARKET_HALL, Power.BLACK_MARKET})
#: What a production building brings over a whole game through its goods, in points, by good.
PRODUCTION_WORTH: Final[dict[Good, float]] = {
    Good.INDIGO: 1.2, Good.SUGAR: 1.4, Good.TOBACCO: 1.6, Good.COFFEE: 1.9, Good.SILVER: 2.2,
}
#: The buildings a city is supposed to add before the end, for the bonuses counted on it: one of
#: each kind in turn (a production building, a violet one with no bonus of its own), one point each.
_FILLERS: Final = (PRODUCER_OF[Good.SUGAR], MARKET_STAND)
#: The share of the build slots left a city is supposed to fill.
FILL_SHARE: Final = 0.8
#: The buildings supposed added are counted in steps of this many (fewer cities to value).
FILL_STEP: Final = 2

_ROLES: Final = tuple(Role)
_CHOOSE_ROLE: Final = {(role, library): ChooseRole(role, True) if library else ChooseRole(role) for role in Role
                       for library in (True, False)}
#: The average price of a good over the trading-house tiles.
_PRICE: Final = {g: sum(tile[g] for tile in TILES.values()) / len(TILES) for g in Good}
_GOODS: Final = tuple(Good)
_PASS: Final = Pass()
#: Builds made without a frozen dataclass's per-field ``__setattr__`` (``replay.frozen``).
_new_build: Final = fast_constructor(Build)
#: City scores already worked out, by (buildings, chapel cards): cities recur from decision to decision.
_SCORES: Final[dict[tuple[tuple[str, ...], int], int]] = {}
_new_player: Final = fast_constructor(PlayerState)


def city_score(city: tuple[str, ...], chapel: int) -> int:
    """The score of a city of ``city`` with ``chapel`` cards under its chapel (``scoring``'s own
    count). Raises ``KeyError`` for a name that is not a card."""
    key = (city, chapel)
    found = _SCORES.get(key)
    if found is None:
        if len(_SCORES) >= 1 << 16:
            _SCORES.clear()
        found = _SCORES[key] = score_parts(_new_player((), city, (), ("",) * chapel, (), False))[0]
    return found


#: A city of one building of each kind: a production building, a violet one and a monument.
_EACH_KIND: Final = (PRODUCER_OF[Good.INDIGO], HOLDER[Power.SMITHY],
                     next(card.name for card in CATALOGUE if card.power is Power.MONUMENT))
#: The cards that score more than their printed points in some city (the guild hall, city hall,
#: triumphal arch and palace), found by asking the scoring of a city of each kind of building with
#: each card: in a city with none of them, a building adds its printed points.
_BONUS: Final = frozenset(
    name for name in CARDS
    if city_score((*_EACH_KIND, name), 0) != sum(CARDS[b].vp for b in (*_EACH_KIND, name))
)


#: What each building brings while the game lasts before the city and the time are counted
#: (``POWER_WORTH`` or ``PRODUCTION_WORTH``), by name; and the buildings whose power works on goods.
_ENGINE: Final[dict[str, float]] = {
    card.name: PRODUCTION_WORTH[card.good] if card.good is not None
    else POWER_WORTH.get(card.power, 0.0) if card.power is not None else 0.0
    for card in CATALOGUE
}
_ON_GOODS: Final = frozenset(card.name for card in CATALOGUE if card.power in _GOODS_POWERS)
_VP: Final[dict[str, int]] = {card.name: card.vp for card in CATALOGUE}


#: The cards whose score reads the points of the cards under the chapel (the palace), found by asking
#: the scoring with four cards under it and none.
_READS_CHAPEL: Final = frozenset(
    name for name in _BONUS
    if city_score((*_EACH_KIND, name), 4) - city_score((*_EACH_KIND, name), 0)
    != city_score(_EACH_KIND, 4) - city_score(_EACH_KIND, 0)
)
#: What each card adds to a city supposed at the end, by (city, chapel cards, buildings supposed
#: added): cities recur from decision to decision.
_GAINS: Final[dict[tuple[tuple[str, ...], int, int], dict[str, int]]] = {}


def _gains_of(owned: list[str] | tuple[str, ...], chapel: int, extra: int) -> dict[str, int]:
    """The gains known of a city of ``owned``, ``chapel`` cards under its chapel and ``extra`` buildings
    supposed added (``_GAINS``), by card. Raises nothing."""
    key = (tuple(owned), chapel, extra)
    gains = _GAINS.get(key)
    if gains is None:
        if len(_GAINS) >= 1 << 14:
            _GAINS.clear()
        gains = _GAINS[key] = {}
    return gains


def _gain_in(owned: list[str] | tuple[str, ...], chapel: int, extra: int, name: str,
             gains: dict[str, int] | None = None) -> int:
    """The points ``name`` adds to a city of ``owned`` with ``chapel`` cards under its chapel and
    ``extra`` buildings supposed added (``_FILLERS``), kept in ``gains`` (those of that city, else
    found). Raises ``KeyError`` for a name that is not a card."""
    if gains is None:
        gains = _gains_of(owned, chapel, extra)
    found = gains.get(name)
    if found is None:
        future = (*owned, *[_FILLERS[i % 2] for i in range(extra)])
        found = gains[name] = city_score((*future, name), chapel) - city_score(future, chapel)
    return found


class Plan:
    """How a seat's city values cards at one decision: its buildings, how far the game has gone, the
    city it is supposed to have at the end (made when first needed)."""

    def __init__(self, t: Table, seat: int) -> None:
        owned = t.buildings.read(seat)
        self.owned = owned
        self.chapel = len(t.chapel.read(seat))
        largest = 0
        for other in range(t.n):
            size = len(t.buildings.read(other))
            if size > largest:
                largest = size
        #: Build slots left in the game.
        self.slots = CITY_SIZE_TO_END - largest
        self.early = min(1.0, self.slots / EARLY_SLOTS)
        self.hold = min(1.0, self.slots / KEEP_SLOTS)
        production = 0
        bonus = False
        reads_chapel = False
        for b in owned:
            if GOOD_OF[b] is not None:
                production += 1
            elif b in _BONUS:
                bonus = True
                reads_chapel = reads_chapel or b in _READS_CHAPEL
        self.production = production
        self.production_share = 1.0 if production < 3 else 0.6
        self.goods_share = min(1.3, 0.5 + 0.25 * production)
        #: Whether the city holds a building that scores more than its points, and one that reads the
        #: score of its chapel's cards.
        self.bonus = bonus
        self.reads_chapel = reads_chapel
        #: What each card adds to this city and to the city supposed at the end (``_gain``), found when
        #: first needed.
        self.gains_now: dict[str, int] | None = None
        self.gains_future: dict[str, int] | None = None

    def _gain(self, name: str) -> int:
        """The points ``name`` adds to the city: a card that scores more than its points (``_BONUS``)
        to the city supposed at the end (this city and, for the build slots left, buildings of each
        kind in turn: ``_FILLERS``), another card to this city."""
        extra = 0
        if name in _BONUS:
            extra = int(max(0, self.slots - 1) * FILL_SHARE) // FILL_STEP * FILL_STEP
        if name in _READS_CHAPEL and not self.reads_chapel:
            # A card that reads the chapel's cards in a city that does not: counted with them.
            return _gain_in(self.owned, self.chapel, extra, name)
        gains = self.gains_now if extra == 0 else self.gains_future
        if gains is None:
            # The cards under the chapel count only where a card reads the score they make (the
            # palace): for other cities the gains are those of a city without them, which recur more.
            gains = _gains_of(self.owned, self.chapel if self.reads_chapel else 0, extra)
            if extra == 0:
                self.gains_now = gains
            else:
                self.gains_future = gains
        found = gains.get(name)
        if found is None:
            found = _gain_in(self.owned, self.chapel if self.reads_chapel else 0, extra, name, gains)
        return found

    def value(self, name: str) -> float:
        """What building ``name`` is worth to this city, in points (-1 for a violet it owns)."""
        if name in VIOLET and name in self.owned:
            return -1.0
        if self.bonus or name in _BONUS:
            return self._gain(name) + self.engine(name)
        return _VP[name] + self.engine(name)

    def engine(self, name: str) -> float:
        """What building ``name`` brings this city while the game lasts through its power or its goods,
        in points (besides what it scores)."""
        worth = _ENGINE[name]
        if worth == 0.0:
            return 0.0
        if GOOD_OF[name] is not None:
            return self.early * worth * self.production_share
        if name in _ON_GOODS:
            return self.early * worth * self.goods_share
        return self.early * worth

    def covered_loss(self, name: str) -> float:
        """What this city loses when a crane covers its ``name``: what it scores in the city now and
        what it brings while the game lasts."""
        owned = tuple(self.owned)
        rest = list(owned)
        rest.remove(name)
        return city_score(owned, self.chapel) - city_score(tuple(rest), self.chapel) + self.engine(name)

    def keep(self, name: str) -> float:
        """What card ``name`` is worth in hand, in points: what its building brings less what it costs
        (printed), at least its worth as a payment; with few build slots left, less likely built."""
        built = self.value(name) - CARD_WORTH * COST[name]
        if built > CARD_WORTH:
            return CARD_WORTH + (built - CARD_WORTH) * self.hold
        return CARD_WORTH


class ExpertPlayer:
    """Cards valued for its own city, roles chosen by their gain against the table (deterministic
    given seed)."""

    def __init__(self, seed: int = 0) -> None:
        # Version 2 values cards for its own city (version 1 was the heuristic bot with a better role
        # choice): the arena and the ratings tell the two apart by it.
        self.version = "2"
        self.rng = random.Random(seed)
        # The heuristic bot produces and sells. Held, not subclassed: the bots' classes may be compiled
        # (mypyc), and an interpreted class cannot inherit from those.
        self.base = HeuristicPlayer(seed)

    def choose(self, state: SanJuanState) -> SanJuanMove:
        """The move of the seat to act in ``state``."""
        return self.choose_table(Table(state))

    def choose_working(self, game: rules.Working) -> SanJuanMove:
        """The move of the seat to act in a working game (read from its table, left as it is)."""
        return self.choose_table(game.table)

    def choose_table(self, t: Table) -> SanJuanMove:
        """The move of the seat to act on ``t``, which is read and left as it was."""
        stage = t.stage
        seat = t.current_seat
        assert seat is not None
        if stage is Stage.ROLE:
            return self._expert_role(t, seat)
        role = t.role
        if stage is Stage.PHASE and (role is Role.PRODUCER or role is Role.TRADER):
            return self.base.choose_table(t)
        plan = Plan(t, seat)
        value = plan.keep
        if role is Role.COUNCILLOR and ARCHIVE not in plan.owned:
            # The most useful of the cards drawn (the first drawn of equals).
            keep = rules.councillor_keep(plan.owned)
            if keep == 1:
                return Councillor(keep=(max(t.looking, key=value),))
            return Councillor(keep=sort_cards(sorted(t.looking, key=value, reverse=True)[:keep]))
        if role is Role.PROSPECTOR:
            return GoldMine(max(t.looking, key=value))
        # In catalogue order, as a snapshot holds it (a working table's hand is in no order): ties go
        # to the first.
        hand = sorted(t.hands.read(seat), key=ORDER.__getitem__)
        if stage is Stage.DRAFT:
            return Draft(sort_cards(sorted(hand, key=value, reverse=True)[: rules.STARTING_HAND]))
        if stage is Stage.CHAPEL:
            if len(hand) >= CHAPEL_HAND:
                return Chapel(min(hand, key=value))
            return _PASS
        if stage is Stage.HAND_LIMIT:
            over = len(hand) - rules.hand_limit(plan.owned)
            return HandLimit(sort_cards(sorted(hand, key=value)[:over]))
        if role is Role.BUILDER:
            return self._best_build(t, seat, hand, plan) or _PASS
        if role is Role.COUNCILLOR:
            # With an archive: the least useful of the hand and the cards drawn are discarded.
            drawn = list(t.looking)
            discard = sorted(hand + drawn, key=value)[: rules.archive_discards(len(drawn), plan.owned)[0]]
            return Councillor(discard=sort_cards(discard))
        raise AssertionError(stage)

    def _best_build(self, t: Table, seat: int, hand: list[str], plan: Plan) -> Build | None:
        """The build worth most for what it costs (``hand`` in catalogue order: the first of equals), on
        a new lot or over one of its buildings with a crane; None when no build is worth making (from
        round ``STALL_ROUND`` on, only when none can be afforded). Raises nothing."""
        discounts = rules.build_discounts(t, seat)
        goods_count = rules.black_market_count(t, seat)
        # The cards to pay with, least useful first (sorted when first needed).
        ranked: list[str] = []
        stalled = t.round >= STALL_ROUND
        # A build on a new lot that makes the city the largest ends the game: worth it when it wins.
        others = -1
        if len(plan.owned) + 1 >= CITY_SIZE_TO_END and not stalled:
            for other in range(t.n):
                if other != seat:
                    others = max(others, city_score(tuple(t.buildings.read(other)), len(t.chapel.read(other))))
        crane = CRANE in plan.owned
        # The best so far: the building, the cards paid, the goods paid, the building covered.
        best = ""
        best_paid = 0
        best_goods = 0
        best_over: str | None = None
        best_worth = 0.0
        last = ""
        for building in hand:
            if building == last or (building in VIOLET and building in plan.owned):
                continue
            last = building
            cost = rules.discounted_cost(building, discounts)
            use_goods = rules.goods_payable(cost, goods_count) if goods_count else 0
            paid = cost - use_goods
            if paid < len(hand):
                worth = plan.value(building) - GOOD_WORTH * use_goods
                if others >= 0:
                    mine = city_score((*plan.owned, building), plan.chapel)
                    worth += END_WIN if mine > others else -END_LOSE
                # Each card paid costs at least CARD_WORTH: a build that cannot beat the best is left.
                if not best or worth - CARD_WORTH * paid > best_worth - 1e-9:
                    if not ranked:
                        ranked = sorted(hand, key=plan.keep)
                    worth = _less_payment(ranked, building, paid, plan, worth)
                    if not best or worth > best_worth:
                        best, best_paid, best_goods, best_over, best_worth = building, paid, use_goods, None, worth
            if crane:
                # Over one of its buildings: the city keeps its size.
                for covered in dict.fromkeys(plan.owned):
                    if covered == CRANE or covered == building:
                        continue
                    cost = rules.build_cost(t, seat, building, covered)
                    use_goods = rules.goods_payable(cost, sum(rules.black_market_goods(t, seat, covered).values()))
                    paid = cost - use_goods
                    if paid >= len(hand):
                        continue
                    worth = plan.value(building) - plan.covered_loss(covered) - GOOD_WORTH * use_goods
                    if not best or worth - CARD_WORTH * paid > best_worth - 1e-9:
                        if not ranked:
                            ranked = sorted(hand, key=plan.keep)
                        worth = _less_payment(ranked, building, paid, plan, worth)
                        if not best or worth > best_worth:
                            best, best_paid, best_goods, best_over, best_worth = building, paid, use_goods, covered, worth
        if not best or (best_worth < BUILD_LEAST and not stalled):
            return None
        if not ranked:
            ranked = sorted(hand, key=plan.keep)
        pay = _payment(ranked, best, best_paid)
        goods: tuple[Good, ...] = ()
        if best_goods:
            have = rules.black_market_goods(t, seat, best_over)
            goods = tuple([g for g in _GOODS for _ in range(have.get(g, 0))][:best_goods])
        return _new_build(best, sort_cards(pay), goods, best_over, ())

    def _expert_role(self, t: Table, seat: int) -> SanJuanMove:
        taken = t.roles_taken
        owned = t.buildings.read(seat)
        hand = t.hands.read(seat)
        theirs = _theirs(t, seat, taken)
        best_role, best = _ROLES[0], -1e9
        for role in _ROLES:
            if any(r is role for r, _ in taken):
                continue
            mine = self._mine(t, seat, role, hand, owned)
            score = mine - OTHERS_WEIGHT * theirs[role] + self.rng.random() * 0.05
            if score > best:
                best_role, best = role, score
        return _CHOOSE_ROLE[best_role, rules.library_usable(t, seat)]

    def _mine(self, t: Table, seat: int, role: Role, hand: list[str] | tuple[str, ...],
              owned: list[str] | tuple[str, ...]) -> float:
        """What ``role`` brings this seat as its chooser, in cards."""
        goods_on = t.goods.read(seat)
        if role is Role.BUILDER:
            # Priced as the builder's chooser (the privilege), then the table as it was.
            chooser, library = t.chooser, t.library
            t.chooser, t.library = seat, False
            try:
                worth = _build_bound(t, seat, hand, Plan(t, seat))
            finally:
                t.chooser, t.library = chooser, library
            if worth is None:
                return 0.0
            if t.round >= STALL_ROUND:
                return 100.0
            if worth < BUILD_LEAST:
                return 0.0
            return 1.0 + BUILDER_SCALE * worth
        if role is Role.PRODUCER:
            empty = rules.empty_by_good(owned, goods_on)
            slots = min(sum(empty.values()), rules.max_produce(t, seat, owned))
            dearest = max((_PRICE[g] for g in empty), default=0.0)
            return slots * PRODUCER_GOOD + PRODUCER_DEAREST * dearest
        if role is Role.TRADER:
            have = rules.goods_by_kind(owned, goods_on)
            count = min(sum(have.values()), rules.max_sell(t, seat, owned) + 1)
            dearest = max((_PRICE[g] for g in have), default=0.0)
            return count * TRADER_GOOD + TRADER_DEAREST * dearest if count else 0.0
        if role is Role.COUNCILLOR:
            return (COUNCILLOR_WORTH + (0.3 if ARCHIVE in owned or PREFECTURE in owned else 0)
                    - 0.1 * max(0, len(hand) - 5))
        # Prospector: one card for the chooser.
        return PROSPECTOR_WORTH + (0.4 if GOLD_MINE in owned else 0)


def _build_bound(t: Table, seat: int, hand: list[str] | tuple[str, ...], plan: Plan) -> float | None:
    """What the best build on a new lot is worth for what it costs, each card paid counted at its worth
    as a payment only (at most what ``ExpertPlayer._best_build`` finds: it counts more for useful
    cards, and sees the crane); None when no build can be afforded. Raises nothing."""
    discounts = rules.build_discounts(t, seat)
    goods_count = rules.black_market_count(t, seat)
    others = -1
    if len(plan.owned) + 1 >= CITY_SIZE_TO_END and t.round < STALL_ROUND:
        for other in range(t.n):
            if other != seat:
                others = max(others, city_score(tuple(t.buildings.read(other)), len(t.chapel.read(other))))
    best: float | None = None
    for building in hand:
        if building in VIOLET and building in plan.owned:
            continue
        cost = rules.discounted_cost(building, discounts)
        use_goods = rules.goods_payable(cost, goods_count) if goods_count else 0
        paid = cost - use_goods
        if paid >= len(hand):
            continue
        worth = plan.value(building) - GOOD_WORTH * use_goods - CARD_WORTH * paid
        if others >= 0:
            worth += END_WIN if city_score((*plan.owned, building), plan.chapel) > others else -END_LOSE
        if best is None or worth > best:
            best = worth
    return best


def _theirs(t: Table, seat: int, taken: list[tuple[Role, int]]) -> dict[Role, float]:
    """What each role (of those not ``taken`` yet) brings the seats other than ``seat`` on average,
    judged from what everyone sees (their cities, their goods, how many cards they hold). Raises
    nothing."""
    producing = trading = True
    for role, _ in taken:
        producing = producing and role is not Role.PRODUCER
        trading = trading and role is not Role.TRADER
    builder = producer = trader = prospector = 0.0
    for other in range(t.n):
        if other == seat:
            continue
        owned = t.buildings.read(other)
        goods_on = t.goods.read(other)
        size = len(t.hands.read(other))  # only the size, which everyone sees
        builder += 1.5 if size >= 3 else 0.6 if size >= 2 else 0.0
        if producing:
            empty = sum(rules.empty_by_good(owned, goods_on).values())
            producer += 0.6 * min(empty, 1 + (1 if AQUEDUCT in owned else 0))
        if trading:
            have = sum(rules.goods_by_kind(owned, goods_on).values())
            trader += 1.0 * min(have, 1 + (1 if TRADING_POST in owned else 0))
        prospector += 0.3 if GOLD_MINE in owned else 0.0
    others = t.n - 1
    return {Role.BUILDER: builder / others, Role.PRODUCER: producer / others, Role.TRADER: trader / others,
            Role.COUNCILLOR: 0.5, Role.PROSPECTOR: prospector / others}


def _payment(ranked: list[str], building: str, paid: int) -> list[str]:
    """The first ``paid`` cards of ``ranked`` (the hand, least useful first) but ``building`` itself:
    what pays for it. Raises nothing."""
    pay: list[str] = []
    skipped = False
    for card in ranked:
        if len(pay) == paid:
            break
        if card == building and not skipped:
            skipped = True
            continue
        pay.append(card)
    return pay


def _less_payment(ranked: list[str], building: str, paid: int, plan: Plan, worth: float) -> float:
    """``worth`` less what the cards that pay for ``building`` (``_payment``) are worth. Raises nothing."""
    for card in _payment(ranked, building, paid):
        worth -= CARD_WORTH + KEEP_SHARE * (plan.keep(card) - CARD_WORTH)
    return worth


def expert_bot(engine: object, seed: int) -> ExpertPlayer:
    """The expert bot (the declaration's ``expert``; ``engine`` is this game's own). Raises nothing."""
    return ExpertPlayer(seed)


__all__ = ["ExpertPlayer", "expert_bot"]
