"""Creating the schema in a database file and bringing an older file up to ``SCHEMA_VERSION``.

Each step is one transaction, run when a writer opens an older file (``ingest.db.writer``); a reader
never migrates. Version 7 widened the columns that count (rounds, scores, state counts) from 16 to 32
bits: a legal game may last more than 32,767 rounds (``docs/schema.md``, "Length limits"). Version 9
stores an agent's seats under the agent's identity, marked as a bot. Version 10 keeps each analysed
candidate's score share, which the accuracy reads. Version 11 records how an
analysis' rollouts were spent, version 12 the version of the bot that played them.

A table added without a new version (an analysis' table, not imported data: ``win_chance``, ``luck``)
is made in an older file by ``ensure_schema`` itself: the file's schema digest differs from this
build's, so every table it lacks is created, empty, the first time a writer opens it.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from ingest.locate import GAME_ROWS_DDL
from ingest.schema import (
    DERIVED_TABLES,
    SCHEMA_VERSION,
    VIEWS,
    moves_schema,
    schema_digest,
    table_schemas,
    vp_by_step_view,
)


class SchemaError(Exception):
    """The database cannot be used by this version (newer schema, or not a Governor database)."""


def create_table(con: duckdb.DuckDBPyConnection, name: str, schema: pa.Schema) -> None:
    """Create table ``name`` with the columns of ``schema`` unless it exists."""
    empty = schema.empty_table()  # noqa: F841 - read by DuckDB through the replacement scan
    con.execute(f'CREATE TABLE IF NOT EXISTS "{name}" AS SELECT * FROM empty WHERE false')


def add_columns(con: duckdb.DuckDBPyConnection, name: str, schema: pa.Schema) -> None:
    """Add to the table ``name`` the columns of ``schema`` it lacks, NULL in the rows it holds (a game
    registered since the file was made declares step columns of its own: ``ingest.schema.moves_schema``)."""
    present = {r[0] for r in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'main' AND table_name = ?", [name]
    ).fetchall()}
    for column, kind in declared_types(schema).items():
        if column not in present:
            con.execute(f'ALTER TABLE "{name}" ADD COLUMN "{column}" {kind}')


def ensure_schema(con: duckdb.DuckDBPyConnection, path: str) -> None:
    """Create the schema in a new database, migrate an older one, refuse a newer one.

    Raises ``SchemaError`` when the database's schema is newer than this build or it is not ours."""
    tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    digest = schema_digest()
    if "governor_meta" in tables:
        meta = dict(con.execute(
            "SELECT key, value FROM governor_meta WHERE key IN ('schema_version', 'schema_digest')"
        ).fetchall())
        try:
            version = int(meta.get("schema_version") or 0)
        except ValueError:
            raise SchemaError(
                f"{path}: governor_meta holds the schema version {meta.get('schema_version')!r}, not a number"
            ) from None
        if version > SCHEMA_VERSION:
            raise SchemaError(
                f"{path}: the database has schema version {version}, newer than this governor's "
                f"{SCHEMA_VERSION}; upgrade governor to use it"
            )
        if version == SCHEMA_VERSION and meta.get("schema_digest") == digest:
            # Made by this very build: nothing to create (an importer opens the file once per batch,
            # and making every table and view again took half a second each time).
            return
        migrate(con, version)
    elif tables:
        raise SchemaError(f"{path}: not a Governor database (it has tables but no governor_meta)")
    con.execute("BEGIN")
    con.execute("CREATE TABLE IF NOT EXISTS governor_meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    for name, schema in table_schemas().items():
        create_table(con, name, schema)
    # A game registered since the file was made may store columns of its own with each move.
    add_columns(con, "moves", moves_schema())
    con.execute(GAME_ROWS_DDL)
    for name, sql in VIEWS.items():
        con.execute(f"CREATE OR REPLACE VIEW {name} AS {sql}")
    con.execute(f"CREATE OR REPLACE VIEW vp_by_step AS {vp_by_step_view()}")
    con.execute(
        "INSERT OR REPLACE INTO governor_meta VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)]
    )
    con.execute("INSERT OR REPLACE INTO governor_meta VALUES ('schema_digest', ?)", [digest])
    con.execute("COMMIT")


def migrate(con: duckdb.DuckDBPyConnection, version: int) -> None:
    """Bring an older schema up to ``SCHEMA_VERSION``, one version at a time (tables for a newly
    registered game are created by ``ensure_schema`` itself). Each step is one transaction."""
    for step in range(version, SCHEMA_VERSION):
        if step == 1:
            _migrate_1_to_2(con)
        elif step == 2:
            _migrate_2_to_3(con)
        elif step == 3:
            _set_version(con, 4)  # version 4's summary tables are remade whole by the next step
        elif step == 4:
            _migrate_summaries(con, 5)
        elif step == 5:
            _migrate_5_to_6(con)
        elif step == 6:
            _widen(con, 7)
        elif step == 7:
            _migrate_7_to_8(con)
        elif step == 8:
            _migrate_8_to_9(con)
        elif step == 9:
            _migrate_9_to_10(con)
        elif step == 10:
            _migrate_10_to_11(con)
        elif step == 11:
            _migrate_11_to_12(con)


def _migrate_1_to_2(con: duckdb.DuckDBPyConnection) -> None:
    """Version 2 adds the derived tables ``openings``, ``player_ratings`` and
    ``player_rating_history``, filled from the games already stored (the ratings by version 9's
    step, which rates every stored game again: rating needs ``players.bot``)."""
    from ingest.openings import fill_openings

    con.execute("BEGIN")
    for name, schema in DERIVED_TABLES.items():
        create_table(con, name, schema)
    fill_openings(con)
    con.execute("INSERT OR REPLACE INTO governor_meta VALUES ('schema_version', '2')")
    con.execute("COMMIT")


def _migrate_2_to_3(con: duckdb.DuckDBPyConnection) -> None:
    """Version 3 adds ``moves.events`` (what the rules did by themselves after each move). The games
    already stored keep NULL there: they are not replayed again."""
    con.execute("BEGIN")
    con.execute("ALTER TABLE IF EXISTS moves ADD COLUMN IF NOT EXISTS events VARCHAR[]")
    con.execute("INSERT OR REPLACE INTO governor_meta VALUES ('schema_version', '3')")
    con.execute("COMMIT")


def _migrate_5_to_6(con: duckdb.DuckDBPyConnection) -> None:
    """Version 6 adds ``game_rows``, where each stored game's rows sit (``ingest.locate``)."""
    from ingest.locate import locate

    con.execute("BEGIN")
    locate(con)
    _set_version(con, 6)
    con.execute("COMMIT")


def _migrate_7_to_8(con: duckdb.DuckDBPyConnection) -> None:
    """Version 8 adds ``analysis.rollout_bot``, the kind of bot that played the rollouts. Every analysis
    stored before it was rolled out by the heuristic bots, which its rows then say."""
    con.execute("BEGIN")
    con.execute("ALTER TABLE IF EXISTS analysis ADD COLUMN IF NOT EXISTS rollout_bot VARCHAR")
    if con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'analysis'").fetchone() != (0,):
        con.execute("UPDATE analysis SET rollout_bot = 'heuristic' WHERE rollout_bot IS NULL")
    _set_version(con, 8)
    con.execute("COMMIT")


def _migrate_8_to_9(con: duckdb.DuckDBPyConnection) -> None:
    """Version 9 adds ``bot`` to ``players``, ``player_ratings`` and ``player_rating_history``: a seat an
    agent played (the log's ``meta.agents``) is stored under the agent's identity, one per agent name
    and version (``ingest.rows.seat_players``), marked as a bot. The seats of the games already stored
    are mapped so from their stored ``meta`` (no game is replayed), the summaries take the new names,
    and the ratings are computed again."""
    import json

    from ingest.ratings import recompute_ratings
    from ingest.rows import seat_players
    from ingest.summaries import SUMMARY_TABLES

    con.execute("BEGIN")
    tables = {r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE'").fetchall()}
    for table in ("players", "player_ratings", "player_rating_history"):
        if table in tables:
            con.execute(f'ALTER TABLE "{table}" ADD COLUMN IF NOT EXISTS bot BOOLEAN')
    if {"players", "games"} <= tables:
        con.execute("UPDATE players SET bot = false WHERE bot IS NULL")
        renamed = []
        for game_id, names, meta in con.execute(
            "SELECT game_id, players, meta FROM games WHERE json_extract(meta, '$.agents') IS NOT NULL"
        ).fetchall():
            try:
                parsed = json.loads(meta)
            except ValueError:
                continue
            for seat, (name, bot) in enumerate(seat_players(list(names), parsed)):
                if bot:
                    renamed.append((name, game_id, seat))
        if renamed:
            con.executemany("UPDATE players SET name = ?, bot = true WHERE game_id = ? AND seat = ?", renamed)
            for summary in SUMMARY_TABLES:
                if summary in tables:
                    con.execute(f'UPDATE "{summary}" t SET name = p.name FROM players p '
                                "WHERE t.game_id = p.game_id AND t.seat = p.seat AND t.name IS DISTINCT FROM p.name")
        if {"player_ratings", "player_rating_history"} <= tables:
            recompute_ratings(con)
    _set_version(con, 9)
    con.execute("COMMIT")


def _migrate_9_to_10(con: duckdb.DuckDBPyConnection) -> None:
    """Version 10 adds ``analysis.score_share`` and ``score_share_sd``, each candidate's mean share of
    the final scores over its rollouts and its spread, from which the accuracy models the win chance
    lost. Rows stored before it keep NULL: the ``accuracy`` view reads their win chances, as before."""
    con.execute("BEGIN")
    con.execute("ALTER TABLE IF EXISTS analysis ADD COLUMN IF NOT EXISTS score_share DOUBLE")
    con.execute("ALTER TABLE IF EXISTS analysis ADD COLUMN IF NOT EXISTS score_share_sd DOUBLE")
    _set_version(con, 10)
    con.execute("COMMIT")


def _migrate_10_to_11(con: duckdb.DuckDBPyConnection) -> None:
    """Version 11 adds ``analysis.sampling``, how an analysis' rollouts were spent (``adaptive`` or
    ``fixed``), which ``governor analyse --all`` counts in what identifies an analysis. Rows stored
    before it keep NULL: they do not say, so ``--all`` analyses their games again."""
    con.execute("BEGIN")
    con.execute("ALTER TABLE IF EXISTS analysis ADD COLUMN IF NOT EXISTS sampling VARCHAR")
    _set_version(con, 11)
    con.execute("COMMIT")


def _migrate_11_to_12(con: duckdb.DuckDBPyConnection) -> None:
    """Version 12 adds ``analysis.rollout_bot_version``, the version the bot that played the rollouts
    declared, which ``governor analyse --all`` counts in what identifies an analysis (a bot whose play
    changed declares a new version). Rows stored before it keep NULL: they do not say which version
    played, so ``--all`` analyses their games again."""
    con.execute("BEGIN")
    con.execute("ALTER TABLE IF EXISTS analysis ADD COLUMN IF NOT EXISTS rollout_bot_version VARCHAR")
    _set_version(con, 12)
    con.execute("COMMIT")


#: The integer types a widening may replace, narrowest first (DuckDB's names).
_NARROW = ("TINYINT", "SMALLINT")


def declared_types(schema: pa.Schema) -> dict[str, str]:
    """The DuckDB type of each column of ``schema``, as ``information_schema`` names it."""
    con = duckdb.connect(":memory:")
    try:
        create_table(con, "t", schema)
        return dict(con.execute(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 't'"
        ).fetchall())
    finally:
        con.close()


def _widen(con: duckdb.DuckDBPyConnection, to_version: int) -> None:
    """Version 7: every stored column whose type is a narrower integer (or a list or map of one)
    than the schema's takes the schema's type; values are kept as they are."""
    con.execute("BEGIN")
    present: dict[str, dict[str, str]] = {}
    for table, column, kind in con.execute(
        "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'main'"
    ).fetchall():
        present.setdefault(table, {})[column] = kind
    for name, schema in table_schemas().items():
        stored = present.get(name)
        if not stored:
            continue
        for column, wanted in declared_types(schema).items():
            current = stored.get(column)
            if current is None or current == wanted:
                continue
            widened = current
            for narrow in _NARROW:
                widened = widened.replace(narrow, "INTEGER")
            if widened == wanted:
                con.execute(f'ALTER TABLE "{name}" ALTER COLUMN "{column}" TYPE {wanted}')
    _set_version(con, to_version)
    con.execute("COMMIT")


def _set_version(con: duckdb.DuckDBPyConnection, version: int) -> None:
    con.execute("INSERT OR REPLACE INTO governor_meta VALUES ('schema_version', ?)", [str(version)])


def _migrate_summaries(con: duckdb.DuckDBPyConnection, to_version: int) -> None:
    """Make the summary tables ``player_builds``, ``player_roles`` and ``player_owned``
    (``ingest.summaries``) from the games already stored, replacing version 4's narrower ones."""
    from ingest import summaries

    con.execute("BEGIN")
    summaries.rebuild(con, create_table)
    _set_version(con, to_version)
    con.execute("COMMIT")
