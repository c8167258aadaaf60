"""The SQL page's result as a file to download: CSV or Parquet."""

from __future__ import annotations

import io
import json

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq


def result_csv(table: pa.Table) -> bytes:
    """A result as CSV bytes (a header line, then one line a row). CSV has no form for nested values
    (lists, structs, maps) or bytes: they are written as JSON text."""
    columns = []
    for column in table.columns:
        kind = column.type
        if pa.types.is_nested(kind) or pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
            values = [None if v is None else json.dumps(v, default=str, ensure_ascii=False) for v in column.to_pylist()]
            column = pa.chunked_array([pa.array(values, pa.string())])
        columns.append(column)
    buffer = io.BytesIO()
    pa_csv.write_csv(pa.Table.from_arrays(columns, names=table.column_names), buffer)
    return buffer.getvalue()


def result_parquet(table: pa.Table) -> bytes:
    """A result as the bytes of a Parquet file (every type kept)."""
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()
