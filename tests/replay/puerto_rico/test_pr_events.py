"""What Puerto Rico's rules do by themselves after a move, in words: forced loads, goods returned,
ships and the trading house emptied, colonists handed out, production, plantations drawn, skipped
seats, the round's end and the game's (``replay.puerto_rico.events``)."""

from __future__ import annotations

import pytest

from replay.puerto_rico.engine import ENGINE
from replay.puerto_rico.events import sentence
from replay.puerto_rico.moves import Build, ChooseRole, Load, Mayor, Pass, Sell, Settle

from .positions import C, I, K, S, T, at_role, defaults, play, seat

NAMES = ("Ana", "Bruno", "Carla", "Diego", "Elena")


def words(before, move):
    """The move applied to ``before`` and the automatic events of that step in words; storage the log
    leaves out is taken by default within the step, as the replayer does when the next move is not the
    storing seat's."""
    after = defaults(play(before, move))
    return after, ENGINE.automatic_events(before, move, after, NAMES[: len(before.players)])


def test_captain_forced_loads_skips_storage_and_emptied_ships() -> None:
    # The refresher's worked example (see test_pr_captain): Ana is captain.
    players = [seat(goods={C: 3, I: 2, S: 1}), seat(goods={K: 2, I: 1}), seat(goods={T: 2}), seat(goods={T: 1})]
    state = at_role(players, 0, ships=[(S, 4), (I, 3), (None, 0)])
    state, events = words(state, ChooseRole("captain"))
    assert events == []
    state, events = words(state, Load(C, 2))
    assert events == [
        "Ana gets 4 VP (1 for the captain's privilege)",
        "Bruno loads 1 indigo on the 6-ship, the only possible load: 1 VP",
        "Carla cannot load anything",
        "Diego cannot load anything",
    ]
    state, events = words(state, Load(I, 1))
    assert events == [
        "Ana gets 2 VP",
        "Bruno cannot load anything",
        "Carla cannot load anything",
        "Diego cannot load anything",
        "Ana loads 1 sugar on the 5-ship, the only possible load: 1 VP",
        "Ana cannot load anything",
        "Bruno keeps 1 coffee and returns 1 coffee to the supply",
        "Carla keeps 1 tobacco and returns 1 tobacco to the supply",
        "Diego keeps 1 tobacco",
        "The full 5-ship is emptied: 5 sugar go back to the supply",
        "The full 6-ship is emptied: 6 indigo go back to the supply",
    ]


def test_harbor_vp_and_a_players_own_storage_returns() -> None:
    players = [seat(goods={C: 2}, city=["Harbor"]), seat(goods={C: 1, I: 2}, city=["Small warehouse"]), seat()]
    state = play(at_role(players, 0, ships=[(I, 1), (S, 1), (None, 0)]), ChooseRole("captain"))
    # Ana has one possible load: it is made for her as soon as the phase starts.
    assert ENGINE.automatic_events(None, None, state, NAMES[:3])[:1] == [
        "Ana loads 2 corn on the 6-ship, the only possible load: 4 VP (1 for the harbor and 1 for the captain's privilege)",
    ]


def test_mayor_privilege_ship_and_refill() -> None:
    state = at_role([seat(), seat(), seat()], 1, colonist_ship=5, colonist_supply=10)
    _, events = words(state, ChooseRole("mayor"))
    assert events == [
        "Bruno takes 1 colonist from the supply (mayor's privilege)",
        "The colonist ship's 5 colonists go to Bruno 2, Carla 2 and Ana 1",
        "The colonist ship is refilled with 3 colonists",
    ]


def test_mayor_forced_arrangement_and_colonist_shortage() -> None:
    players = [seat(island=["corn"], occupied=[0], city=["Small market"], workers=[0], san_juan=2), seat(), seat()]
    _, events = words(at_role(players, 0, colonist_ship=3, colonist_supply=3), ChooseRole("mayor"))
    assert events == [
        "Ana takes 1 colonist from the supply (mayor's privilege)",
        "The colonist ship's 3 colonists go to Ana 1, Bruno 1 and Carla 1",
        "Ana's colonists are placed (the only arrangement): 1 on corn, 1 on Small market; 2 in San Juan",
        "The colonist ship is refilled with only 2 colonists (3 needed)",
        "The colonists cannot refill the ship: the game ends after this round",
    ]


def test_a_chosen_arrangement_has_no_words_beyond_the_move() -> None:
    players = [
        seat(island=["corn", "indigo"], occupied=[0, 0], city=["Indigo plant"], workers=[0]),
        seat(city=["Coffee roaster", "Harbor"], workers=[0, 0]),
        seat(),
    ]
    state = play(at_role(players, 0, colonist_ship=3, colonist_supply=20), ChooseRole("mayor"))
    _, events = words(state, Mayor.of({"indigo": 1}, {"Indigo plant": 1}))
    assert events == []


def test_craftsman_production_factory_and_shortage() -> None:
    producer = seat(island=["coffee", "corn"], city=["Coffee roaster", "Factory"], workers=[1, 1])
    state = at_role([producer, producer, producer], 1, goods_supply={K: 2})
    _, events = words(state, ChooseRole("craftsman"))
    assert events == [
        "Bruno produces 1 corn and 1 coffee",
        "Bruno's factory pays 1 doubloon",
        "Carla produces 1 corn and 1 coffee",
        "Carla's factory pays 1 doubloon",
        "Ana produces 1 corn and 0 coffee (of 1: the supply ran out)",
    ]


def test_settler_refill_reshuffle_and_skip() -> None:
    full = seat(island=["corn"] * 12)
    state = at_role([seat(), seat(), full], 0, face_up=("corn", "indigo", "sugar", "coffee"),
                    stack=("tobacco", "corn"), discard=("sugar", "indigo"), reshuffles=[("indigo", "sugar", "sugar", "coffee")])
    state, events = words(state, ChooseRole("settler"))
    assert events == []
    state, events = words(state, Settle("corn"))
    assert events == []
    _, events = words(state, Settle("indigo"))
    assert events == [
        "Carla cannot take a plantation",
        "The face-up plantations left (sugar and coffee) are discarded",
        "The 4 discarded plantations are shuffled into a new stack",
        "New face-up plantations: tobacco, corn, indigo and sugar",
    ]


def test_builder_skip_university_and_city_end() -> None:
    players = [seat(doubloons=5, city=["University"]), seat(), seat()]
    _, events = words(play(at_role(players, 0), ChooseRole("builder")), Build("Small market"))
    assert events == [
        "Ana's university puts a colonist on the new Small market",
        "Bruno cannot build anything",
        "Carla cannot build anything",
    ]


def test_trader_full_house_emptied_and_the_rest_cannot_sell() -> None:
    players = [seat(goods={C: 1}), seat(goods={K: 2}, city=["Office"]), seat(goods={I: 1})]
    state = play(at_role(players, 0, trading_house=(K, T)), ChooseRole("trader"), Sell(C))
    _, events = words(state, Sell(K))
    assert events == [
        "The trading house is full: Carla cannot sell",
        "The full trading house is emptied: coffee, tobacco, corn and coffee go back to the supply",
    ]


def test_prospector_round_end_and_game_end() -> None:
    state = at_role([seat(), seat(), seat()], 0, roles_taken=(("builder", 0), ("mayor", 1)))
    _, events = words(state, ChooseRole("craftsman"))
    assert events == [
        "Carla cannot take an extra good",
        "1 doubloon is put on each role card not chosen: settler, trader and captain",
        "Round 2 begins; Bruno is governor",
    ]
    state = at_role([seat(), seat(), seat(), seat()], 0, roles_taken=(("builder", 0), ("mayor", 1), ("trader", 2)),
                    end=("vp_chips",))
    _, events = words(state, ChooseRole("prospector"))
    assert events == [
        "Diego takes 1 doubloon from the bank (prospector)",
        "The round is over and so is the game (the VP chips ran out)",
    ]


def test_last_vp_chip_is_announced() -> None:
    players = [seat(goods={C: 2}), seat(), seat()]
    state = play(at_role(players, 0, vp_chips_left=2, ships=[(I, 1), (S, 1), (None, 0)]), ChooseRole("captain"))
    assert ENGINE.automatic_events(None, None, state, NAMES[:3])[:2] == [
        "Ana loads 2 corn on the 6-ship, the only possible load: 3 VP (1 for the captain's privilege)",
        "Ana takes the last VP chips: the game ends after this round",
    ]


def test_pass_in_the_settler_phase_has_no_events_until_the_phase_ends() -> None:
    state = play(at_role([seat(), seat(), seat()], 0), ChooseRole("settler"))
    _, events = words(state, Pass())
    assert events == []


def test_an_unknown_event_code_is_an_error_naming_it() -> None:
    with pytest.raises(ValueError, match="no words for the Puerto Rico event \\('tea',\\)"):
        sentence(("tea",), NAMES)


def test_every_event_of_the_sample_games_has_words() -> None:
    from pathlib import Path

    from replay.log_reader import read_records
    from replay.replayer import replay

    told = 0
    for path in sorted((Path(__file__).resolve().parents[3] / "sample_logs" / "puerto_rico").glob("*.json")):
        game = replay(next(iter(read_records(path))).log)
        before = game.initial
        for step in game.steps:
            told += len(ENGINE.automatic_events(before, step.move, step.state, game.log.players))
            before = step.state
    assert told > 1000
