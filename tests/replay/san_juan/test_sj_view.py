"""What a San Juan viewer may see (``replay.san_juan.view``): states, stored rows and moves in the
views everything, public and a seat; the determinisation deals again exactly what a seat's view hides."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from replay.log_reader import read_records
from replay.protocol import Viewer
from replay.registry import engine_for, view_for
from replay.replayer import iter_replay
from replay.san_juan import view

ROOT = Path(__file__).resolve().parents[3]
LOG = ROOT / "sample_logs" / "san_juan" / "san_juan-3p-seed2026-0001.json"


@pytest.fixture(scope="module")
def states() -> list:
    record = next(iter(read_records(LOG)))
    assert record.log is not None
    return [state for state, _ in iter_replay(record.log, steps=False)]


def test_viewers_are_named_as_urls_name_them() -> None:
    assert Viewer.parse("ALL", 3) == Viewer.everything() and Viewer.everything().name == "all"
    assert Viewer.parse(" public ", 3) == Viewer.public()
    assert Viewer.parse("seat2", 3) == Viewer.of_seat(2) and Viewer.of_seat(2).name == "seat2"
    for bad in ("seat3", "seat", "seat-1", "seat\u0661", "nobody"):
        with pytest.raises(ValueError) as found:
            Viewer.parse(bad, 3)
        assert str(found.value) == f"unknown view {bad!r} (views: all, public, seat0, seat1, seat2)"
    with pytest.raises(ValueError, match="no seat -1: seats count from 0"):
        Viewer.of_seat(-1)
    assert Viewer.of_seat(1).sees_secrets_of(1) and not Viewer.of_seat(1).sees_secrets_of(0)
    assert not Viewer.public().sees_secrets_of(0) and Viewer.everything().sees_secrets_of(0)


def test_the_registry_finds_each_games_view() -> None:
    assert view_for("san_juan") is view
    with pytest.raises(KeyError):
        view_for("chess")


def test_a_state_as_each_viewer_sees_it(states: list) -> None:
    engine = engine_for("san_juan")
    names = ["Ana", "Bruno", "Carla"]
    for state in states[::7]:
        whole = engine.to_view(state, names)
        assert view.view_state(state, Viewer.everything(), names) == whole
        public = view.view_state(state, Viewer.public(), names)
        assert [("hand" in p, p["hand_size"]) for p in public["players"]] == [(False, len(p.hand)) for p in state.players]
        assert "next_tile" not in public and "looking" not in public
        assert public["looking_count"] == len(state.looking)
        for seat in range(3):
            mine = view.view_state(state, Viewer.of_seat(seat), names)
            assert [p.get("hand") for p in mine["players"]] == [
                list(p.hand) if i == seat else None for i, p in enumerate(state.players)]
            assert "next_tile" not in mine
            # Apart from what is hidden, every view is the whole state.
            assert {k: v for k, v in mine.items() if k not in ("players", "looking", "looking_count")} == {
                k: v for k, v in whole.items() if k not in ("players", "looking", "next_tile")}


def test_the_determinisation_deals_again_exactly_what_the_seat_does_not_see(states: list) -> None:
    changed = 0
    for state in states[::5]:
        for seat in range(3):
            seen = view.view_state(state, Viewer.of_seat(seat))
            world = view.determinise(state, seat, random.Random(seat))
            # The seat sees the same table in the world it believes in ...
            assert view.view_state(world, Viewer.of_seat(seat)) == seen
            # ... and that world depends only on what it sees: another world it would believe in, dealt
            # again with the same numbers, gives the same world.
            again = view.determinise(view.determinise(state, seat, random.Random(99)), seat, random.Random(seat))
            assert again == world
            changed += world.players[(seat + 1) % 3].hand != state.players[(seat + 1) % 3].hand
    assert changed > 10


def test_stored_rows_as_each_viewer_sees_them() -> None:
    table = {"round": 3, "draw_pile": 40, "next_tile": 4, "tile": None}
    row = {"vp": 5, "hand_size": 2, "hand": ["Well", "Hero"], "chapel_cards": 1}
    assert view.view_table_row(table, Viewer.everything()) == table
    assert view.view_table_row(table, Viewer.of_seat(0)) == {"round": 3, "draw_pile": 40, "tile": None}
    assert view.view_seat_row(row, 1, Viewer.of_seat(1), over=False) == row
    for viewer in (Viewer.public(), Viewer.of_seat(0)):
        # A hand stays secret after the end too.
        assert view.view_seat_row(row, 1, viewer, over=True) == {"vp": 5, "hand_size": 2, "chapel_cards": 1}


def test_moves_as_each_viewer_saw_them() -> None:
    build = {"kind": "build", "building": "Aqueduct", "pay": ["Sugar mill", "Prefecture", "City hall"]}
    words = "Ana builds Aqueduct, paying Sugar mill, Prefecture and City hall"
    assert view.view_move_words(build, words, "Ana", 0, Viewer.of_seat(0)) == words
    assert view.view_move_words(build, words, "Ana", 0, Viewer.everything()) == words
    for viewer in (Viewer.public(), Viewer.of_seat(1)):
        assert view.hides_move(build, 0, viewer)
        assert view.view_move_words(build, words, "Ana", 0, viewer) == "Ana builds Aqueduct, paying 3 cards"
    free = {"kind": "build", "building": "Indigo plant", "pay": []}
    assert not view.hides_move(free, 0, Viewer.public())
    assert not view.hides_move({"kind": "role", "role": "builder"}, 0, Viewer.public())
    assert view.view_move_words({"kind": "chapel", "card": "Well"}, "Ana tucks Well under the chapel", "Ana", 0,
                                Viewer.public()) == "Ana tucks a card under the chapel"
    # Which moves are legal names the cards of a hand: a seat's own only.
    assert [view.sees_decisions(1, v) for v in (Viewer.everything(), Viewer.of_seat(1), Viewer.of_seat(0),
                                                Viewer.public())] == [True, True, False, False]


def test_the_board_catalogue_is_the_card_catalogue() -> None:
    catalogue = view.board_catalogue()
    assert catalogue["cards"]["Library"] == {"cost": 5, "vp": 3, "cls": "violet", "good": None, "vp_text": "3 VP"}
    # The buildings of cost 6 print "bonus" (their VP is scored at the end), as the board shows them.
    assert [catalogue["cards"][c]["vp_text"] for c in ("Palace", "Hero", "Indigo plant")] == ["bonus", "5 VP", "1 VP"]
    assert catalogue["cards"]["Hero"]["cls"] == catalogue["cards"]["Palace"]["cls"] == "monument"
    assert catalogue["cards"]["Coffee roaster"]["cls"] == "prod-coffee"
    assert catalogue["roles"] == ["builder", "producer", "trader", "councillor", "prospector"]
    assert catalogue["city_size"] == 12
    json.dumps(catalogue)


def test_sees_hand_and_sees_looking_are_what_view_state_shows(states: list) -> None:
    for state in states[::5]:
        for viewer in (Viewer.of_seat(0), Viewer.of_seat(1), Viewer.public(), Viewer.everything()):
            shown = view.view_state(state, viewer)
            for player in shown["players"]:
                assert view.sees_hand(viewer, player["seat"]) is ("hand" in player)
            assert view.sees_looking(state, viewer) is ("looking" in shown)


def test_the_final_scoring_is_the_rules_score(states: list) -> None:
    """The scoring table under the board is the view's: its totals and tie-breaks (cards in hand plus
    goods) are the rules' own (``Engine.scores``), from the rows as any viewer sees them (a hand hidden
    from the viewer still counts by its size)."""
    engine = engine_for("san_juan")
    last = states[-1]
    rows = engine.player_rows(last)
    expected = [(s.total, s.tiebreak) for s in engine.scores(last)]
    for viewer in (Viewer.everything(), Viewer.public(), Viewer.of_seat(1)):
        table = view.final_scoring([view.view_seat_row(row, seat, viewer, True) for seat, row in enumerate(rows)])
        assert table["columns"] == ["buildings", "chapel", "bonuses", "total", "tie-break (hand + goods)"]
        assert [(r[3], r[4]) for r in table["rows"]] == expected
        assert [r[:3] for r in table["rows"]] == [[row["vp_buildings"], row["vp_chapel"], row["vp_bonus"]] for row in rows]
