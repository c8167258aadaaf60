"""Reading a lake (``ingest.lake``): an in-memory DuckDB connection whose tables are views over the
files its manifests commit, with the documented views, so every documented query runs unchanged; and
what an import needs to know of it (its games, its rejections and where they were read).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq

from ingest.lake import Lake, dropped_rejections
from ingest.schema import SCHEMA_VERSION, VIEWS, table_schemas, vp_by_step_view
from ingest.stored import StoredGames, stored_in
from replay.errors import printable


def connect_lake(lake: Lake, config: dict[str, Any] | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection on which every table is a view over the committed files and
    the documented views exist, with file access limited to the lake's folder. Raises
    ``LakeError`` when ``lake`` is not a lake, or is damaged."""
    lake.check()
    manifests = lake.manifests()
    files = lake.files(manifests)
    con = duckdb.connect(":memory:")
    if lake.local:
        con.execute(f"SET allowed_directories = [{_literal(lake.base + '/')}]")
    dropped = dropped_rejections(manifests)
    for name, schema in table_schemas().items():
        rels = files.get(name, [])
        if name == "rejections" and dropped and rels:
            # The rows later batches found stale (``dropped_rejections``): few, so the rest is read here.
            kept = rejection_rows(lake, rels, dropped)
            con.register("_kept_rejections", kept)
            con.execute('CREATE VIEW "rejections" AS SELECT * FROM "_kept_rejections"')
        elif not rels:
            empty = schema.empty_table()
            con.register(f"_empty_{name}", empty)
            con.execute(f'CREATE VIEW "{name}" AS SELECT * FROM "_empty_{name}"')
        elif lake.local:
            paths = ", ".join(_literal(lake.path(rel)) for rel in sorted(rels))
            # By name, over an empty table of this build's columns: a file written before a column
            # was added (``players.bot``, schema 9) reads as NULL there.
            con.register(f"_empty_{name}", schema.empty_table())
            con.execute(f'CREATE VIEW "{name}" AS SELECT * FROM "_empty_{name}" UNION ALL BY NAME '
                        f"SELECT * FROM read_parquet([{paths}], hive_partitioning = false, union_by_name = true)")
        else:
            dataset = pads.dataset([lake.path(rel) for rel in sorted(rels)], schema=schema, filesystem=lake.fs,
                                   format="parquet")
            con.register(f"_dataset_{name}", dataset)
            con.execute(f'CREATE VIEW "{name}" AS SELECT * FROM "_dataset_{name}"')
    for name, sql in VIEWS.items():
        con.execute(f"CREATE VIEW {name} AS {sql}")
    con.execute(f"CREATE VIEW vp_by_step AS {vp_by_step_view()}")
    con.execute("CREATE TABLE governor_meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    con.execute("INSERT INTO governor_meta VALUES ('schema_version', ?), ('lake', ?)", [str(SCHEMA_VERSION), printable(lake.root)])
    con.execute("SET enable_external_access = false")
    # Locking the configuration comes last: every setting after it would be refused ("the
    # configuration has been locked"), which made every dashboard page fail on a lake.
    settings = {k: v for k, v in (config or {}).items() if k != "enable_external_access"}
    lock = settings.pop("lock_configuration", None)
    for key, value in settings.items():
        con.execute(f"SET {key} = ?", [value])
    if lock is not None:
        con.execute("SET lock_configuration = ?", [lock])
    return con


def rejection_rows(lake: Lake, rels: Sequence[str], dropped: dict[str, set[str]],
                   columns: list[str] | None = None) -> pa.Table:
    """The rows of the rejections files ``rels`` without the ``dropped`` ones, with a ``_file``
    column naming each row's file when ``columns`` asks for it."""
    schema = table_schemas()["rejections"]
    parts = []
    for rel in rels:
        table = pq.read_table(lake.path(rel), filesystem=lake.fs,
                              columns=[c for c in columns if c != "_file"] if columns else None)
        gone = dropped.get(rel)
        if gone:
            table = table.filter(pc.invert(pc.is_in(table.column("rejection_id"),
                                                    value_set=pa.array(sorted(gone), pa.string()))))
        if columns and "_file" in columns:
            table = table.append_column("_file", pa.array([rel] * table.num_rows, pa.string()))
        parts.append(table)
    if not parts:
        if columns:
            fields = [schema.field(c) if c != "_file" else pa.field("_file", pa.string()) for c in columns]
            return pa.schema(fields).empty_table()
        return schema.empty_table()
    return pa.concat_tables(parts).cast(schema) if not columns else pa.concat_tables(parts)


def rejected_positions(lake: Lake) -> dict[tuple[str, int], list[tuple[str, str]]]:
    """Every shown rejection by position (file, game): its file in the lake and its id."""
    manifests = lake.manifests()
    rels = lake.files(manifests).get("rejections", [])
    rows = rejection_rows(lake, rels, dropped_rejections(manifests),
                          ["rejection_id", "file", "game_index", "_file"])
    out: dict[tuple[str, int], list[tuple[str, str]]] = {}
    for rejection, file, index, rel in zip(*(rows.column(c).to_pylist()
                                             for c in ("rejection_id", "file", "game_index", "_file"))):
        out.setdefault((file, index), []).append((rel, rejection))
    return out


def known(lake: Lake) -> tuple[StoredGames, frozenset[str]]:
    """The games already in the lake by id (what a copy is checked against) and its rejection ids."""
    con = connect_lake(lake)
    try:
        games = stored_in(con)
        rejections = frozenset(r[0] for r in con.execute("SELECT rejection_id FROM rejections").fetchall())
    finally:
        con.close()
    return games, rejections


def _literal(text: str) -> str:
    """A SQL string literal (view definitions cannot take parameters)."""
    return "'" + text.replace("'", "''") + "'"
