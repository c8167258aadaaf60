"""A game's setup from the Play page's address: every parameter read, every bad one named with what it
allows."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from play.errors import SetupError
from play.setup import Setup

AGENTS = Path(__file__).resolve().parents[1] / "governor" / "arena" / "agents_for_tests.py"


def query(**params: str) -> Setup:
    return Setup.from_query(params, rng=random.Random(3))


def test_the_address_of_the_issue_gives_its_game() -> None:
    setup = query(game="san_juan", players="2", seat="1", bots="heuristic", seed="7", name="Tester")
    assert setup == Setup("san_juan", 2, (1,), ("heuristic", "Tester"), ("heuristic", None), 7, {}, ("1", None))


def test_what_the_address_leaves_out_has_its_default() -> None:
    setup = query(game="san_juan")
    assert setup == Setup("san_juan", 2, (0,), ("Player", "heuristic"), (None, "heuristic"),
                          random.Random(3).randrange(10**12 + 1), {}, (None, "1"))


def test_a_random_seat_bots_in_seat_order_and_an_option() -> None:
    setup = query(game="puerto_rico", players="4", seat="random", bots="expert, random,expert", seed="")
    rng = random.Random(3)
    seat = rng.randrange(4)
    assert setup.humans == (seat,) and setup.seed == rng.randrange(10**12 + 1)
    assert [n for n in setup.names if n != "Player"] == ["expert", "random", "expert#2"]
    assert [b for b in setup.bots if b] == ["expert", "random", "expert"]
    assert query(game="san_juan", draft_start="1", seed="1").options == {"draft_start": True}
    assert query(game="san_juan", draft_start="0", seed="1").options == {}


def test_several_people_at_one_screen() -> None:
    setup = query(game="san_juan", players="4", seat="0,2", name="Ana, Bruno", bots="random", seed="5")
    assert setup.humans == (0, 2)
    assert setup.names == ("Ana", "random", "Bruno", "random#2")
    assert query(game="san_juan", players="3", seat="2,0", bots="random", seed="5").names == \
        ("Player 2", "random", "Player 1")
    # One person's name is taken whole, commas and all.
    assert query(game="san_juan", name="Smith, Ana", seed="5").names[0] == "Smith, Ana"


def test_a_users_agent_is_named_as_the_arena_names_it() -> None:
    setup = query(game="san_juan", players="3", bots=f"{AGENTS}:LastMoveAgent", seed="5")
    assert setup.names == ("Player", "last-move", "last-move#2") and setup.versions == (None, "0.1", "0.1")


@pytest.mark.parametrize(("params", "message"), [
    ({"game": "chess"}, "game: unknown game 'chess' (games: san_juan, puerto_rico)"),
    ({}, "game: missing (games: san_juan, puerto_rico)"),
    ({"game": "san_juan", "players": "5"}, "players: San Juan is played by 2 to 4 players, not '5'"),
    ({"game": "puerto_rico", "players": "two"}, "players: Puerto Rico is played by 3 to 5 players, not 'two'"),
    ({"game": "san_juan", "seat": "2"},
     "seat: must be a seat from 0 to 1 (several separated by commas, for hot-seat), or random, not '2'"),
    ({"game": "san_juan", "players": "3", "seat": "0,0"}, "seat: seat 0 is given twice"),
    ({"game": "san_juan", "players": "4", "bots": "random,expert"},
     "bots: 2 agents for 3 bot seat(s): give one for every bot seat, or one for all"),
    ({"game": "san_juan", "bots": "best"},
     "bots: unknown agent 'best' (built-in: random, heuristic, expert, search, search:R; or module:Class, or a .py file)"),
    ({"game": "san_juan", "bots": "search:0"}, "bots: search:0: search needs at least 1 rollout per candidate"),
    ({"game": "san_juan", "bots": "missing.py:Bot"}, "bots: missing.py:Bot: no such file 'missing.py'"),
    ({"game": "san_juan", "seed": "-1"},
     "seed: a whole number from 0 to 1000000000000, or blank for a random one, not '-1'"),
    ({"game": "san_juan", "name": "heuristic"}, "name: 'heuristic' is already the name of the bot in seat 1: choose another"),
    ({"game": "san_juan", "players": "3", "seat": "0,1", "name": "Ana,Ana"},
     "name: 'Ana' is already the name of seat 0: choose another"),
    ({"game": "san_juan", "name": "Ana\u200b"}, "name: a player name may not hold invisible characters: 'Ana\\u200b'"),
    ({"game": "san_juan", "name": "Ana\x1b[31m"}, "name: a player name may not hold control characters: 'Ana\\x1b[31m'"),
    ({"game": "san_juan", "name": "x" * 61}, "name: longer than 60 characters"),
    ({"game": "san_juan", "players": "3", "seat": "0,1", "name": "Ana"},
     "name: 1 name(s) for 2 people: give one for each, separated by commas"),
    ({"game": "san_juan", "draft_start": "maybe"}, "draft_start: must be 1 or 0 (on or off), not 'maybe'"),
])
def test_a_bad_parameter_is_named_with_what_it_allows(params: dict[str, str], message: str) -> None:
    with pytest.raises(SetupError) as caught:
        query(**params)
    assert str(caught.value) == message
    assert caught.value.param == message.partition(":")[0]


def test_a_setup_goes_into_a_journal_and_back() -> None:
    setup = query(game="san_juan", players="3", seat="1", bots="random,expert", seed="9", name="Ana", draft_start="1")
    assert Setup.from_json(setup.to_json()) == setup
    for broken, reason in ((dict(setup.to_json(), game="chess"), "unknown game 'chess'"),
                           (dict(setup.to_json(), bots=["random", "random", "random"]),
                            "the bots are not one per seat without a person")):
        with pytest.raises(ValueError) as caught:
            Setup.from_json(broken)
        assert str(caught.value) == reason
