"""Opening the database: readers take their turn between a writer's batches."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ingest.db import reader, turnstile_file, writer

ROOT = Path(__file__).resolve().parents[2]

#: A writer that lets go of the file only for a moment between its batches, like an import whose
#: workers have the next batch ready: 40 batches of 0.25 s, the number of each written as it goes.
BUSY_WRITER = """
import sys, time
from ingest.db import writer
db = sys.argv[1]
for n in range(40):
    with writer(db) as con:
        con.execute("CREATE TABLE IF NOT EXISTS beat (n INTEGER)")
        con.execute("INSERT INTO beat VALUES (?)", [n])
        if n == 0:
            print("holding", flush=True)
        time.sleep(0.25)
"""


def test_a_reader_gets_in_between_two_batches_of_a_writer_that_never_pauses(tmp_path: Path) -> None:
    db = tmp_path / "busy.duckdb"
    with writer(db):
        pass
    proc = subprocess.Popen([sys.executable, "-c", BUSY_WRITER, str(db)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    seen: list[int] = []
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "holding\n"
        for _ in range(5):  # five readers in turn, as the dashboard's queries come
            with reader(db, timeout=30) as con:
                row = con.execute("SELECT max(n) FROM beat").fetchone()
                assert row is not None
                seen.append(row[0])
            time.sleep(0.3)  # the writer has the file again
    finally:
        proc.communicate(timeout=60)
    assert proc.returncode == 0
    # Each waited at most about one batch: without a turn of its own, a reader's retries found the file
    # free only by chance, often once all 40 batches were written.
    assert all(b - a <= 3 for a, b in zip([0, *seen], seen)), seen


def _hold_turnstile(db: Path) -> int:
    """Someone else waiting for the file: the turnstile (an exclusive flock on its lock file) held."""
    path = turnstile_file(str(db))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


OTHER_WRITER = """
import sys
from ingest.db import DatabaseError, writer
try:
    with writer(sys.argv[1], timeout=1.0):
        print("in")
except DatabaseError as err:
    print("refused:", err)
"""


def test_a_writer_keeps_the_file_to_itself_once_it_has_it(tmp_path: Path) -> None:
    """Taking one's turn touches no descriptor of the database file: closing one would let go of the
    lock DuckDB holds on it, and a second writer would get in beside the first."""
    db = tmp_path / "mine.duckdb"
    with writer(db):
        pass
    with writer(db) as con:
        con.execute("CREATE TABLE t (n INTEGER)")
        other = subprocess.run([sys.executable, "-c", OTHER_WRITER, str(db)], cwd=ROOT, capture_output=True,
                               text=True, timeout=60)
        assert other.stdout.startswith("refused: "), other.stdout + other.stderr
        assert "cannot open for writing" in other.stdout


def test_the_turnstile_is_a_file_of_its_own_for_every_spelling_of_the_path(tmp_path: Path) -> None:
    db = tmp_path / "spelt.duckdb"
    with writer(db):
        pass
    link = tmp_path / "link.duckdb"
    link.symlink_to(db)
    assert turnstile_file(str(db)) == turnstile_file(str(link)) == turnstile_file(str(tmp_path / "." / "spelt.duckdb"))
    assert turnstile_file(str(db)).parent.name == "turns"
    with pytest.raises(OSError):
        turnstile_file(str(tmp_path / "missing.duckdb"))  # a database not made yet has no turnstile


def test_a_reader_waits_at_the_turnstile_for_whoever_came_first(tmp_path: Path) -> None:
    db = tmp_path / "turn.duckdb"
    with writer(db):
        pass
    fd = _hold_turnstile(db)
    let_go = threading.Timer(0.5, os.close, [fd])
    start = time.monotonic()
    let_go.start()
    with reader(db, timeout=30) as con:
        waited = time.monotonic() - start
        assert con.execute("SELECT 1").fetchone() == (1,)
    let_go.join()
    assert waited >= 0.5


def test_a_process_that_holds_a_connection_never_waits_at_the_turnstile(tmp_path: Path) -> None:
    """It could wait for someone who waits for it to let go of the file."""
    db = tmp_path / "held.duckdb"
    with writer(db):
        pass
    with reader(db) as outer:
        fd = _hold_turnstile(db)
        try:
            start = time.monotonic()
            with reader(db, timeout=5) as inner:
                assert inner.execute("SELECT 2").fetchone() == (2,)
            assert time.monotonic() - start < 4
        finally:
            os.close(fd)
        assert outer.execute("SELECT 1").fetchone() == (1,)


def test_past_its_deadline_a_connection_goes_on_without_its_turn(tmp_path: Path) -> None:
    db = tmp_path / "late.duckdb"
    with writer(db):
        pass
    fd = _hold_turnstile(db)
    try:
        with reader(db, timeout=0.3) as con:
            assert con.execute("SELECT 3").fetchone() == (3,)
    finally:
        os.close(fd)
