"""``governor query``: one read-only SQL statement, its result printed or written batch by batch."""

from __future__ import annotations

import base64
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
from pathlib import Path
from typing import Any

import duckdb

from ingest.db import DatabaseError, reader
from replay import exits
from replay.errors import printable

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
QUERY_MEMORY_LIMIT = "2GiB"
QUERY_SPILL_LIMIT = "8GiB"
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
    (``ingest.lake``) applies them with ``SET`` in this order, the lock last; a database file's gets the
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


def _open_output(out: str) -> Any:
    try:
        return open(out, "w", newline="", encoding="utf-8")
    except OSError as err:
        raise OutputError(err) from None


def _write_result(reader: Any, fmt: str, out: str | None) -> int:
    """Write the query's rows in ``fmt`` to ``out`` (stdout when None) batch by batch; the ``table``
    format keeps only the rows it shows (``TABLE_MAX_ROWS``) and counts the rest. Returns the number
    of rows of the result. Raises ``_ResultError`` (the query failed midway) and ``OutputError``."""
    if fmt == "parquet":
        assert out is not None
        return write_parquet(reader.schema, _batches(reader), out)
    handle = _open_output(out) if out else sys.stdout
    # CSV and JSON keep the data as it is, except on a terminal, where no control character may land.
    terminal = out is None and sys.stdout.isatty()
    count = 0
    try:
        if fmt == "csv":
            # One line feed a row, as the shell, DuckDB and the arena's --csv write: not the csv module's CR LF,
            # which a script reading a field (`$(governor query ... | tail -1)`) would keep a carriage return of.
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(reader.schema.names)
            for batch in _batches(reader):
                rows = _rows(batch)
                if terminal:
                    rows = (tuple(printable(v) if isinstance(v, str) else v for v in row) for row in rows)
                writer.writerows(rows)
                count += batch.num_rows
        elif fmt == "json":
            # As ``json.dump(rows, indent=1)`` writes the whole list, one row at a time; strict JSON
            # (``_jsonable``), which ``allow_nan=False`` makes sure of.
            for batch in _batches(reader):
                for row in batch.to_pylist():
                    text = json.dumps(_jsonable(row), default=str, ensure_ascii=terminal, indent=1, allow_nan=False)
                    handle.write(("[\n" if not count else ",\n") + "\n".join(" " + line for line in text.split("\n")))
                    count += 1
            handle.write("\n]\n" if count else "[]\n")
        else:
            shown: list[tuple[Any, ...]] = []
            for batch in _batches(reader):
                if len(shown) < TABLE_MAX_ROWS:
                    shown.extend(_rows(batch.slice(0, TABLE_MAX_ROWS - len(shown))))
                count += batch.num_rows
            _print_table(reader.schema.names, shown, handle, count)
    except OSError as err:
        raise OutputError(err) from None
    finally:
        if out:
            handle.close()
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


def _in_thread(work: Callable[[], int], stop: Callable[[], None]) -> int:
    """Run ``work`` in a thread and wait for it, so that Ctrl-C and SIGTERM reach this (main) thread
    at once even while DuckDB runs a long statement (which does not look at signals when it is not in
    the main thread): on one, ``stop`` interrupts DuckDB, the thread gets ``STOP_GRACE`` seconds to end,
    and the interruption goes on (a ``KeyboardInterrupt``). Returns, or raises, what ``work`` does."""
    outcome: dict[str, Any] = {}
    guard = threading.Lock()
    abandoned = False

    def target() -> None:
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

    thread = threading.Thread(target=target, name="governor-query", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.05)
    except KeyboardInterrupt:
        stop()
        thread.join(STOP_GRACE)
        # The query's error holds its result reader, which keeps the connection busy until dropped:
        # nothing the thread ends with is kept, even when it ends after the grace (a busy machine).
        with guard:
            abandoned = True
            outcome.clear()
        gc.collect()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return int(outcome["value"])


def run_query(sql: str, db: str, fmt: str = "table", out: str | None = None) -> int:
    """``governor query``: one read-only statement on a read-only connection without file access.
    Exit 0 with a result, 1 when the SQL is refused or fails (past its memory bound too), 2 when the
    database cannot be read or the output cannot be written, 130 when interrupted (143 on SIGTERM).
    The result is written batch by batch (``QUERY_BATCH_ROWS``), so a result larger than memory can go
    to a file; a failed or interrupted query leaves no output file behind, and its spill folder is
    removed (one left by a killed run is removed by the next)."""
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


def _run(sql: str, db: str, fmt: str, out: str | None, spill: str) -> int:
    count = 0
    # The status of an interruption, once decided: closing the connection after it cannot add an error.
    stopped: int | None = None
    try:
        from ingest.lake import is_lake

        lake = is_lake(db)
        with reader(db, config=query_config(lake)) as con:
            if not lake:
                lock_down(con, spill)

            def work() -> int:
                relation = _table_relation(con, sql) if fmt == "table" else con.sql(sql)
                if relation is None:
                    return -1
                batches = relation.to_arrow_reader(QUERY_BATCH_ROWS)
                try:
                    return _write_result(batches, fmt, out)
                finally:
                    batches.close()

            try:
                count = _in_thread(work, con.interrupt)
            except KeyboardInterrupt as err:
                _discard(out)
                word, code = exits.interruption(err)
                print(f"governor query: {word}", file=sys.stderr)
                if any(t.name == "governor-query" and t.is_alive() for t in threading.enumerate()):
                    # DuckDB did not stop in time: leave now, without waiting on it (nothing to keep).
                    shutil.rmtree(spill, ignore_errors=True)
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(code)
                stopped = code
                return code
    except DatabaseError as err:
        if stopped is not None:
            return stopped
        print(f"governor query: {printable(str(err))}", file=sys.stderr)
        return exits.ENVIRONMENT
    except (duckdb.Error, _ResultError) as err:
        _discard(out)
        if stopped is not None:
            return stopped
        if isinstance(err, duckdb.InterruptException):
            word, code = exits.interruption(err)
            print(f"governor query: {word}", file=sys.stderr)
            return code
        print(f"governor query: {printable(str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__)}",
              file=sys.stderr)
        return exits.REJECTED
    except OutputError as err:
        _discard(out)
        if stopped is not None:
            return stopped
        print(f"governor query: cannot write {printable(os.fsdecode(out or 'the output'))}: {err}", file=sys.stderr)
        return exits.ENVIRONMENT
    except OSError as err:
        _discard(out)
        if stopped is not None:
            return stopped
        print(f"governor query: cannot read {printable(db)}: {err.strerror or err}", file=sys.stderr)
        return exits.ENVIRONMENT
    if count < 0:
        return exits.OK
    if fmt == "parquet":
        print(f"wrote {count} rows to {printable(os.fsdecode(str(out)))}", file=sys.stderr)
    return exits.OK


def write_parquet(schema: Any, batches: Iterable[Any], path: str | Path) -> int:
    """Write record ``batches`` of ``schema`` to a Parquet file one by one; the number of rows. The
    file is opened by Python, so any name the OS accepts works (bytes that are not UTF-8 too). Raises
    ``OutputError`` when the file cannot be opened or written."""
    import pyarrow.parquet as pq

    count = 0
    try:
        with open(path, "wb") as handle, pq.ParquetWriter(handle, schema) as sink:
            for batch in batches:
                sink.write_batch(batch)
                count += batch.num_rows
    except OSError as err:
        raise OutputError(err) from None
    return count


def _discard(out: str | None) -> None:
    """Remove a partly written output file."""
    if out:
        Path(out).unlink(missing_ok=True)


#: Rows of a query's result fetched at once.
QUERY_BATCH_ROWS = 100_000
