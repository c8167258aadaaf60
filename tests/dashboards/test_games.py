"""The Games page: filters run in SQL and live in the URL; two games compared side by side."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboards import board_parts
from tests.dashboards.conftest import APP

PAGE = "views/games.py"


@pytest.fixture
def open_games(monkeypatch: pytest.MonkeyPatch) -> Callable[..., AppTest]:
    """The Games page (the default page) opened with query parameters, as from a link."""

    def _open(db: Path, **params: str) -> AppTest:
        monkeypatch.setenv("GOVERNOR_DB", str(db))
        at = AppTest.from_file(str(APP), default_timeout=60)
        for key, value in params.items():
            at.query_params[key] = value
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    return _open


def ids(at) -> list[str]:
    return list(at.dataframe[0].value["game_id"])


def expect(sql, db: Path, where: str, params: list | None = None) -> list[str]:
    """Game ids matching ``where``, in the page's order (newest first)."""
    rows = sql(db, "WITH s AS (SELECT game_id, max(score) AS top_score FROM players GROUP BY game_id) "
                   f"SELECT g.game_id FROM games g JOIN s USING (game_id) WHERE {where} "
                   "ORDER BY g.played_at DESC NULLS LAST, g.imported_at DESC, g.file, g.file_index", params)
    return [r[0] for r in rows]


def test_each_filter_selects_what_sql_selects(dated_db: Path, open_games, sql) -> None:
    at = open_games(dated_db)
    assert ids(at) == expect(sql, dated_db, "true")
    at.text_input(key="games_player").set_value("diego").run()  # any case
    assert ids(at) == expect(sql, dated_db, "list_contains(players, 'Diego')") and len(ids(at)) == 10
    at.text_input(key="games_player").set_value("").run()
    at.text_input(key="games_winner").set_value("Bruno").run()
    assert ids(at) == expect(sql, dated_db, "list_contains(winner_names, 'Bruno')")
    at.text_input(key="games_winner").set_value("").run()
    (building,) = sql(dated_db, "SELECT b FROM (SELECT unnest(final_buildings) AS b, won FROM players) WHERE won "
                                "GROUP BY b ORDER BY count(*), b LIMIT 1")[0]
    at.selectbox(key="games_building").set_value(building).run()
    anyone = expect(sql, dated_db, "game_id IN (SELECT game_id FROM players WHERE list_contains(final_buildings, ?))", [building])
    assert ids(at) == anyone
    at.radio(key="games_owner").set_value("winner").run()
    by_winner = expect(sql, dated_db, "game_id IN (SELECT game_id FROM players WHERE won AND list_contains(final_buildings, ?))",
                       [building])
    assert ids(at) == by_winner and 0 < len(by_winner) <= len(anyone)
    at.selectbox(key="games_building").set_value(None).run()
    (low, high) = sql(dated_db, "SELECT quantile_disc(top, 0.25), quantile_disc(top, 0.75) FROM "
                                "(SELECT max(score) AS top FROM players GROUP BY game_id)")[0]
    at.slider(key="games_score").set_value((low, high)).run()
    assert ids(at) == expect(sql, dated_db, "top_score BETWEEN ? AND ?", [low, high])
    at.slider(key="games_rounds").set_value((12, 13)).run()
    assert ids(at) == expect(sql, dated_db, "top_score BETWEEN ? AND ? AND rounds BETWEEN 12 AND 13", [low, high])
    assert at.query_params["score"] == f"{low},{high}" and at.query_params["rounds"] == "12,13"
    assert any(f"{len(ids(at))} of 30 games" in c.value for c in at.caption)


def test_filters_come_from_the_url(dated_db: Path, open_games, sql) -> None:
    (end,) = sql(dated_db, "SELECT min(end_reason) FROM games")[0]
    at = open_games(dated_db, counts="3,4", winner="ana", dates="2024-01-03,2024-01-20", end=end)
    assert at.multiselect(key="games_counts").value == [3, 4]
    assert at.text_input(key="games_winner").value == "ana"
    assert ids(at) == expect(sql, dated_db, "player_count IN (3, 4) AND list_contains(winner_names, 'Ana') AND "
                                            "played_at BETWEEN '2024-01-03' AND '2024-01-20' AND end_reason = ?", [end])
    at.multiselect(key="games_counts").set_value([4]).run()
    assert at.query_params["counts"] == "4" and at.query_params["winner"] == "ana"
    # Nonsense in the URL is ignored.
    at = open_games(dated_db, counts="7", rounds="x,y", building="Moon base")
    assert len(ids(at)) == 30


def test_selecting_a_row_still_opens_the_replay(dated_db: Path, open_games) -> None:
    at = open_games(dated_db)
    first = ids(at)[0]
    at.session_state["games_table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert at.query_params.get("game") in (first, [first])


def test_selecting_a_row_of_a_search_opens_that_game(dated_db: Path, open_games) -> None:
    # The row index is read against the ids the previous run showed, before any query of this run.
    at = open_games(dated_db)
    third = ids(at)[2]
    at.text_input(key="games_search").set_value(third[:10]).run()
    assert ids(at) == [third]
    at.session_state["games_table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert at.query_params.get("game") in (third, [third]) and at.query_params.get("step") in ("0", ["0"])


def test_two_games_side_by_side(dated_db: Path, open_games, sql) -> None:
    at = open_games(dated_db, compare="1")
    assert any("0 of 2 games chosen" in i.value for i in at.info)
    a, b = ids(at)[:2]
    at.session_state["games_table_compare"] = {"selection": {"rows": [0, 1], "columns": [], "cells": []}}
    at.run()
    assert not at.exception
    assert at.query_params["ids"] == f"{a},{b}" and at.query_params["compare"] == "1"
    # Each final board is drawn by the Replay page's own board code, in a frame of its own.
    boards = [e.proto.srcdoc for e in at.get("iframe")]
    assert len(boards) == 2
    for game_id, board in zip((a, b), boards):
        names, = sql(dated_db, "SELECT players FROM games WHERE game_id = ?", [game_id])[0]
        assert all(board_parts._script_json(n) in board for n in names)
    spec = next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if "games_compare_vp" in c.proto.id)
    lines = {t["name"]: t for t in spec["data"]}
    for letter, game_id in (("A", a), ("B", b)):
        names, = sql(dated_db, "SELECT players FROM games WHERE game_id = ?", [game_id])[0]
        for seat, name in enumerate(names):
            truth = sql(dated_db, "SELECT e.round, ps.vp FROM (SELECT round, max(step) AS step FROM moves WHERE game_id = ? "
                                  "GROUP BY round) e JOIN san_juan_player_states ps ON ps.game_id = ? AND ps.step = e.step "
                                  "AND ps.seat = ? ORDER BY e.round", [game_id, game_id, seat])
            line = lines[f"{letter}: \u2068{name}\u2069"]  # each name isolated
            assert list(zip(line["x"], line["y"])) == truth
            assert line["line"]["dash"] == ("solid" if letter == "A" else "dash")
    # The same comparison from a link.
    at = open_games(dated_db, compare="1", ids=f"{b},{a}")
    assert len(at.get("iframe")) == 2


def test_player_counts_that_do_not_fit_the_chosen_games_reset(mixed_db: Path, open_games) -> None:
    at = open_games(mixed_db, counts="2")
    assert at.multiselect(key="games_counts").value == [2] and len(ids(at)) == 10
    at.multiselect(key="games_types").set_value(["puerto_rico"]).run()
    assert not at.exception
    # Two players do not fit Puerto Rico: every count it is played with, and no counts in the URL.
    assert at.multiselect(key="games_counts").value == [3, 4, 5]
    assert at.multiselect(key="games_counts").options == ["3", "4", "5"]
    assert len(ids(at)) == 30 and dict(at.query_params) == {"types": "puerto_rico"}
    # A link with a count the chosen game has not: the same.
    at = open_games(mixed_db, types="puerto_rico", counts="2,3")
    assert at.multiselect(key="games_counts").value == [3, 4, 5] and len(ids(at)) == 30
    assert dict(at.query_params) == {"types": "puerto_rico"}
    at = open_games(mixed_db, types="puerto_rico", counts="5")
    assert at.multiselect(key="games_counts").value == [5] and len(ids(at)) == 10


def test_the_player_filter_takes_an_agents_player_name(bots_db: Path, open_games, sql) -> None:
    arena = expect(sql, bots_db, "g.source_id LIKE 'arena-%'")
    assert len(arena) == 3
    at = open_games(bots_db, player="HEURISTIC V1")
    assert ids(at) == arena
    at = open_games(bots_db, player="heuristic")  # the name in every log: the person's and the agent's games
    assert ids(at) == expect(sql, bots_db, "true") and len(ids(at)) == 5
