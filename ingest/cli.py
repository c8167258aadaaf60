"""The database subcommands of ``governor``: import, query, export."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import Any

import duckdb

from ingest.db import DatabaseError, reader
from ingest.importer import import_paths
from ingest.schema import table_schemas


def run_import(paths: list[str], db: str, workers: int | None = None, progress: str = "auto",
               lake: bool = False, cluster: str | None = None) -> int:
    """``governor import``: exit 0 when every game was stored or already there, 1 when any was
    rejected, 2 when nothing could be done (missing path, database or lake not writable). With
    ``lake``, ``db`` is a lake folder or URL (``ingest.lake``), written on ``cluster`` if given."""
    from ingest.lake import LakeError
    from ingest.lake_import import import_to_lake

    show = sys.stderr.isatty() if progress == "auto" else progress == "always"
    try:
        if lake:
            summary = import_to_lake(paths, db, workers=workers, cluster=cluster, progress=show)
        else:
            summary = import_paths(paths, db, workers=workers, progress=show)
    except FileNotFoundError as err:
        print(f"governor import: {err}", file=sys.stderr)
        return 2
    except LakeError as err:
        print(f"governor import: {err}", file=sys.stderr)
        return 2
    except DatabaseError as err:
        print(f"governor import: {err}", file=sys.stderr)
        return 2
    for message in summary.messages:
        print(f"rejected: {message}", file=sys.stderr)
    print(f"{db}: {summary.line()}", file=sys.stderr)
    return 1 if summary.rejected else 0


def _print_table(columns: list[str], rows: list[tuple[Any, ...]], out: Any) -> None:
    cells = [[("NULL" if v is None else str(v)) for v in row] for row in rows]
    widths = [len(c) for c in columns]
    for row in cells:
        widths = [max(w, len(v)) for w, v in zip(widths, row)]
    out.write(" | ".join(c.ljust(w) for c, w in zip(columns, widths)) + "\n")
    out.write("-+-".join("-" * w for w in widths) + "\n")
    for row in cells:
        out.write(" | ".join(v.ljust(w) for v, w in zip(row, widths)) + "\n")
    out.write(f"({len(rows)} row{'s' if len(rows) != 1 else ''})\n")


def run_query(sql: str, db: str, fmt: str = "table", out: str | None = None) -> int:
    """``governor query``: the user's own tool, with DuckDB's full power (read-only connection)."""
    if fmt == "parquet" and not out:
        print("governor query: --format parquet needs --out FILE", file=sys.stderr)
        return 2
    try:
        with reader(db) as con:
            relation = con.sql(sql)
            table = relation.to_arrow_table() if relation is not None else None
    except DatabaseError as err:
        print(f"governor query: {err}", file=sys.stderr)
        return 2
    except duckdb.Error as err:
        print(f"governor query: {str(err).strip()}", file=sys.stderr)
        return 1
    if table is None:
        return 0
    if fmt == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(table, out)
        print(f"wrote {table.num_rows} rows to {out}", file=sys.stderr)
        return 0
    handle = open(out, "w", newline="", encoding="utf-8") if out else sys.stdout
    try:
        rows = [tuple(r.values()) for r in table.to_pylist()]
        if fmt == "csv":
            writer = csv.writer(handle)
            writer.writerow(table.column_names)
            writer.writerows(rows)
        elif fmt == "json":
            json.dump(table.to_pylist(), handle, default=str, ensure_ascii=False, indent=1)
            handle.write("\n")
        else:
            _print_table(table.column_names, rows, handle)
    finally:
        if out:
            handle.close()
    return 0


def run_export(db: str, folder: Path, games: bool = False) -> int:
    """``governor export --parquet DIR``: every table as DIR/<table>.parquet (and the logs as JSONL)."""
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    try:
        with reader(db) as con:
            # A lake's tables are views over its files.
            present = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
            names = [n for n in table_schemas() if n in present]
            for name in names:
                table = con.sql(f'SELECT * FROM "{name}"').to_arrow_table()
                pq.write_table(table, folder / f"{name}.parquet")
                print(f"{name}: {table.num_rows} rows -> {folder / (name + '.parquet')}", file=sys.stderr)
            if games:
                with open(folder / "games.jsonl", "w", encoding="utf-8") as fh:
                    for (text,) in con.execute("SELECT log FROM games ORDER BY file, file_index").fetchall():
                        fh.write(text.strip().replace("\n", " ") if "\n" in text.strip() else text.strip())
                        fh.write("\n")
    except DatabaseError as err:
        print(f"governor export: {err}", file=sys.stderr)
        return 2
    return 0
