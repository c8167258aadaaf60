"""Summary tables kept by the importer, so the Statistics page neither parses every move's JSON nor
joins millions of rows back to their players and games.

Each row is one player's fact with what the rates need beside it (game type, player count, name,
won, number of winners):

- ``player_builds``: a building the seat built, with the first round it was built in.
- ``player_roles``: a role choice (round, role).
- ``player_owned``: a building the seat owned at the end (each kind once per seat).

They are filled from ``games``, ``players`` and ``moves`` in the transaction that writes the games
(``fill``), so they always hold exactly the stored games; an older database gets them from all its
games when it is migrated.
"""

from __future__ import annotations

from typing import Any

import duckdb
import pyarrow as pa

from ingest.game_moves import part_filter, part_value

_COMMON = [
    ("game_id", pa.string()), ("game", pa.string()), ("player_count", pa.int8()), ("seat", pa.int8()),
    ("name", pa.string()), ("won", pa.bool_()), ("winners", pa.int8()),
]
PLAYER_BUILDS = pa.schema(_COMMON + [("building", pa.string()), ("round", pa.int32())])
PLAYER_ROLES = pa.schema(_COMMON + [("round", pa.int32()), ("role", pa.string())])
PLAYER_OWNED = pa.schema(_COMMON + [("building", pa.string())])
#: The summary tables by name, in creation order.
SUMMARY_TABLES = {"player_builds": PLAYER_BUILDS, "player_roles": PLAYER_ROLES, "player_owned": PLAYER_OWNED}

_SEAT = "p.game_id, g.game, g.player_count, p.seat, p.name, p.won, len(g.winners) AS winners"


def fill_sql() -> dict[str, str]:
    """Each summary table's filling query, with ``{moves}``, ``{players}``, ``{games}`` and ``{where}``
    to be filled: the moves each game declares as its builds and its choices of a role
    (``ingest.game_moves``), the buildings each seat owned at the end."""
    return {
        "player_builds": (
            f"SELECT {_SEAT}, {part_value('build')} AS building, min(m.round) AS round "
            "FROM {moves} m JOIN {players} p ON p.game_id = m.game_id AND p.seat = m.seat "
            f"JOIN {{games}} g ON g.game_id = m.game_id WHERE {part_filter('build')} AND {{where}} GROUP BY ALL"
        ),
        "player_roles": (
            f"SELECT {_SEAT}, m.round, {part_value('choice')} AS role "
            "FROM {moves} m JOIN {players} p ON p.game_id = m.game_id AND p.seat = m.seat "
            f"JOIN {{games}} g ON g.game_id = m.game_id WHERE {part_filter('choice')} AND {{where}}"
        ),
        "player_owned": (
            f"SELECT {_SEAT}, unnest(list_distinct(p.final_buildings)) AS building "
            "FROM {players} p JOIN {games} g ON g.game_id = p.game_id WHERE {where}"
        ),
    }


_STORED = {"moves": "moves", "players": "players", "games": "games"}


def fill(con: duckdb.DuckDBPyConnection, game_ids: list[str] | None = None,
         source: dict[str, str] | None = None) -> None:
    """Add the summary rows of the games ``game_ids`` (all stored games when None). The caller holds
    the transaction; games already summarised must not be passed again. ``source`` names relations
    to read ``moves``, ``players`` and ``games`` from instead of the stored tables (the importer passes
    the batch being written: reading the stored tables made each batch cost more than the last)."""
    where, params = ("true", []) if game_ids is None else ("g.game_id IN (SELECT unnest(?::VARCHAR[]))", [game_ids])
    tables = {**_STORED, **(source or {})}
    for name, sql in fill_sql().items():
        columns = ", ".join(f'"{c}"' for c in SUMMARY_TABLES[name].names)
        con.execute(f'INSERT INTO "{name}" ({columns}) ' + sql.format(where=where, **tables), params or None)


def rebuild(con: duckdb.DuckDBPyConnection, create: Any) -> None:
    """Drop and make again every summary table (``create(con, name, schema)`` makes an empty one), filled
    from every stored game. The caller holds the transaction."""
    for name, schema in SUMMARY_TABLES.items():
        con.execute(f'DROP TABLE IF EXISTS "{name}"')
        create(con, name, schema)
    fill(con)


def rows(con: duckdb.DuckDBPyConnection, name: str) -> list[tuple[Any, ...]]:
    """Every row of a summary table in key order (for checks and tests)."""
    if name not in SUMMARY_TABLES:
        raise KeyError(f"no summary table {name!r}")
    return con.execute(f'SELECT * FROM "{name}" ORDER BY ALL').fetchall()
