"""The toy game on the dashboard's pages, in process (``AppTest``), with the game registered: what a page
shows comes from the game's declaration. Climb's score is "points" (not victory points) and may be
negative, and a seat's view hides the other seats' scores until the end; Climb declares no buildings,
no roles and no opening decisions, so the Statistics page shows no section that needs them and the
Explorer says why it has nothing for it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[3]
APP = ROOT / "dashboards" / "app.py"


@pytest.fixture
def toy_db(installed_toy: Path, tmp_path: Path) -> Iterator[Path]:
    """Six Climb games (2, 3 and 4 players) and the San Juan sample, imported."""
    from ingest.importer import import_paths
    from replay.logfile import write_games
    from replay.simulate import simulate_many

    logs = tmp_path / "logs"
    logs.mkdir()
    write_games(logs / "toy.jsonl", list(simulate_many("toy", [2, 3, 4], 6, seed=11, bot="mixed")))
    db = tmp_path / "toy.duckdb"
    summary = import_paths([logs, ROOT / "sample_logs" / "san_juan"], db, workers=1)
    assert (summary.imported, summary.rejected) == (36, 0)
    yield db


def _page(db: Path, page: str, monkeypatch: pytest.MonkeyPatch, **params: str) -> AppTest:
    monkeypatch.setenv("GOVERNOR_DB", str(db))
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.run()
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _texts(at: AppTest) -> list[str]:
    return [str(e.value) for kind in (at.caption, at.info, at.markdown) for e in kind]


def test_the_statistics_show_only_the_sections_climb_declares_and_name_its_score(
        toy_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _page(toy_db, "views/statistics.py", monkeypatch, game="toy")
    assert [t.label for t in at.tabs] == ["Win rates", "Scores and length", "Points curves"]
    assert "Climb declares no buildings and no roles: no win rate by building or by role is shown." in _texts(at)
    keys = {chart.proto.id for chart in at.get("plotly_chart")}
    shown = " ".join(str(chart.proto.spec) for chart in at.get("plotly_chart"))
    assert "Win rate by seat" in shown and "building" not in shown and "role" not in shown, keys
    assert [s.label for s in at.slider] == []  # no "Built by round k", no role round
    assert "Rank buildings by" not in [r.label for r in at.radio]
    curves = _page(toy_db, "views/statistics.py", monkeypatch, game="toy", tab="Points curves")
    spec = " ".join(str(chart.proto.spec) for chart in curves.get("plotly_chart"))
    assert "Average points at the end of each round" in spec and "VP" not in spec
    # San Juan keeps every section and its victory points.
    sj = _page(toy_db, "views/statistics.py", monkeypatch, game="san_juan", tab="VP curves")
    assert [t.label for t in sj.tabs] == ["Win rates", "Scores and length", "VP curves"]
    assert "Rank buildings by" in [r.label for r in sj.radio]
    assert "Average VP at the end of each round" in " ".join(str(c.proto.spec) for c in sj.get("plotly_chart"))


def test_the_explorer_says_plainly_why_it_has_nothing_for_climb(toy_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    why = "Climb declares no opening decisions (the first moves the Explorer counts), so it has no tree to explore."
    at = _page(toy_db, "views/explorer.py", monkeypatch, type="toy")
    assert [str(e.value) for e in at.info][0] == why.replace("(", "\\(").replace(")", "\\)").replace(".", "\\.") \
        + " The Explorer shows San Juan\\."
    assert at.selectbox[0].value == "san_juan"
    assert why.replace("(", "\\(").replace(")", "\\)").replace(".", "\\.") in [str(e.value) for e in at.caption]


def test_the_replay_payload_names_the_score_as_climb_does_and_sends_no_hidden_score_as_a_number(
        toy_db: Path) -> None:
    import duckdb

    from dashboards.replay_data import game_payload
    from replay.protocol import Viewer

    con = duckdb.connect(str(toy_db), read_only=True)
    try:
        game = con.execute("SELECT * FROM games WHERE game = 'toy' AND player_count = 3 ORDER BY game_id LIMIT 1").df()
        game_id = str(game["game_id"].iloc[0])
        rows = [con.execute(f"SELECT * FROM {table} WHERE game_id = ? ORDER BY {order}", [game_id]).df()
                for table, order in (("moves", "step"), ("toy_states", "step"), ("toy_player_states", "step, seat"))]
    finally:
        con.close()
    assert rows[2]["vp"].min() < 0  # a score below 0: the chart's axis must reach it
    payload: dict[str, Any] = game_payload(game.iloc[0].to_dict(), *rows, Viewer.parse("seat0", 3))
    assert (payload["score_unit"], payload["score_name"]) == ("points", "Points")
    assert payload["chart_note"] == "Points as this view sees them: points hidden from it are left out until the game ends"
    total = payload["total"]
    for seat, runs in enumerate(payload["chart"]):
        hidden = [at for at, value in runs if value is None]
        assert bool(hidden) == (seat != 0) and all(at < total for at in hidden)


def test_two_climb_games_compared_name_their_score_as_climb_does(toy_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    import duckdb

    with duckdb.connect(str(toy_db), read_only=True) as con:
        a, b = (row[0] for row in con.execute(
            "SELECT game_id FROM games WHERE game = 'toy' ORDER BY game_id LIMIT 2").fetchall())
    monkeypatch.setenv("GOVERNOR_DB", str(toy_db))
    at = AppTest.from_file(str(APP), default_timeout=90)  # the Games page, the default one, opened from a link
    at.query_params["compare"] = "1"
    at.query_params["ids"] = f"{a},{b}"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    spec = next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if "games_compare_vp" in c.proto.id)
    layout = spec["layout"]
    assert layout["title"]["text"] == "Points at the end of each round (A solid, B dashed)"
    assert layout["yaxis"]["title"]["text"] == "points"


def test_a_climb_game_played_at_a_terminal_ends_with_its_points(installed_toy: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    import io
    import sys

    from governor.cli import main

    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 500))
    status = main(["play", "--game", "toy", "--players", "2", "--bots", "random", "--seed", "5", "--name", "Tester",
                   "--db", str(tmp_path / "toy.duckdb")])
    out = capsys.readouterr().out
    assert status == 0
    ending = out[out.index("\nGame over\n"):].split("\n")[2:4]
    assert [line.split(": ")[0] for line in ending] == ["  Tester", "  random"]
    assert all(" points (tie-break " in line and " VP " not in line for line in ending), ending
