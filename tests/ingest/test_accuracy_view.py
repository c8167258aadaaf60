"""The ``accuracy`` view gives ``analysis.accuracy``'s numbers for every stored analysis, follows the
analysis when it is stored again, and names a stored seat as ``players`` does."""

from __future__ import annotations

from pathlib import Path

import duckdb

import analysis.decisions as decisions_module
import ingest.accuracy_sql as sql_accuracy
from analysis.accuracy import seat_summaries
from analysis.decisions import Decision, Options
from analysis.store import store
from ingest.db import writer
from tests.analysis.test_accuracy import DECISIONS, _c

COLUMNS = "seat, player, bot, accuracy, inaccuracies, mistakes, blunders, avg_loss, moves"


def _rows(db: Path, game_id: str) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(f"SELECT {COLUMNS} FROM accuracy WHERE game_id = ? ORDER BY seat", [game_id]).fetchall()
    finally:
        con.close()
    return [(s, p, b, round(a, 9), i, m, bl, round(loss, 9), n) for s, p, b, a, i, m, bl, loss, n in rows]


def test_the_noise_test_is_the_analysis_one() -> None:
    assert sql_accuracy.Z95 == decisions_module.Z95


def test_view_gives_the_seat_summaries_exactly(tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    store(db, "g1", "1", DECISIONS, Options(rollouts=100))
    assert _rows(db, "g1") == [
        (0, "Ana", False, 2.990099010, 0, 0, 1, 0.3, 2),
        (1, "Bruno", False, 65.892877692, 1, 0, 0, 0.0375, 2),
    ]
    expected = seat_summaries(DECISIONS, ["Ana", "Bruno", "Carla"])
    assert [r[3] for r in _rows(db, "g1")] == [round(s.accuracy or 0, 9) for s in expected[:2]]


def test_a_long_game_matches_python_with_lichess_windows(tmp_path: Path) -> None:
    # 45 decisions of two seats with varied losses: windows of 2 and 4 moves, padded, weights clamped;
    # every 7th with nothing at stake (left out).
    long = []
    for k in range(1, 46):
        seat = k % 2
        best = 40 + (k * 37) % 50
        played = best - (k * 13) % 45
        candidates = (_c("a", best, 100), _c("b", played, 100, True)) if played < best else \
            (_c("b", played, 100, True), _c("a", 20, 100))
        if k % 7 == 0:
            candidates = (_c("b", 0, 100, True), _c("a", 0, 100))
        long.append(Decision(k, seat, ["Ana", "Bruno"][seat], 3, candidates))
    db = tmp_path / "a.duckdb"
    store(db, "g2", "1", long, Options(rollouts=100))
    expected = seat_summaries(long, ["Ana", "Bruno"])
    got = _rows(db, "g2")
    assert [(r[0], r[3], r[4], r[5], r[6], r[7], r[8]) for r in got] == [
        (s.seat, round(s.accuracy or 0, 9), s.inaccuracies, s.mistakes, s.blunders, round(s.avg_loss, 9), s.moves)
        for s in expected]
    assert [s.moves for s in expected] == [19, 20]


def test_view_follows_a_new_analysis_and_the_players_names(tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    store(db, "g1", "1", DECISIONS, Options(rollouts=100))
    with writer(db) as con:
        # A stored game's seat is named as ``players`` names it (an agent's identity), and marked a bot.
        con.execute("INSERT INTO players (game_id, seat, name, bot) VALUES ('g1', 1, 'expert v1', true)")
    # Ana's blunder analysed again, now as the best move: the view follows at once.
    store(db, "g1", "1", [Decision(3, 0, "Ana", 4, (_c("b", 95, 100, True), _c("a", 90, 100)))], Options())
    rows = _rows(db, "g1")
    assert rows[0] == (0, "Ana", False, 100.0, 0, 0, 0, 0.0, 2)
    assert rows[1][:3] == (1, "expert v1", True)
