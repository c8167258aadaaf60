"""Summary tables kept by the importer, so the Statistics page never reads the JSON of every move.

``player_builds``: one row per game, seat and building the seat built, with the first round it was
built in. ``player_roles``: one row per role choice (game, seat, round, role). Both are filled from
``moves`` in the transaction that writes the games (``fill``), so they always hold exactly the stored
games; a database of an older schema gets them filled from all its moves when it is migrated.
"""

from __future__ import annotations

from typing import Any

import duckdb
import pyarrow as pa

PLAYER_BUILDS = pa.schema(
    [("game_id", pa.string()), ("seat", pa.int8()), ("building", pa.string()), ("round", pa.int16())]
)
PLAYER_ROLES = pa.schema(
    [("game_id", pa.string()), ("seat", pa.int8()), ("round", pa.int16()), ("role", pa.string())]
)
#: The summary tables by name, in creation order.
SUMMARY_TABLES = {"player_builds": PLAYER_BUILDS, "player_roles": PLAYER_ROLES}

_FILL = {
    "player_builds": (
        "SELECT game_id, seat, json_extract_string(details, '$.building') AS building, min(round) AS round "
        "FROM moves WHERE kind = 'build' AND {where} GROUP BY ALL"
    ),
    "player_roles": (
        "SELECT game_id, seat, round, json_extract_string(details, '$.role') AS role "
        "FROM moves WHERE kind = 'role' AND {where}"
    ),
}


def fill(con: duckdb.DuckDBPyConnection, game_ids: list[str] | None = None) -> None:
    """Add the summary rows of the games ``game_ids`` (all stored games when None) from their stored
    moves. The caller holds the transaction; games already summarised must not be passed again."""
    where, params = ("true", []) if game_ids is None else ("game_id IN (SELECT unnest(?::VARCHAR[]))", [game_ids])
    for name, sql in _FILL.items():
        columns = ", ".join(f'"{c}"' for c in SUMMARY_TABLES[name].names)
        con.execute(f'INSERT INTO "{name}" ({columns}) ' + sql.format(where=where), params or None)


def rows(con: duckdb.DuckDBPyConnection, name: str) -> list[tuple[Any, ...]]:
    """Every row of a summary table in key order (for checks and tests)."""
    if name not in SUMMARY_TABLES:
        raise KeyError(f"no summary table {name!r}")
    return con.execute(f'SELECT * FROM "{name}" ORDER BY ALL').fetchall()
