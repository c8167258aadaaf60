"""Each page of the dashboard, run headless with AppTest on the sample database."""

from __future__ import annotations

import json
import re
from pathlib import Path

from .conftest import alerts


def test_games_page_lists_every_game(dash_db: Path, open_page, sql) -> None:
    at = open_page(dash_db, "views/games.py")
    table = at.dataframe[0].value
    (count,) = sql(dash_db, "SELECT count(*) FROM games")[0]
    assert len(table) == count
    assert {"game", "players", "winner", "rounds", "moves", "source", "game_id"} <= set(table.columns)
    assert any(f"{count:,} of {count:,} games" in c.value for c in at.caption)


def test_games_page_search_and_filters(dash_db: Path, open_page, sql) -> None:
    at = open_page(dash_db, "views/games.py")
    at.multiselect(key="games_counts").set_value([3]).run()
    assert set(at.dataframe[0].value["player_count"]) == {3}
    (game_id,) = sql(dash_db, "SELECT min(game_id) FROM games WHERE player_count = 3")[0]
    at.text_input(key="games_search").set_value(game_id[:12].upper()).run()
    table = at.dataframe[0].value
    assert list(table["game_id"]) == [game_id]


def test_games_page_selection_opens_the_replay(dash_db: Path, open_page) -> None:
    at = open_page(dash_db, "views/games.py")
    first_id = at.dataframe[0].value["game_id"].iloc[0]
    at.session_state["games_table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert not at.exception
    assert at.query_params.get("game") in (first_id, [first_id])
    sent = json.loads(at.get("bidi_component")[0].proto.json)
    assert sent["game"]["game_id"] == first_id and sent["step"] == 0


def test_statistics_page_shows_rates_with_intervals(dash_db: Path, open_page, sql) -> None:
    at = open_page(dash_db, "views/statistics.py")
    assert not at.exception
    (games,) = sql(dash_db, "SELECT count(*) FROM games WHERE game = 'san_juan'")[0]
    assert at.metric[0].value == f"{games:,}"
    seats = at.dataframe[0].value
    assert {"n", "wins", "win_rate", "ci_low", "ci_high", "few_games"} <= set(seats.columns)
    assert (seats["ci_low"] <= seats["win_rate"]).all() and (seats["win_rate"] <= seats["ci_high"]).all()
    # The sample holds 10 games per player count: every seat rate rests on few games.
    assert seats["few_games"].all()
    assert not at.warning  # 30 games in all: enough for the page as a whole


def test_statistics_page_other_tabs_and_filters(dash_db: Path, open_page) -> None:
    at = open_page(dash_db, "views/statistics.py")
    at.multiselect(key="stats_counts").set_value([2]).run()
    assert not at.exception
    assert at.metric[0].value == "10"
    assert any("few games" in w.value for w in at.warning)
    at.selectbox(key="stats_player").set_value("Ana").run()
    assert not at.exception
    assert at.metric[4].label == "The player's win rate"
    at.session_state["stats_tab"] = "VP curves"
    at.run()
    assert not at.exception
    curves = at.dataframe[0].value
    assert set(curves["group"]) == {"winners", "the rest"}
    at.session_state["stats_tab"] = "Scores and length"
    at.run()
    assert not at.exception


def test_sql_page_runs_a_query_and_refuses_a_write(dash_db: Path, open_page, sql, monkeypatch) -> None:
    monkeypatch.setenv("GOVERNOR_SQL_TIMEOUT", "120")  # a busy machine must not hit the time limit
    at = open_page(dash_db, "views/sql.py")
    # The query box is in a form (Ctrl+Enter submits it): a typed query is sent with the Run click.
    at.text_area(key="sql_text").set_value("SELECT count(*) AS n FROM games")
    at.button(key="sql_run").click().run()
    (count,) = sql(dash_db, "SELECT count(*) FROM games")[0]
    assert at.dataframe[0].value["n"].iloc[0] == count
    at.text_area(key="sql_text").set_value("DROP TABLE games")
    at.button(key="sql_run").click().run()
    assert any(e.startswith("Refused: DROP") for e in alerts(at, "error"))
    # The schema is listed beside the query.
    assert any(e.label.startswith("games") for e in at.expander)


def test_sql_page_examples_fill_the_query(dash_db: Path, open_page, monkeypatch) -> None:
    monkeypatch.setenv("GOVERNOR_SQL_TIMEOUT", "120")  # a busy machine must not hit the time limit
    at = open_page(dash_db, "views/sql.py")
    at.selectbox(key="sql_example").set_value("Highest scores").run()
    assert "ORDER BY p.score DESC" in at.text_area(key="sql_text").value
    at.button(key="sql_run").click().run()
    assert not at.error and not alerts(at, "error")
    assert len(at.dataframe[0].value) == 20


def test_pages_explain_a_missing_database(tmp_path: Path, open_page) -> None:
    path = tmp_path / "none.duckdb"
    expected = f"No database at {path} yet. Import logs on the Import page or with: governor import PATH --db {path}"
    at = open_page(path, "views/games.py")
    assert alerts(at, "info") == [expected]
    at = open_page(path, "views/replay.py")
    assert alerts(at, "info") == [expected]


def test_every_page_runs_without_an_exception(dash_db: Path, open_page) -> None:
    for page in ("views/games.py", "views/replay.py", "views/statistics.py", "views/sql.py", "views/import_logs.py"):
        at = open_page(dash_db, page)
        assert not at.exception, page
        assert not [e for e in [*(x.value for x in at.error), *alerts(at, "error")] if re.search("Traceback", e)], page
