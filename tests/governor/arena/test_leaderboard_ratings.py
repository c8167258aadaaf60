"""The same arena games give the same ratings everywhere: ``governor arena``'s leaderboard, the
``player_ratings`` table as ``governor query`` prints it, and the dashboard's Players page. The arena
seats one agent twice (``heuristic`` and ``heuristic#2``: one player, ``heuristic v1``, a bot), so the
rule for a player holding several seats is met too."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from governor import cli as governor_cli
from governor.arena import cli

HERE = Path(__file__).resolve().parent
APP = HERE.parents[2] / "dashboards" / "app.py"
USER = f"{HERE / 'agents_for_tests.py'}:LastMoveAgent"


def arena(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    return cli.run(parser.parse_args(argv))


def players_page(db: Path, monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """The Players page's leaderboard of bots (every rated one), each name as stored."""
    monkeypatch.setenv("GOVERNOR_DB", str(db))
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    at.query_params["type"] = "san_juan"
    at.query_params["who"] = "bots"
    at.query_params["min_games"] = "1"
    at.switch_page("views/players.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    rows = at.dataframe[0].value.to_dict("records")
    return [{**r, "name": r["name"].strip("\u2068\u2069")} for r in rows]


def test_arena_cli_and_players_page_give_the_same_ratings(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "arena.duckdb"
    assert arena(["--game", "san_juan", "--players", "3", "--agents", "heuristic", "heuristic", "random", USER,
                  "--games", "12", "--seed", "4", "--db", str(db), "--json"]) == 0
    board = json.loads(capsys.readouterr().out)
    # Each copy of an agent keeps its own line (win rate, places); they share the player's rating.
    assert sorted((row["agent"], row["player"]) for row in board) == [
        ("heuristic", "heuristic v1"), ("heuristic#2", "heuristic v1"), ("last-move", "last-move v0.1"),
        ("random", "random v1")]
    copies = [row for row in board if row["player"] == "heuristic v1"]
    assert copies[0]["mu"] == copies[1]["mu"] and copies[0]["sigma"] == copies[1]["sigma"]
    arena_ratings = {row["player"]: (row["mu"], row["sigma"], row["ordinal"]) for row in board}

    assert governor_cli.main(["query", "--db", str(db), "--format", "json",
                              "SELECT name, bot, games, mu, sigma, ordinal FROM player_ratings ORDER BY name"]) == 0
    stored = json.loads(capsys.readouterr().out)
    assert [(r["name"], r["bot"]) for r in stored] == [(name, True) for name in sorted(arena_ratings)]
    # heuristic v1 held two of the three seats in half of the games: its games count seats.
    assert {r["name"]: r["games"] for r in stored} == {"heuristic v1": 18, "last-move v0.1": 9, "random v1": 9}
    assert {r["name"]: (round(r["mu"], 4), round(r["sigma"], 4), round(r["ordinal"], 4)) for r in stored} == arena_ratings

    page = players_page(db, monkeypatch)
    assert [(r["name"], r["bot"]) for r in page] == [
        (r["name"], True) for r in sorted(stored, key=lambda r: -r["ordinal"])]
    assert {r["name"]: (r["mu"], r["sigma"], r["ordinal"]) for r in page} == {
        r["name"]: (r["mu"], r["sigma"], r["ordinal"]) for r in stored}
