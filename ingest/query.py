"""``governor query``: one read-only SQL statement, its result printed or written batch by batch."""

from __future__ import annotations

import base64
import contextlib
import csv
import gc
import json
import math
import os
import re
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, NoReturn

import duckdb

from ingest.db import DatabaseError, reader
from replay import exits
from replay.errors import printable
from replay.outputs import replacing, resolve_target

#: The ``table`` format is for reading on a terminal: it shows at most this many rows (the rest are
#: counted, not kept) and cuts longer cells; CSV, JSON and Parquet write every row and every character.
TABLE_MAX_ROWS = 1_000
TABLE_MAX_CELL = 200


def _cell(value: Any) -> str:
    # Cells are printed for a terminal: a stored log or name may hold a CR or an escape code.
    text = "NULL" if value is None else str(value)
    if len(text) > TABLE_MAX_CELL:
        text = text[: TABLE_MAX_CELL - 1] + "…"
    return printable(text)


def _print_table(columns: list[str], rows: list[tuple[Any, ...]], out: Any, total: int | None = None) -> None:
    """``rows`` lined up under ``columns``; ``total`` is the result's number of rows when only its
    first ``rows`` are shown."""
    cells = [[_cell(v) for v in row] for row in rows]
    columns = [printable(c) for c in columns]
    widths = [len(c) for c in columns]
    for row in cells:
        widths = [max(w, len(v)) for w, v in zip(widths, row)]
    out.write(" | ".join(c.ljust(w) for c, w in zip(columns, widths)) + "\n")
    out.write("-+-".join("-" * w for w in widths) + "\n")
    for row in cells:
        out.write(" | ".join(v.ljust(w) for v, w in zip(row, widths)) + "\n")
    total = len(rows) if total is None else total
    if total > len(rows):
        out.write(f"({len(rows):,} of {total:,} rows shown; --format csv or json, or parquet with --out FILE, "
                  "writes every row)\n")
    else:
        out.write(f"({total} row{'s' if total != 1 else ''})\n")


#: What ``governor query`` lets through: one statement that reads (SELECT, WITH, FROM, VALUES,
#: DESCRIBE, SHOW, SUMMARIZE all parse as SELECT). COPY, EXPORT, ATTACH, SET, PRAGMA, INSTALL... do not.
READ_ONLY_STATEMENTS = frozenset({duckdb.StatementType.SELECT})
#: What one query may use: DuckDB's memory (past it, the query fails with one line, exit status 1)
#: and its spill space on disk, in a temporary folder of its own (``query_spill_folder``).
QUERY_MEMORY_LIMIT = "1GiB"
QUERY_SPILL_LIMIT = "8GiB"
#: What the whole command may use, DuckDB's memory included: the process may take this much more than
#: it held when the query began (``memory_bound``), so ``governor query`` stays under ``QUERY_TOTAL_MEMORY``
#: (the interpreter and its libraries take about 150 MB); past it the query ends with one line, status 1.
MIB = 1024 * 1024
QUERY_PROCESS_MEMORY = 1536 * MIB
QUERY_TOTAL_MEMORY = "2 GiB"
#: The connection cannot reach files or the network, and its settings are locked (last, once the
#: bounds above are set): even a statement that slipped past the check above could write nothing but
#: its result, nor lift its bounds.
QUERY_CONFIG = {"enable_external_access": False, "lock_configuration": True}
#: After Ctrl-C or SIGTERM, how long (seconds) a query is given to stop before the process leaves anyway.
STOP_GRACE = 1.0
#: The spill folders' names: ``governor-query-<pid>-<random>`` in the system's temporary folder.
SPILL_PREFIX = "governor-query-"


def query_config(lake: bool) -> dict[str, Any]:
    """The settings a ``governor query`` connection opens with: its bounds. A lake's connection
    (``ingest.lake_read``) applies them with ``SET`` in this order, the lock last; a database file's gets the
    rest from ``lock_down`` (DuckDB refuses a ``temp_directory`` once external access is off, even in
    the same config)."""
    bounds: dict[str, Any] = {"memory_limit": QUERY_MEMORY_LIMIT, "max_temp_directory_size": QUERY_SPILL_LIMIT}
    if lake:
        return {**bounds, "enable_progress_bar": False, **QUERY_CONFIG}
    return bounds


def lock_down(con: Any, spill: str) -> None:
    """Spill to the folder ``spill``, no progress bar drawn on the terminal, no file access, and the
    settings locked, in that order."""
    con.execute("SET temp_directory = ?", [spill])
    con.execute("SET enable_progress_bar = false")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


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


class _ResultError(Exception):
    """The query failed while its rows were being read (DuckDB's error, through Arrow's stream)."""


def _batches(reader: Any) -> Iterator[Any]:
    """The record batches of ``reader``; an error of the query met on the way is a ``_ResultError``
    (Arrow hands it over as an ``OSError``, which must not pass for a failed write)."""
    it = iter(reader)
    while True:
        try:
            batch = next(it)
        except StopIteration:
            return
        except OSError as err:
            raise _ResultError(str(err).strip()) from None
        yield batch


def _rows(batch: Any) -> Iterator[tuple[Any, ...]]:
    """A record batch's rows as tuples (by position: two columns may have one name)."""
    return zip(*(column.to_pylist() for column in batch.columns))


def _jsonable(value: Any) -> Any:
    """``value`` as strict JSON can hold it: NaN and the infinities as null (JSON has no such numbers),
    bytes (a BLOB) as a base64 string, inside lists and objects too."""
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


class OutputError(Exception):
    """The output file cannot be opened or written (an ``OSError`` of the output, not of the input)."""

    def __init__(self, err: OSError) -> None:
        super().__init__(err.strerror or str(err))


class TooLarge(Exception):
    """One row of the result would take more memory than ``ROW_MEMORY`` to convert for writing."""

    def __init__(self, row: int) -> None:
        super().__init__(row)
        self.row = row


# -- converting rows for writing within a bound -----------------------------------------------------

#: What one value of a result costs as Python objects on its way out (the object, its pointer, its text
#: in CSV or JSON, a copy or two of that text), beyond its own bytes (counted four times: a Python string
#: may take up to four bytes a character where UTF-8 took one). An estimate, generous on purpose.
VALUE_COST = 160
TEXT_FACTOR = 4
#: Rows are converted for writing (CSV, JSON, the table) a piece at a time, each piece at most this much
#: by that estimate...
PIECE_MEMORY = 32 * 1024 * 1024
#: ... and one row alone at most this much: a larger row (a cell of millions of values) is refused with
#: one line instead of being held (``--format parquet`` writes it without converting it).
ROW_MEMORY = 256 * 1024 * 1024


def _weight(array: Any) -> int:
    """The estimated memory the values of ``array`` (an Arrow array, possibly a slice) take once
    converted to Python objects and written out: ``VALUE_COST`` a value, nested values included, plus
    ``TEXT_FACTOR`` times the bytes of the text and binary values."""
    import pyarrow as pa

    kind = array.type
    values = len(array) * VALUE_COST
    if pa.types.is_map(kind):
        return values + _weight(array.keys) + _weight(array.items)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        return values + _weight(array.flatten())
    if pa.types.is_struct(kind):
        return values + sum(_weight(field) for field in array.flatten())
    if pa.types.is_dictionary(kind):
        return _weight(array.dictionary_decode())
    if _is_text(kind):
        # A slice counts only the bytes it refers to.
        return values + TEXT_FACTOR * int(array.nbytes)
    return values


def _is_text(kind: Any) -> bool:
    """Whether values of the Arrow type ``kind`` are text or bytes of any length."""
    import pyarrow as pa

    checks = ("is_string", "is_large_string", "is_string_view", "is_binary", "is_large_binary", "is_binary_view")
    return any(getattr(pa.types, check, lambda _: False)(kind) for check in checks)


def _pieces(batch: Any, first_row: int) -> Iterator[Any]:
    """``batch`` in consecutive pieces that each take at most ``PIECE_MEMORY`` once converted
    (``_weight``), or a single row of up to ``ROW_MEMORY``. Raises ``TooLarge`` with the row's number
    in the result (from 1; ``first_row`` is the batch's first) for a row larger than that."""
    pending = [(0, batch)]
    while pending:
        offset, piece = pending.pop()
        weight = sum(_weight(column) for column in piece.columns)
        if weight <= PIECE_MEMORY or (piece.num_rows == 1 and weight <= ROW_MEMORY):
            yield piece
        elif piece.num_rows == 1:
            raise TooLarge(first_row + offset + 1)
        else:
            # Halves, the first one next: rows keep their order.
            half = piece.num_rows // 2
            pending.append((offset + half, piece.slice(half)))
            pending.append((offset, piece.slice(0, half)))


def _converted(batches: Iterable[Any], first_row: int = 0) -> Iterator[Any]:
    """The pieces (``_pieces``) of ``batches``, whose first row is the result's row ``first_row``
    (from 0). Raises ``TooLarge``."""
    count = first_row
    for batch in batches:
        yield from _pieces(batch, count)
        count += batch.num_rows


def _write_result(reader: Any, fmt: str, handle: Any, terminal: bool = False) -> int:
    """Write the query's rows in ``fmt`` to ``handle`` (text, or binary for Parquet) batch by batch,
    each batch converted a bounded piece at a time (``_pieces``); the ``table`` format keeps only the
    rows it shows (``TABLE_MAX_ROWS``) and counts the rest; ``terminal``: CSV and JSON text is bound
    for a terminal (no control character may land there). Returns the number of rows of the result.
    Raises ``_ResultError`` (the query failed midway), ``TooLarge`` and ``OutputError``."""
    if fmt == "parquet":
        return write_parquet(reader.schema, _batches(reader), handle)
    count = 0
    try:
        if fmt == "csv":
            # One line feed a row, as the shell, DuckDB and the arena's --csv write: not the csv module's CR LF,
            # which a script reading a field (`$(governor query ... | tail -1)`) would keep a carriage return of.
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(reader.schema.names)
            for piece in _converted(_batches(reader)):
                rows = _rows(piece)
                if terminal:
                    rows = (tuple(printable(v) if isinstance(v, str) else v for v in row) for row in rows)
                writer.writerows(rows)
                count += piece.num_rows
        elif fmt == "json":
            # As ``json.dump(rows, indent=1)`` writes the whole list, one row at a time (a row's text is
            # within the bound of its piece); strict JSON (``_jsonable``), which ``allow_nan=False`` makes sure of.
            for piece in _converted(_batches(reader)):
                for row in piece.to_pylist():
                    text = json.dumps(_jsonable(row), default=str, ensure_ascii=terminal, indent=1, allow_nan=False)
                    handle.write(("[\n " if not count else ",\n ") + text.replace("\n", "\n "))
                    count += 1
            handle.write("\n]\n" if count else "[]\n")
        else:
            shown: list[tuple[Any, ...]] = []
            for batch in _batches(reader):
                if len(shown) < TABLE_MAX_ROWS:
                    for piece in _converted([batch.slice(0, TABLE_MAX_ROWS - len(shown))], count):
                        shown.extend(_rows(piece))
                count += batch.num_rows
            _print_table(reader.schema.names, shown, handle, count)
    except OSError as err:
        raise OutputError(err) from None
    return count


# -- the table format never holds a huge cell ----------------------------------------------------


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _cut(expr: str, kind: Any, depth: int = 0) -> str:
    """A SQL expression of ``expr`` (of DuckDB type ``kind``) that holds at most what the table format
    shows: text cut at ``TABLE_MAX_CELL + 1`` characters, lists at as many elements (each cut in turn),
    structs field by field; maps and unions as cut text. So a cell of a billion elements costs DuckDB
    its work, never Python a billion objects."""
    limit = TABLE_MAX_CELL + 1
    kind_id = getattr(kind, "id", "")
    if depth > 8:
        return f"left(CAST({expr} AS VARCHAR), {limit})"
    if kind_id == "varchar":
        return f"left({expr}, {limit})"
    if kind_id == "blob":
        return f"({expr})[1:{limit}]"
    if kind_id in ("list", "array"):
        var = f"_x{depth}"
        inner = _cut(var, kind.child, depth + 1)
        return f"list_transform(list_slice({expr}, 1, {limit}), lambda {var}: {inner})"
    if kind_id == "struct":
        fields = ", ".join(f"{_quote(name)} := {_cut(f'({expr}).{_quote(name)}', child, depth + 1)}"
                           for name, child in kind.children)
        return f"CASE WHEN {expr} IS NULL THEN NULL ELSE struct_pack({fields}) END"
    if kind_id in ("map", "union"):
        return f"left(CAST({expr} AS VARCHAR), {limit})"
    return expr


def _table_relation(con: Any, sql: str) -> Any:
    """The relation the ``table`` format reads: ``sql`` with every cell cut (``_cut``) in SQL, or
    ``sql`` itself when its columns need no cut or the wrapped text does not bind."""
    relation = con.sql(sql)
    if relation is None:
        return None
    exprs = [_cut(f"_c{i}", kind) for i, kind in enumerate(relation.types)]
    if all(expr == f"_c{i}" for i, expr in enumerate(exprs)):
        return relation
    # The statement's own text, without its ';', and a newline before ')' in case it ends in a comment.
    body = re.sub(r"[\s;]+$", "", duckdb.extract_statements(sql)[0].query)
    names = ", ".join(f"_c{i}" for i in range(len(exprs)))
    columns = ", ".join(f"{expr} AS {_quote(name)}" for expr, name in zip(exprs, relation.columns))
    try:
        return con.sql(f"SELECT {columns} FROM (\n{body}\n) AS _q({names})")
    except duckdb.Error:
        return relation


# -- spill space -------------------------------------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process: alive
    return True


def clean_stale_spill(folder: str | None = None) -> int:
    """Remove the spill folders of ``governor query`` runs whose process is gone (killed, so never
    cleaned), among this user's in ``folder`` (the system's temporary folder). Returns how many."""
    folder = folder or tempfile.gettempdir()
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        found = re.fullmatch(re.escape(SPILL_PREFIX) + r"(\d+)-.*", entry.name)
        if found is None or int(found.group(1)) == os.getpid():
            continue
        try:
            if entry.stat(follow_symlinks=False).st_uid != os.getuid() or not entry.is_dir(follow_symlinks=False):
                continue
        except OSError:
            continue
        if not _alive(int(found.group(1))):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed += 1
    return removed


def _in_thread(work: Callable[[], Any], stop: Callable[[], None], ended: threading.Event | None = None) -> Any:
    """Run ``work`` in a thread and wait for it, so that Ctrl-C and SIGTERM reach this (main) thread
    at once even while DuckDB runs a long statement (which does not look at signals when it is not in
    the main thread): on one, ``stop`` interrupts DuckDB, the thread gets ``STOP_GRACE`` seconds to end,
    and the interruption goes on (a ``KeyboardInterrupt``). ``ended`` is set as the thread's last step:
    after an interruption, the caller tells by it whether DuckDB is still at work. Returns, or raises,
    what ``work`` does."""
    ended = threading.Event() if ended is None else ended
    outcome: dict[str, Any] = {}
    guard = threading.Lock()
    abandoned = False

    def target() -> None:
        try:
            try:
                value = work()
            except BaseException as err:  # handed over to the main thread
                with guard:
                    if not abandoned:
                        outcome["error"] = err
                return
            with guard:
                if not abandoned:
                    outcome["value"] = value
        finally:
            ended.set()

    thread = threading.Thread(target=target, name="governor-query", daemon=True)
    thread.start()
    try:
        # An event, not ``Thread.join``: a join that Ctrl-C interrupts marks the thread as ended while it
        # still runs (Python 3.11's ``threading`` then releases the lock the running thread holds), so
        # ``is_alive()`` said False and the process went on to exit with DuckDB at work, which aborts it.
        while not ended.wait(0.05):
            # A signal whose exception Python swallowed (one met while a module loaded) stops it too.
            exits.raise_if_signalled()
    except KeyboardInterrupt:
        stop()
        ended.wait(STOP_GRACE)
        # The query's error holds its result reader, which keeps the connection busy until dropped:
        # nothing the thread ends with is kept, even when it ends after the grace (a busy machine).
        with guard:
            abandoned = True
            outcome.clear()
        gc.collect()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


# -- the bound of the whole command ---------------------------------------------------------------


def _data_size() -> int | None:
    """This process's data in bytes (``VmData``, what ``RLIMIT_DATA`` counts), or None where
    ``/proc`` cannot tell."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


@contextmanager
def memory_bound(extra: int) -> Iterator[None]:
    """While the block runs, this process may take at most ``extra`` bytes more data than it holds now
    (its soft ``RLIMIT_DATA``, put back afterwards): an allocation past it fails (DuckDB's "Out of
    Memory Error", Python's ``MemoryError``) instead of taking the machine's memory. DuckDB's own memory
    limit covers only its buffers, not every list it builds nor the result once converted. Does nothing
    where the limit cannot be set (no ``/proc``, not Linux)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    used = _data_size()
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        bound = None if used is None else used + extra
        if bound is not None:
            bound = min([bound] + [lim for lim in (soft, hard) if lim != resource.RLIM_INFINITY])
            resource.setrlimit(resource.RLIMIT_DATA, (bound, hard))
    except (ValueError, OSError):
        bound = None
    try:
        yield
    finally:
        if bound is not None:
            resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))


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
    except (duckdb.Error, _ResultError) as err:
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
    """Run ``sql`` on ``con`` in a thread of its own (``_in_thread``), within the command's memory bound
    (``memory_bound``), its result written in ``fmt`` to ``out`` (standard output when None), which is
    replaced only once the result is complete (``_output``). Returns the number of rows, or None when
    the statement has no result. Raises what ``_write_result`` raises, ``duckdb.Error`` and
    ``KeyboardInterrupt``; when DuckDB does not stop within ``STOP_GRACE`` of an interruption, the
    process leaves at once (``_leave``)."""
    ended = threading.Event()
    try:
        with _output(out, binary=fmt == "parquet") as (handle, temp):
            terminal = out is None and sys.stdout.isatty()

            def work() -> int:
                relation = _table_relation(con, sql) if fmt == "table" else con.sql(sql)
                if relation is None:
                    raise _NoResult
                batches = relation.to_arrow_reader(QUERY_BATCH_ROWS)
                try:
                    return _write_result(batches, fmt, handle, terminal)
                finally:
                    batches.close()

            try:
                with memory_bound(QUERY_PROCESS_MEMORY):
                    return int(_in_thread(work, con.interrupt, ended))
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


#: A Parquet file's row groups: at most this many rows, or about this many bytes of Arrow data (small
#: batches are gathered into one group).
PARQUET_GROUP_ROWS = 100_000
PARQUET_GROUP_BYTES = 64 * 1024 * 1024


def write_parquet(schema: Any, batches: Iterable[Any], path: str | Path | IO[bytes]) -> int:
    """Write record ``batches`` of ``schema`` to a Parquet file, in row groups of at most
    ``PARQUET_GROUP_ROWS`` rows or ``PARQUET_GROUP_BYTES``; the number of rows. ``path`` is a file name
    (opened by Python, so any name the OS accepts works, bytes that are not UTF-8 too) or a binary file
    open for writing. Raises ``OutputError`` when the file cannot be opened or written."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    count = 0
    try:
        with contextlib.ExitStack() as stack:
            handle = path if hasattr(path, "write") else stack.enter_context(open(path, "wb"))
            sink = stack.enter_context(pq.ParquetWriter(handle, schema))
            group: list[Any] = []
            rows = size = 0
            for batch in batches:
                group.append(batch)
                rows += batch.num_rows
                size += batch.nbytes
                count += batch.num_rows
                if rows >= PARQUET_GROUP_ROWS or size >= PARQUET_GROUP_BYTES:
                    sink.write_table(pa.Table.from_batches(group, schema))
                    group, rows, size = [], 0, 0
            if group:
                sink.write_table(pa.Table.from_batches(group, schema))
    except OSError as err:
        raise OutputError(err) from None
    return count


#: Rows of a query's result DuckDB hands over at once (its own vector size): a batch of wide rows (game
#: logs of 100 KB) still takes a few hundred MB at most.
QUERY_BATCH_ROWS = 2_048
