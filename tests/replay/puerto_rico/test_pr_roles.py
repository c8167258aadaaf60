"""Role choice, round end, and the settler, mayor, builder, craftsman, trader and prospector phases."""

from __future__ import annotations

import pytest

from replay.errors import FieldError, RuleViolation
from replay.puerto_rico import rules
from replay.puerto_rico.moves import Build, ChooseRole, ExtraGood, Hacienda, Mayor, Pass, Sell, Settle
from replay.puerto_rico.state import Stage

from .positions import C, I, K, S, T, at_role, defaults, goods, play, seat, supply


def _raises(state, move, rule: str, reason: str) -> None:
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, move)
    assert (err.value.rule, err.value.reason) == (rule, reason)


# -- roles and rounds -----------------------------------------------------------------------------


def test_role_doubloons_round_end_and_governor() -> None:
    state = at_role([seat(), seat(), seat()], 0, role_doubloons=(0, 0, 2, 0, 0, 0))
    state = play(state, ChooseRole("builder"))
    # The builder pays 2 less... it takes the 2 doubloons on the card first, then builds.
    assert state.players[0].doubloons == 2
    assert state.role_doubloons == (0, 0, 0, 0, 0, 0)
    state = play(state, Pass())  # seat 0 could build a small indigo plant for 0; passes
    # Seats 1 and 2 have no money for anything: skipped.
    assert state.stage is Stage.ROLE and state.current_seat == 1
    _raises(state, ChooseRole("builder"), "role.taken", "the builder was already chosen this round")
    _raises(state, Build("Harbor"), "turn.kind", "seat 1 must choose a role, not 'build Harbor'")
    _raises(state, ChooseRole("prospector"), "role.unknown", "there is no prospector card in a 3-player game")
    state = play(state, ChooseRole("craftsman"), ChooseRole("trader"))
    # Round end: a doubloon on each of the three unchosen cards; seat 1 is governor of round 2.
    assert state.round == 2 and state.governor == 1 and state.current_seat == 1
    assert state.role_doubloons == (1, 1, 0, 0, 0, 1)
    assert state.roles_taken == ()


def test_prospector() -> None:
    state = at_role([seat(doubloons=1), seat(), seat(), seat()], 0)
    assert state.role_cards == ("settler", "mayor", "builder", "craftsman", "trader", "captain", "prospector")
    state = play(state, ChooseRole("prospector"))
    assert state.players[0].doubloons == 2
    assert state.stage is Stage.ROLE and state.current_seat == 1
    _raises(state, ChooseRole("prospector_2"), "role.unknown", "there is no prospector_2 card in a 4-player game")
    five = at_role([seat() for _ in range(5)], 0, role_doubloons=(0, 0, 0, 0, 0, 0, 0, 3))
    five = play(five, ChooseRole("prospector_2"))
    assert five.players[0].doubloons == 4
    assert rules.legal_moves(five)[-1] == ChooseRole("prospector")


# -- settler ---------------------------------------------------------------------------------------


def test_settler_takes_and_refills() -> None:
    state = at_role([seat(), seat(), seat()], 0)
    state = play(state, ChooseRole("settler"))
    assert rules.legal_moves(state) == [
        Settle("corn"), Settle("indigo"), Settle("sugar"), Settle("coffee"), Settle("quarry"), Pass()
    ]
    state = play(state, Settle("coffee"))
    assert rules.legal_moves(state) == [Settle("corn"), Settle("indigo"), Settle("sugar"), Pass()]
    _raises(state, Settle("quarry"), "settler.quarry",
            "only the settler or the owner of an occupied construction hut may take a quarry")
    _raises(state, Settle("coffee"), "settler.face_up", "no coffee plantation is face up (face up: corn, indigo, sugar)")
    state = play(state, Settle("corn"), Settle("indigo"))
    assert [p.island for p in state.players] == [("coffee",), ("corn",), ("indigo",)]
    assert state.players[0].island_workers == (0,)
    # The untaken sugar goes to the discard pile; 4 new tiles from the stack.
    assert state.plantation_discard == ("sugar",)
    assert state.face_up == ("tobacco",) * 4
    assert len(state.plantation_stack) == 6


def test_settler_quarry_and_construction_hut() -> None:
    players = [seat(), seat(city=["Construction hut"]), seat(city=["Construction hut"], workers=[0])]
    state = play(at_role(players, 0, quarries=2), ChooseRole("settler"), Settle("quarry"))
    assert Settle("quarry") in rules.legal_moves(state)
    state = play(state, Settle("quarry"))
    assert state.quarries == 0
    assert Settle("quarry") not in rules.legal_moves(state)
    state = play(at_role(players, 0, quarries=0), ChooseRole("settler"))
    _raises(state, Settle("quarry"), "settler.no_quarry", "no quarries are left")


def test_hacienda_then_plantation() -> None:
    players = [seat(city=["Hacienda"]), seat(city=["Hacienda"], workers=[0]), seat()]
    state = play(at_role(players, 0, stack=("tobacco", "sugar")), ChooseRole("settler"))
    assert rules.legal_moves(state)[0] == Hacienda()
    state = play(state, Hacienda())
    assert state.players[0].island == ("tobacco",)
    assert state.current_seat == 0
    assert Hacienda() not in rules.legal_moves(state)
    _raises(state, Hacienda(), "hacienda.used", "the hacienda was already used this turn")
    state = play(state, Settle("coffee"))
    assert state.players[0].island == ("tobacco", "coffee")
    _raises(state, Hacienda(), "hacienda.owned", "drawing a face-down plantation needs an occupied hacienda")


def test_hospice_colonist_from_supply_then_ship() -> None:
    players = [seat(city=["Hospice"]), seat(city=["Hospice"]), seat(city=["Hospice", "Hacienda"])]
    state = at_role(players, 0, colonist_supply=1, colonist_ship=1)
    state = play(state, ChooseRole("settler"), Settle("quarry"), Settle("corn"))
    assert state.players[0].island_workers == (1,)
    assert state.players[1].island_workers == (1,)
    assert (state.colonist_supply, state.colonist_ship) == (0, 0)
    # No colonist left anywhere: the tile stays empty; the hacienda's tile never gets one.
    state = play(state, Hacienda(), Settle("coffee"))
    assert state.players[2].island == ("tobacco", "coffee")
    assert state.players[2].island_workers == (0, 0)


def test_full_island_is_skipped() -> None:
    players = [seat(island=["corn"] * 12), seat(), seat()]
    state = play(at_role(players, 1), ChooseRole("settler"), Settle("corn"), Pass())
    # Seat 0's island is full: it has nothing to decide.
    assert state.stage is Stage.ROLE and state.current_seat == 2


def test_reshuffle_recorded_missing_and_wrong() -> None:
    players = [seat(), seat(), seat()]
    base = dict(face_up=("corn", "indigo", "sugar", "coffee"), stack=("tobacco",))
    moves = (ChooseRole("settler"), Settle("corn"), Settle("indigo"), Settle("sugar"))
    state = play(at_role(players, 0, reshuffles=[["coffee", "corn"]], discard=("corn",), **base), *moves)
    # Discard: corn + the untaken coffee, reshuffled after the stack's one tobacco is drawn.
    assert state.face_up == ("tobacco", "coffee", "corn")
    assert state.reshuffles_used == (("coffee", "corn"),)
    assert state.plantation_discard == () and state.plantation_stack == ()
    with pytest.raises(FieldError) as err:
        play(at_role(players, 0, discard=("corn",), **base), *moves)
    assert err.value.path == "setup.reshuffles"
    assert err.value.reason == (
        "the plantation stack runs out at move 5 and the log records 0 reshuffle order(s); reshuffle 1 is missing"
    )
    with pytest.raises(FieldError) as err:
        play(at_role(players, 0, reshuffles=[["coffee", "sugar"]], discard=("corn",), **base), *moves)
    assert err.value.path == "setup.reshuffles[0]"
    assert err.value.reason == (
        "is not an order of the 2 discarded plantations at move 5: missing 1x corn; too many 1x sugar"
    )


# -- mayor -----------------------------------------------------------------------------------------


def test_mayor_privilege_and_colonists_dealt_clockwise() -> None:
    state = at_role([seat(), seat(), seat()], 1, colonist_ship=5, colonist_supply=10)
    state = play(state, ChooseRole("mayor"))
    # Seat 1 (mayor) gets the privilege colonist and the 1st and 4th from the ship; seat 2 the 2nd and
    # 5th; seat 0 the 3rd. Nobody has a circle: all stay in San Juan without a decision.
    assert [p.san_juan for p in state.players] == [1, 3, 2]
    # Refill: no empty building circles, so the minimum of one per player.
    assert (state.colonist_ship, state.colonist_supply) == (3, 6)
    assert state.stage is Stage.ROLE


def test_mayor_arrangement_choices_and_errors() -> None:
    players = [
        seat(island=["corn", "indigo"], occupied=[0, 0], city=["Indigo plant"], workers=[0]),
        seat(city=["Coffee roaster", "Harbor"], workers=[0, 0]),
        seat(),
    ]
    state = play(at_role(players, 0, colonist_ship=3, colonist_supply=20), ChooseRole("mayor"))
    assert state.players[0].san_juan == 2
    assert list(rules.legal_moves(state)) == [
        Mayor.of({"corn": 1, "indigo": 1}, {}),
        Mayor.of({"corn": 1}, {"Indigo plant": 1}),
        Mayor.of({"indigo": 1}, {"Indigo plant": 1}),
        Mayor.of({}, {"Indigo plant": 2}),
    ]
    _raises(state, Mayor.of({"corn": 1}, {}), "mayor.count",
            "must place 2 colonists (owns 2, 5 circles): no colonist may stay in San Juan while a circle is "
            "empty, but 1 was placed")
    _raises(state, Mayor.of({"corn": 2}, {}), "mayor.plantation", "has 1 corn plantation, cannot occupy 2")
    _raises(state, Mayor.of({}, {"Harbor": 1, "Indigo plant": 1}), "mayor.building", "owns no Harbor")
    _raises(state, Mayor.of({}, {"Indigo plant": 4}), "mayor.building", "Indigo plant has 3 circles, cannot hold 4")
    _raises(state, Mayor.of({"corn": 1, "indigo": 1}, {"Indigo plant": 1}), "mayor.count",
            "places 3 colonists but owns only 2")
    state = play(state, Mayor.of({"indigo": 1}, {"Indigo plant": 1}))
    assert state.players[0].island_workers == (0, 1)
    assert state.players[0].city_workers == (1,)
    assert state.players[0].san_juan == 0
    # Seat 1 has one colonist and three circles on two buildings: a decision.
    assert state.current_seat == 1
    state = play(state, Mayor.of({}, {"Harbor": 1}))
    # Seat 2 has a colonist and no circle: it stays in San Juan. Refill: empty circles 2 (Indigo
    # plant) + 2 (Coffee roaster) = 4, more than the 3 players.
    assert state.players[2].san_juan == 1
    assert (state.colonist_ship, state.colonist_supply) == (4, 15)


def test_mayor_forced_when_colonists_fill_every_circle() -> None:
    players = [seat(island=["corn"], occupied=[0], city=["Small market"], workers=[0], san_juan=2), seat(), seat()]
    state = play(at_role(players, 0, colonist_ship=3), ChooseRole("mayor"))
    # 4 colonists, 2 circles: both filled, 2 in San Juan, without a move.
    assert state.players[0].island_workers == (1,) and state.players[0].city_workers == (1,)
    assert state.players[0].san_juan == 2
    assert state.stage is Stage.ROLE


def test_colonist_shortage_ends_game_after_round() -> None:
    players = [seat(), seat(), seat()]
    state = play(at_role(players, 0, colonist_ship=3, colonist_supply=3), ChooseRole("mayor"))
    # Privilege takes 1: 2 left, fewer than the 3 needed.
    assert state.end == ("colonists",)
    assert (state.colonist_ship, state.colonist_supply) == (2, 0)
    state = play(state, ChooseRole("craftsman"))
    assert state.stage is Stage.ROLE
    state = play(state, ChooseRole("trader"))
    assert state.stage is Stage.OVER


def test_mayor_privilege_needs_supply() -> None:
    state = play(at_role([seat(), seat(), seat()], 0, colonist_ship=3, colonist_supply=0), ChooseRole("mayor"))
    assert [p.san_juan for p in state.players] == [1, 1, 1]


# -- builder ---------------------------------------------------------------------------------------


def test_builder_privilege_and_quarries_capped_by_column() -> None:
    quarries = ["quarry"] * 4
    players = [
        seat(doubloons=10, island=quarries, occupied=[1, 1, 1, 0]),
        seat(doubloons=10, island=quarries, occupied=[1, 1, 1, 0]),
        seat(doubloons=10),
    ]
    state = play(at_role(players, 0), ChooseRole("builder"))
    assert rules.build_cost(state, 0, "Small market") == 0
    assert rules.build_cost(state, 0, "Hospice") == 1  # 4 - 1 - 2 (column 2)
    assert rules.build_cost(state, 0, "University") == 4  # 8 - 1 - 3
    assert rules.build_cost(state, 0, "Guild hall") == 6  # 10 - 1 - 3 (3 occupied quarries)
    assert rules.build_cost(state, 1, "Hospice") == 2
    assert rules.build_cost(state, 1, "Guild hall") == 7
    assert rules.build_cost(state, 2, "Guild hall") == 10
    state = play(state, Build("Guild hall"), Build("Wharf"))
    assert state.players[0].doubloons == 4 and state.players[1].doubloons == 4
    assert state.players[0].city == ("Guild hall",) and state.players[0].city_workers == (0,)
    _raises(state, Build("Guild hall"), "builder.supply", "no Guild hall is left to build")
    state = play(state, Build("Harbor"))
    assert state.players[2].doubloons == 2


def test_builder_errors() -> None:
    players = [
        seat(doubloons=5, city=["Harbor"]),
        seat(doubloons=20, city=["Guild hall", "Residence", "Fortress", "Customs house", "City hall", "Small market"]),
        seat(),
    ]
    state = play(at_role(players, 0), ChooseRole("builder"))
    _raises(state, Build("Harbor"), "builder.unique", "already owns a Harbor (one of each building)")
    _raises(state, Build("Wharf"), "builder.cost", "Wharf costs 8 doubloons, has 5")
    state = play(state, Pass())
    assert state.players[1].city_spaces == 11
    _raises(state, Build("Small market"), "builder.unique",
            "already owns a Small market (one of each building)")
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, Build("Guild hall"))
    assert err.value.rule == "builder.unique"


def test_large_building_needs_two_spaces_and_twelfth_space_ends() -> None:
    city = ["Small indigo plant", "Small sugar mill", "Indigo plant", "Sugar mill", "Tobacco storage",
            "Coffee roaster", "Small market", "Hacienda", "Construction hut", "Small warehouse", "Hospice"]
    players = [seat(doubloons=20, city=city), seat(doubloons=20, city=city[:10]), seat()]
    state = play(at_role(players, 0), ChooseRole("builder"))
    _raises(state, Build("Guild hall"), "builder.space", "Guild hall needs 2 city spaces, 1 is free")
    state = play(state, Build("Office"))
    assert state.end == ("city",)
    state = play(state, Build("Residence"))
    assert state.players[1].city_spaces == 12 and len(state.players[1].city) == 11
    # The round goes on; the game ends at its end.
    state = play(state, ChooseRole("trader"))
    assert state.stage is Stage.ROLE
    state = play(state, ChooseRole("craftsman"))
    assert state.stage is Stage.OVER


def test_university_colonist() -> None:
    players = [seat(doubloons=5, city=["University"]), seat(doubloons=5, city=["University"]), seat()]
    state = play(at_role(players, 0, colonist_supply=1, colonist_ship=1), ChooseRole("builder"),
                 Build("Small market"), Build("Small market"))
    assert state.players[0].city_workers == (1, 1)
    assert state.players[1].city_workers == (1, 1)
    assert (state.colonist_supply, state.colonist_ship) == (0, 0)


# -- craftsman -------------------------------------------------------------------------------------


def test_production_limits_and_extra_good() -> None:
    craftsman = seat(
        island=["corn", "corn", "indigo", "indigo", "indigo", "sugar"], occupied=[1, 1, 1, 1, 0, 1],
        city=["Small indigo plant", "Indigo plant", "Sugar mill"], workers=[1, 1, 0],
    )
    state = defaults(play(at_role([craftsman, seat(), seat()], 0), ChooseRole("craftsman")))
    assert rules.production(craftsman) == [2, 2, 0, 0, 0]
    assert goods(state, 0) == {"corn": 2, "indigo": 2}
    assert rules.legal_moves(state) == [ExtraGood(C), ExtraGood(I), Pass()]
    _raises(state, ExtraGood(K), "craftsman.extra_kind", "did not produce coffee this phase (produced: corn, indigo)")
    state = play(state, ExtraGood(I))
    assert goods(state, 0) == {"corn": 2, "indigo": 3}
    assert supply(state, I) == 11 - 3


def test_supply_runs_out_in_seat_order_from_craftsman() -> None:
    producer = seat(island=["coffee"], city=["Coffee roaster"], workers=[1])
    state = defaults(play(at_role([producer, producer, producer], 1, goods_supply={K: 2}), ChooseRole("craftsman")))
    # Seat 1 (craftsman) and seat 2 get the two coffees; seat 0 goes without; no coffee is left for
    # the extra good, so there is nothing to decide.
    assert [goods(state, s) for s in range(3)] == [{}, {"coffee": 1}, {"coffee": 1}]
    assert state.stage is Stage.ROLE


def test_factory() -> None:
    everything = seat(
        island=["corn", "indigo", "sugar", "tobacco", "coffee"],
        city=["Small indigo plant", "Small sugar mill", "Tobacco storage", "Coffee roaster", "Factory"],
        workers=[1, 1, 1, 1, 1],
    )
    three = seat(island=["corn", "indigo", "sugar"], city=["Small indigo plant", "Small sugar mill", "Factory"])
    two = seat(island=["corn", "indigo"], city=["Small indigo plant", "Factory"])
    state = play(defaults(play(at_role([everything, three, two], 0), ChooseRole("craftsman"))), Pass())
    assert [p.doubloons for p in state.players] == [5, 2, 1]


# -- trader ----------------------------------------------------------------------------------------


def test_trader_prices_and_markets() -> None:
    players = [
        seat(goods={K: 1, C: 1}),
        seat(goods={T: 1, K: 1}, city=["Small market"]),
        seat(goods={S: 1}, city=["Small market", "Large market"]),
    ]
    state = play(at_role(players, 0), ChooseRole("trader"))
    assert rules.legal_moves(state) == [Sell(C), Sell(K), Pass()]
    state = play(state, Sell(K))
    assert state.players[0].doubloons == 5
    _raises(state, Sell(K), "trader.kind",
            "the trading house already holds coffee (only an occupied office sells a kind twice)")
    _raises(state, Sell(S), "trader.goods", "has no sugar to sell")
    state = play(state, Sell(T), Sell(S))
    assert [p.doubloons for p in state.players] == [5, 4, 5]
    # Not full: the trading house keeps its goods.
    assert state.trading_house == (K, T, S)


def test_office_and_full_house_emptied() -> None:
    players = [seat(goods={C: 1}), seat(goods={K: 2}, city=["Office"]), seat(goods={I: 1})]
    state = play(at_role(players, 0, trading_house=(K, T)), ChooseRole("trader"), Sell(C), Sell(K))
    # The house is full after seat 1: the phase ends, the house is emptied, seat 2 never sells.
    assert state.players[0].doubloons == 1  # corn 0 + 1 for the trader
    assert state.players[1].doubloons == 4
    assert state.trading_house == ()
    assert goods(state, 2) == {"indigo": 1}
    assert supply(state, K) == 9 + 2 and supply(state, C) == 10 + 1
    assert state.stage is Stage.ROLE
