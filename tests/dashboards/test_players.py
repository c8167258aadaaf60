"""The Players page: the leaderboard is the rating table, a player's figures match the database, and
names are shown as plain text only."""

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
    at.session_state["players_board:"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
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
    at.selectbox(key="players_name").set_value(other).run()
    assert at.query_params["name"] in (other, [other])
