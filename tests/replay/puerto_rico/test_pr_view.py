"""What a Puerto Rico viewer may see (``replay.puerto_rico.view``): the VP chips (and the customs
house's bonus that counts them) face down until the end, everything else open."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from replay.log_reader import read_records
from replay.protocol import Viewer
from replay.puerto_rico import view
from replay.registry import engine_for, view_for
from replay.replayer import iter_replay

ROOT = Path(__file__).resolve().parents[3]
LOG = ROOT / "sample_logs" / "puerto_rico" / "puerto_rico-3p-seed2026-0000.json"


@pytest.fixture(scope="module")
def states() -> list:
    record = next(iter(read_records(LOG)))
    assert record.log is not None
    return [state for state, _ in iter_replay(record.log, steps=False)]


def test_the_registry_finds_the_view() -> None:
    assert view_for("puerto_rico") is view


def test_chips_are_face_down_until_the_end(states: list) -> None:
    engine = engine_for("puerto_rico")
    names = ["Ana", "Bruno", "Carla"]
    hidden_seen = 0
    for state in states[::9] + states[-1:]:
        whole = engine.to_view(state, names)
        assert view.view_state(state, Viewer.everything(), names) == whole
        public = view.view_state(state, Viewer.public(), names)
        if whole["over"]:
            assert public == whole
            continue
        for seat in range(3):
            mine = view.view_state(state, Viewer.of_seat(seat), names)
            for p, full in zip(mine["players"], whole["players"]):
                if p["seat"] == seat:
                    assert p == full
                    continue
                face_down = full["vp_parts"]["chips"] + full["vp_parts"]["customs_house"]
                hidden_seen += face_down > 0
                assert "vp_chips" not in p and "chips" not in p["vp_parts"]
                assert p["vp"] == full["vp"] - face_down == mine["scores"][p["seat"]]
        assert all("vp_chips" not in p for p in public["players"])
    assert hidden_seen > 0


def test_the_determinisation_keeps_the_seats_view(states: list) -> None:
    for state in states[::11]:
        for seat in range(3):
            world = view.determinise(state, seat, random.Random(seat))
            assert view.view_state(world, Viewer.of_seat(seat)) == view.view_state(state, Viewer.of_seat(seat))
            assert sorted(world.plantation_stack) == sorted(state.plantation_stack)


def test_stored_rows_hide_the_chips_and_what_counts_them() -> None:
    row = {"vp": 20, "vp_chips": 9, "vp_buildings": 8, "vp_bonus": 3, "doubloons": 4,
           "city": ["Customs house", "Small market"], "city_occupancy": [1, 0]}
    assert view.view_seat_row(row, 1, Viewer.of_seat(1), over=False) == row
    assert view.view_seat_row(row, 1, Viewer.everything(), over=False) == row
    assert view.view_seat_row(row, 1, Viewer.public(), over=True) == row
    seen = view.view_seat_row(row, 1, Viewer.of_seat(0), over=False)
    # 9 chips and the occupied customs house's 2 (a point per 4 chips) are face down.
    assert seen == {"vp": 9, "vp_buildings": 8, "vp_bonus": 1, "doubloons": 4,
                    "city": ["Customs house", "Small market"], "city_occupancy": [1, 0]}
    empty_house = dict(row, city_occupancy=[0, 0])
    assert view.view_seat_row(empty_house, 1, Viewer.public(), over=False)["vp"] == 11
    table = {"round": 4, "plantation_stack": 40}
    assert view.view_table_row(table, Viewer.public()) == table


def test_moves_and_decisions_are_open() -> None:
    load = {"kind": "load", "good": "corn", "ship": 0}
    assert not view.hides_move(load, 0, Viewer.public())
    assert view.view_move_words(load, "Ana loads 2 corn", "Ana", 0, Viewer.of_seat(1)) == "Ana loads 2 corn"
    assert view.sees_decisions(2, Viewer.public()) and view.sees_decisions(2, Viewer.of_seat(0))


def test_a_load_keeps_its_shipment_and_drops_its_points_where_the_chips_lie_face_down() -> None:
    """Every shipment is made in the open, but the points it earns are taken face down: in a view that
    does not see a seat's chips, no sentence about that seat's loads names a number of VP."""
    import re

    from replay.puerto_rico.events import FACE_DOWN, sentence
    from replay.puerto_rico.moves import WHARF

    names = ["Ana", "Ana Maria", "Bo (x): 3 VP"]
    said = {}
    for seat in range(3):
        for ship in (4, WHARF):
            for bonuses in ((), ("harbor",), ("harbor", "privilege")):
                for forced in (False, True):
                    said[(seat, ship, bonuses, forced)] = sentence(("load", seat, "corn", ship, 3, bonuses, forced), names)
    events = list(said.values()) + ["Ana cannot load anything", "The full 4-ship is emptied: 4 corn go back to the supply"]
    assert view.view_move_events(events, names, Viewer.everything()) == events
    # A seat's own points stay in its view, unless another name starts its sentences too (Ana Maria's
    # start with "Ana "): then they are left out, as another seat's are.
    for viewer, kept in ((Viewer.of_seat(0), {0}), (Viewer.of_seat(1), set()), (Viewer.of_seat(2), {2}),
                         (Viewer.public(), set())):
        shown = view.view_move_events(events, names, viewer)
        assert shown[-2:] == events[-2:]
        for (seat, _ship, _bonuses, forced), before, after in zip(said, events, shown):
            if seat in kept:
                assert after == before
                continue
            assert re.search(r"\d+ VP", after.removeprefix(names[seat])) is None, after
            # The shipment stays: who loaded how much of what, where.
            if forced:
                assert after == before.split(", the only possible load: ")[0] + ", the only possible load"
            else:
                assert after == f"{names[seat]} {FACE_DOWN}"
    assert view.view_move_events(["Ana gets 3 VP"], ["Ana", "Bo"], Viewer.of_seat(0)) == ["Ana gets 3 VP"]


def test_the_board_catalogue_holds_the_spaces_and_goods() -> None:
    catalogue = view.board_catalogue()
    assert (catalogue["island_spaces"], catalogue["city_spaces"]) == (12, 12)
    assert catalogue["goods"] == ["corn", "indigo", "sugar", "tobacco", "coffee"]
    assert catalogue["cards"]["Coffee roaster"] == {"cost": 6, "vp": 3, "circles": 2, "cls": "prod-coffee", "large": False}
    assert catalogue["cards"]["City hall"]["cls"] == "violet large monument"


def test_seen_score_is_the_views_vp_and_chips(states: list) -> None:
    # The cheap per-seat form the observation vectors use says what view_state says, for every viewer.
    for state in states[::7] + states[-1:]:
        for viewer in (Viewer.of_seat(0), Viewer.of_seat(2), Viewer.public(), Viewer.everything()):
            shown = view.view_state(state, viewer)
            for player in shown["players"]:
                seat = player["seat"]
                assert view.seen_score(state, viewer, seat) == (player["vp"], player.get("vp_chips"))
                assert view.chips_seen(state, viewer, seat) is ("vp_chips" in player)


def test_the_final_scoring_is_the_rules_score_and_hides_the_chips_face_down(states: list) -> None:
    """The scoring table under the board is the view's: its totals and tie-breaks are the rules' own
    (``Engine.scores``), and a viewer that may not see a seat's chips gets "hidden", not a number."""
    engine = engine_for("puerto_rico")
    last = states[-1]
    rows = engine.player_rows(last)
    table = view.final_scoring(rows)
    assert table["columns"] == ["buildings", "VP chips", "bonuses", "total", "tie-break (doubloons + goods)"]
    assert [(r[3], r[4]) for r in table["rows"]] == [(s.total, s.tiebreak) for s in engine.scores(last)]
    assert [r[1] for r in table["rows"]] == [row["vp_chips"] for row in rows]
    # Before the end, another seat's chips are face down in a seat's view.
    middle = engine.player_rows(states[len(states) // 2])
    seen = view.final_scoring([view.view_seat_row(row, seat, Viewer.of_seat(0), False) for seat, row in enumerate(middle)])
    assert seen["rows"][0][1] == middle[0]["vp_chips"] and [r[1] for r in seen["rows"][1:]] == ["hidden", "hidden"]
