"""``governor winchance --db --luck``: the table ``luck`` holds each move's split of every seat's win
chance change (chance's part and the decision's), summing to 0 over the seats at every step and adding
up, from the start, to each seat's result; the rows are the same on one worker or several, batches are
committed whole in the order of the games, a run continues where another stopped, a bad game, a bug or a
missing model is one line, the progress counts every game, and a database made before the table gets
it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import duckdb
import numpy as np
import pytest

from analysis.winchance import luck_fill
from analysis.winchance.fill import DatabaseStore
from analysis.winchance.luck import game_split
from analysis.winchance.luck_fill import fill_luck
from analysis.winchance.model import load
from governor.cli import main
from replay.logfile import parse_game


@pytest.fixture()
def fewer_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two deals a move instead of eight, for the tests that check how the table is filled, not the
    numbers of the split."""
    monkeypatch.setattr("analysis.winchance.luck.SAMPLES", 2)


def _rows(db: Path, sql: str, params: list[object] | None = None) -> list[tuple[object, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql, params).fetchall()


def test_each_moves_split_is_stored_and_adds_up_to_the_result(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["winchance", "--db", str(db), "--luck"]) == 0
    moves = _rows(db, "SELECT sum(moves * player_count) FROM games")[0][0]
    assert capsys.readouterr().err == f"filled the luck of 3 game(s) ({moves:,} rows) in {db}\n"
    # The rows of a game are its split, move by move and seat by seat, exactly.
    game_id, text = _rows(db, "SELECT game_id, log FROM games ORDER BY game_id LIMIT 1")[0]
    log = parse_game(json.loads(str(text)))
    split = game_split(load(log.game, len(log.players)), log)
    stored = _rows(db, "SELECT step, seat, luck, skill FROM luck WHERE game_id = ? ORDER BY step, seat", [game_id])
    assert stored == [(step + 1, seat, float(split.luck[step, seat]), float(split.skill[step, seat]))
                      for step in range(len(log.moves)) for seat in range(len(log.players))]
    # Every step's luck and skill sum to 0 over the seats.
    sums = _rows(db, "SELECT max(abs(l)), max(abs(s)) FROM (SELECT sum(luck) AS l, sum(skill) AS s FROM luck "
                     "GROUP BY game_id, step)")[0]
    assert sums[0] < 1e-12 and sums[1] < 1e-12
    # A seat's chance at the start plus its luck plus its skill is its result (the win chances filled too).
    assert main(["winchance", "--db", str(db)]) == 0
    totals = _rows(db, """
        SELECT w.game_id, w.seat, w.win_chance + sum(l.luck) + sum(l.skill), any_value(p.won)
        FROM win_chance w JOIN luck l ON l.game_id = w.game_id AND l.seat = w.seat
        JOIN players p ON p.game_id = w.game_id AND p.seat = w.seat
        WHERE w.step = 0 GROUP BY w.game_id, w.seat, w.win_chance""")
    assert len(totals) == 6
    for _, _, total, won in totals:
        assert total == pytest.approx(1.0 if won else 0.0, abs=1e-9)


def test_batches_are_committed_whole_and_a_run_continues_where_one_stopped(
        db: Path, fewer_deals: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[tuple[int, int, int]] = []

    def progress(done: int, total: int) -> None:
        seen.append((done, total, _rows(db, "SELECT count(DISTINCT game_id) FROM luck")[0][0]))  # type: ignore[arg-type]

    monkeypatch.setattr(luck_fill, "TASK_GAMES", 1)
    assert fill_luck(str(db), say=print, progress=progress, batch_games=2).games == 3
    # After each game, the games of the batches done are stored, no others.
    assert seen == [(1, 3, 0), (2, 3, 2), (3, 3, 2)]
    before = _rows(db, "SELECT * FROM luck ORDER BY ALL")
    with duckdb.connect(str(db)) as con:
        con.execute("DELETE FROM luck WHERE game_id = (SELECT max(game_id) FROM games)")
    # Stopped in the middle of its second batch, a run keeps its first; the next run does the rest.
    monkeypatch.setattr("analysis.winchance.luck_fill.BATCH_GAMES", 1)
    real = game_split
    calls: list[str] = []

    def interrupted_second(model: object, log: object) -> object:
        calls.append("split")
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(model, log)  # type: ignore[arg-type]

    with duckdb.connect(str(db)) as con:
        con.execute("DELETE FROM luck WHERE game_id = (SELECT min(game_id) FROM games)")
    monkeypatch.setattr("analysis.winchance.luck_fill.game_split", interrupted_second)
    assert main(["winchance", "--db", str(db), "--luck", "--workers", "1"]) == 130
    assert capsys.readouterr().err == ("governor winchance: interrupted; the games filled keep their rows "
                                       "(run it again for the rest)\n")
    assert _rows(db, "SELECT count(DISTINCT game_id) FROM luck")[0][0] == 2
    monkeypatch.setattr("analysis.winchance.luck_fill.game_split", real)
    assert main(["winchance", "--db", str(db), "--luck"]) == 0
    assert "filled the luck of 1 game(s)" in capsys.readouterr().err
    assert _rows(db, "SELECT * FROM luck ORDER BY ALL") == before


def test_a_bad_game_or_a_missing_model_is_one_line_and_the_rest_goes_on(
        db: Path, fewer_deals: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with duckdb.connect(str(db)) as con:
        bad = con.execute("SELECT min(game_id) FROM games").fetchone()[0]  # type: ignore[index]
        con.execute("UPDATE games SET log = '{\"format\": 1}' WHERE game_id = ?", [bad])
    assert main(["winchance", "--db", str(db), "--luck", "--workers", "2"]) == 1
    rows = _rows(db, "SELECT count(*) FROM luck")[0][0]
    assert capsys.readouterr().err.splitlines() == [
        f"governor winchance: game {bad}: format: expected the string 'governor-log', got int; left without luck",
        f"filled the luck of 2 game(s) ({rows:,} rows) in {db}; 1 game(s) left out",
    ]
    empty = tmp_path / "models"
    empty.mkdir()
    with duckdb.connect(str(db)) as con:
        con.execute("DELETE FROM luck")
    assert main(["winchance", "--db", str(db), "--luck", "--models", str(empty), "--workers", "2"]) == 1
    # A task's missing model is said first (once), then its games left out.
    assert capsys.readouterr().err.splitlines() == [
        f"governor winchance: {empty / 'san_juan-2.json.gz'}: no win-chance model of san_juan with 2 players "
        "(build it with governor train --game san_juan --players 2): its games are left without luck",
        f"governor winchance: game {bad}: format: expected the string 'governor-log', got int; left without luck",
        f"filled the luck of 0 game(s) (0 rows) in {db}; 3 game(s) left out",
    ]
    assert _rows(db, "SELECT count(*) FROM luck")[0][0] == 0


def test_a_database_made_before_the_table_gets_it(db: Path, fewer_deals: None, capsys: pytest.CaptureFixture[str]) -> None:
    with duckdb.connect(str(db)) as con:
        con.execute("DROP TABLE luck")
        con.execute("UPDATE governor_meta SET value = 'made-before-luck' WHERE key = 'schema_digest'")
    assert main(["winchance", "--db", str(db), "--luck"]) == 0
    assert capsys.readouterr().err.startswith("filled the luck of 3 game(s)")
    luck = np.array(_rows(db, "SELECT sum(luck) FROM luck GROUP BY game_id, seat"))
    assert luck.shape == (6, 1) and np.abs(luck).max() > 0.01


def test_workers_give_the_rows_of_one_worker_committed_in_the_order_of_the_games(
        db: Path, fewer_deals: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "copy.duckdb"
    other.write_bytes(db.read_bytes())
    # One game a task, two a batch: the games come back from two workers, and are stored in order.
    monkeypatch.setattr(luck_fill, "TASK_GAMES", 1)
    monkeypatch.setattr(luck_fill, "BATCH_GAMES", 2)
    add = DatabaseStore.add
    batches: list[list[str]] = []

    def noted(self: DatabaseStore, rows: object, ids: list[str]) -> tuple[int, int]:
        batches.append(list(ids))
        return add(self, rows, ids)  # type: ignore[arg-type]

    monkeypatch.setattr(DatabaseStore, "add", noted)
    # Each game split notes the process that split it (a worker forked from this one inherits it).
    marks = [tmp_path / "one", tmp_path / "two"]
    real = game_split

    def noting(model: object, log: object) -> object:
        (marks[0] / f"{os.getpid()}-{log.game_id}").touch()  # type: ignore[attr-defined]
        return real(model, log)  # type: ignore[arg-type]

    monkeypatch.setattr(luck_fill, "game_split", noting)
    marks[0].mkdir()
    assert main(["winchance", "--db", str(db), "--luck", "--workers", "1"]) == 0
    ids = [row[0] for row in _rows(db, "SELECT game_id FROM games ORDER BY game_id")]
    assert sorted(p.name for p in marks[0].iterdir()) == [f"{os.getpid()}-{i}" for i in ids]
    marks.pop(0)
    marks[0].mkdir()
    assert main(["winchance", "--db", str(other), "--luck", "--workers", "2"]) == 0
    # Split by the workers, none by this process.
    split_by = {p.name.split("-")[0] for p in marks[0].iterdir()}
    assert len(list(marks[0].iterdir())) == 3 and str(os.getpid()) not in split_by
    assert batches == [ids[:2], ids[2:]] * 2
    one = _rows(db, "SELECT * FROM luck ORDER BY ALL")
    assert len(one) == _rows(db, "SELECT sum(moves * player_count) FROM games")[0][0]
    assert _rows(other, "SELECT * FROM luck ORDER BY ALL") == one


def test_an_interrupted_fill_on_workers_keeps_whole_games_and_the_next_run_completes_it(
        db: Path, fewer_deals: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    clean = tmp_path / "clean.duckdb"
    clean.write_bytes(db.read_bytes())
    assert main(["winchance", "--db", str(clean), "--luck", "--workers", "1"]) == 0
    monkeypatch.setattr(luck_fill, "TASK_GAMES", 1)
    monkeypatch.setattr(luck_fill, "BATCH_GAMES", 1)
    add = DatabaseStore.add
    calls: list[str] = []

    def stopping(self: DatabaseStore, rows: object, ids: list[str]) -> tuple[int, int]:
        calls.append("add")
        if len(calls) == 2:  # Ctrl-C while the workers split the games after the first
            raise KeyboardInterrupt
        return add(self, rows, ids)  # type: ignore[arg-type]

    monkeypatch.setattr(DatabaseStore, "add", stopping)
    capsys.readouterr()
    assert main(["winchance", "--db", str(db), "--luck", "--workers", "2", "--progress", "never"]) == 130
    assert capsys.readouterr().err == ("governor winchance: interrupted; the games filled keep their rows "
                                       "(run it again for the rest)\n")
    # The first game whole, no row of the others.
    first = _rows(db, "SELECT min(game_id) FROM games")[0][0]
    assert _rows(db, "SELECT game_id, count(*) FROM luck GROUP BY game_id") == _rows(
        db, "SELECT game_id, moves * player_count FROM games WHERE game_id = ?", [first])
    monkeypatch.setattr(DatabaseStore, "add", add)
    assert main(["winchance", "--db", str(db), "--luck", "--workers", "2"]) == 0
    assert capsys.readouterr().err.startswith("filled the luck of 2 game(s) (")
    assert _rows(db, "SELECT * FROM luck ORDER BY ALL") == _rows(clean, "SELECT * FROM luck ORDER BY ALL")


def test_the_progress_counts_every_game_those_left_out_too(db: Path, fewer_deals: None,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE games SET log = 'not json' WHERE game_id = (SELECT min(game_id) FROM games)")
    monkeypatch.setattr(luck_fill, "TASK_GAMES", 1)
    seen: list[tuple[int, int]] = []
    lines: list[str] = []
    summary = fill_luck(str(db), say=lines.append, progress=lambda done, total: seen.append((done, total)),
                        workers=2)
    assert (summary.games, summary.failed, len(lines)) == (2, 1, 1)
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_a_bug_is_one_line_its_game_left_out_and_exit_status_3(db: Path, fewer_deals: None,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    bad = _rows(db, "SELECT max(game_id) FROM games")[0][0]
    real = game_split

    def broken_on_one(model: object, log: object) -> object:
        if log.game_id == bad:  # type: ignore[attr-defined]
            raise RuntimeError("split broken")
        return real(model, log)  # type: ignore[arg-type]

    monkeypatch.setattr(luck_fill, "game_split", broken_on_one)
    assert main(["winchance", "--db", str(db), "--luck", "--workers", "2"]) == 3
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(f"governor winchance: game {bad}: internal: RuntimeError: split broken (")
    assert lines[0].endswith("test_luck_fill.py:" + str(broken_on_one.__code__.co_firstlineno + 2) + "); left without luck")
    rows = _rows(db, "SELECT count(*) FROM luck")[0][0]
    assert lines[1] == f"filled the luck of 2 game(s) ({rows:,} rows) in {db}; 1 game(s) left out"
    assert lines[2].startswith("governor: 1 game(s) met a bug in governor: this is a bug in governor")
    assert _rows(db, "SELECT count(*) FROM luck WHERE game_id = ?", [bad]) == [(0,)]


@pytest.mark.parametrize(("option", "named"), [("--lake", "--lake"), ("--cluster", "--cluster")])
def test_luck_on_a_lake_or_a_cluster_is_refused_in_one_line(tmp_path: Path, option: str, named: str,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    value = str(tmp_path) if option == "--lake" else "local"
    assert main(["winchance", option, value, "--luck"]) == 2
    assert capsys.readouterr().err == (
        f"governor winchance: --luck fills the table luck of a database file (--db FILE, on --workers processes): "
        f"not with {named}\n")
