"""``governor query``'s result written in each output format: the table for a terminal, CSV, JSON and
Parquet, batch by batch, each batch converted a bounded piece at a time."""

from __future__ import annotations

import base64
import contextlib
import csv
import json
import math
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import duckdb

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

class ResultError(Exception):
    """The query failed while its rows were being read (DuckDB's error, through Arrow's stream)."""


def _batches(reader: Any) -> Iterator[Any]:
    """The record batches of ``reader``; an error of the query met on the way is a ``ResultError``
    (Arrow hands it over as an ``OSError``, which must not pass for a failed write)."""
    it = iter(reader)
    while True:
        try:
            batch = next(it)
        except StopIteration:
            return
        except OSError as err:
            raise ResultError(str(err).strip()) from None
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


def write_result(reader: Any, fmt: str, handle: Any, terminal: bool = False) -> int:
    """Write the query's rows in ``fmt`` to ``handle`` (text, or binary for Parquet) batch by batch,
    each batch converted a bounded piece at a time (``_pieces``); the ``table`` format keeps only the
    rows it shows (``TABLE_MAX_ROWS``) and counts the rest; ``terminal``: CSV and JSON text is bound
    for a terminal (no control character may land there). Returns the number of rows of the result.
    Raises ``ResultError`` (the query failed midway), ``TooLarge`` and ``OutputError``."""
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


def table_relation(con: Any, sql: str) -> Any:
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
