"""``governor analyse --all`` stopped by Ctrl-C (SIGINT) or SIGTERM once it has stored some games: status 130
or 143, the games stored stay whole, the line before says how many, and a run again analyses only the
others, ending with the rows of a run never stopped."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ingest.db import reader
from tests.analysis.conftest import ROOT
from tests.analysis.test_batch import CONTENT, DECISIONS, FAST, rows, summary

#: Decisions of each of the three games, by game id (``tests.analysis.test_batch.GAMES``).
DECISIONS_OF = {"01369575842870b60385": 123, "6636f4e50c20cb47c261": 122, "f3b0cf9508f30b37d897": 121}


def _stored(db: Path) -> list[str]:
    """The games with stored rows, read as any reader does (waiting its turn while the command writes)."""
    with reader(db) as con:
        return [r[0] for r in con.execute("SELECT DISTINCT game_id FROM analysis ORDER BY 1").fetchall()]


def _command(db: Path) -> list[str]:
    return [sys.executable, "-m", "governor.cli", "analyse", "--db", str(db), "--all", *FAST, "--workers", "1",
            "--progress", "never"]


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory, three_games: Path) -> list[tuple]:
    """The rows of the three games analysed in one run, never stopped."""
    db = tmp_path_factory.mktemp("whole") / "whole.duckdb"
    shutil.copy(three_games, db)
    subprocess.run(_command(db), capture_output=True, text=True, timeout=300, cwd=ROOT, check=True)
    return rows(db, CONTENT)


@pytest.mark.parametrize(("sig", "word", "status"), [(signal.SIGINT, "interrupted", 130),
                                                      (signal.SIGTERM, "terminated", 143)])
def test_stopped_keeps_the_games_stored_and_a_run_again_does_the_rest(
        db: Path, whole: list[tuple], sig: int, word: str, status: int) -> None:
    process = subprocess.Popen(_command(db), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        deadline = time.monotonic() + 120
        while not _stored(db):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no game stored in two minutes"
            time.sleep(0.02)
        process.send_signal(sig)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == status, err
    kept = _stored(db)
    assert 1 <= len(kept) <= 3
    left = 3 - len(kept)
    lines = err.splitlines()
    plural = "s" * (len(kept) != 1)
    assert lines == [f"{db}: stopped: {len(kept)} game{plural} analysed and stored, 0 skipped (analysed already), "
                     f"0 failed, {left} not done; run it again to do the rest", f"governor analyse: {word}"]
    assert out == ""
    # Each game stored is whole: every one of its decisions, once.
    assert rows(db, "SELECT game_id, count(DISTINCT (step, seat)), count(*) = count(DISTINCT (step, seat, rank)) "
                    "FROM analysis GROUP BY game_id ORDER BY game_id") == [(g, DECISIONS_OF[g], True) for g in kept]
    again = subprocess.run(_command(db), capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert again.returncode == 0, again.stderr
    done = sum(DECISIONS_OF[g] for g in DECISIONS_OF if g not in kept)
    assert again.stderr.startswith(summary(db, left, done, len(kept)))
    assert rows(db, CONTENT) == whole
    assert sum(DECISIONS_OF.values()) == DECISIONS

