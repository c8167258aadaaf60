"""The database schema: tables, views and the schema version (``ingest.migrations`` creates and
migrates it in a database file).

Game-specific state tables are made from each engine's Arrow schemas (``<game>_states`` and
``<game>_player_states``), the games' own columns of ``moves`` and the views that read their moves
from their declarations (``GameDeclaration.step_columns``, ``ingest.game_moves``), so this module knows
no game and no game rules.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterator, Mapping
from typing import Any

import pyarrow as pa

from ingest.accuracy_sql import ACCURACY_SQL
from ingest.game_moves import part_filter, part_value
from ingest.locate import GAME_ROWS_DDL
from replay.game import GameDeclarationError
from replay.protocol import StorageRows
from replay.registry import all_engines, game_names, game_of

#: Version 7 widened the counting columns (rounds, scores, counts) to 32 bits; version 9 added ``bot``
#: to ``players`` and the ratings; version 10 the score shares of ``analysis``; version 11
#: ``analysis.sampling``; version 12 ``analysis.rollout_bot_version`` (``ingest.migrations``).
SCHEMA_VERSION = 12


GAMES = pa.schema(
    [
        ("game_id", pa.string()),
        ("game", pa.string()),
        ("source_id", pa.string()),
        ("meta", pa.string()),
        ("played_at", pa.string()),
        ("player_count", pa.int8()),
        ("players", pa.list_(pa.string())),
        ("rounds", pa.int32()),
        ("moves", pa.int32()),
        ("end_reason", pa.string()),
        ("winners", pa.list_(pa.int8())),
        ("winner_names", pa.list_(pa.string())),
        ("engine_version", pa.string()),
        ("imported_at", pa.timestamp("us", tz="UTC")),
        ("file", pa.string()),
        ("file_index", pa.int32()),
        ("log", pa.string()),
    ]
)

PLAYERS = pa.schema(
    [
        ("game_id", pa.string()),
        ("seat", pa.int8()),
        ("name", pa.string()),
        ("score", pa.int32()),
        ("parts", pa.map_(pa.string(), pa.int32())),
        ("tiebreak", pa.int32()),
        ("rank", pa.int8()),
        ("won", pa.bool_()),
        ("final_buildings", pa.list_(pa.string())),
        # Schema version 9: an agent played the seat (``name`` is then the agent's identity, one per
        # agent name and version: ``ingest.rows.seat_players``).
        ("bot", pa.bool_()),
    ]
)

#: The columns of ``moves`` every game has: the keys and the round, then (after the games' own step
#: columns, ``moves_schema``) the move itself.
MOVE_KEYS = [("game_id", pa.string()), ("step", pa.int32()), ("round", pa.int32())]
MOVE_FIELDS = [
    ("seat", pa.int8()),
    ("player", pa.string()),
    ("kind", pa.string()),
    ("text", pa.string()),
    ("words", pa.string()),
    ("details", pa.string()),
    # What the rules did by themselves after the move, in words (NULL: imported before schema 3).
    ("events", pa.list_(pa.string())),
]


def step_columns() -> list[tuple[str, pa.DataType]]:
    """Every registered game's own columns of ``moves`` (``GameDeclaration.step_columns``: the phase
    of the game a move is made in), in the registry's order, each once. Raises
    ``GameDeclarationError`` when two games declare one column with two types."""
    found: dict[str, tuple[str, str]] = {}
    for game in game_names():
        for column, kind in game_of(game).step_columns:
            if column in found and found[column][1] != kind:
                raise GameDeclarationError(f"the step column {column!r} of the moves table is declared as "
                                           f"{found[column][1]} by {found[column][0]} and as {kind} by {game}")
            found.setdefault(column, (game, kind))
    return [(column, getattr(pa, kind)()) for column, (_, kind) in found.items()]


def moves_schema() -> pa.Schema:
    """The columns of ``moves``: the keys and the round, every registered game's step columns
    (``step_columns``), then the move itself. Raises ``GameDeclarationError`` as ``step_columns``."""
    # Asked for every game an import lays out: made once for each set of declared step columns.
    return _moves_schema(tuple(game_of(game).step_columns for game in game_names()))


@functools.cache
def _moves_schema(declared: tuple[tuple[tuple[str, str], ...], ...]) -> pa.Schema:
    del declared  # the cache's key: step_columns reads the same declarations
    return pa.schema(MOVE_KEYS + step_columns() + MOVE_FIELDS)


REJECTIONS = pa.schema(
    [
        ("rejection_id", pa.string()),
        ("file", pa.string()),
        ("game_index", pa.int32()),
        ("game_id", pa.string()),
        ("kind", pa.string()),
        ("move_number", pa.int32()),
        ("seat", pa.int8()),
        ("player", pa.string()),
        ("rule", pa.string()),
        ("message", pa.string()),
        ("rejected_at", pa.timestamp("us", tz="UTC")),
    ]
)

#: Stored analyses (``governor analyse --store``): one row per decision and candidate move, keyed by
#: (game_id, step, candidate). Analyses are not imported data, so ``ensure_schema`` creates the table
#: in any database and an import never touches it.
ANALYSIS = pa.schema(
    [
        ("game_id", pa.string()),
        ("step", pa.int32()),
        ("seat", pa.int8()),
        ("player", pa.string()),
        ("candidate", pa.string()),
        ("move", pa.string()),
        ("words", pa.string()),
        ("played", pa.bool_()),
        ("rank", pa.int16()),
        ("rollouts", pa.int32()),
        ("wins", pa.float64()),
        ("estimate", pa.float64()),
        ("ci_low", pa.float64()),
        ("ci_high", pa.float64()),
        ("loss", pa.float64()),
        ("tag", pa.string()),
        ("legal_moves", pa.int16()),
        ("rollouts_asked", pa.int32()),
        ("seed", pa.int64()),
        ("top", pa.int16()),
        ("engine_version", pa.string()),
        ("analysed_at", pa.timestamp("us", tz="UTC")),
        # Schema version 8: the kind of bot that played the rollouts (``heuristic``, ``expert``).
        ("rollout_bot", pa.string()),
        # Schema version 10: the mean and standard deviation over the candidate's rollouts of the seat's
        # share of the final scores (``analysis.rollouts.score_share``), which the accuracy reads; NULL in
        # rows stored before it, whose accuracy reads the win chances as before.
        ("score_share", pa.float64()),
        ("score_share_sd", pa.float64()),
        # Schema version 11: how the rollouts were spent (``adaptive``, ``fixed``); NULL in rows stored
        # before it, which do not say.
        ("sampling", pa.string()),
        # Schema version 12: the version the rollout bot declared (``replay.registry.bot_version``: a
        # bot whose play changed declares a new one); NULL in rows stored before it, which do not say.
        ("rollout_bot_version", pa.string()),
    ]
)

#: Every seat's learned win chance at every step of a game (``governor winchance``,
#: ``analysis.winchance.fill``): like analyses, not imported data, so ``ensure_schema`` creates the
#: table in any database and an import never touches it.
WIN_CHANCE = pa.schema(
    [("game_id", pa.string()), ("step", pa.int32()), ("seat", pa.int8()), ("win_chance", pa.float64())]
)

#: Each move's change of every seat's learned win chance split into what chance drew (``luck``) and what
#: the decision did (``skill``), in games (``governor winchance --luck``, ``analysis.winchance.luck_fill``):
#: ``step`` k is the move that leads to step k of the state tables (1 is the first move). Like
#: ``win_chance``, an analysis and not imported data: ``ensure_schema`` creates it in any database,
#: an older one included, and an import never touches it.
LUCK = pa.schema(
    [("game_id", pa.string()), ("step", pa.int32()), ("seat", pa.int8()), ("luck", pa.float64()),
     ("skill", pa.float64())]
)

#: The first decisions of each game (``ingest.openings``), for the Explorer.
OPENINGS = pa.schema(
    [
        ("game_id", pa.string()),
        ("game", pa.string()),
        ("player_count", pa.int8()),
        ("winners", pa.list_(pa.int8())),
        ("decisions", pa.list_(pa.string())),
        ("seats", pa.list_(pa.int8())),
        ("steps", pa.list_(pa.int32())),
    ]
)

#: Each player's skill rating per game type (``ingest.ratings``), and the rating after every game.
PLAYER_RATINGS = pa.schema(
    [
        ("game", pa.string()),
        ("name", pa.string()),
        ("games", pa.int32()),
        ("wins", pa.int32()),
        ("mu", pa.float64()),
        ("sigma", pa.float64()),
        ("ordinal", pa.float64()),
        ("last_game_id", pa.string()),
        # Schema version 9: a player is (name, bot).
        ("bot", pa.bool_()),
    ]
)

PLAYER_RATING_HISTORY = pa.schema(
    [
        ("game", pa.string()),
        ("game_id", pa.string()),
        ("seat", pa.int8()),
        ("name", pa.string()),
        ("number", pa.int32()),
        ("mu", pa.float64()),
        ("sigma", pa.float64()),
        ("ordinal", pa.float64()),
        ("bot", pa.bool_()),
    ]
)

#: Tables derived from the stored games after each import (not written by the import's batches).
DERIVED_TABLES = {"openings": OPENINGS, "player_ratings": PLAYER_RATINGS, "player_rating_history": PLAYER_RATING_HISTORY}

KEYS_STATE = [("game_id", pa.string()), ("step", pa.int32())]
KEYS_PLAYER_STATE = [("game_id", pa.string()), ("step", pa.int32()), ("seat", pa.int8())]


def state_schemas(engine: StorageRows[Any, Any]) -> tuple[pa.Schema, pa.Schema]:
    """The Arrow schemas of an engine's two state tables, keys first."""
    global_schema = pa.schema(KEYS_STATE + list(zip(engine.global_schema.names, engine.global_schema.types)))
    player_schema = pa.schema(
        KEYS_PLAYER_STATE + list(zip(engine.player_schema.names, engine.player_schema.types))
    )
    return global_schema, player_schema


def player_change_schema(engine: StorageRows[Any, Any]) -> pa.Schema:
    """Schema of the runs the importer sends for per-seat state: one row per seat and stretch of
    steps ``[from_step, to_step)`` over which the seat's row stays the same."""
    return pa.schema(
        [("game_id", pa.string()), ("seat", pa.int8()), ("from_step", pa.int32()), ("to_step", pa.int32())]
        + list(zip(engine.player_schema.names, engine.player_schema.types))
    )


def player_states_of(name: str) -> str:
    """The table runs of per-seat state (``<game>_player_changes``) are stored in: ``<game>_player_states``."""
    return name.removesuffix("_player_changes") + "_player_states"


def expand_runs_sql(columns: list[str], source: str) -> str:
    """The SELECT that expands runs of per-seat state (``player_change_schema``, the columns ``columns``
    of ``source``) to one row per step, the rows of ``<game>_player_states``: the one expansion both
    stores use (the DuckDB file as it inserts, the lake as it writes a batch's files)."""
    values = ", ".join(f'c."{c}"' for c in columns[4:])
    return (f"SELECT c.game_id, s.step::INTEGER AS step, c.seat, {values} "
            f'FROM "{source}" c, LATERAL (SELECT unnest(range(c.from_step, c.to_step)) AS step) s')


def table_schemas() -> dict[str, pa.Schema]:
    """Every table's Arrow schema by table name, in creation order."""
    from ingest.summaries import SUMMARY_TABLES

    tables = {"games": GAMES, "players": PLAYERS, "moves": moves_schema(), "rejections": REJECTIONS}
    for game, engine in sorted(all_engines().items()):
        global_schema, player_schema = state_schemas(engine)
        tables[f"{game}_states"] = global_schema
        tables[f"{game}_player_states"] = player_schema
    tables["analysis"] = ANALYSIS
    tables["win_chance"] = WIN_CHANCE
    tables["luck"] = LUCK
    tables.update(DERIVED_TABLES)
    tables.update(SUMMARY_TABLES)
    return tables


GAME_TABLES_WITH_ID = ("players", "moves")

_VIEWS: dict[str, str] = {
    # Win rate by seat and player count.
    "win_rate_by_seat": """
        SELECT g.game, g.player_count, p.seat, count(*) AS games, sum(p.won::INT) AS wins,
               avg(p.won::INT) AS win_rate
        FROM players p JOIN games g USING (game_id)
        GROUP BY ALL ORDER BY g.game, g.player_count, p.seat""",
    # Win rate of players owning a building at the end.
    "win_rate_by_building": """
        SELECT g.game, g.player_count, b.building, count(*) AS owners, sum(b.won::INT) AS wins,
               avg(b.won::INT) AS win_rate
        FROM (SELECT game_id, won, unnest(list_distinct(final_buildings)) AS building FROM players) b
        JOIN games g USING (game_id)
        GROUP BY ALL ORDER BY g.game, g.player_count, b.building""",
    # Win rate of players who built a building by round k (k = the round it was first built).
    "win_rate_by_building_round": """
        SELECT b.game, b.player_count, b.building, b.round AS built_in_round, count(*) AS builders,
               sum(p.won::INT) AS wins, avg(p.won::INT) AS win_rate
        FROM buildings_built b JOIN players p ON p.game_id = b.game_id AND p.seat = b.seat
        GROUP BY ALL ORDER BY b.game, b.building, built_in_round""",
    "win_rate_by_role": """
        SELECT game, player_count, role, count(*) AS choices, sum(won::INT) AS wins, avg(won::INT) AS win_rate
        FROM roles_chosen GROUP BY ALL ORDER BY game, player_count, role""",
    "score_distribution": """
        SELECT g.game, g.player_count, p.score, p.won, p.rank, count(*) AS players
        FROM players p JOIN games g USING (game_id)
        GROUP BY ALL ORDER BY g.game, g.player_count, p.score""",
    "game_length": """
        SELECT game, player_count, rounds, moves, count(*) AS games
        FROM games GROUP BY ALL ORDER BY game, player_count, rounds""",
    # Each analysed seat's accuracy over its game, from the stored analyses (``ingest.accuracy_sql``).
    "accuracy": ACCURACY_SQL,
}


def game_views() -> dict[str, str]:
    """The views that read the moves each game declares (``GameDeclaration.build`` and ``choice``,
    through ``ingest.game_moves``): made from the registered games, so that no view holds a game's kind
    of move."""
    return {
        # The round in which each player first built each building (per game and seat).
        "buildings_built": f"""
        SELECT m.game_id, g.game, g.player_count, m.seat, {part_value("build")} AS building,
               min(m.round) AS round, min(m.step) AS step
        FROM moves m JOIN games g USING (game_id)
        WHERE {part_filter("build")}
        GROUP BY ALL""",
        # Roles chosen, per round, with whether the chooser won.
        "roles_chosen": f"""
        SELECT m.game_id, g.game, g.player_count, m.round, m.step, m.governor, m.seat,
               {part_value("choice")} AS role, p.won
        FROM moves m JOIN games g USING (game_id) JOIN players p ON p.game_id = m.game_id AND p.seat = m.seat
        WHERE {part_filter("choice")}""",
    }


class _Views(Mapping[str, str]):
    """Every view's SQL by name, in creation order (a view before those that read it): the games'
    (``game_views``, made from the registry each time they are read), then the fixed ones."""

    def _all(self) -> dict[str, str]:
        return {**game_views(), **_VIEWS}

    def __getitem__(self, name: str) -> str:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


#: Every view's SQL by name, in creation order (``_Views``).
VIEWS: Mapping[str, str] = _Views()


def vp_by_step_view() -> str:
    """The SQL of the ``vp_by_step`` view (every game's per-seat score after every step, as ``vp``: the
    column each game declares as its score, ``GameDeclaration.score_column``)."""
    parts = [
        f"SELECT '{game}' AS game, game_id, step, seat, {_score_as_vp(game)} FROM {game}_player_states"
        for game in sorted(all_engines())
    ]
    return " UNION ALL ".join(parts)


def _score_as_vp(game: str) -> str:
    # A game scoring in ``vp`` gives the view's SQL of before, word for word (the schema's signature).
    column = game_of(game).score_column
    return "vp" if column == "vp" else f'"{column}" AS vp'



@functools.cache
def schema_digest() -> str:
    """A hash of everything ``ensure_schema`` creates (version, tables' columns, views' SQL): a file
    that records the same one needs nothing created."""
    parts = [str(SCHEMA_VERSION)]
    parts += [f"{name}:{schema}" for name, schema in table_schemas().items()]
    parts += [f"{name}:{sql}" for name, sql in sorted(VIEWS.items())] + [vp_by_step_view(), GAME_ROWS_DDL]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]
