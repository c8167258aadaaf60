"""The arena: a seat-balanced round robin of built-in agents and agents from a file (one of them
faulty), recorded as logs that validate and import, ranked, reproducible."""

from __future__ import annotations

import argparse
import csv
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import pytest

from governor.arena import cli
from governor.arena.leaderboard import wilson
from governor.arena.round_robin import ArenaError, run_arena, schedule
from replay.logfile import parse_game
from replay.registry import engine_for
from replay.replayer import final_state

HERE = Path(__file__).resolve().parent
USER = f"{HERE / 'agents_for_tests.py'}:LastMoveAgent"
FAULTY = f"{HERE / 'agents_for_tests.py'}:FaultyAgent"
SEEDED = f"{HERE / 'agents_for_tests.py'}:SeededRandomAgent"


def arena(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    return cli.run(parser.parse_args(argv))


def test_schedule_seats_every_agent_everywhere_equally() -> None:
    cycle = schedule(5, 3)
    assert len(cycle) == 10 * 3  # every combination of 3 out of 5, in every rotation
    seats = Counter((agent, seat) for seating in cycle for seat, agent in enumerate(seating))
    assert set(seats.values()) == {6}
    assert len(seats) == 15
    assert list(schedule(4, 4)) == [(0, 1, 2, 3), (1, 2, 3, 0), (2, 3, 0, 1), (3, 0, 1, 2)]
    with pytest.raises(ArenaError, match="4 seats need at least 4 agents, 3 given"):
        schedule(3, 4)


def test_wilson_interval() -> None:
    low, high = wilson(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(0, 10)
    assert low == 0.0 and round(high, 4) == 0.2775


def test_arena_with_user_and_faulty_agents_runs_ranks_and_records() -> None:
    records = []
    entries, board = run_arena("san_juan", 4, ["random", "heuristic", USER, FAULTY], games=8, seed=3,
                               budget=0.2, on_game=lambda i, r: records.append(r))
    assert [e.name for e in entries] == ["random", "heuristic", "last-move", "faulty"]
    rows = {row["agent"]: row for row in board.to_json()}
    assert {name: row["games"] for name, row in rows.items()} == dict.fromkeys(rows, 8)
    assert sum(row["wins"] for row in rows.values()) == pytest.approx(8)
    # The faulty agent commits exactly its three faults a game, one of each kind; nobody else any.
    assert rows["faulty"]["faults_by_kind"] == {"error": 8, "illegal": 8, "timeout": 8}
    assert [rows[n]["faults"] for n in ("random", "heuristic", "last-move")] == [0, 0, 0]
    for row in rows.values():
        assert sum(row["places"].values()) == 8
    engine = engine_for("san_juan")
    for index, record in enumerate(records):
        log = record.log
        agents = log["meta"]["agents"]
        assert [a["name"] for a in agents] == [p if isinstance(p, str) else p["name"] for p in log["players"]]
        faulty_seat = next(a["seat"] for a in agents if a["name"] == "faulty")
        assert agents[faulty_seat]["spec"] == FAULTY
        faults = log["meta"]["faults"]
        assert [(f["seat"], f["kind"]) for f in faults] == [(faulty_seat, "error"), (faulty_seat, "timeout"),
                                                            (faulty_seat, "illegal")]
        assert faults[0]["detail"] == "RuntimeError: agent crashed\x1b[31m"
        assert faults[1]["detail"] == "no answer within 0.2 s"
        assert faults[2]["detail"].startswith("not a legal move: {'garbage': [0, 1, 2, 3, 4, 5, ...]}")
        # Every game replays to its recorded result.
        # Every game replays, checked move by move, to its recorded result (final_state raises otherwise).
        assert engine.is_over(final_state(parse_game(json.loads(json.dumps(log)), file=f"game{index}")))


def test_same_seed_same_logs_on_any_number_of_workers() -> None:
    def logs(workers: int) -> list[str]:
        out: list[str] = []
        run_arena("puerto_rico", 3, ["random", "heuristic", "heuristic", USER], games=8, seed=11,
                  workers=workers, on_game=lambda i, r: out.append(json.dumps(r.log)))
        return out

    once = logs(1)
    assert len(once) == 8 and len(set(once)) == 8
    assert logs(2) == once


def test_a_users_agent_gets_every_legal_move_even_the_mayors_arrangements(
        capfd: pytest.CaptureFixture[str]) -> None:
    # Puerto Rico lists a mayor's arrangements lazily (an object of its own, compiled by the native
    # build): the agent's process gets them as a list, and its choice among them is checked.
    records: list[Any] = []
    entries, board = run_arena("puerto_rico", 3, ["heuristic", "heuristic", SEEDED], games=6, seed=2,
                               on_game=lambda i, r: records.append(r))
    rows = {row["agent"]: row for row in board.to_json()}
    assert rows["seeded-random"]["games"] == 6 and rows["seeded-random"]["faults"] == 0
    assert len(records) == 6 and all("faults" not in r.log["meta"] for r in records)
    chosen = [line.split()[2:] for line in capfd.readouterr().err.splitlines() if line.startswith("chose among: ")]
    assert len(chosen) == 6 and sum("Mayor" in kinds for kinds in chosen) >= 3


def test_cli_writes_imports_and_prints_the_leaderboard(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "arena.duckdb"
    status = arena(["--game", "san_juan", "--players", "3", "--agents", "heuristic", "random", USER,
                    "--games", "6", "--seed", "5", "--out", str(tmp_path / "logs"), "--db", str(db), "--json"])
    assert status == 0
    out, err = capsys.readouterr()
    board = json.loads(out)
    assert [row["games"] for row in board] == [6, 6, 6]
    assert board[0]["agent"] == "heuristic"
    assert f"governor arena: 6 games written to {tmp_path / 'logs' / 'arena-san_juan-3p-seed5.jsonl'}" in err
    assert sorted(p.name for p in (tmp_path / "logs").iterdir()) == ["arena-san_juan-3p-seed5.jsonl"]
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM games").fetchone() == (6,)
        names = con.execute("SELECT name, games FROM player_ratings ORDER BY name").fetchall()
    assert names == [("heuristic v1", 6), ("last-move v0.1", 6), ("random v1", 6)]
    assert arena(["--game", "san_juan", "--players", "3", "--agents", "heuristic", "random", USER,
                  "--games", "3", "--seed", "5", "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["games"] for r in rows] == ["3", "3", "3"]
    assert list(rows[0])[:4] == ["agent", "spec", "version", "games"]


def test_cli_refuses_what_cannot_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert arena(["--game", "chess", "--players", "2", "--agents", "random", "random"]) == 2
    assert "governor arena: unknown game 'chess' (known: puerto_rico, san_juan)" in capsys.readouterr().err
    assert arena(["--game", "puerto_rico", "--players", "4", "--agents", "random", "random", "random"]) == 2
    assert "4 seats need at least 4 agents, 3 given" in capsys.readouterr().err
    assert arena(["--game", "puerto_rico", "--players", "2", "--agents", "random", "random"]) == 2
    assert "puerto_rico is played by 3 to 5 players, not 2" in capsys.readouterr().err
    assert arena(["--game", "san_juan", "--players", "2", "--agents", "random", "random", "--budget", "inf"]) == 2
    assert "governor arena: --budget must be from 0 to 86400 seconds, not inf" in capsys.readouterr().err
    assert arena(["--game", "san_juan", "--players", "2", "--agents", "random", "random", "--budget", "-1"]) == 2
    assert "--budget must be from 0 to 86400 seconds, not -1" in capsys.readouterr().err
    assert arena(["--game", "san_juan", "--players", "2", "--agents", "random", "nosuch.module:Bot"]) == 2
    assert ("governor arena: nosuch.module:Bot: cannot import 'nosuch.module': "
            "ModuleNotFoundError: No module named 'nosuch'") in capsys.readouterr().err


def test_expert_and_search_agents_with_a_faulty_agent_rank_and_import(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "ladder.duckdb"
    status = arena(["--game", "san_juan", "--players", "2", "--agents", "expert", "search:1", FAULTY,
                    "--games", "6", "--seed", "2", "--budget", "0.2", "--db", str(db), "--json"])
    assert status == 0
    rows = {row["agent"]: row for row in json.loads(capsys.readouterr().out)}
    assert sorted(rows) == ["expert", "faulty", "search:1"]
    assert {name: row["games"] for name, row in rows.items()} == dict.fromkeys(rows, 4)
    assert rows["faulty"]["faults_by_kind"] == {"error": 4, "illegal": 4, "timeout": 4}
    assert rows["search:1"]["faults"] == rows["expert"]["faults"] == 0
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM games").fetchone() == (6,)
        stored = con.execute("SELECT name, games FROM player_ratings ORDER BY name").fetchall()
    assert stored == [("expert v2", 4), ("faulty v1", 4), ("search:1 v1+expert2", 4)]


def test_a_game_agents_keep_going_forever_is_counted_not_recorded(capsys: pytest.CaptureFixture[str]) -> None:
    # The last-move and faulty agents, face to face, never end a San Juan game: each game is played
    # once (not again from other seeds), reported, and the arena goes on.
    assert arena(["--game", "san_juan", "--players", "2", "--agents", USER, FAULTY, "--games", "2",
                  "--budget", "0.2", "--seed", "2"]) == 0
    out, err = capsys.readouterr()
    assert err.count("did not end within 5000 moves: not recorded") == 2
    assert "game 0 (last-move, faulty) did not end" in err
    assert out.rstrip().endswith("2 game(s) did not end within the move limit: not recorded, not counted")


def test_the_arena_loads_the_engine_of_the_game_it_plays_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Another registered game whose engine cannot be loaded (its module fails on import) does not stop
    an arena of San Juan: ``--game`` is checked against the declarations, not by loading every engine."""
    from replay import game, registry
    from tests.replay.distributions import install_distribution

    package = tmp_path / "broken_engine"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from replay.game import GameDeclaration\n\n"
        "GAME = GameDeclaration(name='broken', title='Broken', min_players=2, max_players=2,\n"
        "    engine='broken_engine.engine:ENGINE', view='broken_engine.engine', catalogue='broken_engine.engine',\n"
        "    bots=(), log_schema='br_', log_schema_file='broken_engine:log.schema.json')\n", encoding="utf-8")
    (package / "engine.py").write_text("raise RuntimeError('half installed')\n", encoding="utf-8")
    install_distribution(tmp_path, "broken_game", "[governor.games]\nbroken = broken_engine:GAME\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    game.forget()
    try:
        assert arena(["--game", "san_juan", "--players", "2", "--agents", "random", "random", "--games", "2",
                      "--progress", "never", "--json"]) == 0
        assert [row["games"] for row in json.loads(capsys.readouterr().out)] == [2, 2]
        assert arena(["--game", "chess", "--players", "2", "--agents", "random", "random"]) == 2
        assert "governor arena: unknown game 'chess' (known: broken, puerto_rico, san_juan)" in capsys.readouterr().err
    finally:
        monkeypatch.undo()
        game.forget()
        registry._ENGINES.pop("broken", None)
