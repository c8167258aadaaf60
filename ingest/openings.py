"""The first decisions of every game, one row per game, for the dashboard's Explorer.

A decision is a move its game declares among its first decisions (``GameDeclaration.openings``: a
kind of move, in a phase or any, with the token it becomes), made in the first ``OPENING_ROUNDS``
rounds. Each becomes a short token (a role chosen, "build" and what was built, "pass") so that a node
of the explorer's tree is a list of tokens and its games are those whose list starts with it. The rows
are derived from the stored ``moves`` with one SQL statement (``ingest.game_moves`` makes its parts
from the games' declarations), so the importer only has to call ``fill_openings`` after writing games
(and a migration can fill them for games imported before the table existed).
"""

from __future__ import annotations

import duckdb

from ingest.game_moves import opening_filter, opening_token

#: Decisions are taken from this many first rounds.
OPENING_ROUNDS = 3


def fill_sql() -> str:
    """The statement that adds the opening rows of the games ``?`` (a list of ids), reading ``{moves}``
    and ``{games}`` (placeholders for the relations), ``OPENING_ROUNDS`` the first parameter: every
    registered game's declared first decisions."""
    return f"""
    INSERT INTO openings
    SELECT m.game_id, any_value(g.game), any_value(g.player_count), any_value(g.winners),
           list({opening_token()} ORDER BY m.step), list(m.seat ORDER BY m.step), list(m.step ORDER BY m.step)
    FROM {{moves}} m JOIN {{games}} g USING (game_id)
    WHERE m.round <= ? AND {opening_filter()}
      AND m.game_id IN (SELECT unnest(?::VARCHAR[]))
    GROUP BY m.game_id"""


MISSING_SQL = "SELECT game_id FROM games WHERE game_id NOT IN (SELECT game_id FROM openings) ORDER BY game_id"


def fill_openings(con: duckdb.DuckDBPyConnection, game_ids: list[str] | None = None,
                  source: dict[str, str] | None = None) -> int:
    """Add the opening rows of ``game_ids`` (stored games without one), or, by default, of every
    stored game that has none yet; one statement, so it writes all of them or none. ``source`` names
    relations to read ``moves`` and ``games`` from instead of the stored tables (the batch an import is
    writing, so that a batch costs the same however many games are stored). Returns the number of rows
    added."""
    if game_ids is None:
        game_ids = [r[0] for r in con.execute(MISSING_SQL).fetchall()]
    if not game_ids:
        return 0
    tables = {"moves": "moves", "games": "games", **(source or {})}
    return int(con.execute(fill_sql().format(**tables), [OPENING_ROUNDS, game_ids]).fetchall()[0][0])
