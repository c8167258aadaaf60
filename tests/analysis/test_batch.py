"""``governor analyse --all`` / ``--where``: every stored game analysed once under the settings asked,
each stored whole; a run again does only what is missing; partial or other-settings analyses are
replaced, never kept beside; ``--where`` is one read-only condition; one bad game is one line."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from analysis.decisions import Options, analyse
from analysis.store import store
from governor.cli import main
from replay.log_reader import read_records
from replay.registry import engine_for
from tests.analysis.conftest import GAMES, ROOT

#: The three games' decisions, and their candidates when every choice is a candidate.
DECISIONS, ROWS = 366, 2319
#: Settings that keep a test fast and its rows exact: every choice a candidate (no pre-ranking), one
#: rollout each by the fastest bot.
FAST = ["--rollouts", "1", "--sampling", "fixed", "--top", "1000", "--rollout-bot", "heuristic"]


def rows(db: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


#: Every stored row but the time it was stored, in a fixed order.
CONTENT = ("SELECT * EXCLUDE (analysed_at) FROM analysis ORDER BY game_id, step, seat, rank")


def analyse_all(db: Path, *extra: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["analyse", "--db", str(db), "--all", *FAST, "--workers", "1", "--progress", "never", *extra])
    return code, capsys.readouterr().err


def summary(db: Path, analysed: int, decisions: int, skipped: int, failed: int = 0, of: int = 3) -> str:
    return (f"{db}: {analysed} game{'s' * (analysed != 1)} analysed ({decisions} decisions), {skipped} skipped "
            f"(analysed already), {failed} failed, of {of} in ")


def test_all_analyses_every_game_once_then_skips(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = analyse_all(db, capsys=capsys)
    assert code == 0
    assert err.startswith(summary(db, 3, DECISIONS, 0)) and err.count("\n") == 1
    assert rows(db, "SELECT count(*), count(DISTINCT game_id), count(DISTINCT (game_id, step, seat)) FROM analysis") == [
        (ROWS, 3, DECISIONS)]
    assert rows(db, "SELECT DISTINCT rollouts_asked, seed, top, sampling, rollout_bot FROM analysis") == [
        (1, 0, 1000, "fixed", "heuristic")]
    before = rows(db, CONTENT)
    code, err = analyse_all(db, capsys=capsys)
    assert code == 0 and err.startswith(summary(db, 0, 0, 3))
    assert rows(db, CONTENT) == before


def test_other_settings_and_a_part_are_replaced_never_kept_beside(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert analyse_all(db, capsys=capsys)[0] == 0
    whole = rows(db, CONTENT)
    first, second, _ = (r[0] for r in rows(db, "SELECT game_id FROM games ORDER BY game_id"))
    # One game analysed with another seed: its rows are replaced, not added to.
    code, err = analyse_all(db, "--seed", "5", "--where", f"game_id = '{first}'", capsys=capsys)
    assert code == 0 and err.startswith(summary(db, 1, 123, 0, of=1))
    assert rows(db, "SELECT seed, count(DISTINCT game_id), count(*) FROM analysis GROUP BY seed ORDER BY seed") == [
        (0, 2, ROWS - 777), (5, 1, 777)]
    # Another left with its first five moves only (a review stopped there), and one of them stored
    # again by ``--store`` of one LOG: both games are done again under the settings asked.
    con = duckdb.connect(str(db))
    con.execute("DELETE FROM analysis WHERE game_id = ? AND step > 5", [second])
    con.close()
    record = next(r for r in read_records(GAMES[0]) if r.log is not None)
    assert record.log is not None and record.log.game_id == second
    options = Options(rollouts=1, top=1000, sampling="fixed", rollout_bot="heuristic", steps=(1, 1))
    store(db, second, engine_for(record.log.game).version, list(analyse(record.log, options)), options)
    code, err = analyse_all(db, capsys=capsys)
    assert code == 0 and err.startswith(summary(db, 2, 245, 1))
    assert rows(db, CONTENT) == whole


def test_where_picks_games_and_is_one_condition_run_read_only(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = rows(db, "SELECT min(game_id) FROM games")[0][0]
    code, err = analyse_all(db, "--where", f"game_id = '{first}' -- the first game", capsys=capsys)
    assert code == 0 and err.startswith(summary(db, 1, 123, 0, of=1))
    assert rows(db, "SELECT DISTINCT game_id FROM analysis") == [(first,)]
    for where, why in [
        ("player_count = 2; DROP TABLE games",
         'expects one SQL condition over the games table (such as "player_count = 2"): Parser Error: '
         '"player_count = 2; DROP TABLE games" is not an expression list: it holds more than one statement'),
        ("1 = 1) OR (1 = 1", 'expects one SQL condition over the games table (such as "player_count = 2"): '
         'Parser Error: syntax error at or near ")"'),
        ("game_id IN (SELECT * FROM read_csv('/etc/passwd'))",
         'Permission Error: Cannot access file "/etc/passwd" - file system operations are disabled by configuration'),
        ("nosuch = 2", 'Binder Error: Referenced column "nosuch" not found in FROM clause!'),
    ]:
        code = main(["analyse", "--db", str(db), "--where", where, *FAST, "--progress", "never"])
        assert (code, capsys.readouterr().err) == (2, f"governor analyse: --where: {why}\n")
    assert rows(db, "SELECT count(DISTINCT game_id) FROM analysis") == [(1,)]


@pytest.mark.parametrize(("argv", "message"), [
    (["x.json", "--all"], "--all and --where analyse the stored games: give them without a LOG, or a LOG alone"),
    (["x.json", "--where", "true"], "--all and --where analyse the stored games: give them without a LOG, or a LOG alone"),
    (["--all", "--steps", "1:3"], "--steps is for one LOG: --all and --where analyse whole games"),
    (["--all", "--cluster", "local"], "--cluster analyses the games of a lake: give --lake DIR too"),
    ([], "give a LOG to analyse, or --all (or --where SQL) for the games of a database"),
    (["x.json", "--lake", "lake"], "--lake and --cluster go with --all or --where: a LOG is analysed alone"),
])
def test_usage_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", *argv]) == 2
    assert capsys.readouterr().err == f"governor analyse: {message}\n"


def test_a_game_that_cannot_be_analysed_is_one_line_and_the_rest_goes_on(
        db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ids = [r[0] for r in rows(db, "SELECT game_id FROM games ORDER BY game_id")]
    con = duckdb.connect(str(db))
    con.execute("UPDATE games SET game = 'retired' WHERE game_id = ?", [ids[0]])
    con.execute("UPDATE games SET log = '{\"x\": 1}' WHERE game_id = ?", [ids[1]])
    con.close()
    code, err = analyse_all(db, capsys=capsys)
    assert code == 1
    lines = err.splitlines()
    assert lines[:2] == [
        f"failed: game {ids[0]}: unknown game 'retired' (known: san_juan, puerto_rico)",
        f"failed: game {ids[1]}: its stored log: format: missing field 'format' (the string 'governor-log')",
    ]
    assert lines[2].startswith(summary(db, 1, 121, 0, failed=2)) and len(lines) == 3
    assert rows(db, "SELECT DISTINCT game_id FROM analysis") == [(ids[2],)]


def test_the_same_rows_on_one_and_two_workers(db: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.duckdb"
    shutil.copy(db, other)
    for target, workers in ((db, "1"), (other, "2")):
        run = subprocess.run([sys.executable, "-m", "governor.cli", "analyse", "--db", str(target), "--all", *FAST,
                              "--workers", workers, "--progress", "never"],
                             capture_output=True, text=True, timeout=300, cwd=ROOT)
        assert run.returncode == 0, run.stderr
        assert run.stderr.startswith(summary(target, 3, DECISIONS, 0))
    assert rows(db, CONTENT) == rows(other, CONTENT)
    assert len(rows(db, CONTENT)) == ROWS


def test_the_time_left_is_at_the_pace_of_the_games_analysed() -> None:
    from analysis.batch import Tally, eta

    assert eta(Tally(total=10, skipped=3, started=100.0), 130.0) == "?"
    assert eta(Tally(total=10, analysed=2, skipped=3, started=100.0), 120.0) == "50 s"
    assert eta(Tally(total=20, analysed=2, started=100.0), 120.0) == "3 min 00 s"
    assert eta(Tally(total=1000, analysed=2, started=100.0), 120.0) == "2 h 46 min"
    assert eta(Tally(total=2, analysed=2, started=100.0), 120.0) == "0 s"
