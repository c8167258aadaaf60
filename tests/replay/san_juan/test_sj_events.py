"""What San Juan's rules do by themselves after a move, in words: cards drawn by powers and roles,
reshuffles, gold mines, seats skipped and why, rounds and the end (``replay.san_juan.events``)."""

from __future__ import annotations

import pytest

from replay.san_juan.cards import Good, Role
from replay.san_juan.engine import ENGINE
from replay.san_juan.events import sentence
from replay.san_juan.moves import Build, ChooseRole, Councillor, GoldMine, Produce, Sell
from replay.san_juan.state import Stage

from .positions import CR, FILL, IP, SM, SS, TS, at_role, play, position, seat

NAMES = ("Ana", "Bruno", "Carla")


def words(before, move, names=NAMES):
    """The move applied to ``before`` and the automatic events of that step in words."""
    after = play(before, move)
    return after, ENGINE.automatic_events(before, move, after, names)


def test_a_plain_move_has_no_automatic_events():
    players = [seat(hand=(TS, "Hero", "Tower", "Chapel")), seat(hand=(TS, "Hero", "Tower", "Chapel"))]
    state = play(at_role(players), ChooseRole(Role.BUILDER))
    _, events = words(state, Build(TS, ("Hero", "Tower")))
    assert events == []


def test_builder_skips_the_seats_that_cannot_build_and_says_why():
    players = [seat(hand=(TS, "Hero", "Tower")), seat(hand=()), seat(hand=("Palace", "Hero"))]
    state = play(at_role(players), ChooseRole(Role.BUILDER))
    state, events = words(state, Build(TS, ("Hero", "Tower")))
    assert events == ["Bruno cannot build: no cards in hand", "Carla cannot afford any building in hand"]


def test_carpenter_and_poor_house_draw_after_a_violet_build():
    players = [seat(hand=("Well", "Hero", "Tower"), buildings=(IP, "Carpenter", "Poor house")), seat(hand=())]
    state = play(at_role(players, draw=(FILL, "Well", "Hero")), ChooseRole(Role.BUILDER))
    state, events = words(state, Build("Well", ("Hero",)), ("Ana", "Bruno"))
    assert events == [
        "Ana draws 1 card (carpenter)",
        "Bruno cannot build: no cards in hand",
    ]
    assert sorted(state.players[0].hand) == sorted((FILL, "Tower"))
    # With one card or none left after building, the poor house draws one more.
    players = [seat(hand=("Smithy",), buildings=(IP, "Carpenter", "Poor house")), seat(hand=())]
    state = play(at_role(players, draw=(FILL, "Well")), ChooseRole(Role.BUILDER))
    _, events = words(state, Build("Smithy", ()), ("Ana", "Bruno"))
    assert events[:2] == ["Ana draws 1 card (carpenter)", "Ana draws 1 card (poor house)"]


def test_producer_skip_reasons_and_the_well():
    players = [
        seat(hand=(), buildings=(IP, SM, "Well")),
        seat(buildings=(IP,), goods={0: FILL}),
        seat(buildings=("Smithy",)),
    ]
    state = play(at_role(players, draw=(FILL,) * 5), ChooseRole(Role.PRODUCER))
    _, events = words(state, Produce((Good.INDIGO, Good.SUGAR)))
    assert events == [
        "Ana draws 1 card (well)",
        "Bruno cannot produce: no empty production building",
        "Carla cannot produce: no empty production building",
    ]


def test_producer_skips_everyone_when_the_piles_are_empty():
    players = [seat(buildings=(IP,)), seat(buildings=(IP,)), seat(buildings=(IP,))]
    state = play(at_role(players, draw=(FILL,)), ChooseRole(Role.PRODUCER))
    _, events = words(state, Produce((Good.INDIGO,)))
    assert events == [
        "Bruno cannot produce: the draw and discard piles are empty",
        "Carla cannot produce: the draw and discard piles are empty",
    ]


def test_trader_markets_draw_their_extra_cards_and_empty_seats_are_skipped():
    players = [
        seat(buildings=(IP, SM, "Market stand", "Market hall"), goods={0: FILL, 1: FILL}),
        seat(),
        seat(buildings=(IP,), goods={0: FILL}),
    ]
    # Tile 1 pays 1 for indigo and 1 for sugar; the trader's privilege sells a second good.
    state = play(at_role(players, draw=(FILL,) * 10, tiles=(1, 2, 3, 4, 5)), ChooseRole(Role.TRADER))
    state, events = words(state, Sell((Good.INDIGO, Good.SUGAR)))
    assert events == [
        "Ana draws 1 card (market stand)",
        "Ana draws 1 card (market hall)",
        "Bruno cannot sell: no goods",
    ]
    assert len(state.players[0].hand) == 4  # 1 + 1 for the goods, 1 + 1 from the markets


def test_councillor_draws_are_reported_for_every_seat_in_turn():
    players = [seat(), seat(), seat()]
    state = at_role(players, draw=(FILL,) * 3 + ("Hero", "Well") + ("Tower", "Smithy") + ("Chapel", CR))
    state, events = words(state, ChooseRole(Role.COUNCILLOR))
    assert events == ["Ana draws 5 cards (councillor)"]
    state, events = words(state, Councillor(keep=("Hero",)))
    assert events == ["Bruno draws 2 cards (councillor)"]


def test_a_reshuffle_is_announced_before_the_draw_it_feeds():
    players = [seat(), seat()]
    state = at_role(players, draw=("Hero",), discard=(FILL, "Well", "Tower"), reshuffles=[("Well", FILL, "Tower")])
    _, events = words(state, ChooseRole(Role.PROSPECTOR), ("Ana", "Bruno"))
    assert events[0] == "Ana draws 1 card (prospector's privilege)"
    state = at_role(players, draw=(), discard=(FILL, "Well", "Tower"), reshuffles=[("Well", FILL, "Tower")])
    _, events = words(state, ChooseRole(Role.PROSPECTOR), ("Ana", "Bruno"))
    assert events[:2] == [
        "The discard pile is shuffled into a new draw pile (3 cards)",
        "Ana draws 1 card (prospector's privilege)",
    ]


def test_gold_mine_turn_ups_name_the_cards_and_the_outcome():
    # Bruno's gold mine: costs 1, 2, 3 and 4 differ, so he may keep one; Carla's shows two of cost 1.
    players = [seat(), seat(buildings=(IP, "Gold mine")), seat(buildings=(IP, "Gold mine"))]
    draw = (FILL, "Smithy", "Well", "Aqueduct", "Hero", "Chapel", "Carpenter", "Poor house", "Market stand")
    state = at_role(players, draw=draw)
    state, events = words(state, ChooseRole(Role.PROSPECTOR))
    assert events == [
        "Ana draws 1 card (prospector's privilege)",
        "Bruno's gold mine turns up Smithy, Well, Aqueduct and Hero: four different costs, Bruno may keep one",
    ]
    _, events = words(state, GoldMine("Hero"))
    assert events == [
        "Carla's gold mine turns up Chapel, Carpenter, Poor house and Market stand: two cost the same, "
        "so all go to the discard pile",
    ]


def test_round_end_and_game_end_are_told():
    players = [seat(hand=("Smithy",)), seat(hand=(), buildings=(IP,))]
    # Two players: the last role of the round is the governor's second choice.
    state = position(
        players, stage=Stage.ROLE,
        governor=0, role_turn=2, roles_taken=((Role.TRADER, 0), (Role.COUNCILLOR, 1)), draw=(FILL,) * 6,
    )
    state, events = words(state, ChooseRole(Role.BUILDER), ("Ana", "Bruno"))
    assert events == []
    _, events = words(state, Build("Smithy", ()), ("Ana", "Bruno"))
    assert events == ["Bruno cannot build: no cards in hand", "Round 2 begins; Bruno is governor"]
    city = (IP, SM, TS, CR, SS, "Smithy", "Well", "Tower", "Chapel", "Hero", "Palace")
    players = [seat(hand=("Gold mine",), buildings=city), seat(hand=())]
    state = play(at_role(players), ChooseRole(Role.BUILDER))
    _, events = words(state, Build("Gold mine", ()), ("Ana", "Bruno"))
    assert events == ["Bruno cannot build: no cards in hand", "The game is over: Ana has 12 buildings"]


def test_an_unknown_event_code_is_an_error_naming_it():
    with pytest.raises(ValueError, match="no words for the San Juan event \\('tea', 1\\)"):
        sentence(("tea", 1), NAMES)


def test_every_event_of_the_sample_games_has_words():
    from pathlib import Path

    from replay.log_reader import read_records
    from replay.replayer import replay

    told = 0
    for path in sorted((Path(__file__).resolve().parents[3] / "sample_logs" / "san_juan").glob("*.json")):
        game = replay(next(iter(read_records(path))).log)
        before = game.initial
        for step in game.steps:
            told += len(ENGINE.automatic_events(before, step.move, step.state, game.log.players))
            before = step.state
    assert told > 1000
