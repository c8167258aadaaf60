"""Every database read of the dashboard: short read-only connections, results cached by query.

No connection stays open (an importer must be able to take the file between two queries). A
query's result is cached under the database file's stamp (modification time and size of the file
and its write-ahead log), so an import makes the next run read fresh data, and under a time to live.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import streamlit as st

from dashboards.replay_data import PreparedGame
from dashboards.sql_sandbox import READ_CONFIG
from ingest.db import reader
from replay.protocol import Viewer

DEFAULT_DB = "governor.duckdb"
CACHE_TTL = 600
#: Games whose states the Replay page can show, by the name of their state tables.
STATE_TABLES = ("states", "player_states")


def db_path() -> str:
    """The database the dashboard reads: ``--db FILE`` after ``--`` on the streamlit command line,
    else ``$GOVERNOR_DB``, else ``governor.duckdb`` in the current folder."""
    argv = sys.argv
    if argv and argv[0].endswith("app.py"):
        for i, arg in enumerate(argv[1:], start=1):
            if arg == "--db" and i + 1 < len(argv):
                return argv[i + 1]
            if arg.startswith("--db="):
                return arg.split("=", 1)[1]
    return os.environ.get("GOVERNOR_DB") or DEFAULT_DB


def db_stamp(path: str) -> tuple[int, int, int, int]:
    """What changes when the database is written: size and modification time of the file and of its
    write-ahead log (zeros when missing)."""
    out: list[int] = []
    if os.path.isdir(path):  # a lake (ingest.lake): a committed batch adds a manifest
        path = os.path.join(path, "_manifest")
    for name in (path, path + ".wal"):
        try:
            info = os.stat(name)
            out += [info.st_mtime_ns, info.st_size]
        except OSError:
            out += [0, 0]
    return out[0], out[1], out[2], out[3]


def db_exists() -> bool:
    """Whether the database file exists."""
    return Path(db_path()).exists()


@st.cache_data(ttl=CACHE_TTL, show_spinner=False, max_entries=512)
def _cached_frame(path: str, stamp: tuple[int, ...], sql: str, params: tuple[Any, ...]) -> pd.DataFrame:
    with reader(path, config=READ_CONFIG) as con:
        return con.execute(sql, list(params) or None).df()


def frame(sql: str, params: tuple[Any, ...] | list[Any] = ()) -> pd.DataFrame:
    """The result of one read query as a DataFrame (cached until the database changes).

    Raises ``ingest.db.DatabaseError`` when the database is missing or locked too long."""
    path = db_path()
    return _cached_frame(path, db_stamp(path), sql, tuple(params))


#: Rows as Arrow gives them to Python: one dict per row.
Rows = list[dict[str, Any]]


def tables() -> set[str]:
    """Names of the tables and views in the database (empty when there is no database)."""
    if not db_exists():
        return set()
    names = frame("SELECT table_name FROM information_schema.tables")
    return set(names["table_name"])


def games_with_states() -> list[str]:
    """The games (names of the registry) whose state tables exist."""
    present = tables()
    found = {name[: -len("_player_states")] for name in present if name.endswith("_player_states")}
    return sorted(g for g in found if f"{g}_states" in present)


def _state_table(game: str, kind: str) -> str:
    """The name of a game's state table, checked against the database (it goes into SQL text)."""
    if game not in games_with_states():
        raise KeyError(f"no state tables for the game '{game}' in {db_path()}")
    return f'"{game}_{kind}"'


# -- games -------------------------------------------------------------------------------------


def games_list() -> pd.DataFrame:
    """One row per game for the Games page, newest first."""
    return frame(
        """
        SELECT game_id, game, player_count, array_to_string(players, ', ') AS players,
               played_at, array_to_string(winner_names, ', ') AS winner, rounds, moves,
               coalesce(source_id, regexp_extract(file, '[^/]+$')) AS source, imported_at
        FROM games
        ORDER BY played_at DESC NULLS LAST, imported_at DESC, file, file_index"""
    )


def game_row(game_id: str) -> dict[str, Any] | None:
    """The games row of one game (without the log text), or None when it is not stored."""
    rows = frame("SELECT * EXCLUDE (log) FROM games WHERE game_id = ?", (game_id,))
    return rows.iloc[0].to_dict() if len(rows) else None


def game_players(game_id: str) -> pd.DataFrame:
    """Final result of each seat of one game."""
    return frame(
        "SELECT seat, name, score, rank, won, tiebreak FROM players WHERE game_id = ? ORDER BY seat", (game_id,)
    )


def game_moves(game_id: str) -> pd.DataFrame:
    """Every move of one game, in order."""
    # Every column but the key and the events: the games' own step columns (``ingest.schema.moves_schema``)
    # are whatever the file holds.
    return frame("SELECT * EXCLUDE (game_id, events) FROM moves WHERE game_id = ? ORDER BY step", (game_id,))


def game_states(game: str, game_id: str) -> pd.DataFrame:
    """The stored global state after every step of one game (step 0 is the start)."""
    return frame(f"SELECT * FROM {_state_table(game, 'states')} WHERE game_id = ? ORDER BY step", (game_id,))


def game_player_states(game: str, game_id: str) -> pd.DataFrame:
    """The stored state of every seat after every step of one game."""
    return frame(
        f"SELECT * FROM {_state_table(game, 'player_states')} WHERE game_id = ? ORDER BY step, seat", (game_id,)
    )


# -- schema ------------------------------------------------------------------------------------


def schema_columns() -> pd.DataFrame:
    """Every column of every table and view, for the SQL page."""
    return frame(
        """
        SELECT c.table_name, t.table_type, c.column_name, c.data_type, c.ordinal_position
        FROM information_schema.columns c
        JOIN information_schema.tables t USING (table_schema, table_name)
        WHERE c.table_schema = 'main'
        ORDER BY t.table_type, c.table_name, c.ordinal_position"""
    )


# -- replay ------------------------------------------------------------------------------------


#: The stored analysis of a game (``governor analyse --store``): one row per decision, the move played
#: (engine text and words, estimate, interval, rollouts), with the best candidate's; by step, then the
#: decisions of a step in the order they were stored (the seat to act's first: refraining from a
#: draw the move offers is the other seat's decision at the same step, stored after it); ``mover`` is the
#: seat that made the move (another seat's than ``seat`` when the decision is a part of its move).
STORED_ANALYSIS_SQL = (
    "SELECT a.step, a.seat, a.player, m.seat AS mover, a.candidate, a.words, a.estimate, a.ci_low, a.ci_high, a.wins, a.rollouts, "
    "a.loss, a.tag, a.rollouts_asked, a.seed, a.rollout_bot, b.candidate AS best, b.words AS best_words, "
    "b.estimate AS best_estimate, b.ci_low AS best_low, b.ci_high AS best_high, b.wins AS best_wins, "
    "b.rollouts AS best_rollouts, b.move AS best_move "
    "FROM analysis a LEFT JOIN analysis b ON b.game_id = a.game_id AND b.step = a.step AND b.seat = a.seat AND b.rank = 1 "
    "LEFT JOIN moves m ON m.game_id = a.game_id AND m.step = a.step "
    "WHERE a.game_id = ? AND a.played ORDER BY a.step, a.rowid"
)


@dataclass(frozen=True)
class OpenedGame:
    """What the Replay page needs of one game before it draws the board, read through one connection."""

    #: The game's row of ``games`` without its log.
    row: dict[str, Any]
    #: The stored game, checked and decoded (``replay_data.PreparedGame``: a payload per view); None
    #: without state tables.
    prepared: PreparedGame | None
    #: The stored analysis (``STORED_ANALYSIS_SQL``); empty when the game was not analysed.
    analysis: pd.DataFrame
    #: Where the game's row sits in ``games`` (its ``rowid``), for reading its log (``game_log``).
    row_id: int

    @property
    def payload(self) -> dict[str, Any] | None:
        """The whole game as ``everything`` sees it (``PreparedGame.payload``); None without state tables."""
        return None if self.prepared is None else self.prepared.payload(Viewer.everything())


def read_opened(con: Any, game_id: str, with_states: tuple[str, ...], with_analysis: bool) -> OpenedGame | None:
    """One game as the Replay page opens it, through the open connection ``con``: its row, payload
    (when its game is one of ``with_states``) and stored analysis (when ``with_analysis``); None when
    there is no such game. Not its log: reading one log out of ``games`` decompresses a block of
    other games' logs (tens of milliseconds or more on 100,000 games), so the page reads it after
    the board is sent (``game_log``)."""
    found = con.sql(
        "SELECT rowid AS _row_id, * EXCLUDE (log) FROM games WHERE game_id = ?", params=[game_id]
    ).to_arrow_table().to_pylist()
    if not found:
        return None
    row = found[0]
    row_id = int(row.pop("_row_id"))
    game = str(row["game"])
    prepared = None
    if game in with_states:
        whole = read_game(con, game, game_id, row)
        prepared = None if whole is None else PreparedGame(*whole)
    analysis = con.execute(_stored_analysis_sql(con), [game_id]).df() if with_analysis else pd.DataFrame()
    return OpenedGame(row, prepared, analysis, row_id)


def _stored_analysis_sql(con: Any) -> str:
    """``STORED_ANALYSIS_SQL`` for the database behind ``con``. The dashboard reads a database as it
    is (a reader never migrates): in one of schema 7 or older, made before the rollout bot was
    stored, every analysis was rolled out by the heuristic bot, as the migration to 8 records it."""
    stored = con.execute(
        "SELECT count(*) FROM information_schema.columns WHERE table_name = 'analysis' AND column_name = 'rollout_bot'"
    ).fetchone()[0]
    return STORED_ANALYSIS_SQL if stored else STORED_ANALYSIS_SQL.replace("a.rollout_bot,", "'heuristic' AS rollout_bot,")


def game_log(game_id: str, row_id: int | None = None) -> str:
    """A game's log as stored (JSON text), read at its row when ``row_id`` (``OpenedGame.row_id``) is
    given (cached until the database changes). Raises ``KeyError`` when there is no such game."""
    if row_id is not None:
        found = frame("SELECT log FROM games WHERE rowid = ? AND game_id = ?", (row_id, game_id))
        if len(found):
            return str(found["log"].iloc[0])
    found = frame("SELECT log FROM games WHERE game_id = ?", (game_id,))
    if not len(found):
        raise KeyError(f"no game with id {game_id} in {db_path()}")
    return str(found["log"].iloc[0])


# A resource, not data: the prepared game is handed out as it is (not copied on every rerun, which
# for a long game costs more than the page) and keeps the views made of it.
@st.cache_resource(ttl=CACHE_TTL, show_spinner=False, max_entries=32)
def _cached_game(
    path: str, stamp: tuple[int, ...], game_id: str, with_states: tuple[str, ...], with_analysis: bool
) -> OpenedGame | None:
    with reader(path, config=READ_CONFIG) as con:
        return read_opened(con, game_id, with_states, with_analysis)


def replay_game(game_id: str) -> OpenedGame | None:
    """One game as the Replay page shows it (``OpenedGame``: its ``games`` row, the prepared game
    whose views go to the browser and its stored analysis), read through one connection (opening the file is a good
    part of the time of a read) and cached until the database changes; None when there is no such
    game.

    Raises ``ingest.db.DatabaseError`` when the database cannot be read."""
    path = db_path()
    return _cached_game(path, db_stamp(path), game_id, tuple(games_with_states()), "analysis" in tables())


def read_game(
    con: Any, game: str, game_id: str, row: dict[str, Any] | None = None
) -> tuple[dict[str, Any], Rows, Rows, Rows] | None:
    """A game's row of ``games`` (without its log), moves, states and per-seat states, as plain
    Python values (Arrow rows: lists, ints, None), or None when there is no such game. ``game`` must
    be a checked game name (it goes into SQL text); ``row``, when given, is the game's row already
    read (not read again)."""
    def rows(sql: str) -> Rows:
        return _pylist(con.sql(sql, params=[game_id]).to_arrow_table())

    found = [row] if row is not None else rows("SELECT * EXCLUDE (log) FROM games WHERE game_id = ?")
    if not found:
        return None
    ranges = _row_ranges(con, game_id)
    steps = int(found[0]["moves"]) + 1

    def game_rows(table: str, columns: str, order: str, expected: int) -> Rows:
        # Through the game's row range when it is known and gives every row (milliseconds), else by
        # a scan of the whole table (``ingest.locate``).
        span = ranges.get(table)
        if span is not None:
            got = con.sql(
                f'SELECT {columns} FROM "{table}" WHERE rowid BETWEEN ? AND ? AND game_id = ? ORDER BY {order}',
                params=[span[0], span[1], game_id],
            ).to_arrow_table()
            if got.num_rows == expected:
                return _pylist(got)
        return rows(f'SELECT {columns} FROM "{table}" WHERE game_id = ? ORDER BY {order}')

    # Every column of moves: ``events`` is there from schema version 3 on.
    moves = game_rows("moves", "* EXCLUDE (game_id)", "step", steps - 1)
    table = game_rows(f"{game}_states", "*", "step", steps)
    seats = game_rows(f"{game}_player_states", "*", "step, seat", steps * int(found[0]["player_count"]))
    return found[0], moves, table, seats


def _pylist(table: Any) -> Rows:
    """An Arrow table's rows as dicts, as ``to_pylist`` gives them, made column by column (a long
    game's per-seat states convert in about half the time)."""
    columns = table.to_pydict()
    names = list(columns)
    return [dict(zip(names, values)) for values in zip(*columns.values())]


def _row_ranges(con: Any, game_id: str) -> dict[str, tuple[int, int]]:
    """Where the game's rows sit, by table (first and last row id); empty without ``game_rows`` (a
    lake, an older database) or when the game was not located."""
    try:
        found = con.execute("SELECT table_name, first_row, last_row FROM game_rows WHERE game_id = ?", [game_id]).fetchall()
    except duckdb.Error:
        return {}
    return {name: (int(first), int(last)) for name, first, last in found}
