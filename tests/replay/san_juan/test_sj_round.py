"""The San Juan round: setup and the draft start, chapel then hand limit at round start, the governor
passing clockwise, 2-player governor-opponent-governor, the end after the builder phase, and the
reshuffle of the discard pile (FACTS.md part 3)."""

from __future__ import annotations

import random

import pytest

from replay.errors import FieldError
from replay.san_juan import rules
from replay.san_juan.cards import Good, Role, full_deck
from replay.san_juan.moves import Build, Chapel, ChooseRole, Councillor, Draft, GoldMine, HandLimit, Pass, Sell
from replay.san_juan.state import Stage, role_order

from .positions import IP, SM, SS, TS, at_role, play, position, seat


def hand(state, i):
    return state.players[i].hand


def _setup(players, draft=False, seed=7):
    return rules.random_setup(players, random.Random(seed), draft=draft)


# -- setup -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_new_game_deals_four_cards_and_an_indigo_plant(players):
    setup = _setup(players)
    state = rules.new_game(players, {}, setup)
    assert state.stage is Stage.ROLE and state.round == 1 and state.governor == 0 and state.current_seat == 0
    for i, p in enumerate(state.players):
        assert p.buildings == (IP,) and p.goods == (None,)
        assert p.hand == rules.sort_cards(setup["hands"][i]) and len(p.hand) == 4
    assert state.draw_pile == tuple(setup["deck"])
    assert len(state.draw_pile) == 110 - 5 * players
    assert state.tiles == tuple(setup["tiles"]) and state.tile is None
    assert sorted(state.all_cards()) == sorted(full_deck())


def test_draft_start_draws_five_to_eight_and_keeps_four():
    setup = _setup(4, draft=True)
    state = rules.new_game(4, {"draft_start": True}, setup)
    assert [len(p.hand) for p in state.players] == [5, 6, 7, 8]
    assert state.stage is Stage.DRAFT and state.current_seat == 0
    discarded: list[str] = []
    for i in range(4):
        assert state.current_seat == i
        cards = list(state.players[i].hand)
        keep = rules.sort_cards(cards[:4])
        state = play(state, Draft(keep))
        assert state.players[i].hand == keep
        discarded += cards[4:]
    assert state.discard == tuple(discarded)
    assert state.stage is Stage.ROLE and state.current_seat == 0 and state.round == 1
    assert sorted(state.all_cards()) == sorted(full_deck())


def test_draft_must_keep_exactly_four_of_the_drawn_cards():
    state = rules.new_game(2, {"draft_start": True}, _setup(2, draft=True))
    cards = state.players[0].hand
    with pytest.raises(rules.RuleViolation) as err:
        play(state, Draft(cards[:3]))
    assert (err.value.rule, err.value.reason) == ("draft.count", "must keep exactly 4 cards, not 3")


# -- round start ------------------------------------------------------------------------------------


def _last_role_of_round(players, **kwargs):
    """3 players, governor 0: seat 2 is about to choose the last role of round 1."""
    return position(players, governor=0, role_turn=2,
                    roles_taken=((Role.TRADER, 0), (Role.COUNCILLOR, 1)), **kwargs)


def test_round_end_passes_the_governor_then_chapels_then_hand_limit():
    eight = ("Hero", "Hero", "Tower", "Tower", "Well", "Well", "Crane", "Crane")
    players = [
        seat(hand=eight, buildings=(IP, "Chapel")),
        seat(hand=eight),
        seat(hand=("Hero",) * 6, buildings=(IP, "Chapel")),
    ]
    state = _last_role_of_round(players, draw=("Palace",))
    state = play(state, ChooseRole(Role.PROSPECTOR))  # seat 2 draws to 7
    assert hand(state, 2) == ("Hero",) * 6 + ("Palace",)
    assert state.round == 2 and state.governor == 1 and state.roles_taken == ()
    # Chapels clockwise from the new governor: seat 2, then seat 0 (seat 1 has none).
    assert state.stage is Stage.CHAPEL and state.current_seat == 2
    state = play(state, Chapel("Palace"))
    assert state.current_seat == 0
    state = play(state, Chapel("Crane"))  # 7 left: under the limit, no discard for seat 0
    # Hand limit clockwise from the governor: only seat 1 holds more than 7.
    assert state.stage is Stage.HAND_LIMIT and state.current_seat == 1
    with pytest.raises(rules.RuleViolation) as err:
        play(state, HandLimit(("Hero", "Hero")))
    assert (err.value.rule, err.value.reason) == (
        "hand_limit.count", "holds 8 cards with a limit of 7: must discard 1, not 2")
    state = play(state, HandLimit(("Well",)))
    assert state.stage is Stage.ROLE and state.current_seat == 1
    assert [len(p.hand) for p in state.players] == [7, 7, 6]
    assert state.players[0].chapel == ("Crane",) and state.players[2].chapel == ("Palace",)
    assert state.discard == ("Well",)


def test_hand_limit_order_is_clockwise_from_the_governor():
    eight = ("Hero",) * 8
    players = [seat(hand=eight), seat(hand=eight), seat(hand=eight)]
    state = _last_role_of_round(players)
    state = play(state, ChooseRole(Role.BUILDER), Pass(), Pass(), Pass())
    assert state.stage is Stage.HAND_LIMIT
    order = []
    while state.stage is Stage.HAND_LIMIT:
        order.append(state.current_seat)
        state = play(state, HandLimit(("Hero",)))
    assert order == [1, 2, 0]


def test_hand_limit_is_only_checked_at_round_start():
    # During a round a hand may hold more than 7 cards.
    players = [seat(hand=("Hero",) * 7), seat(), seat()]
    state = play(at_role(players, draw=("Well",) * 9), ChooseRole(Role.COUNCILLOR), Councillor(keep=("Well",)))
    assert len(hand(state, 0)) == 8 and state.stage is Stage.PHASE


def test_chapel_owner_with_an_empty_hand_is_skipped():
    players = [seat(buildings=(IP, "Chapel")), seat()]
    state = position(players, stage=Stage.CHAPEL)
    assert state.stage is Stage.ROLE


def test_chapel_pass_keeps_the_hand():
    players = [seat(hand=("Hero",), buildings=(IP, "Chapel")), seat()]
    state = play(position(players, stage=Stage.CHAPEL), Pass())
    assert hand(state, 0) == ("Hero",) and state.players[0].chapel == () and state.stage is Stage.ROLE


# -- role order --------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4])
def test_governor_rotates_and_everyone_chooses_once_a_round(players):
    # Empty hands and piles: every phase has nothing to do and passes by itself.
    state = at_role([seat() for _ in range(players)])
    choosers = []
    for _ in range(players * 2):
        seat_now = state.current_seat
        choosers.append((state.round, state.governor, seat_now))
        free = [r for r in Role if r not in {taken for taken, _ in state.roles_taken}]
        state = play(state, ChooseRole(free[0]))
    expected = [(r + 1, r % players, (r + i) % players) for r in range(2) for i in range(players)]
    assert choosers == expected
    assert state.round == 3 and state.governor == 2 % players


def test_two_players_governor_opponent_governor():
    state = at_role([seat(), seat()])
    choosers = []
    for _ in range(6):
        choosers.append((state.round, state.current_seat))
        free = [r for r in Role if r not in {taken for taken, _ in state.roles_taken}]
        state = play(state, ChooseRole(free[-1]))
        if state.round == choosers[-1][0]:
            assert len(state.roles_taken) in (1, 2)
    assert choosers == [(1, 0), (1, 1), (1, 0), (2, 1), (2, 0), (2, 1)]
    assert role_order(0, 2) == (0, 1, 0) and role_order(1, 2) == (1, 0, 1)
    assert role_order(2, 4) == (2, 3, 0, 1)


def test_two_players_three_roles_a_round_two_left():
    state = at_role([seat(), seat()])
    state = play(state, ChooseRole(Role.BUILDER), ChooseRole(Role.TRADER))
    # Seat 0 chooses; either seat may refrain from the councillor's draw (the chooser then has no
    # privilege to decline).
    assert rules.legal_moves(state) == [
        ChooseRole(Role.PRODUCER), ChooseRole(Role.COUNCILLOR), ChooseRole(Role.COUNCILLOR, privilege=False),
        ChooseRole(Role.COUNCILLOR, None, True, (), (0,)), ChooseRole(Role.COUNCILLOR, None, True, (), (1,)),
        ChooseRole(Role.COUNCILLOR, None, False, (), (1,)), ChooseRole(Role.COUNCILLOR, None, True, (), (0, 1)),
        ChooseRole(Role.PROSPECTOR), ChooseRole(Role.PROSPECTOR, privilege=False)]
    state = play(state, ChooseRole(Role.PRODUCER))
    assert state.round == 2 and state.governor == 1 and state.current_seat == 1
    # Five roles, two of them also without the privilege, and four councillor refrains.
    assert len(rules.legal_moves(state)) == 5 + 2 + 4


def test_phase_runs_clockwise_from_the_chooser():
    players = [seat(hand=(IP, "Hero")) for _ in range(4)]
    state = position(players, governor=0, role_turn=2, roles_taken=((Role.TRADER, 0), (Role.COUNCILLOR, 1)))
    state = play(state, ChooseRole(Role.BUILDER))  # seat 2
    order = []
    while state.stage is Stage.PHASE:
        order.append(state.current_seat)
        state = play(state, Pass())
    assert order == [2, 3, 0, 1]


# -- game end ------------------------------------------------------------------------------------------


def test_game_ends_after_the_builder_phase_with_twelve_buildings():
    players = [
        seat(hand=(IP,), buildings=(IP,) * 5),
        seat(hand=(IP, "Hero"), buildings=(IP,) * 11),
        seat(hand=(IP, "Hero"), buildings=(IP,) * 4),
    ]
    state = play(at_role(players), ChooseRole(Role.BUILDER), Build(IP, ()))
    state = play(state, Build(IP, ("Hero",)))  # seat 1 reaches 12
    assert state.stage is Stage.PHASE and state.current_seat == 2  # the phase is finished first
    state = play(state, Build(IP, ("Hero",)))
    assert state.stage is Stage.OVER
    assert state.current_seat is None and rules.legal_moves(state) == []
    assert state.round == 1 and state.roles_taken == ((Role.BUILDER, 0),)  # 2 roles left unplayed
    assert [len(p.buildings) for p in state.players] == [6, 12, 5]
    with pytest.raises(rules.RuleViolation) as err:
        play(state, ChooseRole(Role.PRODUCER))
    assert (err.value.rule, err.value.reason) == ("game.over", "the game is already over")


def test_game_ends_in_the_middle_of_a_two_player_round():
    players = [seat(hand=(IP,), buildings=(IP,) * 11), seat()]
    state = play(at_role(players), ChooseRole(Role.BUILDER), Build(IP, ()))
    assert state.stage is Stage.OVER and state.governor == 0


def test_twelve_buildings_only_end_the_game_after_a_builder_phase():
    players = [seat(buildings=(IP,) * 12), seat()]
    state = play(at_role(players, draw=("Hero",)), ChooseRole(Role.PROSPECTOR))
    assert state.stage is Stage.ROLE
    state = play(state, ChooseRole(Role.BUILDER))
    assert state.stage is Stage.OVER


def test_a_crane_build_does_not_add_a_building():
    players = [seat(hand=(SM,), buildings=(IP,) * 10 + ("Crane",)), seat()]
    state = play(at_role(players), ChooseRole(Role.BUILDER), Build(SM, (), replace=IP))
    assert len(state.players[0].buildings) == 11 and state.stage is Stage.ROLE


# -- reshuffle ------------------------------------------------------------------------------------------


def test_reshuffle_uses_the_recorded_order():
    players = [seat(), seat()]
    state = play(at_role(players, draw=("Hero",), discard=("Well", "Crane", "Tower"),
                         reshuffles=[("Tower", "Well", "Crane")]),
                 ChooseRole(Role.COUNCILLOR))
    assert state.looking == ("Hero", "Tower", "Well", "Crane")
    assert state.reshuffles == () and state.reshuffles_used == (("Tower", "Well", "Crane"),)
    assert state.draw_pile == () and state.discard == ()


def test_cards_being_looked_at_are_not_in_the_discard_pile():
    # The councillor draws 5 with 3 in the pile: the 3 in his hand are not reshuffled; the next
    # seat's 2 come from a second reshuffle of the 4 cards he discarded.
    players = [seat(), seat()]
    state = at_role(players, draw=("Hero", "Tower", "Well"), discard=("Crane", "Chapel"),
                    reshuffles=[("Chapel", "Crane"), ("Well", "Chapel", "Hero", "Crane")])
    state = play(state, ChooseRole(Role.COUNCILLOR))
    assert state.looking == ("Hero", "Tower", "Well", "Chapel", "Crane")
    state = play(state, Councillor(keep=("Tower",)))
    assert state.reshuffles_used == (("Chapel", "Crane"), ("Well", "Chapel", "Hero", "Crane"))
    assert state.looking == ("Well", "Chapel")
    assert state.draw_pile == ("Hero", "Crane") and state.discard == ()


def test_reshuffle_order_must_be_the_discard_pile():
    players = [seat(), seat()]
    state = at_role(players, draw=("Hero", "Tower", "Well"), discard=("Crane", "Chapel"),
                    reshuffles=[("Chapel", "Crane", "Hero")])
    with pytest.raises(FieldError) as err:
        play(state, ChooseRole(Role.COUNCILLOR))
    assert err.value.path == "setup.reshuffles[0]"
    assert err.value.reason == (
        "is not an order of the 2 cards in the discard pile at move 1: not in the pile 1x Hero")


def test_missing_reshuffle_order():
    state = at_role([seat(), seat()], draw=("Hero",), discard=("Crane", "Chapel"))
    state = play(state, ChooseRole(Role.PROSPECTOR))  # move 1 draws the last card
    with pytest.raises(FieldError) as err:
        play(state, ChooseRole(Role.COUNCILLOR))  # move 2 needs a reshuffle
    assert err.value.path == "setup.reshuffles"
    assert err.value.reason == (
        "the draw pile runs out at move 2 and the log records 0 reshuffle order(s); reshuffle 1 is missing")


def test_reshuffle_from_a_seed_is_a_permutation_of_the_discard_pile():
    discard = ("Well", "Crane", "Tower", "Hero", "Chapel")
    state = play(at_role([seat(), seat()], discard=discard, shuffle_seed=3), ChooseRole(Role.COUNCILLOR))
    assert sorted(state.looking) == sorted(discard)
    again = play(at_role([seat(), seat()], discard=discard, shuffle_seed=3), ChooseRole(Role.COUNCILLOR))
    assert again.looking == state.looking and state.reshuffles_used == (state.looking,)


def test_gold_mine_cards_turned_up_are_not_reshuffled():
    players = [seat(buildings=(IP, "Gold mine")), seat()]
    state = at_role(players, draw=("Hero", IP, SM), discard=("Tower", "Quarry"),
                    reshuffles=[("Quarry", "Tower")])
    state = play(state, ChooseRole(Role.PROSPECTOR))
    assert state.reshuffles_used == (("Quarry", "Tower"),)  # not the two cards already turned up
    assert state.looking == (IP, SM, "Quarry", "Tower") and state.discard == ()
    state = play(state, GoldMine("Quarry"))
    assert state.discard == (IP, SM, "Tower") and hand(state, 0) == ("Quarry", "Hero")


def test_sold_goods_are_discarded_before_drawing_and_may_come_back():
    players = [seat(buildings=(SS,), goods={0: "Hero"}), seat()]
    state = play(at_role(players, reshuffles=[("Hero",)]), ChooseRole(Role.TRADER), Sell((Good.SILVER,)))
    # Price 2 on tile 1: the silver card is reshuffled and drawn; then both piles are empty.
    assert hand(state, 0) == ("Hero",) and state.draw_pile == () and state.discard == ()


def test_nothing_is_drawn_with_both_piles_empty():
    players = [seat(), seat()]
    state = play(at_role(players), ChooseRole(Role.PROSPECTOR))
    assert hand(state, 0) == () and state.stage is Stage.ROLE


def test_producer_reshuffles_between_goods():
    players = [seat(buildings=(IP, TS)), seat(goods={0: "Hero"})]
    state = play(at_role(players, draw=("Well",), discard=("Crane",), reshuffles=[("Crane",)]),
                 ChooseRole(Role.PRODUCER))
    state = play(state, rules.Produce((Good.TOBACCO, Good.INDIGO)))
    assert state.players[0].goods == ("Crane", "Well")


def test_builder_payment_is_reshuffled_for_the_carpenter_card():
    players = [seat(hand=("Tower", "Hero", "Well"), buildings=(IP, "Carpenter")), seat()]
    state = play(at_role(players, reshuffles=[("Well", "Hero")]), ChooseRole(Role.BUILDER),
                 Build("Tower", ("Hero", "Well")))
    assert hand(state, 0) == ("Well",) and state.draw_pile == ("Hero",)


def test_gold_mine_keep_then_reshuffle_for_next_owner():
    players = [seat(buildings=(IP, "Gold mine")), seat(buildings=(IP, "Gold mine"))]
    state = at_role(players, draw=("Hero", IP, SM, TS, "Library"), reshuffles=[(TS, IP, SM)])
    state = play(state, ChooseRole(Role.PROSPECTOR), GoldMine("Library"))
    # Seat 1's turn-up reshuffles the three seat 0 discarded, finds only 3 cards and gets nothing.
    assert hand(state, 0) == ("Library", "Hero") and hand(state, 1) == ()
    assert state.reshuffles_used == ((TS, IP, SM),)
    assert state.discard == (TS, IP, SM) and state.draw_pile == () and state.stage is Stage.ROLE


def test_pass_is_not_a_councillor_move():
    state = play(at_role([seat(), seat()], draw=("Hero",) * 7), ChooseRole(Role.COUNCILLOR))
    with pytest.raises(rules.RuleViolation) as err:
        play(state, Pass())
    assert (err.value.rule, err.value.reason) == ("turn.kind", "seat 0 must keep drawn cards (councillor), not 'pass'")

