"""Accuracy on the Players page (each player's mean over analysed games, its trend, by game and player
count) and the Statistics page's filter "games with a human player", with exact numbers on small
databases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.decisions import Decision, Options
from analysis.store import store
from tests.analysis.test_accuracy import DECISIONS, _c

#: Ana: the best move only (100). Bruno: the best, then a 60-point blunder (2.990099).
PERFECT_AND_BLUNDER = [
    Decision(1, 0, "Ana", 3, (_c("a", 60, 100, True), _c("b", 30, 100))),
    Decision(2, 1, "Bruno", 3, (_c("a", 80, 100, True), _c("b", 70, 100))),
    Decision(4, 1, "Bruno", 4, (_c("a", 90, 100), _c("b", 30, 100, True))),
]
#: Exact seat accuracies (tests/analysis/test_accuracy.py): a best move then a 60-point blunder, a
#: best move then a 7.5-point inaccuracy, only best moves.
BLUNDERED, INACCURATE, PERFECT = 2.99009900990099, 65.89287769166158, 100.0


@pytest.fixture
def analysed_db(dash_db_copy: Path, sql) -> Path:
    """The San Juan sample with two analysed games: a 2-player one (Ana blunders, Bruno is inaccurate;
    dated 2024-01-02) and a 3-player one (Ana perfect, Bruno blunders; dated 2024-01-01)."""
    import duckdb

    two = sql(dash_db_copy, "SELECT game_id FROM games WHERE player_count = 2 ORDER BY game_id LIMIT 1")[0][0]
    three = sql(dash_db_copy, "SELECT game_id FROM games WHERE player_count = 3 ORDER BY game_id LIMIT 1")[0][0]
    store(dash_db_copy, two, "1", DECISIONS, Options(rollouts=100))
    store(dash_db_copy, three, "1", PERFECT_AND_BLUNDER, Options(rollouts=100))
    con = duckdb.connect(str(dash_db_copy))
    try:
        con.execute("UPDATE games SET played_at = '2024-01-02' WHERE game_id = ?", [two])
        con.execute("UPDATE games SET played_at = '2024-01-01' WHERE game_id = ?", [three])
    finally:
        con.close()
    return dash_db_copy


def test_accuracy_board_and_a_players_trend(analysed_db: Path, open_page) -> None:
    at = open_page(analysed_db, "views/players.py", type="san_juan")
    board = at.dataframe[1].value
    assert list(board["name"]) == ["\u2068Ana\u2069", "\u2068Bruno\u2069"]
    assert list(board["games"]) == [2, 2]
    assert [round(a, 6) for a in board["accuracy"]] == [round((BLUNDERED + PERFECT) / 2, 6),
                                                       round((INACCURATE + BLUNDERED) / 2, 6)]
    # Means 51.50 and 34.44, half-widths 95.07 and 61.64, kept within 0..100.
    assert list(board["ci"]) == ["0.0-100.0", "0.0-96.1"]
    assert list(board["blunders"]) == [0.5, 0.5] and list(board["inaccuracies"]) == [0.0, 0.5]
    # Win chance lost per decision, in points: Ana 60 of 3 decisions, Bruno 7.5 + 60 of 4.
    assert [round(x, 6) for x in board["avg_loss"]] == [20.0, 16.875]

    ana = open_page(analysed_db, "views/players.py", type="san_juan", name="Ana")
    assert ("Accuracy", "51.5") in [(m.label, m.value) for m in ana.metric]
    by_count = ana.dataframe[-2].value
    assert [(r["game"], r["player_count"], r["games"], round(r["accuracy"], 6), r["ci"])
            for r in by_count.to_dict("records")] == [
        ("San Juan", 2, 1, round(BLUNDERED, 6), ""), ("San Juan", 3, 1, PERFECT, "")]
    (chart,) = [json.loads(c.proto.spec) for c in ana.get("plotly_chart") if "players_accuracy_chart" in c.proto.id]
    points, running = chart["data"]
    # Oldest first: the 3-player game (1 January), then the 2-player one.
    assert [round(y, 6) for y in points["y"]] == [PERFECT, round(BLUNDERED, 6)]
    assert [round(y, 6) for y in running["y"]] == [PERFECT, round((PERFECT + BLUNDERED) / 2, 6)]


def test_a_file_stored_before_score_shares_shows_its_accuracy(analysed_db: Path, open_page) -> None:
    """The dashboard reads a file as it is: one of schema version 9, whose ``analysis`` has no score
    shares, gives the accuracies of its win chances."""
    import duckdb

    con = duckdb.connect(str(analysed_db))
    try:
        con.execute("ALTER TABLE analysis DROP COLUMN score_share")
        con.execute("ALTER TABLE analysis DROP COLUMN score_share_sd")
        con.execute("ALTER TABLE analysis DROP COLUMN sampling")
        con.execute("ALTER TABLE analysis DROP COLUMN rollout_bot_version")
        con.execute("UPDATE governor_meta SET value = '9' WHERE key = 'schema_version'")
    finally:
        con.close()
    at = open_page(analysed_db, "views/players.py", type="san_juan")
    board = at.dataframe[1].value
    assert list(board["name"]) == ["\u2068Ana\u2069", "\u2068Bruno\u2069"]
    assert [round(a, 6) for a in board["accuracy"]] == [round((BLUNDERED + PERFECT) / 2, 6),
                                                       round((INACCURATE + BLUNDERED) / 2, 6)]


def test_a_player_without_analysed_games_shows_no_accuracy(dash_db: Path, open_page) -> None:
    at = open_page(dash_db, "views/players.py", type="san_juan", name="Ana")
    assert "Accuracy" not in [m.label for m in at.metric]
    assert not [c for c in at.get("plotly_chart") if "players_accuracy_chart" in c.proto.id]
    assert any(c.value.startswith("No analysed game of this type yet") for c in at.caption)


def test_statistics_games_with_a_human_player(bots_db: Path, open_page) -> None:
    everyone = open_page(bots_db, "views/statistics.py")
    assert everyone.metric[0].value == "5"
    humans = open_page(bots_db, "views/statistics.py", humans="1")
    assert humans.toggle(key="stats_humans").value is True
    # The two games of people (one named heuristic, a person: not a bot); the arena's three are left out.
    assert humans.metric[0].value == "2"
    assert (humans.metric[1].label, humans.metric[1].value) == ("Player seats", "6")
    seats = humans.dataframe[0].value
    assert int(seats["n"].sum()) == 6
    humans.toggle(key="stats_humans").set_value(False).run()
    assert humans.metric[0].value == "5" and "humans" not in humans.query_params
