"""``governor query``: one read-only SQL statement, its result printed or written batch by batch."""


from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import duckdb

from ingest.db import DatabaseError, reader
from ingest.query_bounds import (
    MIB,
    QUERY_PROCESS_MEMORY,
    QUERY_TOTAL_MEMORY,
    SPILL_PREFIX,
    clean_stale_spill,
    in_thread,
    lock_down,
    memory_bound,
    query_config,
)
from ingest.query_output import ROW_MEMORY, OutputError, ResultError, TooLarge, table_relation, write_result
from replay import exits
from replay.errors import printable
from replay.outputs import replacing, resolve_target

#: What ``governor query`` lets through: one statement that reads (SELECT, WITH, FROM, VALUES,
#: DESCRIBE, SHOW, SUMMARIZE all parse as SELECT). COPY, EXPORT, ATTACH, SET, PRAGMA, INSTALL... do not.
READ_ONLY_STATEMENTS = frozenset({duckdb.StatementType.SELECT})


def check_read_only(sql: str) -> str | None:
    """Why ``sql`` is refused by ``governor query``, or None: it must be exactly one statement that
    only reads, as DuckDB's own parser sees it."""
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as err:
        return str(err).strip()
    if not statements:
        return "no SQL statement given"
    if len(statements) > 1:
        return f"one statement at a time, please: this text holds {len(statements)}"
    kind = statements[0].type
    if kind not in READ_ONLY_STATEMENTS:
        name = kind.name if hasattr(kind, "name") else str(kind)
        return f"only a query that reads is allowed (SELECT, WITH, FROM, DESCRIBE, SHOW...), not {name}"
    return None


# -- running a query -------------------------------------------------------------------------------


def run_query(sql: str, db: str, fmt: str = "table", out: str | None = None) -> int:
    """``governor query``: one read-only statement on a read-only connection without file access.
    Exit 0 with a result, 1 when the SQL is refused or fails (past its memory bound too, or with a
    row too large to convert), 2 when the database cannot be read or the output cannot be written.
    The result is written batch by batch (``QUERY_BATCH_ROWS``), so a result larger than memory can go
    to a file. ``out`` is replaced only by a complete result: a failed or interrupted query leaves an
    existing file as it was (``replay.outputs``), and its spill folder is removed (one left by a killed
    run is removed by the next).

    Raises ``KeyboardInterrupt`` (``exits.Terminated`` for SIGTERM) when interrupted, once the query
    has stopped and its files are removed: the command's caller says so and exits with 130 or 143, as
    for every command. Leaves the process at once (``_leave``) when DuckDB does not stop in time."""
    if fmt == "parquet" and not out:
        print("governor query: --format parquet needs --out FILE", file=sys.stderr)
        return exits.ENVIRONMENT
    refused = check_read_only(sql)
    if refused is not None:
        print(f"governor query: {printable(refused)}", file=sys.stderr)
        return exits.REJECTED
    clean_stale_spill()
    spill = tempfile.mkdtemp(prefix=f"{SPILL_PREFIX}{os.getpid()}-")
    try:
        return _run(sql, db, fmt, out, spill)
    finally:
        shutil.rmtree(spill, ignore_errors=True)


class _NoResult(Exception):
    """The statement has no result to write."""


def _shown(path: str | None) -> str:
    return printable(os.fsdecode(path or "the output"))


def _stop_if_interrupted(interrupted: BaseException | None) -> None:
    """Raise the interruption that ended the query: ``interrupted``, else a signal noted since the
    command began (``exits.raise_if_signalled``). An error met after one (the connection busy as it
    closes, DuckDB's own interruption error, a package's error raised inside its callback) is the
    interruption's doing, not something to report."""
    if interrupted is not None:
        raise interrupted
    exits.raise_if_signalled()


def _run(sql: str, db: str, fmt: str, out: str | None, spill: str) -> int:
    count: int | None = None
    # The interruption that stopped the query, raised once the connection is closed.
    interrupted: KeyboardInterrupt | None = None
    try:
        # An interruption waits while the lake's libraries load (``exits.signals_deferred`` says why).
        with exits.signals_deferred():
            from ingest.lake import is_lake

        lake = is_lake(db)
        with reader(db, config=query_config(lake)) as con:
            if not lake:
                lock_down(con, spill)
            try:
                count = _query_to(con, sql, fmt, out, spill)
            except KeyboardInterrupt as err:
                interrupted = err
    except DatabaseError as err:
        _stop_if_interrupted(interrupted)
        print(f"governor query: {printable(str(err))}", file=sys.stderr)
        return exits.ENVIRONMENT
    except (duckdb.Error, ResultError) as err:
        _stop_if_interrupted(interrupted)
        if isinstance(err, duckdb.InterruptException):
            raise KeyboardInterrupt from None
        print(f"governor query: {_duckdb_message(err)}", file=sys.stderr)
        return exits.REJECTED
    except TooLarge as err:
        _stop_if_interrupted(interrupted)
        verb = "show" if fmt == "table" else f"write as {fmt}"
        print(f"governor query: row {err.row:,} is too large to {verb}: converting it would take more than "
              f"{ROW_MEMORY // MIB} MiB, the most one row may take (--format parquet --out FILE writes rows without converting them)",
              file=sys.stderr)
        return exits.REJECTED
    except MemoryError:
        _stop_if_interrupted(interrupted)
        print(f"governor query: {OUT_OF_MEMORY}", file=sys.stderr)
        return exits.REJECTED
    except OutputError as err:
        _stop_if_interrupted(interrupted)
        print(f"governor query: cannot write {_shown(out)}: {err}", file=sys.stderr)
        return exits.ENVIRONMENT
    except OSError as err:
        _stop_if_interrupted(interrupted)
        print(f"governor query: cannot read {printable(db)}: {err.strerror or err}", file=sys.stderr)
        return exits.ENVIRONMENT
    _stop_if_interrupted(interrupted)
    if count is None:
        return exits.OK
    if fmt == "parquet":
        print(f"wrote {count} rows to {_shown(out)}", file=sys.stderr)
    return exits.OK


#: The line of a query that needs more memory than the command's bound (``memory_bound``).
OUT_OF_MEMORY = (f"out of memory: the query and its result need more than the {QUERY_TOTAL_MEMORY} governor query "
                 "may use")


def _duckdb_message(err: BaseException) -> str:
    """The one line that tells a failed query: DuckDB's first line (its own memory limit named in it),
    or ``OUT_OF_MEMORY`` when an allocation failed against the command's bound (DuckDB then says only
    "bad allocation")."""
    text = str(err).strip()
    if isinstance(err, duckdb.OutOfMemoryException) and "bad allocation" in text.lower():
        return OUT_OF_MEMORY
    return printable(text.splitlines()[0] if text else type(err).__name__)


def _query_to(con: Any, sql: str, fmt: str, out: str | None, spill: str) -> int | None:
    """Run ``sql`` on ``con`` in a thread of its own (``in_thread``), within the command's memory bound
    (``memory_bound``), its result written in ``fmt`` to ``out`` (standard output when None), which is
    replaced only once the result is complete (``_output``). Returns the number of rows, or None when
    the statement has no result. Raises what ``write_result`` raises, ``duckdb.Error`` and
    ``KeyboardInterrupt``; when DuckDB does not stop within ``STOP_GRACE`` of an interruption, the
    process leaves at once (``_leave``)."""
    ended = threading.Event()
    try:
        with _output(out, binary=fmt == "parquet") as (handle, temp):
            terminal = out is None and sys.stdout.isatty()

            def work() -> int:
                relation = table_relation(con, sql) if fmt == "table" else con.sql(sql)
                if relation is None:
                    raise _NoResult
                batches = relation.to_arrow_reader(QUERY_BATCH_ROWS)
                try:
                    return write_result(batches, fmt, handle, terminal)
                finally:
                    batches.close()

            try:
                with memory_bound(QUERY_PROCESS_MEMORY):
                    return int(in_thread(work, con.interrupt, ended))
            except KeyboardInterrupt as err:
                if not ended.is_set():
                    _leave(err, temp, spill)
                raise
    except _NoResult:
        return None


def _leave(err: BaseException, temp: str | None, spill: str) -> NoReturn:
    """Leave the process at once after an interruption that DuckDB did not stop for in time, with the
    partial output ``temp`` and the spill folder removed. Never through the interpreter's exit: a thread
    still inside DuckDB would meet it, be unwound by force through C++ code that cannot be, and the
    process would abort (SIGABRT, "terminate called...")."""
    exits.ignore_further_signals()
    word, code = exits.interruption(err)
    if temp is not None:
        Path(temp).unlink(missing_ok=True)
    shutil.rmtree(spill, ignore_errors=True)
    print(f"governor query: {word}", file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


@contextmanager
def _output(out: str | None, binary: bool = False) -> Iterator[tuple[Any, str | None]]:
    """Where a result goes: standard output when ``out`` is None, else a new file that replaces ``out``
    only once the block succeeds (``replay.outputs.replacing``: made beside it, renamed over it; a link
    is written through and stays a link; a device or a pipe is written into). Yields the handle and the
    temporary file (None when there is nothing of ours to remove). Raises ``OutputError`` when the file
    cannot be made, written, closed (a full disk often shows only then, as the last bytes go) or put in
    place: an existing ``out`` is then left as it was."""
    if out is None:
        yield sys.stdout, None
        return
    target, _ = resolve_target(out)
    # An error of the block itself (the query's) passes as it is: only the output's own are OutputError.
    in_block = False
    try:
        with replacing(out) as path:
            handle = open(path, "wb") if binary else open(path, "w", encoding="utf-8", newline="")
            try:
                in_block = True
                yield handle, (None if path == target else path)
                in_block = False
            except BaseException:
                with contextlib.suppress(OSError, ValueError):
                    handle.close()
                raise
            handle.close()
    except OSError as err:
        if in_block:
            raise
        raise OutputError(err) from None


#: Rows of a query's result DuckDB hands over at once (its own vector size): a batch of wide rows (game
#: logs of 100 KB) still takes a few hundred MB at most.
QUERY_BATCH_ROWS = 2_048
