"""Every San Juan role: its action for all, its privilege for the chooser, the library doubling each
privilege (once a round with 2 players), the worked examples of the rules, and ``legal_moves``."""

from __future__ import annotations

import pytest

from replay.errors import RuleViolation
from replay.san_juan import rules
from replay.san_juan.cards import Good, Role
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
    Sell,
)
from replay.san_juan.state import Stage

from .positions import CR, FILL, IP, SM, SS, TS, at_role, play, position, seat

DRAW = ("Well", "Crane", "Chapel", "Quarry", "Palace", "Library", "Smithy", "Tower", "Archive", "Hero",
        "Aqueduct", "Carpenter", "Prefecture")


def hand(state, i):
    return state.players[i].hand


# -- builder -------------------------------------------------------------------------------------


def test_builder_privilege_one_card_less_for_the_chooser_only():
    players = [seat(hand=(TS, "Hero", "Tower", "Chapel")), seat(hand=(TS, "Hero", "Tower", "Chapel"))]
    state = play(at_role(players), ChooseRole(Role.BUILDER), Build(TS, ("Hero", "Tower")))
    assert hand(state, 0) == ("Chapel",)
    with pytest.raises(RuleViolation) as err:
        play(state, Build(TS, ("Hero", "Tower")))
    assert err.value.reason == "Tobacco storage costs 3 after discounts, but 2 were paid"
    state = play(state, Build(TS, ("Hero", "Tower", "Chapel")))
    assert hand(state, 1) == ()
    assert state.discard == ("Hero", "Tower", "Hero", "Tower", "Chapel")


def test_builder_privilege_is_nothing_without_a_build():
    players = [seat(hand=(SM, "Hero")), seat()]
    state = play(at_role(players, draw=DRAW), ChooseRole(Role.BUILDER), Pass())
    assert hand(state, 0) == (SM, "Hero") and state.draw_pile == DRAW and state.discard == ()


def test_builder_with_library_two_cards_less():
    players = [seat(hand=(SS, "Hero", "Tower", "Chapel", "Well"), buildings=(IP, "Library")), seat()]
    state = play(at_role(players), ChooseRole(Role.BUILDER))
    assert state.library is True
    state = play(state, Build(SS, ("Hero", "Tower", "Chapel")))
    assert hand(state, 0) == ("Well",)


def test_library_declined_gives_the_single_privilege():
    players = [seat(hand=(SS, "Hero", "Tower", "Chapel", "Well"), buildings=(IP, "Library")), seat()]
    state = play(at_role(players), ChooseRole(Role.BUILDER, False))
    assert state.library is False and state.players[0].library_used is False
    with pytest.raises(RuleViolation, match="costs 4 after discounts, but 3 were paid"):
        play(state, Build(SS, ("Hero", "Tower", "Chapel")))
    state = play(state, Build(SS, ("Hero", "Tower", "Chapel", "Well")))
    assert hand(state, 0) == ()


def test_worked_example_builder_smithy_library_sugar_mill_costs_nothing():
    """Ken is the builder with smithy and library: a sugar mill (2) with 3 discounts costs 0."""
    players = [seat(hand=(SM, "Hero"), buildings=(IP, "Smithy", "Library")), seat()]
    state = play(at_role(players, draw=DRAW), ChooseRole(Role.BUILDER))
    with pytest.raises(RuleViolation) as err:
        play(state, Build(SM, ("Hero",)))
    assert err.value.reason == "Sugar mill costs 0 after discounts, but 1 was paid"
    state = play(state, Build(SM, ()))
    assert state.players[0].buildings == (IP, "Smithy", "Library", SM)
    assert hand(state, 0) == ("Hero",)  # no card taken for the unused discount
    assert state.draw_pile == DRAW and state.discard == ()


def test_worked_example_quarry_carpenter_library_builder_palace_for_three_and_draws_one():
    players = [seat(hand=("Palace", "Hero", "Tower", "Chapel"), buildings=(IP, "Quarry", "Carpenter", "Library")),
               seat()]
    state = play(at_role(players, draw=DRAW), ChooseRole(Role.BUILDER), Build("Palace", ("Hero", "Tower", "Chapel")))
    assert state.players[0].buildings == (IP, "Quarry", "Carpenter", "Library", "Palace")
    assert hand(state, 0) == ("Well",)
    assert state.discard == ("Hero", "Tower", "Chapel")
    assert state.draw_pile == DRAW[1:]


def test_discounts_stack_privilege_smithy_crane():
    # Builder (1) + library (1) + smithy (1) + crane over a sugar mill (2): a silver smelter for 0.
    players = [seat(hand=(SS,), buildings=(SM, "Smithy", "Library", "Crane")), seat()]
    state = play(at_role(players), ChooseRole(Role.BUILDER))
    # Over the smithy it would cost 5 - 1 - 2 = 2 (a covered smithy gives no discount).
    assert rules.legal_moves(state) == [Build(SS, (), replace=SM), Build(SS, (), replace="Library"), Pass()]
    state = play(state, Build(SS, (), replace=SM))
    assert state.players[0].buildings == (SS, "Smithy", "Library", "Crane")


# -- producer ------------------------------------------------------------------------------------


def _producers(library=False):
    extra = ("Library",) if library else ()
    return [seat(buildings=(IP, SM, TS, CR, *extra)), seat(buildings=(IP, SM, TS, CR))]


def test_producer_produces_two_others_one():
    state = play(at_role(_producers(), draw=DRAW), ChooseRole(Role.PRODUCER))
    with pytest.raises(RuleViolation) as err:
        play(state, Produce((Good.INDIGO, Good.SUGAR, Good.TOBACCO)))
    assert (err.value.rule, err.value.reason) == ("producer.limit", "may produce at most 2 goods, not 3")
    state = play(state, Produce((Good.COFFEE, Good.INDIGO)))
    assert state.players[0].goods == ("Crane", None, None, "Well")  # in the order named
    with pytest.raises(RuleViolation, match="may produce at most 1 goods, not 2"):
        play(state, Produce((Good.INDIGO, Good.SUGAR)))
    state = play(state, Produce((Good.SUGAR,)))
    assert state.players[1].goods == (None, "Chapel", None, None)
    assert state.draw_pile == DRAW[3:] and state.stage is Stage.ROLE


def test_producer_with_library_produces_three():
    state = play(at_role(_producers(library=True), draw=DRAW), ChooseRole(Role.PRODUCER))
    with pytest.raises(RuleViolation, match="may produce at most 3 goods, not 4"):
        play(state, Produce((Good.INDIGO, Good.SUGAR, Good.TOBACCO, Good.COFFEE)))
    state = play(state, Produce((Good.INDIGO, Good.SUGAR, Good.TOBACCO)))
    assert state.players[0].goods == ("Well", "Crane", "Chapel", None, None)


def test_producer_library_and_aqueduct_produce_four():
    players = [seat(buildings=(IP, SM, TS, CR, SS, "Library", "Aqueduct")), seat(goods={0: "Hero"})]
    state = play(at_role(players, draw=DRAW), ChooseRole(Role.PRODUCER),
                 Produce((Good.INDIGO, Good.SUGAR, Good.TOBACCO, Good.SILVER)))
    assert state.players[0].goods == ("Well", "Crane", "Chapel", None, "Quarry", None, None)


def test_producer_seat_without_an_empty_building_is_skipped():
    players = [seat(goods={0: "Hero"}), seat(), seat(goods={0: "Tower"})]
    state = play(at_role(players, draw=DRAW), ChooseRole(Role.PRODUCER))
    assert state.current_seat == 1
    state = play(state, Produce((Good.INDIGO,)))
    assert state.stage is Stage.ROLE and state.players[1].goods == ("Well",)


def test_producer_pass():
    state = play(at_role(_producers(), draw=DRAW), ChooseRole(Role.PRODUCER), Pass(), Pass())
    assert state.draw_pile == DRAW and state.stage is Stage.ROLE


# -- trader --------------------------------------------------------------------------------------


def _traders(library=False):
    extra = ("Library",) if library else ()
    goods = {0: "Palace", 1: "City hall", 2: "Guild hall", 3: "Triumphal arch"}
    return [seat(buildings=(IP, SM, TS, CR, *extra), goods=goods), seat(buildings=(IP, SM, TS, CR), goods=goods)]


def test_trader_sells_two_others_one_at_the_face_up_tile():
    state = play(at_role(_traders(), draw=DRAW, tiles=(5, 1, 2, 3, 4)), ChooseRole(Role.TRADER))
    assert state.tile == 5
    with pytest.raises(RuleViolation) as err:
        play(state, Sell((Good.INDIGO, Good.SUGAR, Good.TOBACCO)))
    assert (err.value.rule, err.value.reason) == ("trader.limit", "may sell at most 2 goods, not 3")
    state = play(state, Sell((Good.SUGAR, Good.COFFEE)))  # 2 + 3 on tile 5
    assert hand(state, 0) == ("Well", "Crane", "Chapel", "Quarry", "Palace")
    assert state.players[0].goods == ("Palace", None, "Guild hall", None)
    assert state.discard == ("City hall", "Triumphal arch")
    with pytest.raises(RuleViolation, match="may sell at most 1 goods, not 2"):
        play(state, Sell((Good.SUGAR, Good.COFFEE)))
    state = play(state, Sell((Good.TOBACCO,)))
    assert hand(state, 1) == ("Smithy", "Library")
    assert state.stage is Stage.ROLE and state.tile is None and state.tile_index == 1


def test_trader_with_library_sells_three():
    state = play(at_role(_traders(library=True), draw=DRAW), ChooseRole(Role.TRADER))
    with pytest.raises(RuleViolation, match="may sell at most 3 goods, not 4"):
        play(state, Sell((Good.INDIGO, Good.SUGAR, Good.TOBACCO, Good.COFFEE)))
    state = play(state, Sell((Good.INDIGO, Good.SUGAR, Good.COFFEE)))  # tile 1: 1 + 1 + 2
    assert len(hand(state, 0)) == 4


def test_trader_tile_is_turned_even_if_nobody_sells():
    state = play(at_role([seat(), seat(), seat()], tiles=(4, 2, 5, 1, 3)), ChooseRole(Role.TRADER))
    assert state.stage is Stage.ROLE and state.role_turn == 1
    assert state.tile is None and state.tile_index == 1 and state.tiles == (4, 2, 5, 1, 3)


def test_trading_house_tile_order_never_changes():
    tiles = (3, 1, 5, 2, 4)
    state = at_role([seat(), seat()], tiles=tiles)
    seen = []
    for _ in range(7):
        state = play(state, ChooseRole(Role.TRADER))
        assert state.tiles == tiles
        seen.append(state.tiles[state.tile_index - 1])
        # A fresh round (the same seat chooses the trader again); tiles carry over.
        state = position(state.players, tiles=state.tiles, tile_index=state.tile_index)
    assert seen == [3, 1, 5, 2, 4, 3, 1]


def test_trader_sees_the_tile_in_the_phase():
    players = [seat(), seat(buildings=(SS,), goods={0: "Hero"})]
    state = play(at_role(players, draw=DRAW, tiles=(2, 3, 1, 4, 5), tile_index=1), ChooseRole(Role.TRADER))
    assert state.tile == 3 and state.current_seat == 1
    state = play(state, Sell((Good.SILVER,)))
    assert hand(state, 1) == ("Well", "Crane", "Chapel")
    assert state.tile_index == 2


# -- councillor ----------------------------------------------------------------------------------


def test_councillor_draws_five_keeps_one_others_draw_two():
    state = play(at_role([seat(), seat()], draw=DRAW), ChooseRole(Role.COUNCILLOR))
    assert state.looking == DRAW[:5]
    with pytest.raises(RuleViolation) as err:
        play(state, Councillor(keep=("Well", "Crane")))
    assert (err.value.rule, err.value.reason) == ("councillor.keep_count", "may keep at most 1 of the drawn cards, not 2")
    state = play(state, Councillor(keep=("Quarry",)))
    assert hand(state, 0) == ("Quarry",)
    assert state.discard == ("Well", "Crane", "Chapel", "Palace")
    assert state.current_seat == 1 and state.looking == ("Library", "Smithy")
    state = play(state, Councillor(keep=("Smithy",)))
    assert hand(state, 1) == ("Smithy",)
    assert state.discard == ("Well", "Crane", "Chapel", "Palace", "Library")
    assert state.draw_pile == DRAW[7:] and state.stage is Stage.ROLE


def test_councillor_may_keep_nothing():
    state = play(at_role([seat(), seat()], draw=DRAW), ChooseRole(Role.COUNCILLOR), Councillor(keep=()))
    assert hand(state, 0) == () and state.discard == DRAW[:5]


def test_councillor_with_library_draws_eight():
    players = [seat(buildings=(IP, "Library")), seat()]
    state = play(at_role(players, draw=DRAW), ChooseRole(Role.COUNCILLOR))
    assert state.looking == DRAW[:8]
    state = play(state, Councillor(keep=("Tower",)))
    assert hand(state, 0) == ("Tower",)
    assert state.looking == DRAW[8:10]


def test_worked_example_library_prefecture_archive_councillor_draws_eight_discards_any_six():
    players = [seat(hand=(SM, TS, CR), buildings=(IP, "Library", "Prefecture", "Archive")), seat()]
    state = play(at_role(players, draw=DRAW), ChooseRole(Role.COUNCILLOR))
    assert state.looking == DRAW[:8]
    with pytest.raises(RuleViolation) as err:
        play(state, Councillor(discard=(SM, TS, CR, "Well", "Crane")))
    assert (err.value.rule, err.value.reason) == (
        "councillor.discard_count", "must discard 6 to 8 of 8 drawn cards, not 5")
    state = play(state, Councillor(discard=(SM, TS, CR, "Well", "Crane", "Chapel")))
    assert hand(state, 0) == ("Smithy", "Tower", "Quarry", "Library", "Palace")
    assert state.discard == (SM, TS, CR, "Well", "Crane", "Chapel")


# -- prospector ----------------------------------------------------------------------------------


def test_prospector_draws_one_others_nothing():
    state = play(at_role([seat(), seat(), seat()], draw=DRAW), ChooseRole(Role.PROSPECTOR))
    assert hand(state, 0) == ("Well",)
    assert hand(state, 1) == () and hand(state, 2) == ()
    assert state.stage is Stage.ROLE and state.role_turn == 1 and state.draw_pile == DRAW[1:]


def test_prospector_with_library_draws_two():
    players = [seat(buildings=(IP, "Library")), seat()]
    state = play(at_role(players, draw=DRAW), ChooseRole(Role.PROSPECTOR))
    assert hand(state, 0) == ("Well", "Crane")


# -- library -------------------------------------------------------------------------------------


def test_library_not_owned_cannot_be_used():
    with pytest.raises(RuleViolation) as err:
        play(at_role([seat(), seat()]), ChooseRole(Role.BUILDER, True))
    assert (err.value.rule, err.value.reason) == ("library.use", "owns no library")


def _two_player_round(first_library):
    """Seat 0 (governor, library) chooses the prospector, seat 1 the councillor, then seat 0 again."""
    players = [seat(buildings=(IP, "Library")), seat()]
    state = at_role(players, draw=DRAW * 2)
    state = play(state, ChooseRole(Role.PROSPECTOR, first_library))
    state = play(state, ChooseRole(Role.COUNCILLOR))
    state = play(state, Councillor(keep=()), Councillor(keep=()))
    assert state.stage is Stage.ROLE and state.current_seat == 0 and state.role_turn == 2
    return state


def test_two_players_library_once_a_round_used_on_the_first_role():
    state = _two_player_round(None)
    assert hand(state, 0) == ("Well", "Crane")
    assert state.players[0].library_used is True
    assert rules.legal_moves(state) == [ChooseRole(Role.BUILDER), ChooseRole(Role.PRODUCER), ChooseRole(Role.TRADER)]
    with pytest.raises(RuleViolation) as err:
        play(state, ChooseRole(Role.PRODUCER, True))
    assert (err.value.rule, err.value.reason) == ("library.use", "already used the library this round (2 players)")
    # Without the library the producer produces 2, not 3.
    state = position(
        (seat(buildings=(IP, SM, TS, "Library"), library_used=True), state.players[1]),
        governor=0, role_turn=2, roles_taken=state.roles_taken, draw=DRAW,
    )
    state = play(state, ChooseRole(Role.PRODUCER))
    assert state.library is False
    with pytest.raises(RuleViolation, match="may produce at most 2 goods, not 3"):
        play(state, Produce((Good.INDIGO, Good.SUGAR, Good.TOBACCO)))


def test_two_players_governor_may_keep_the_library_for_his_second_role():
    state = _two_player_round(False)
    assert hand(state, 0) == ("Well",)
    assert state.players[0].library_used is False
    assert rules.legal_moves(state)[:2] == [ChooseRole(Role.BUILDER, True), ChooseRole(Role.BUILDER, False)]
    state = play(state, ChooseRole(Role.BUILDER, True))
    assert state.library is True and state.players[0].library_used is True
    assert rules.legal_moves(state) == [Build("Well", ()), Pass()]  # 2 - 2


def test_two_players_library_is_available_again_next_round():
    players = [seat(buildings=(IP, "Library"), library_used=True), seat()]
    state = position(players, governor=0, role_turn=2,
                     roles_taken=((Role.PROSPECTOR, 0), (Role.COUNCILLOR, 1)), draw=DRAW)
    state = play(state, ChooseRole(Role.TRADER))  # nobody sells: the round ends
    assert state.round == 2 and state.governor == 1
    assert state.players[0].library_used is False
    state = play(state, ChooseRole(Role.PROSPECTOR))  # seat 1
    assert rules.legal_moves(state)[:2] == [ChooseRole(Role.BUILDER, True), ChooseRole(Role.BUILDER, False)]


def test_library_works_for_every_role_with_three_players():
    # 3+ players: nothing limits the library (each seat chooses one role a round anyway).
    players = [seat(buildings=(IP, "Library"), library_used=True), seat(), seat()]
    state = play(at_role(players, draw=DRAW), ChooseRole(Role.PROSPECTOR))
    assert hand(state, 0) == ("Well", "Crane")


# -- legal moves ---------------------------------------------------------------------------------


def _all_apply(state, moves):
    for move in moves:
        rules.apply(state, move)  # raises if a listed move is illegal


def test_legal_moves_role_choice():
    state = position([seat(), seat(), seat()], governor=0, role_turn=1, roles_taken=((Role.TRADER, 0),))
    moves = rules.legal_moves(state)
    # The councillor's and the prospector's privileges may be declined (they draw cards), and any
    # seats may refrain from the councillor's draw (the chooser, seat 1, then has no privilege).
    def cr(refrain: tuple[int, ...], privilege: bool = True) -> ChooseRole:
        return ChooseRole(Role.COUNCILLOR, None, privilege, (), refrain)

    assert moves == [ChooseRole(Role.BUILDER), ChooseRole(Role.PRODUCER), ChooseRole(Role.COUNCILLOR),
                     ChooseRole(Role.COUNCILLOR, privilege=False),
                     cr((0,)), cr((0,), False), cr((1,)), cr((2,)), cr((2,), False), cr((0, 1)),
                     cr((0, 2)), cr((0, 2), False), cr((1, 2)), cr((0, 1, 2)),
                     ChooseRole(Role.PROSPECTOR), ChooseRole(Role.PROSPECTOR, privilege=False)]
    _all_apply(state, moves)
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, ChooseRole(Role.TRADER))
    assert (err.value.rule, err.value.reason) == ("role.taken", "the trader was already chosen this round")


def test_legal_moves_role_choice_with_library():
    state = at_role([seat(buildings=(IP, "Library")), seat(), seat()])
    moves = rules.legal_moves(state)
    assert moves == [
        ChooseRole(Role.BUILDER, True), ChooseRole(Role.BUILDER, False),
        ChooseRole(Role.PRODUCER, True), ChooseRole(Role.PRODUCER, False),
        ChooseRole(Role.TRADER, True), ChooseRole(Role.TRADER, False),
        ChooseRole(Role.COUNCILLOR, True), ChooseRole(Role.COUNCILLOR, False),
        ChooseRole(Role.COUNCILLOR, privilege=False),
        ChooseRole(Role.COUNCILLOR, None, True, (), (0,)),
        ChooseRole(Role.COUNCILLOR, True, True, (), (1,)), ChooseRole(Role.COUNCILLOR, False, True, (), (1,)),
        ChooseRole(Role.COUNCILLOR, None, False, (), (1,)),
        ChooseRole(Role.COUNCILLOR, True, True, (), (2,)), ChooseRole(Role.COUNCILLOR, False, True, (), (2,)),
        ChooseRole(Role.COUNCILLOR, None, False, (), (2,)),
        ChooseRole(Role.COUNCILLOR, None, True, (), (0, 1)), ChooseRole(Role.COUNCILLOR, None, True, (), (0, 2)),
        ChooseRole(Role.COUNCILLOR, True, True, (), (1, 2)), ChooseRole(Role.COUNCILLOR, False, True, (), (1, 2)),
        ChooseRole(Role.COUNCILLOR, None, False, (), (1, 2)),
        ChooseRole(Role.COUNCILLOR, None, True, (), (0, 1, 2)),
        ChooseRole(Role.PROSPECTOR, True), ChooseRole(Role.PROSPECTOR, False),
        ChooseRole(Role.PROSPECTOR, privilege=False),
    ]
    _all_apply(state, moves)


def test_legal_moves_builder():
    players = [seat(), seat(hand=(SM, IP, "Smithy"))]
    state = play(at_role(players), ChooseRole(Role.BUILDER))
    moves = rules.legal_moves(state)
    assert moves == [
        Build(IP, (SM,)),
        Build(IP, ("Smithy",)),
        Build(SM, (IP, "Smithy")),
        Build("Smithy", (IP,)),
        Build("Smithy", (SM,)),
        Pass(),
    ]
    _all_apply(state, moves)
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, Build(SM, (IP, IP)))
    assert (err.value.rule, err.value.reason) == ("builder.payment", "the hand (besides the building) has 1x Indigo plant, needs 2")


def test_legal_moves_builder_with_black_market():
    players = [seat(), seat(hand=(SM, "Hero"), buildings=(IP, SM, "Black market"), goods={0: "Well", 1: "Crane"})]
    state = play(at_role(players), ChooseRole(Role.BUILDER))
    moves = rules.legal_moves(state)
    assert moves == [
        Build(SM, ("Hero",), (Good.INDIGO,)),
        Build(SM, ("Hero",), (Good.SUGAR,)),
        Build(SM, (), (Good.INDIGO, Good.SUGAR)),
        Pass(),
    ]
    _all_apply(state, moves)


def test_legal_moves_producer():
    players = [seat(buildings=(IP, IP, SM, TS), goods={3: "Hero"}), seat(goods={0: "Hero"})]
    state = play(at_role(players, draw=DRAW), ChooseRole(Role.PRODUCER))
    moves = rules.legal_moves(state)
    assert moves == [
        Produce((Good.INDIGO,)),
        Produce((Good.SUGAR,)),
        Produce((Good.INDIGO, Good.INDIGO)),
        Produce((Good.INDIGO, Good.SUGAR)),
        Pass(),
    ]
    _all_apply(state, moves)
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, Produce((Good.TOBACCO,)))
    assert (err.value.rule, err.value.reason) == (
        "producer.empty_building", "has 0 empty Tobacco storages, cannot produce 1 tobacco")


def test_legal_moves_producer_limited_by_the_cards_left():
    players = [seat(buildings=(IP, IP, SM)), seat(goods={0: "Hero"})]
    state = play(at_role(players, draw=("Well",)), ChooseRole(Role.PRODUCER))
    assert rules.legal_moves(state) == [Produce((Good.INDIGO,)), Produce((Good.SUGAR,)), Pass()]
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, Produce((Good.INDIGO, Good.SUGAR)))
    assert (err.value.rule, err.value.reason) == (
        "producer.no_cards", "there are not enough cards left to produce that many goods")


def test_legal_moves_trader():
    players = [seat(buildings=(IP, SM, CR), goods={0: "Hero", 1: "Hero", 2: "Hero"}), seat()]
    state = play(at_role(players, draw=DRAW), ChooseRole(Role.TRADER))
    moves = rules.legal_moves(state)
    assert moves == [
        Sell((Good.INDIGO,)),
        Sell((Good.SUGAR,)),
        Sell((Good.COFFEE,)),
        Sell((Good.INDIGO, Good.SUGAR)),
        Sell((Good.INDIGO, Good.COFFEE)),
        Sell((Good.SUGAR, Good.COFFEE)),
        Pass(),
    ]
    _all_apply(state, moves)
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, Sell((Good.SILVER,)))
    assert (err.value.rule, err.value.reason) == ("trader.goods", "has 0 silver to sell, not 1")


def test_legal_moves_councillor_keep_and_archive():
    players = [seat(), seat(hand=("Hero",), buildings=(IP, "Archive"))]
    state = play(at_role(players, draw=DRAW), ChooseRole(Role.COUNCILLOR))
    moves = rules.legal_moves(state)
    assert moves == [Councillor(keep=(c,)) for c in ("Well", "Crane", "Chapel", "Quarry", "Palace")] + [
        Councillor(keep=())
    ]
    _all_apply(state, moves)
    state = play(state, Councillor(keep=("Palace",)))
    assert state.looking == ("Library", "Smithy")
    moves = rules.legal_moves(state)
    assert moves == [
        Councillor(discard=("Smithy", "Library")),
        Councillor(discard=("Smithy", "Hero")),
        Councillor(discard=("Library", "Hero")),
        Councillor(discard=("Smithy",)),
        Councillor(discard=("Library",)),
        Councillor(discard=("Hero",)),
        # Naming the cards kept declines the archive.
        Councillor(keep=("Smithy",)),
        Councillor(keep=("Library",)),
        Councillor(keep=()),
    ]
    _all_apply(state, moves)
    declined = play(state, Councillor(keep=("Smithy",)))
    assert declined.players[1].hand == ("Smithy", "Hero")
    assert declined.discard[-1] == "Library"


def test_legal_moves_gold_mine():
    players = [seat(buildings=(IP, "Gold mine")), seat()]
    state = play(at_role(players, draw=("Hero", TS, IP, CR, SM)), ChooseRole(Role.PROSPECTOR))
    moves = rules.legal_moves(state)
    assert moves == [GoldMine(IP), GoldMine(SM), GoldMine(TS), GoldMine(CR), Pass()]
    _all_apply(state, moves)
    with pytest.raises(RuleViolation) as err:
        rules.apply(state, GoldMine("Hero"))
    assert (err.value.rule, err.value.reason) == ("gold_mine.keep", "the turned-up cards has 0x Hero, needs 1")


def test_legal_moves_chapel_hand_limit_draft():
    players = [seat(hand=("Hero", "Well", "Well"), buildings=(IP, "Chapel")), seat(hand=("Well",) * 7 + ("Hero",))]
    state = position(players, stage=Stage.CHAPEL)
    moves = rules.legal_moves(state)
    assert moves == [Chapel("Well"), Chapel("Hero"), Pass()]
    _all_apply(state, moves)
    state = play(state, Pass())
    assert state.stage is Stage.HAND_LIMIT and state.current_seat == 1
    moves = rules.legal_moves(state)
    assert moves == [HandLimit(("Well",)), HandLimit(("Hero",))]
    _all_apply(state, moves)
    state = position([seat(hand=("Hero", "Well", "Well", FILL, "Crane"))], stage=Stage.DRAFT, draft=True)
    moves = rules.legal_moves(state)
    assert moves == [
        Draft(("Well", "Well", "Crane", "Statue")),
        Draft(("Well", "Well", "Crane", "Hero")),
        Draft(("Well", "Well", "Statue", "Hero")),
        Draft(("Well", "Crane", "Statue", "Hero")),
    ]
    _all_apply(state, moves)


def test_legal_moves_empty_when_over():
    state = position([seat(), seat()], stage=Stage.OVER)
    assert rules.legal_moves(state) == []
