"""Opening the database: short write transactions for importers, read-only readers that retry.

DuckDB lets one process write a database file at a time and locks the file while it is open for
writing. So no one keeps it open: an importer opens it for each batch it writes, and a reader (the
dashboard, ``governor query``) opens it read-only for each query and retries while a writer holds it.
Whoever waits first goes first (``_turnstile``): a reader waiting during an import gets the file
between two of its batches, not only once the import ends.
"""

from __future__ import annotations

import os
import random
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from ingest.locks import flock_until
from ingest.migrations import SchemaError, ensure_schema
from ingest.paths import is_text, links_folder, openable
from replay import exits
from replay.errors import printable

#: How long a writer or reader waits for the file lock before giving up.
LOCK_TIMEOUT = 120.0

#: DuckDB settings of every writing connection. An import appends each batch as new row groups, and by
#: default a checkpoint merges small adjacent row groups ("vacuum"), in a binary-counter pattern: after
#: 2^k batches it rewrites the last 2^k batches of a table at once, up to a full row group (122,880
#: rows), and any later writer's checkpoint merges whatever small row groups are left. For ``games``,
#: whose ``log`` column holds about 12 KB of text a game, a merge held the logs of up to 120,000 games
#: in memory: it is what made an import's peak memory grow with its size (1.3 GB more at 65,536 games,
#: see docs/benchmarks.md, Import). Without merges every checkpoint writes only the new rows; row groups
#: left empty by deletes are still dropped.
#:
#: A file the writer creates gets blocks of 64 KiB (``NEW_FILE_BLOCK_SIZE``) instead of DuckDB's 256 KiB:
#: every commit writes each table it appended to into blocks of that table's own, so an import leaves a
#: partly filled block per table. With 256 KiB blocks a one-game import (each dashboard upload) added
#: 2.8 MB to the file; with 64 KiB blocks 0.7 MB, and a database of 100,000 games is 9% smaller, its
#: documented queries and the dashboard's pages as fast or faster (docs/benchmarks.md, "Bytes per
#: game"). An existing file keeps the block size it was made with.
NEW_FILE_BLOCK_SIZE = 65536
WRITE_CONFIG: dict[str, Any] = {"max_vacuum_tasks": 0, "default_block_size": str(NEW_FILE_BLOCK_SIZE)}

#: Run on every writing connection: DuckDB's own progress bar is off (a session setting, which a
#: connection's config cannot hold): an import draws its own, and DuckDB's, drawn on the terminal for a
#: statement of more than 2 s (the end step's at a million games), broke its lines.
QUIET = "SET enable_progress_bar = false"


class DatabaseError(Exception):
    """The database cannot be opened or written (locked too long, read-only, disk full, bad schema)."""


def _is_lock_error(err: Exception) -> bool:
    text = str(err).lower()
    return "lock" in text or "conflicting" in text or "could not set lock" in text


@contextmanager
def writer(
    path: str | Path, timeout: float = LOCK_TIMEOUT, config: dict[str, Any] | None = None
) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-write connection with the schema in place, waiting while another process holds the file.
    ``config`` holds DuckDB settings for this connection, on top of ``WRITE_CONFIG``.

    Raises ``DatabaseError`` with a clear message when the file cannot be written."""
    path = str(path)
    parent = Path(path).resolve().parent
    if not parent.exists():
        raise DatabaseError(f"{path}: the folder {parent} does not exist")
    if Path(path).exists() and not os.access(path, os.W_OK):
        raise DatabaseError(f"{path}: the database file is read-only")
    if not os.access(parent, os.W_OK):
        raise DatabaseError(f"{path}: cannot write in the folder {parent}")
    con = _connect(path, timeout, max_delay=0.5, what="writing", config=WRITE_CONFIG | (config or {}))
    try:
        try:
            con.execute(QUIET)
            ensure_schema(con, path)
        except SchemaError as err:
            raise DatabaseError(str(err)) from None
        yield con
    except (duckdb.Error, RuntimeError) as err:
        if _interrupted(err):
            raise KeyboardInterrupt from None
        if not isinstance(err, duckdb.Error):
            raise
        raise DatabaseError(f"{path}: {_first_line(err)}") from None
    finally:
        _close(con, path)


def _interrupted(err: BaseException) -> bool:
    """Whether ``err`` is DuckDB's answer to Ctrl-C or SIGTERM: it catches SIGINT while a statement runs
    and raises ``InterruptException`` or a ``RuntimeError`` ("Query interrupted") instead of
    ``KeyboardInterrupt``; and an interruption raised while it reads a Python object (an Arrow table
    being stored) comes back as an error of its own ("reading the schema of the Python object ...
    failed: Terminated"). Once a signal arrived (``exits.signalled``), any of its errors is that."""
    return isinstance(err, duckdb.InterruptException) or exits.signalled() or (
        isinstance(err, RuntimeError) and "interrupted" in str(err).lower())


def _connect(path: str, timeout: float, max_delay: float, what: str, **options: Any) -> duckdb.DuckDBPyConnection:
    """Open ``path``, retrying with growing, jittered pauses while another process holds its lock.

    Raises ``DatabaseError`` for any other failure, or when the lock is still held after ``timeout``."""
    deadline = time.monotonic() + timeout
    delay = 0.02
    if not is_text(os.path.basename(path)):
        raise DatabaseError(f"{printable(path)}: cannot open for {what}: DuckDB takes only a file name that is "
                            "UTF-8 text (the folder may be named with any bytes); rename the file")
    try:
        target = openable(path)
    except OSError as err:
        raise DatabaseError(f"{path}: cannot open for {what}: {err}") from None
    with _turnstile(target, _key(path), deadline):
        while True:
            try:
                con = duckdb.connect(target, **options)
            except duckdb.Error as err:
                if _is_lock_error(err) and time.monotonic() < deadline:
                    time.sleep(delay + random.random() * delay)
                    delay = min(delay * 2, max_delay)
                    continue
                raise DatabaseError(f"{path}: cannot open for {what}: {_first_line(err)}") from None
            _held(_key(path), +1)
            return con


#: Connections this process holds, by path: a process that already holds one never waits at the
#: turnstile (it could wait for someone who waits for it).
_HOLDING: dict[str, int] = {}
_HOLDING_LOCK = threading.Lock()


def _key(path: str) -> str:
    return os.path.realpath(path)


def _held(key: str, change: int) -> None:
    with _HOLDING_LOCK:
        count = _HOLDING.get(key, 0) + change
        if count > 0:
            _HOLDING[key] = count
        else:
            _HOLDING.pop(key, None)


def _close(con: duckdb.DuckDBPyConnection, path: str) -> None:
    """Close a connection ``_connect`` opened."""
    try:
        con.close()
    finally:
        _held(_key(path), -1)


@contextmanager
def _turnstile(target: str, key: str, deadline: float) -> Iterator[None]:
    """Wait in turn. DuckDB's file lock is not fair: an importer lets go of the file between its
    batches only for a moment, and a reader that retries with pauses could miss every such moment until
    the import ends. So whoever waits for the file first holds a turnstile while it waits (an exclusive
    ``flock`` on a lock file of the database's own, ``turnstile_file``), and whoever comes next, the
    importer's next batch included, waits at the turnstile until the first has the file.

    The lock is never taken on the database file itself: closing any descriptor of a file lets go of
    every ``fcntl`` lock the process holds on it, DuckDB's own included, and would let a second writer in.
    Nothing is waited for when the database does not exist yet, when this process already holds a
    connection to it, or when the lock file cannot be made (a read-only cache folder); past
    ``deadline`` the turnstile is skipped."""
    with _HOLDING_LOCK:
        holding = _HOLDING.get(key, 0) > 0
    fd = -1
    if not holding:
        try:
            fd = _open_turnstile(target)
        except OSError:
            fd = -1
    try:
        if fd >= 0:
            try:
                flock_until(fd, deadline, pause=0.005, longest=0.05)  # past the deadline: no turn kept
            except OSError:  # a file system without flock: no turn to wait for
                pass
        yield
    finally:
        if fd >= 0:
            os.close(fd)  # lets go of the turnstile (closing is what releases a flock)


def turnstile_file(target: str) -> Path:
    """The lock file of the database ``target`` in Governor's cache folder, named after the file's
    device and inode (every spelling of its path, links included, shares it). Raises ``OSError`` when
    the database does not exist."""
    info = os.stat(target)
    if not stat.S_ISREG(info.st_mode):
        raise OSError(f"{target}: not a regular file")
    return links_folder().parent / "turns" / f"{info.st_dev:x}-{info.st_ino:x}"


def _open_turnstile(target: str) -> int:
    """A descriptor of ``turnstile_file(target)``, made if missing (in a folder only its user may
    enter). Raises ``OSError`` when it cannot be made or opened."""
    path = turnstile_file(target)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)


def _first_line(err: Exception) -> str:
    text = str(err).strip()
    lowered = text.lower()
    if "no space left" in lowered or "disk is full" in lowered or "file too large" in lowered:
        return "cannot write: the disk is full or the file size limit is reached (" + text.splitlines()[0] + ")"
    return text.splitlines()[0] if text else type(err).__name__


@contextmanager
def reader(path: str | Path, timeout: float = 30.0, config: dict[str, Any] | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection, retried while a writer holds the file; for a lake (``ingest.lake``), an
    in-memory connection whose tables are views over the lake's committed Parquet files.

    Raises ``DatabaseError`` when the file is missing, not ours, or stays locked past ``timeout``."""
    path = str(path)
    from ingest.lake import Lake, is_lake
    from ingest.lake_files import LakeError
    from ingest.lake_read import connect_lake

    if is_lake(path):
        try:
            con = connect_lake(Lake(path), config)
        except (LakeError, OSError, duckdb.Error) as err:
            raise DatabaseError(f"{path}: cannot read the lake: {_first_line(err)}") from None
        try:
            yield con
        finally:
            con.close()
        return
    if not Path(path).exists():
        raise DatabaseError(f"{path}: no such database (import some logs first: governor import PATH)")
    con = _connect(path, timeout, max_delay=0.25, what="reading", read_only=True, config=config or {})
    try:
        yield con
    except (duckdb.InterruptException, RuntimeError) as err:
        if _interrupted(err):
            raise KeyboardInterrupt from None
        raise
    finally:
        _close(con, path)


def read_arrow(path: str | Path, sql: str, params: list[Any] | None = None, timeout: float = 30.0) -> Any:
    """Run one read-only query and return an Arrow table."""
    with reader(path, timeout) as con:
        return con.sql(sql, params=params or None).to_arrow_table()
