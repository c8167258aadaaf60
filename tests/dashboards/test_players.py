"""The Players page: the leaderboard is the rating table, a player's figures match the database,
bots are marked and can be listed apart, and names are shown as plain text only."""

from __future__ import annotations

from pathlib import Path

import pytest
from openskill.models import PlackettLuce
from streamlit.proto.Metric_pb2 import Metric as MetricProto


def board(at) -> list[dict]:
    """The leaderboard's rows, each name as stored: the table shows it isolated (U+2068 ... U+2069)."""
    rows = at.dataframe[0].value.to_dict("records")
    assert all(r["name"].startswith("\u2068") and r["name"].endswith("\u2069") for r in rows)
    return [{**r, "name": r["name"][1:-1]} for r in rows]


def test_leaderboard_shows_the_openskill_ratings(rating_db: Path, open_page, hostile_name: str) -> None:
    at = open_page(rating_db, "views/players.py")
    # The minimum of 10 games leaves nobody out of three games; lower it.
    assert board(at) == []
    at.number_input(key="players_min_games").set_value(1).run()
    rows = board(at)
    assert [(r["place"], r["name"], r["games"], r["wins"]) for r in rows] == [
        (1, "Bo", 3, 2), (2, "Cy", 1, 1), (3, hostile_name, 2, 0), (4, "Ana", 2, 0),
    ]
    # Ana's rating, computed with openskill directly: 21-23 against Bo, then last of three.
    model = PlackettLuce()
    ana, bo, cy, hostile = (model.rating() for _ in range(4))
    [[ana], [bo]] = model.rate([[ana], [bo]], ranks=[2, 1])
    [[bo], [cy], [hostile]] = model.rate([[bo], [cy], [hostile]], ranks=[3, 1, 2])
    [[hostile], [ana], [bo]] = model.rate([[hostile], [ana], [bo]], ranks=[2, 3, 1])
    for row, rating in zip(rows, (bo, cy, hostile, ana)):
        assert row["mu"] == pytest.approx(rating.mu, abs=1e-12)
        assert row["sigma"] == pytest.approx(rating.sigma, abs=1e-12)
        assert row["ordinal"] == pytest.approx(rating.mu - 3 * rating.sigma, abs=1e-12)
    at.number_input(key="players_min_games").set_value(2).run()
    assert [r["name"] for r in board(at)] == ["Bo", hostile_name, "Ana"]


def test_hostile_name_is_plain_text(rating_db: Path, open_page, hostile_name: str) -> None:
    at = open_page(rating_db, "views/players.py", name=hostile_name)
    assert not at.warning
    heading = [h.proto.body for h in at.get("html") if hostile_name in h.proto.body]
    assert heading == [f"<h3 style='margin:0'><bdi>{hostile_name}</bdi></h3>"]
    # Nowhere as Markdown: no markdown, caption, metric or title element holds the name.
    for element in list(at.markdown) + list(at.caption) + list(at.title) + list(at.subheader):
        assert "e.com" not in element.value
    for metric in at.metric:
        assert "e.com" not in metric.label and "e.com" not in metric.value
    assert [(m.label, m.value) for m in at.metric] == [
        ("Games", "2"), ("Win rate", "0.0%"), ("95% interval", "0.0-65.8%"), ("Rating (mu - 3 sigma)", "2.91"),
    ]
    assert at.metric[1].delta == "-33.3 pts vs chance"
    assert at.metric[1].proto.direction == MetricProto.MetricDirection.DOWN
    games = at.dataframe[-1].value
    # Each name isolated, so that a right-to-left one keeps the others in order.
    assert list(games["players"]) == [f"\u2068{hostile_name}\u2069, \u2068Ana\u2069, \u2068Bo\u2069",
                                      f"\u2068Bo\u2069, \u2068Cy\u2069, \u2068{hostile_name}\u2069"]


def test_player_figures_match_the_database(dash_db: Path, open_page, sql) -> None:
    at = open_page(dash_db, "views/players.py", type="san_juan")
    names = [r["name"] for r in board(at)]
    assert names == [r[0] for r in sql(dash_db, "SELECT name FROM player_ratings WHERE games >= 10 ORDER BY ordinal DESC")]
    at.session_state["players_board:all::"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert not at.exception
    top = names[0]
    assert at.query_params["name"] in (top, [top])
    (games, wins) = sql(dash_db, "SELECT count(*), sum(won::INT) FROM players WHERE name = ?", [top])[0]
    assert at.metric[0].value == str(games) and at.metric[1].value == f"{wins / games:.1%}"
    counts = at.dataframe[1].value
    expected = sql(dash_db, "SELECT g.player_count, count(*), sum(p.won::INT) FROM players p JOIN games g USING (game_id) "
                            "WHERE p.name = ? GROUP BY 1 ORDER BY 1", [top])
    assert [(r["player_count"], r["n"], r["wins"]) for r in counts.to_dict("records")] == [tuple(e) for e in expected]
    roles = at.dataframe[3].value
    expected_roles = sql(dash_db, "SELECT role, count(*) FROM roles_chosen r JOIN players p USING (game_id, seat) "
                                  "WHERE p.name = ? GROUP BY 1 ORDER BY 2 DESC, 1", [top])
    assert [(r["role"].lower(), r["choices"]) for r in roles.to_dict("records")] == [tuple(e) for e in expected_roles]
    built = at.dataframe[4].value
    (most,) = sql(dash_db, "SELECT count(DISTINCT b.game_id) FROM buildings_built b JOIN players p USING (game_id, seat) "
                           "WHERE p.name = ? GROUP BY b.building ORDER BY 1 DESC LIMIT 1", [top])[0]
    assert built["n"].iloc[0] == most
    assert len(at.dataframe[-1].value) == games
    # Another player chosen in the list: the leaderboard's earlier pick does not come back.
    other = names[-1]
    at.selectbox(key="players_name").set_value((other, False)).run()
    assert at.query_params["name"] in (other, [other])


def test_bots_are_marked_and_filtered(bots_db: Path, open_page) -> None:
    at = open_page(bots_db, "views/players.py", min_games="1")
    everyone = {(r["name"], r["bot"]) for r in board(at)}
    assert everyone == {("heuristic v1", True), ("rand v1", True), ("heuristic", False), ("Ana", False), ("Bo", False)}
    at.radio(key="players_who").set_value("bots").run()
    assert at.query_params["who"] in ("bots", ["bots"])
    assert {(r["name"], r["bot"]) for r in board(at)} == {("heuristic v1", True), ("rand v1", True)}
    assert [o for o in at.selectbox(key="players_name").options] == ["\u2068heuristic v1\u2069 (bot)", "\u2068rand v1\u2069 (bot)"]
    at.radio(key="players_who").set_value("humans").run()
    assert {(r["name"], r["bot"]) for r in board(at)} == {("heuristic", False), ("Ana", False), ("Bo", False)}
    at.radio(key="players_who").set_value("all").run()
    assert "who" not in at.query_params


def test_a_bot_and_a_person_of_one_name_are_two_players(bots_db: Path, open_page, sql) -> None:
    at = open_page(bots_db, "views/players.py", name="heuristic v1", bot="1")
    assert not at.warning
    heading = [h.proto.body for h in at.get("html") if "<h3" in h.proto.body]
    assert len(heading) == 1 and heading[0].startswith("<h3 style='margin:0'><bdi>heuristic v1</bdi> <span class='gv-bot'")
    assert heading[0].endswith(">bot</span></h3>")
    # Two seats in each of its three games: six seats, one rating.
    (wins,) = sql(bots_db, "SELECT sum(won::INT) FROM players WHERE name = 'heuristic v1'")[0]
    assert [(m.label, m.value) for m in at.metric][:2] == [("Games", "6"), ("Win rate", f"{wins / 6:.1%}")]
    assert len(at.dataframe[-1].value) == 6
    assert any("; 3 rated games (6 seats);" in c.value for c in at.caption)
    person = open_page(bots_db, "views/players.py", name="heuristic")
    assert [h.proto.body for h in person.get("html") if "<h3" in h.proto.body] == [
        "<h3 style='margin:0'><bdi>heuristic</bdi></h3>"]
    assert person.metric[0].value == "2" and len(person.dataframe[-1].value) == 2
    # The bot's name without bot=1 names no person.
    missing = open_page(bots_db, "views/players.py", name="heuristic v1")
    assert [w.value for w in missing.warning] == ["No player of that name in this game type."]


def test_a_chosen_bot_and_the_filter_come_back(bots_db: Path, open_page) -> None:
    from tests.dashboards.test_url_round_trip import sidebar_round_trip

    at = open_page(bots_db, "views/players.py", who="bots", name="heuristic v1", bot="1")
    at = sidebar_round_trip(at, "views/players.py")
    assert at.radio(key="players_who").value == "bots"
    assert at.selectbox(key="players_name").value == ("heuristic v1", True)
    # Chosen in the list: the URL says it is the bot.
    at.selectbox(key="players_name").set_value(("rand v1", True)).run()
    assert at.query_params["name"] in ("rand v1", ["rand v1"]) and at.query_params["bot"] in ("1", ["1"])
