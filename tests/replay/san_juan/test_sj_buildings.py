"""Every San Juan building: the catalogue figures and each violet building's power, with exact hands,
piles and goods after the move (rules: ``san_juan_rules_zh.txt`` and FACTS.md part 1 and 3)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from replay.errors import RuleViolation
from replay.san_juan import rules
from replay.san_juan.cards import CARDS, CATALOGUE, DECK_SIZE, TILES, Good, Kind, Role, full_deck
from replay.san_juan.moves import Build, Chapel, ChooseRole, Councillor, GoldMine, HandLimit, Pass, Produce, Sell
from replay.san_juan.scoring import score_player
from replay.san_juan.state import Stage

from .positions import CR, IP, SM, SS, TS, at_role, goods_of, play, position, seat

FACTS = Path(__file__).resolve().parents[4] / "shared" / "rules" / "FACTS.md"

# Card name, kind, cost, VP, copies: FACTS.md part 1.
TABLE = [
    ("Indigo plant", "production", 1, 1, 10),
    ("Sugar mill", "production", 2, 1, 8),
    ("Tobacco storage", "production", 3, 2, 8),
    ("Coffee roaster", "production", 4, 2, 8),
    ("Silver smelter", "production", 5, 3, 8),
    ("Smithy", "violet", 1, 1, 3),
    ("Gold mine", "violet", 1, 1, 3),
    ("Archive", "violet", 1, 1, 3),
    ("Poor house", "violet", 2, 1, 3),
    ("Black market", "violet", 2, 1, 3),
    ("Trading post", "violet", 2, 1, 3),
    ("Well", "violet", 2, 1, 3),
    ("Market stand", "violet", 2, 1, 3),
    ("Crane", "violet", 2, 1, 3),
    ("Chapel", "violet", 3, 2, 3),
    ("Tower", "violet", 3, 2, 3),
    ("Aqueduct", "violet", 3, 2, 3),
    ("Carpenter", "violet", 3, 2, 3),
    ("Prefecture", "violet", 3, 2, 3),
    ("Market hall", "violet", 4, 2, 3),
    ("Quarry", "violet", 4, 2, 3),
    ("Library", "violet", 5, 3, 3),
    ("Statue", "violet", 3, 3, 3),
    ("Victory column", "violet", 4, 4, 3),
    ("Hero", "violet", 5, 5, 3),
    ("Guild hall", "violet", 6, 0, 2),
    ("City hall", "violet", 6, 0, 2),
    ("Triumphal arch", "violet", 6, 0, 2),
    ("Palace", "violet", 6, 0, 2),
]


def build_phase(players, chooser=0, **kwargs):
    """The builder phase chosen by ``chooser`` (the governor), without a library."""
    return play(at_role(players, chooser, **kwargs), ChooseRole(Role.BUILDER))


def hand(state, i):
    return state.players[i].hand


# -- catalogue ---------------------------------------------------------------------------------


def test_catalogue_matches_the_card_table():
    assert [(c.name, c.kind.value, c.cost, c.vp, c.copies) for c in CATALOGUE] == TABLE
    assert len(full_deck()) == DECK_SIZE == 110
    assert sum(c.copies for c in CATALOGUE if c.kind is Kind.PRODUCTION) == 42
    assert sum(c.copies for c in CATALOGUE if c.kind is Kind.VIOLET) == 68


def test_catalogue_matches_facts_md():
    assert FACTS.exists(), f"the rules' tables are read from {FACTS}: the shared rules folder beside the checkout"
    rows = {}
    for line in FACTS.read_text(encoding="utf-8").split("## Part 2")[0].splitlines():
        m = re.match(r"\| ([A-Z][a-z ]+) \| (production|violet)[^|]*\| (\d+) \| (\d+) \| (\d+)", line)
        if m:
            rows[m.group(1)] = (m.group(2), int(m.group(3)), int(m.group(4)), int(m.group(5)))
    assert rows == {name: (kind, cost, vp, copies) for name, kind, cost, vp, copies in TABLE}


def test_trading_house_tiles_match_facts():
    order = [Good.INDIGO, Good.SUGAR, Good.TOBACCO, Good.COFFEE, Good.SILVER]
    assert {t: [TILES[t][g] for g in order] for t in TILES} == {
        1: [1, 1, 1, 2, 2],
        2: [1, 1, 2, 2, 2],
        3: [1, 1, 2, 2, 3],
        4: [1, 2, 2, 2, 3],
        5: [1, 2, 2, 3, 3],
    }


# -- production buildings ----------------------------------------------------------------------

PRODUCERS = [(IP, Good.INDIGO), (SM, Good.SUGAR), (TS, Good.TOBACCO), (CR, Good.COFFEE), (SS, Good.SILVER)]


@pytest.mark.parametrize(("building", "good"), PRODUCERS)
def test_production_building_produces_its_good_from_the_top_card(building, good):
    players = [seat(buildings=(IP, SM, TS, CR, SS)), seat(buildings=(IP,), goods={0: "Well"})]
    state = play(at_role(players, draw=("Hero", "Tower")), ChooseRole(Role.PRODUCER), Produce((good,)))
    index = [IP, SM, TS, CR, SS].index(building)
    assert state.players[0].goods[index] == "Hero"
    assert goods_of(state, 0) == [good if i == index else None for i in range(5)]
    # Seat 1's only building is full: skipped, the phase is over.
    assert state.stage is Stage.ROLE and state.draw_pile == ("Tower",)


@pytest.mark.parametrize("tile", [1, 2, 3, 4, 5])
@pytest.mark.parametrize(("building", "good"), PRODUCERS)
def test_each_good_sells_for_the_tile_price(building, good, tile):
    draw = ("Hero", "Tower", "Well", "Chapel")
    players = [seat(buildings=(building,), goods={0: "Palace"}), seat()]
    state = play(at_role(players, draw=draw, tiles=(tile, *[t for t in range(1, 6) if t != tile])),
                 ChooseRole(Role.TRADER), Sell((good,)))
    price = TILES[tile][good]
    assert hand(state, 0) == tuple(sorted(draw[:price], key=list(CARDS).index))
    assert state.players[0].goods == (None,)
    assert state.discard == ("Palace",)


@pytest.mark.parametrize(("building", "good"), PRODUCERS)
def test_production_building_costs_its_printed_cost(building, good):
    cost = CARDS[building].cost
    payment = ("Hero",) * cost
    players = [seat(), seat(hand=(building, *payment, "Tower"))]
    state = build_phase(players)  # seat 0 cannot build and is skipped
    assert state.current_seat == 1
    state = play(state, Build(building, payment))
    assert state.players[1].buildings == (IP, building)
    assert hand(state, 1) == ("Tower",)
    assert state.discard == payment
    with pytest.raises(RuleViolation, match=r"builder\.cost"):
        play(build_phase(players), Build(building, payment[1:]))


def test_any_number_of_one_production_building():
    players = [seat(hand=(IP,), buildings=(IP, IP, IP))]
    state = build_phase(players)
    state = play(state, Build(IP, ()))
    assert state.players[0].buildings == (IP, IP, IP, IP)


# -- smithy ------------------------------------------------------------------------------------


def test_smithy_discounts_production_buildings_only():
    players = [seat(), seat(hand=(TS, "Tower", "Well", "Chapel", "Hero"), buildings=(IP, "Smithy"))]
    state = play(build_phase(players), Build(TS, ("Hero", "Well")))
    assert hand(state, 1) == ("Chapel", "Tower")
    # A violet building costs its full price.
    state = build_phase(players)
    with pytest.raises(RuleViolation) as err:
        play(state, Build("Tower", ("Well", "Chapel")))
    assert err.value.reason == "Tower costs 3 after discounts, but 2 were paid"


def test_smithy_makes_an_indigo_plant_free_not_negative():
    players = [seat(), seat(hand=(IP,), buildings=(IP, "Smithy"))]
    state = play(build_phase(players, draw=("Hero",)), Build(IP, ()))
    assert state.players[1].buildings == (IP, "Smithy", IP)
    assert hand(state, 1) == () and state.draw_pile == ("Hero",)


# -- gold mine ---------------------------------------------------------------------------------

DIFFERENT = ("Indigo plant", "Sugar mill", "Tobacco storage", "Coffee roaster")  # costs 1, 2, 3, 4
REPEATED = ("Smithy", "Well", "Archive", "Chapel")  # costs 1, 2, 1, 3


def test_gold_mine_all_costs_differ_keeps_one_discards_three():
    players = [seat(), seat(buildings=(IP, "Gold mine")), seat()]
    state = play(at_role(players, draw=("Hero", *DIFFERENT, "Tower")), ChooseRole(Role.PROSPECTOR))
    assert hand(state, 0) == ("Hero",)
    assert state.current_seat == 1 and state.looking == DIFFERENT
    state = play(state, GoldMine(TS))
    assert hand(state, 1) == (TS,)
    assert state.discard == (IP, SM, CR)
    assert state.looking == () and state.draw_pile == ("Tower",) and state.stage is Stage.ROLE


def test_gold_mine_repeated_costs_discards_all_four_without_a_decision():
    players = [seat(), seat(buildings=(IP, "Gold mine"))]
    state = play(at_role(players, draw=("Hero", *REPEATED, "Tower")), ChooseRole(Role.PROSPECTOR))
    assert state.stage is Stage.ROLE and state.role_turn == 1
    assert hand(state, 1) == ()
    assert state.discard == REPEATED and state.draw_pile == ("Tower",)


def test_gold_mine_pass_discards_all_four():
    players = [seat(), seat(buildings=(IP, "Gold mine"))]
    state = play(at_role(players, draw=("Hero", *DIFFERENT)), ChooseRole(Role.PROSPECTOR), Pass())
    assert hand(state, 1) == () and state.discard == DIFFERENT


def test_gold_mine_every_owner_clockwise_from_the_prospector_who_draws_first():
    # Seat 2 chooses; owners are seats 0, 2 and 3; order: 2 (the prospector), 3, 0.
    players = [seat(buildings=(IP, "Gold mine")), seat(), seat(buildings=(IP, "Gold mine")),
               seat(buildings=(IP, "Gold mine"))]
    first = ("Smithy", "Well", "Chapel", "Quarry")  # 1 2 3 4
    second = ("Archive", "Crane", "Tower", "Library")  # 1 2 3 5
    third = ("Gold mine", "Trading post", "Market hall", "Hero")  # 1 2 4 5
    state = play(at_role(players, chooser=2, draw=("Palace", *first, *second, *third)), ChooseRole(Role.PROSPECTOR))
    assert hand(state, 2) == ("Palace",)
    assert (state.current_seat, state.looking) == (2, first)
    state = play(state, GoldMine("Chapel"))
    assert (state.current_seat, state.looking) == (3, second)
    state = play(state, GoldMine("Library"))
    assert (state.current_seat, state.looking) == (0, third)
    state = play(state, Pass())
    assert hand(state, 2) == ("Chapel", "Palace")
    assert hand(state, 3) == ("Library",)
    assert hand(state, 0) == ()
    assert state.discard == ("Smithy", "Well", "Quarry", "Archive", "Crane", "Tower", *third)


def test_gold_mine_with_fewer_than_four_cards_left_finds_nothing():
    players = [seat(), seat(buildings=(IP, "Gold mine"))]
    state = play(at_role(players, draw=("Hero", SM, TS, CR)), ChooseRole(Role.PROSPECTOR))
    assert hand(state, 1) == () and state.discard == (SM, TS, CR) and state.stage is Stage.ROLE


# -- archive -----------------------------------------------------------------------------------


def test_archive_drawn_cards_join_the_hand_then_discard_from_the_whole_hand():
    players = [seat(), seat(hand=("Hero", "Tower"), buildings=(IP, "Archive"))]
    state = play(at_role(players, draw=("Well", "Crane", "Chapel", "Quarry", "Palace", "Library", "Smithy")),
                 ChooseRole(Role.COUNCILLOR), Councillor(keep=("Well",)))
    assert state.current_seat == 1 and state.looking == ("Library", "Smithy")
    state = play(state, Councillor(discard=("Hero",)))  # an old card instead of a drawn one
    assert hand(state, 1) == ("Smithy", "Tower", "Library")
    assert state.discard == ("Crane", "Chapel", "Quarry", "Palace", "Hero")


def test_archive_may_discard_all_drawn_cards():
    players = [seat(), seat(hand=("Hero",), buildings=(IP, "Archive"))]
    state = play(at_role(players, draw=("Well", "Crane", "Chapel", "Quarry", "Palace", "Library", "Smithy")),
                 ChooseRole(Role.COUNCILLOR), Councillor(keep=()), Councillor(discard=("Library", "Smithy")))
    assert hand(state, 1) == ("Hero",)


# -- poor house --------------------------------------------------------------------------------


def test_poor_house_draws_when_one_card_is_left():
    players = [seat(hand=(SM, "Hero", "Tower"), buildings=(IP, "Poor house"))]
    state = play(build_phase(players, draw=("Well", "Crane")), Build(SM, ("Hero",)))
    assert hand(state, 0) == ("Well", "Tower")
    assert state.draw_pile == ("Crane",)


def test_poor_house_draws_when_no_card_is_left():
    players = [seat(hand=(SM, "Hero"), buildings=(IP, "Poor house"))]
    state = play(build_phase(players, draw=("Well", "Crane")), Build(SM, ("Hero",)))
    assert hand(state, 0) == ("Well",)


def test_poor_house_does_not_draw_with_two_cards_left():
    players = [seat(hand=(SM, "Hero", "Tower", "Chapel"), buildings=(IP, "Poor house"))]
    state = play(build_phase(players, draw=("Well",)), Build(SM, ("Hero",)))
    assert hand(state, 0) == ("Chapel", "Tower") and state.draw_pile == ("Well",)


def test_poor_house_gives_nothing_without_a_build():
    players = [seat(hand=(IP,), buildings=(IP, "Poor house"))]
    state = play(build_phase(players, draw=("Well",)), Pass())
    assert hand(state, 0) == (IP,) and state.draw_pile == ("Well",)


def test_poor_house_counts_after_the_carpenter_card():
    # Smithy is free for the builder; one card left, the carpenter makes it two: no poor-house card.
    players = [seat(hand=("Smithy", "Hero"), buildings=(IP, "Carpenter", "Poor house"))]
    state = play(build_phase(players, draw=("Well", "Crane")), Build("Smithy", ()))
    assert hand(state, 0) == ("Well", "Hero")
    assert state.draw_pile == ("Crane",)


def test_poor_house_draws_after_the_carpenter_when_still_at_one():
    players = [seat(hand=("Smithy",), buildings=(IP, "Carpenter", "Poor house"))]
    state = play(build_phase(players, draw=("Well", "Crane", "Tower")), Build("Smithy", ()))
    assert hand(state, 0) == ("Well", "Crane")
    assert state.draw_pile == ("Tower",)


# -- black market ------------------------------------------------------------------------------


def test_black_market_pays_two_goods_and_a_card():
    players = [seat(), seat(hand=(TS, "Hero", "Tower"), buildings=(IP, SM, "Black market"),
                            goods={0: "Well", 1: "Crane"})]
    state = play(build_phase(players), Build(TS, ("Hero",), (Good.INDIGO, Good.SUGAR)))
    assert state.players[1].buildings == (IP, SM, "Black market", TS)
    assert state.players[1].goods == (None, None, None, None)
    assert hand(state, 1) == ("Tower",)
    assert state.discard == ("Hero", "Well", "Crane")


def test_black_market_pays_one_good():
    players = [seat(), seat(hand=(SM, "Hero"), buildings=(IP, IP, "Black market"), goods={1: "Well"})]
    state = play(build_phase(players), Build(SM, ("Hero",), (Good.INDIGO,)))
    assert state.players[1].goods == (None, None, None, None)
    assert hand(state, 1) == ()
    assert state.discard == ("Hero", "Well")


def test_black_market_at_most_two_goods():
    players = [seat(), seat(hand=(SS, "Hero", "Tower"), buildings=(IP, IP, IP, "Black market"),
                            goods={0: "Well", 1: "Crane", 2: "Chapel"})]
    with pytest.raises(RuleViolation) as err:
        play(build_phase(players), Build(SS, ("Hero", "Tower"), (Good.INDIGO, Good.INDIGO, Good.INDIGO)))
    assert (err.value.rule, err.value.reason) == ("black_market.limit", "the black market takes at most 2 goods, not 3")


def test_black_market_lets_a_player_without_cards_build():
    # Nothing to pay with in hand: only the goods make the build affordable, so the seat is not skipped.
    players = [seat(), seat(hand=(SM,), buildings=(IP, IP, "Black market"), goods={0: "Well", 1: "Crane"})]
    state = build_phase(players)
    assert state.current_seat == 1
    assert rules.legal_moves(state) == [Build(SM, (), (Good.INDIGO, Good.INDIGO)), Pass()]


# -- trading post, market stand, market hall ---------------------------------------------------


def _sellers(buildings_extra, goods_count, trader=False, library=False):
    buildings = (IP, SM, TS, CR, *buildings_extra)
    goods = {i: f for i, f in enumerate(("Palace", "City hall", "Guild hall", "Triumphal arch")[:goods_count])}
    if library:
        buildings = (*buildings, "Library")
    me = seat(buildings=buildings, goods=goods)
    other = seat()
    players = [me, other] if trader else [other, me]
    return players, 0 if trader else 1


def test_trading_post_sells_one_more_good_for_a_non_trader():
    players, me = _sellers(("Trading post",), 3)
    draw = ("Hero", "Tower", "Well", "Chapel", "Crane")
    state = play(at_role(players, draw=draw), ChooseRole(Role.TRADER))
    assert state.current_seat == me
    assert rules.legal_moves(state)[-2:] == [Sell((Good.SUGAR, Good.TOBACCO)), Pass()]
    with pytest.raises(RuleViolation, match=r"may sell at most 2 goods, not 3"):
        play(state, Sell((Good.INDIGO, Good.SUGAR, Good.TOBACCO)))
    state = play(state, Sell((Good.INDIGO, Good.TOBACCO)))  # tile 1: 1 + 1
    assert hand(state, me) == ("Tower", "Hero")


def test_trading_post_trader_sells_three():
    players, me = _sellers(("Trading post",), 4, trader=True)
    state = play(at_role(players, draw=("Hero",) * 6), ChooseRole(Role.TRADER))
    with pytest.raises(RuleViolation, match=r"may sell at most 3 goods, not 4"):
        play(state, Sell((Good.INDIGO, Good.SUGAR, Good.TOBACCO, Good.COFFEE)))
    state = play(state, Sell((Good.INDIGO, Good.SUGAR, Good.COFFEE)))  # 1 + 1 + 2
    assert hand(state, me) == ("Hero",) * 4


def test_trading_post_trader_with_library_sells_four():
    players, me = _sellers(("Trading post",), 4, trader=True, library=True)
    state = play(at_role(players, draw=("Hero",) * 6), ChooseRole(Role.TRADER),
                 Sell((Good.INDIGO, Good.SUGAR, Good.TOBACCO, Good.COFFEE)))  # 1 + 1 + 1 + 2
    assert hand(state, me) == ("Hero",) * 5


def test_market_stand_draws_one_for_two_goods_sold():
    players, me = _sellers(("Market stand",), 2, trader=True)
    state = play(at_role(players, draw=("Hero", "Tower", "Well", "Chapel")), ChooseRole(Role.TRADER),
                 Sell((Good.INDIGO, Good.SUGAR)))
    assert hand(state, me) == ("Well", "Tower", "Hero")  # 1 + 1 + 1
    assert state.draw_pile == ("Chapel",)


def test_market_stand_nothing_for_one_good():
    players, me = _sellers(("Market stand",), 2, trader=True)
    state = play(at_role(players, draw=("Hero", "Tower")), ChooseRole(Role.TRADER), Sell((Good.SUGAR,)))
    assert hand(state, me) == ("Hero",)


def test_market_hall_draws_one_more_once():
    players, me = _sellers(("Market hall",), 2, trader=True)
    state = play(at_role(players, draw=("Hero", "Tower", "Well", "Chapel")), ChooseRole(Role.TRADER),
                 Sell((Good.INDIGO, Good.SUGAR)))
    assert hand(state, me) == ("Well", "Tower", "Hero")  # 1 + 1 + 1 (once, not per good)
    players, me = _sellers(("Market hall",), 1)
    state = play(at_role(players, draw=("Hero", "Tower", "Well")), ChooseRole(Role.TRADER), Sell((Good.INDIGO,)))
    assert hand(state, me) == ("Tower", "Hero")


def test_market_stand_and_market_hall_together():
    players, me = _sellers(("Market stand", "Market hall"), 2, trader=True)
    state = play(at_role(players, draw=("Hero",) * 6), ChooseRole(Role.TRADER), Sell((Good.INDIGO, Good.SUGAR)))
    assert len(hand(state, me)) == 1 + 1 + 1 + 1


# -- well and aqueduct -------------------------------------------------------------------------


def test_well_draws_one_for_two_goods_produced():
    players = [seat(buildings=(IP, SM, "Well"))]
    state = play(at_role(players + [seat(goods={0: "Hero"})], draw=("Tower", "Crane", "Chapel", "Quarry")),
                 ChooseRole(Role.PRODUCER), Produce((Good.SUGAR, Good.INDIGO)))
    assert state.players[0].goods == ("Crane", "Tower", None)  # sugar gets the top card
    assert hand(state, 0) == ("Chapel",)
    assert state.draw_pile == ("Quarry",)


def test_well_nothing_for_one_good():
    players = [seat(buildings=(IP, SM, "Well")), seat(goods={0: "Hero"})]
    state = play(at_role(players, draw=("Tower", "Crane")), ChooseRole(Role.PRODUCER), Produce((Good.SUGAR,)))
    assert hand(state, 0) == () and state.draw_pile == ("Crane",)


def test_aqueduct_produces_one_more_and_works_with_the_well_for_a_non_producer():
    players = [seat(goods={0: "Hero"}), seat(buildings=(IP, SM, TS, "Aqueduct", "Well"))]
    state = play(at_role(players, draw=("Tower", "Crane", "Chapel", "Quarry")), ChooseRole(Role.PRODUCER))
    assert state.current_seat == 1
    with pytest.raises(RuleViolation, match=r"may produce at most 2 goods, not 3"):
        play(state, Produce((Good.INDIGO, Good.SUGAR, Good.TOBACCO)))
    state = play(state, Produce((Good.TOBACCO, Good.INDIGO)))
    assert state.players[1].goods == ("Crane", None, "Tower", None, None)
    assert hand(state, 1) == ("Chapel",)


def test_aqueduct_producer_produces_three():
    players = [seat(buildings=(IP, SM, TS, CR, "Aqueduct")), seat(goods={0: "Hero"})]
    state = play(at_role(players, draw=("Tower", "Crane", "Chapel", "Quarry")), ChooseRole(Role.PRODUCER))
    with pytest.raises(RuleViolation, match=r"may produce at most 3 goods, not 4"):
        play(state, Produce((Good.INDIGO, Good.SUGAR, Good.TOBACCO, Good.COFFEE)))
    state = play(state, Produce((Good.INDIGO, Good.SUGAR, Good.TOBACCO)))
    assert state.players[0].goods == ("Tower", "Crane", "Chapel", None, None)


# -- crane -------------------------------------------------------------------------------------


def test_crane_pays_the_cost_difference_and_covers_the_old_building():
    players = [seat(), seat(hand=(CR, "Hero", "Tower", "Well"), buildings=(IP, SM, "Crane"))]
    state = play(build_phase(players), Build(CR, ("Hero", "Tower"), replace=SM))
    p = state.players[1]
    assert p.buildings == (IP, CR, "Crane")  # built in place
    assert p.covered == (SM,)
    assert p.hand == ("Well",)
    assert state.discard == ("Hero", "Tower")
    assert score_player(p).parts["buildings"] == 1 + 2 + 1  # the sugar mill no longer counts


def test_crane_cost_never_below_zero():
    players = [seat(), seat(hand=("Smithy",), buildings=(IP, TS, "Crane"))]
    state = play(build_phase(players), Build("Smithy", (), replace=TS))
    assert state.players[1].buildings == (IP, "Smithy", "Crane")
    assert state.players[1].covered == (TS,)


def test_crane_discards_the_good_on_the_covered_building():
    players = [seat(), seat(hand=(SS, "Hero", "Tower", "Well"), buildings=(TS, "Crane"), goods={0: "Palace"})]
    state = play(build_phase(players), Build(SS, ("Hero", "Tower"), replace=TS))
    assert state.players[1].goods == (None, None)
    assert state.discard == ("Hero", "Tower", "Palace")


def test_crane_covers_the_first_building_of_that_kind_without_a_good():
    players = [seat(), seat(hand=(SM, "Hero"), buildings=(IP, IP, "Crane", IP), goods={0: "Palace"})]
    state = play(build_phase(players), Build(SM, ("Hero",), replace=IP))
    assert state.players[1].buildings == (IP, SM, "Crane", IP)
    assert state.players[1].goods == ("Palace", None, None, None)
    assert state.discard == ("Hero",)


def test_crane_covers_the_first_one_when_all_have_goods():
    players = [seat(), seat(hand=(SM, "Hero"), buildings=(IP, "Crane", IP), goods={0: "Palace", 2: "Tower"})]
    state = play(build_phase(players), Build(SM, ("Hero",), replace=IP))
    assert state.players[1].buildings == (SM, "Crane", IP)
    assert state.players[1].goods == (None, None, "Tower")
    assert state.discard == ("Hero", "Palace")


def test_crane_not_over_itself_nor_the_same_building():
    players = [seat(), seat(hand=(SM, "Hero", "Tower"), buildings=(IP, SM, "Crane"))]
    state = build_phase(players)
    with pytest.raises(RuleViolation) as err:
        play(state, Build(SM, (), replace="Crane"))
    assert (err.value.rule, err.value.reason) == ("crane.target", "the crane cannot be built over")
    with pytest.raises(RuleViolation) as err:
        play(state, Build(SM, (), replace=SM))
    assert (err.value.rule, err.value.reason) == ("crane.target", "Sugar mill cannot be built over with the same building")


def test_covered_building_gives_no_discount_to_the_build_that_covers_it():
    # Over the smithy, a silver smelter costs 5 - 1 (smithy's cost), not 5 - 1 - 1.
    players = [seat(), seat(hand=(SS, "Hero", "Tower", "Well", "Chapel", "Crane"), buildings=(IP, "Smithy", "Crane"))]
    state = build_phase(players)
    with pytest.raises(RuleViolation) as err:
        play(state, Build(SS, ("Hero", "Tower", "Well"), replace="Smithy"))
    assert err.value.reason == "Silver smelter costs 4 after discounts over Smithy, but 3 were paid"
    state = play(state, Build(SS, ("Hero", "Tower", "Well", "Chapel"), replace="Smithy"))
    assert state.players[1].covered == ("Smithy",)
    # Over the quarry, a library costs 5 - 4 = 1, without the quarry's discount.
    players = [seat(), seat(hand=("Library", "Palace"), buildings=(IP, "Quarry", "Crane"))]
    assert rules.legal_moves(build_phase(players)) == [Build("Library", ("Palace",), replace="Quarry"), Pass()]


def test_covered_carpenter_and_poor_house_give_nothing():
    # Library (5) over the carpenter (3) costs 2: no carpenter card, the poor house still works.
    players = [seat(), seat(hand=("Library", "Well", "Crane"), buildings=(IP, "Carpenter", "Poor house", "Crane"))]
    state = play(build_phase(players, draw=("Hero", "Tower")), Build("Library", ("Crane", "Well"), replace="Carpenter"))
    assert state.players[1].buildings == (IP, "Library", "Poor house", "Crane")
    assert hand(state, 1) == ("Hero",)  # the poor house's card only
    players = [seat(), seat(hand=("Library", "Well", "Crane", "Chapel"), buildings=(IP, "Carpenter", "Poor house", "Crane"))]
    state = play(build_phase(players, draw=("Hero", "Tower")), Build("Library", ("Crane", "Well", "Chapel"), replace="Poor house"))
    assert hand(state, 1) == ("Hero",)  # the carpenter's card only, no poor house with 1 card


def test_covered_black_market_cannot_pay():
    players = [seat(), seat(hand=("Tower", "Hero"), buildings=(IP, "Black market", "Crane"), goods={0: "Well"})]
    with pytest.raises(RuleViolation) as err:
        play(build_phase(players), Build("Tower", (), (Good.INDIGO,), replace="Black market"))
    assert (err.value.rule, err.value.reason) == ("black_market.owned", "paying with goods needs a black market")


def test_black_market_cannot_pay_with_the_good_on_the_covered_building():
    players = [seat(), seat(hand=(SS, "Hero", "Tower", "Chapel"), buildings=(IP, "Black market", "Crane"),
                            goods={0: "Well"})]
    with pytest.raises(RuleViolation) as err:
        play(build_phase(players), Build(SS, ("Hero", "Tower", "Chapel"), (Good.INDIGO,), replace=IP))
    assert (err.value.rule, err.value.reason) == ("black_market.goods", "has 0 indigo, pays 1")


def test_covered_kind_may_be_built_again():
    players = [seat(), seat(hand=("Smithy", TS, "Hero", "Well", "Chapel"), buildings=(IP, "Smithy", "Crane"))]
    state = play(build_phase(players), Build(TS, ("Hero", "Well"), replace="Smithy"))
    assert state.players[1].buildings == (IP, TS, "Crane")
    assert state.players[1].covered == ("Smithy",)
    state = play(at_role(state.players), ChooseRole(Role.BUILDER))
    assert state.current_seat == 1
    assert rules.legal_moves(state) == [
        Build("Smithy", ("Chapel",)),
        Build("Smithy", (), replace=IP),
        Build("Smithy", (), replace=TS),
        Build("Chapel", (), replace=TS),
        Pass(),
    ]


def test_violet_building_once_per_player():
    players = [seat(), seat(hand=("Hero", "Tower", "Well", "Chapel", "Crane", "Quarry"), buildings=(IP, "Hero"))]
    with pytest.raises(RuleViolation) as err:
        play(build_phase(players), Build("Hero", ("Tower", "Well", "Chapel", "Crane", "Quarry")))
    assert (err.value.rule, err.value.reason) == ("builder.unique", "already owns a Hero (one of each violet building)")


# -- chapel and tower (round start) -------------------------------------------------------------


def test_chapel_tucks_a_hand_card_at_round_start():
    players = [seat(hand=("Hero", "Tower"), buildings=(IP, "Chapel"), chapel=("Well",)), seat()]
    state = position(players, stage=Stage.CHAPEL)
    assert state.current_seat == 0
    state = play(state, Chapel("Hero"))
    assert state.players[0].chapel == ("Well", "Hero")
    assert hand(state, 0) == ("Tower",)
    assert state.stage is Stage.ROLE


def test_tower_hand_limit_twelve():
    twelve = ("Hero",) * 12
    players = [seat(hand=twelve, buildings=(IP, "Tower")), seat(hand=twelve + ("Well",), buildings=(IP, "Tower"))]
    state = position(players, stage=Stage.HAND_LIMIT)
    assert state.current_seat == 1
    with pytest.raises(RuleViolation) as err:
        play(state, HandLimit(()))
    assert err.value.reason == "holds 13 cards with a limit of 12: must discard 1, not 0"
    state = play(state, HandLimit(("Well",)))
    assert len(hand(state, 1)) == 12 and state.stage is Stage.ROLE


# -- carpenter, prefecture, quarry --------------------------------------------------------------


def test_carpenter_draws_after_a_violet_building():
    players = [seat(), seat(hand=("Tower", "Hero", "Well", "Chapel", "Crane"), buildings=(IP, "Carpenter"))]
    state = play(build_phase(players, draw=("Palace", "Library")), Build("Tower", ("Hero", "Well", "Chapel")))
    assert hand(state, 1) == ("Crane", "Palace")
    assert state.discard == ("Hero", "Well", "Chapel")
    assert state.draw_pile == ("Library",)


def test_carpenter_nothing_for_a_production_building():
    players = [seat(), seat(hand=(SM, "Hero", "Well", "Chapel"), buildings=(IP, "Carpenter"))]
    state = play(build_phase(players, draw=("Palace",)), Build(SM, ("Hero", "Well")))
    assert hand(state, 1) == ("Chapel",) and state.draw_pile == ("Palace",)


def test_prefecture_keeps_two_of_the_drawn_cards():
    players = [seat(), seat(buildings=(IP, "Prefecture"))]
    state = play(at_role(players, draw=("Well", "Crane", "Chapel", "Quarry", "Palace", "Library", "Smithy")),
                 ChooseRole(Role.COUNCILLOR), Councillor(keep=("Well",)))
    assert rules.legal_moves(state) == [
        Councillor(keep=("Smithy", "Library")),
        Councillor(keep=("Smithy",)),
        Councillor(keep=("Library",)),
        Councillor(keep=()),
    ]
    state = play(state, Councillor(keep=("Library", "Smithy")))
    assert hand(state, 1) == ("Smithy", "Library")


def test_quarry_discounts_violet_buildings_only():
    players = [seat(), seat(hand=("Tower", "Hero", "Well", SM, "Chapel"), buildings=(IP, "Quarry"))]
    state = play(build_phase(players), Build("Tower", ("Hero", "Well")))
    assert hand(state, 1) == (SM, "Chapel")
    with pytest.raises(RuleViolation) as err:
        play(build_phase(players), Build(SM, ("Hero",)))
    assert err.value.reason == "Sugar mill costs 2 after discounts, but 1 was paid"


def test_quarry_builder_builds_a_crane_for_free():
    """Worked example: a builder with a quarry builds a crane for free."""
    players = [seat(hand=("Crane",), buildings=(IP, "Quarry")), seat()]
    state = play(build_phase(players, draw=("Hero",)), Build("Crane", ()))
    assert state.players[0].buildings == (IP, "Quarry", "Crane")
    assert hand(state, 0) == () and state.discard == () and state.draw_pile == ("Hero",)


# -- monuments ---------------------------------------------------------------------------------


@pytest.mark.parametrize("monument", ["Statue", "Victory column", "Hero"])
def test_monument_has_no_power_and_only_one_per_player(monument):
    cost = CARDS[monument].cost
    players = [seat(), seat(hand=(monument, *("Palace",) * cost), buildings=(IP,))]
    state = build_phase(players)
    moves = rules.legal_moves(state)
    assert moves == [Build(monument, ("Palace",) * cost), Pass()]
    state = play(state, moves[0])
    assert state.players[1].buildings == (IP, monument)
    assert score_player(state.players[1]).total == 1 + CARDS[monument].vp
    # A second copy cannot be built: the seat has no legal build and is skipped.
    players = [seat(), seat(hand=(monument, *("Palace",) * cost), buildings=(IP, monument))]
    state = build_phase(players)
    assert state.stage is Stage.ROLE and state.role_turn == 1


# -- a power works from the end of the builder phase it is built in ----------------------------


def test_new_carpenter_draws_nothing_for_itself():
    players = [seat(), seat(hand=("Carpenter", "Hero", "Well", "Chapel"), buildings=(IP,))]
    state = play(build_phase(players, draw=("Palace",)), Build("Carpenter", ("Hero", "Well", "Chapel")))
    assert hand(state, 1) == () and state.draw_pile == ("Palace",)


def test_new_poor_house_draws_nothing_for_itself():
    players = [seat(), seat(hand=("Poor house", "Hero", "Well"), buildings=(IP,))]
    state = play(build_phase(players, draw=("Palace",)), Build("Poor house", ("Hero", "Well")))
    assert hand(state, 1) == () and state.draw_pile == ("Palace",)


def test_new_smithy_works_from_the_next_builder_phase():
    players = [seat(), seat(hand=("Smithy", "Hero", SM, "Well", "Chapel"), buildings=(IP,))]
    state = play(build_phase(players), Build("Smithy", ("Hero",)))
    # Seat 1 chooses the next role: the builder again is taken, so play a fresh round's builder phase.
    assert hand(state, 1) == (SM, "Well", "Chapel")
    nxt = play(at_role(state.players), ChooseRole(Role.BUILDER))
    assert nxt.current_seat == 1
    assert rules.legal_moves(nxt)[0] == Build(SM, ("Well",))
