"""Statistics' "win chance added": the mean change of the mover's learned win chance across each
building built, role chosen and kind of move, with its interval, beside the raw win rate; filters in
the URL; a line saying how to fill the win chances when the database has none."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pandas as pd
import pytest

from dashboards.stats_queries import Filters, win_chance_added

PAGE = "views/statistics.py"


@pytest.fixture(scope="module")
def chance_db(dash_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The San Juan sample database with its win chances filled."""
    from analysis.winchance.fill import fill

    db = tmp_path_factory.mktemp("chance_db") / "chance.duckdb"
    shutil.copy(dash_db, db)
    summary = fill(str(db), say=lambda line: None)
    assert (summary.games, summary.failed) == (30, 0)
    return db


def test_added_is_the_mean_change_of_the_movers_chance(chance_db: Path, sql, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOVERNOR_DB", str(chance_db))
    rows = sql(chance_db, "SELECT m.kind, json_extract_string(m.details, '$.building'), a.win_chance - b.win_chance, p.won "
                          "FROM moves m JOIN win_chance a ON a.game_id = m.game_id AND a.step = m.step AND a.seat = m.seat "
                          "JOIN win_chance b ON b.game_id = m.game_id AND b.step = m.step - 1 AND b.seat = m.seat "
                          "JOIN players p ON p.game_id = m.game_id AND p.seat = m.seat")
    moves = pd.DataFrame(rows, columns=["kind", "building", "delta", "won"])
    built = moves[moves["kind"] == "build"]
    found = win_chance_added(Filters("san_juan"), "building").set_index("building")
    assert sorted(found.index) == sorted(built["building"].unique())
    for building, part in built.groupby("building"):
        row = found.loc[building]
        assert row["n"] == len(part) and row["added"] == pytest.approx(part["delta"].mean())
        assert row["wins"] == part["won"].sum() and row["win_rate"] == pytest.approx(part["won"].mean())
        if len(part) > 1:
            half = 1.96 * part["delta"].std() / math.sqrt(len(part))
            assert (row["added_low"], row["added_high"]) == pytest.approx((row["added"] - half, row["added"] + half))
        else:
            assert math.isnan(row["added_low"]) and math.isnan(row["added_high"])
    kinds = win_chance_added(Filters("san_juan"), "kind").set_index("kind")
    assert kinds["n"].to_dict() == moves.groupby("kind").size().to_dict()
    by_count = win_chance_added(Filters("san_juan", player_counts=(2,)), "role", split=True)
    assert set(by_count["player_count"]) == {2}
    with pytest.raises(ValueError) as err:
        win_chance_added(Filters("san_juan"), "seat")
    assert str(err.value) == "win chance added is by building, role, kind, not 'seat'"


def test_the_page_says_how_to_fill_the_win_chances(dash_db: Path, open_page) -> None:
    at = open_page(dash_db, PAGE, game="san_juan")
    assert [i.value for i in at.info] == [
        "This database holds no learned win chances: fill them with governor winchance --db FILE "
        '(docs/analysis.md, "Win chance added").']


def test_the_page_shows_win_chance_added_by_the_choice_in_the_url(chance_db: Path, open_page) -> None:
    at = open_page(chance_db, PAGE, game="san_juan", added="role")
    assert at.radio(key="stats_added").value == "role"
    assert at.radio(key="stats_added").options == ["building built", "role chosen", "decision kind"]
    table = next(t for t in at.dataframe if "role chosen" in
                 {c.get("label") for c in json.loads(t.proto.columns).values()})
    shown = table.value
    expected = win_chance_added(Filters("san_juan", player_counts=(2, 3, 4)), "role")
    assert list(shown["role"]) == list(expected["role"])
    assert list(shown["added"]) == pytest.approx(list(expected["added"] * 100))
    assert at.query_params["added"] == "role"
    at.radio(key="stats_added").set_value("kind").run()
    assert at.query_params["added"] == "kind"
    at.radio(key="stats_added").set_value("building").run()
    assert "added" not in at.query_params
