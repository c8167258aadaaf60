"""``governor query``: one read-only SQL statement, its result printed or written batch by batch."""

from __future__ import annotations

import csv
import json
import signal
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
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
#: The connection cannot reach files or the network, and its settings are locked: even a statement
#: that slipped past the check above could write nothing but its result.
QUERY_CONFIG = {"enable_external_access": False, "lock_configuration": True}


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


@contextmanager
def _noting_interrupts() -> Iterator[list[int]]:
    """Notes every Ctrl-C (SIGINT) while the block runs, and still interrupts as usual."""
    hits: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield hits
        return

    def note(signum: int, frame: Any) -> None:
        hits.append(signum)
        signal.default_int_handler(signum, frame)

    previous = signal.signal(signal.SIGINT, note)
    try:
        yield hits
    finally:
        signal.signal(signal.SIGINT, previous)


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


def _write_result(reader: Any, fmt: str, out: str | None) -> int:
    """Write the query's rows in ``fmt`` to ``out`` (stdout when None) batch by batch; the ``table``
    format keeps only the rows it shows (``TABLE_MAX_ROWS``) and counts the rest. Returns the number
    of rows of the result."""
    if fmt == "parquet":
        assert out is not None
        return write_parquet(reader.schema, _batches(reader), out)
    handle = open(out, "w", newline="", encoding="utf-8") if out else sys.stdout
    # CSV and JSON keep the data as it is, except on a terminal, where no control character may land.
    terminal = out is None and sys.stdout.isatty()
    count = 0
    try:
        if fmt == "csv":
            writer = csv.writer(handle)
            writer.writerow(reader.schema.names)
            for batch in _batches(reader):
                rows = _rows(batch)
                if terminal:
                    rows = (tuple(printable(v) if isinstance(v, str) else v for v in row) for row in rows)
                writer.writerows(rows)
                count += batch.num_rows
        elif fmt == "json":
            # As ``json.dump(rows, indent=1)`` writes the whole list, one row at a time.
            for batch in _batches(reader):
                for row in batch.to_pylist():
                    text = json.dumps(row, default=str, ensure_ascii=terminal, indent=1)
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
    finally:
        if out:
            handle.close()
    return count


def run_query(sql: str, db: str, fmt: str = "table", out: str | None = None) -> int:
    """``governor query``: one read-only statement on a read-only connection without file access.
    Exit 0 with a result, 1 when the SQL is refused or fails, 2 when the database cannot be read or
    the output cannot be written, 130 when interrupted. The result is written batch by batch
    (``QUERY_BATCH_ROWS``), so a result larger than memory can go to a file; a failed or interrupted
    query leaves no output file behind."""
    if fmt == "parquet" and not out:
        print("governor query: --format parquet needs --out FILE", file=sys.stderr)
        return exits.ENVIRONMENT
    refused = check_read_only(sql)
    if refused is not None:
        print(f"governor query: {printable(refused)}", file=sys.stderr)
        return exits.REJECTED
    with _noting_interrupts() as interrupted:
        try:
            with reader(db, config=QUERY_CONFIG) as con:
                relation = con.sql(sql)
                if relation is None:
                    return exits.OK
                count = _write_result(relation.to_arrow_reader(QUERY_BATCH_ROWS), fmt, out)
        except DatabaseError as err:
            print(f"governor query: {printable(str(err))}", file=sys.stderr)
            return exits.ENVIRONMENT
        except (KeyboardInterrupt, duckdb.Error, RuntimeError, _ResultError) as err:
            _discard(out)
            # DuckDB turns Ctrl-C into an error of its own ("Query interrupted"); the flag tells.
            if interrupted or isinstance(err, (KeyboardInterrupt, duckdb.InterruptException)):
                print("governor query: interrupted", file=sys.stderr)
                return exits.INTERRUPTED
            if not isinstance(err, (duckdb.Error, _ResultError)):
                raise
            print(f"governor query: {printable(str(err).strip())}", file=sys.stderr)
            return exits.REJECTED
        except OSError as err:
            _discard(out)
            print(f"governor query: cannot write {printable(str(out or 'the output'))}: {err.strerror or err}",
                  file=sys.stderr)
            return exits.ENVIRONMENT
    if fmt == "parquet":
        print(f"wrote {count} rows to {printable(str(out))}", file=sys.stderr)
    return exits.OK


def write_parquet(schema: Any, batches: Iterable[Any], path: str | Path) -> int:
    """Write record ``batches`` of ``schema`` to a Parquet file one by one; the number of rows."""
    import pyarrow.parquet as pq

    count = 0
    with pq.ParquetWriter(path, schema) as sink:
        for batch in batches:
            sink.write_batch(batch)
            count += batch.num_rows
    return count


def _discard(out: str | None) -> None:
    """Remove a partly written output file."""
    if out:
        Path(out).unlink(missing_ok=True)


#: Rows of a query's result fetched at once.
QUERY_BATCH_ROWS = 100_000
