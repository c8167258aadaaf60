"""The first decisions of every game, one row per game, for the dashboard's Explorer.

A decision is a role choice, a building built (or a pass in a builder phase) and, in Puerto Rico, a
plantation or quarry taken (or a pass in a settler phase), made in the first ``OPENING_ROUNDS``
rounds. Each becomes a short token (``Builder``, ``build Smithy``, ``settle quarry``, ``pass``) so
that a node of the explorer's tree is a list of tokens and its games are those whose list starts
with it. The rows are derived from the stored ``moves`` with one SQL statement, so the importer
only has to call ``fill_openings`` after writing games (and a migration can fill them for games
imported before the table existed).
"""

from __future__ import annotations

import duckdb

#: Decisions are taken from this many first rounds.
OPENING_ROUNDS = 3

#: A move's token: role names capitalised, builds and settles with their object, passes bare.
TOKEN_SQL = """
    CASE m.kind
        WHEN 'role' THEN upper(json_extract_string(m.details, '$.role')[1])
                         || json_extract_string(m.details, '$.role')[2:]
        WHEN 'build' THEN 'build ' || json_extract_string(m.details, '$.building')
        WHEN 'settle' THEN 'settle ' || json_extract_string(m.details, '$.plantation')
        WHEN 'hacienda' THEN 'hacienda draw'
        ELSE m.kind
    END"""

DECISION_FILTER = """
    m.round <= ? AND (
        m.kind = 'role'
        OR (m.role = 'builder' AND m.kind IN ('build', 'pass'))
        OR (m.role = 'settler' AND m.kind IN ('settle', 'hacienda', 'pass'))
    )"""

FILL_SQL = f"""
    INSERT INTO openings
    SELECT m.game_id, any_value(g.game), any_value(g.player_count), any_value(g.winners),
           list({TOKEN_SQL} ORDER BY m.step), list(m.seat ORDER BY m.step), list(m.step ORDER BY m.step)
    FROM {{moves}} m JOIN {{games}} g USING (game_id)
    WHERE {DECISION_FILTER}
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
    return int(con.execute(FILL_SQL.format(**tables), [OPENING_ROUNDS, game_ids]).fetchall()[0][0])
