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
from ingest.schema import SCHEMA_VERSION
from tests.analysis.test_accuracy import DECISIONS, SHARED, _c, _s

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


def _python_rows(decisions: list[Decision], players: list[str]) -> list[tuple]:
    return [(s.seat, round(s.accuracy or 0, 9), s.inaccuracies, s.mistakes, s.blunders, round(s.avg_loss, 9), s.moves)
            for s in seat_summaries(decisions, players) if s.moves]


def test_view_models_the_loss_from_score_shares_as_python_does(tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    store(db, "g1", "1", SHARED, Options(rollouts=40))
    got = _rows(db, "g1")
    # Ana's lost position counts (24 points of win chance, modelled from 3 points of score share);
    # Bruno's two moves lose nothing.
    assert [(r[0], r[3], r[7], r[8]) for r in got] == [(0, 9.591959190, 0.24, 1), (1, 100.0, 0.0, 2)]
    assert [(r[0], r[3], r[4], r[5], r[6], r[7], r[8]) for r in got] == _python_rows(SHARED, ["Ana", "Bruno"])
    # A long game of shares: significant and not, the played move best, equal shares, ties for the best.
    long = []
    for k in range(1, 41):
        seat = k % 2
        top = 0.20 + (k * 7 % 20) / 100
        played = top - (k * 3 % 7) / 100
        spread = (k % 5) / 50
        others = (_s("a", k % 9, 24, top, spread), _s("c", 0, 12, top, spread / 2))
        if k % 6 == 0:
            others = (_s("a", 3, 24, played, spread),)
        long.append(Decision(k, seat, ["Ana", "Bruno"][seat], 4,
                             (*others, _s("b", k % 5, 24, played, spread, True))))
    store(db, "g2", "1", long, Options(rollouts=40))
    assert [(r[0], r[3], r[4], r[5], r[6], r[7], r[8]) for r in _rows(db, "g2")] == _python_rows(long, ["Ana", "Bruno"])


def test_an_analysis_stored_before_score_shares_reads_its_win_chances(tmp_path: Path) -> None:
    """A database of schema version 9 (no score shares) is migrated when next written: its stored
    analyses keep NULL shares and their accuracy is the win chances' as before."""
    db = tmp_path / "old.duckdb"
    with writer(db):
        pass
    con = duckdb.connect(str(db))
    # Version 9's columns: without the score shares (10) and the sampling (11).
    con.execute("ALTER TABLE analysis DROP COLUMN score_share")
    con.execute("ALTER TABLE analysis DROP COLUMN score_share_sd")
    con.execute("ALTER TABLE analysis DROP COLUMN sampling")
    con.execute("ALTER TABLE analysis DROP COLUMN rollout_bot_version")
    con.execute("UPDATE governor_meta SET value = '9' WHERE key = 'schema_version'")
    con.close()
    store(db, "g1", "1", DECISIONS, Options(rollouts=100))
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT value FROM governor_meta WHERE key = 'schema_version'").fetchall() == [
            (str(SCHEMA_VERSION),)]
        assert con.execute("SELECT count(*), count(score_share) FROM analysis").fetchall() == [(8, 0)]
    finally:
        con.close()
    assert _rows(db, "g1") == [
        (0, "Ana", False, 2.990099010, 0, 0, 1, 0.3, 2),
        (1, "Bruno", False, 65.892877692, 1, 0, 0, 0.0375, 2),
    ]
