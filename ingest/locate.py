"""Where each game's rows sit in the tables the Replay page reads whole: ``game_rows``.

A game's moves and states are appended with the rest of its import batch, so they sit within a short
run of row ids (its own rows only, or, for the per-seat tables, mixed with the batch's other games).
Reading
one game by ``game_id`` alone scans the whole table (its rows are ordered by import, not by id, so
DuckDB's min/max pruning cannot skip anything): about a second for one game out of 100,000. A row-id
range is pushed down into the scan and reads only the row groups that hold the game (milliseconds);
the filter on ``game_id`` then keeps the game's own rows.

``game_rows`` is an index the importer keeps, not data: it is not part of a lake (Parquet files have no
row ids) and is never exported. A reader must not trust it blindly (a range could be stale if rows were
ever deleted and the table compacted): ``dashboards.data`` also filters on ``game_id`` and checks that
the range gave every row the game has, and falls back to the plain scan otherwise.
"""

from __future__ import annotations

import duckdb

from replay.registry import game_names


def located_tables() -> tuple[str, ...]:
    """The tables the Replay page reads whole, by game: ``moves`` and every registered game's two state
    tables (``<game>_states``, ``<game>_player_states``), in the registry's order."""
    return ("moves", *(f"{game}_{kind}" for game in game_names() for kind in ("states", "player_states")))

GAME_ROWS_DDL = (
    "CREATE TABLE IF NOT EXISTS game_rows "
    "(game_id VARCHAR NOT NULL, table_name VARCHAR NOT NULL, first_row BIGINT NOT NULL, last_row BIGINT NOT NULL, "
    "row_count INTEGER NOT NULL)"
)


def row_counts(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """The number of rows of each located table (rows appended next start there): taken by an import
    batch before it appends, for ``locate(con, since=...)``."""
    base = {r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE'").fetchall()}
    return {t: int(con.execute(f'SELECT count(*) FROM "{t}"').fetchall()[0][0]) for t in located_tables() if t in base}


def locate(con: duckdb.DuckDBPyConnection, since: dict[str, int] | None = None) -> int:
    """Record the row range (first and last row id, and its number of rows) of every game stored since
    the last call: rows past the last located range of each table, all of them the first time, or,
    with ``since`` (``row_counts`` taken before a batch appended its rows), the rows from there on.
    Each import batch is appended whole, so a game's range never reaches into another batch's rows.
    Returns the number of ranges added. Runs in the caller's transaction."""
    con.execute(GAME_ROWS_DDL)
    base = {r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE'").fetchall()}
    added = 0
    for table in located_tables():
        if table not in base or (since is not None and table not in since):
            continue
        start = since[table] if since is not None else con.execute(
            "SELECT coalesce(max(last_row) + 1, 0) FROM game_rows WHERE table_name = ?", [table]
        ).fetchall()[0][0]
        # ``rowid >= start`` is pushed into the scan: only the rows appended since are read. The INSERT
        # answers the number of ranges it wrote.
        added += con.execute(
            f"INSERT INTO game_rows SELECT game_id, ?, min(rowid), max(rowid), count(*)::INTEGER FROM \"{table}\" "
            "WHERE rowid >= ? GROUP BY game_id",
            [table, start],
        ).fetchall()[0][0]
    return int(added)
