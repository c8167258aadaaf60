"""The DuckDB file as an import's store (``ingest.pipeline``): the driver reads the logs in chunks, the
workers replay them into Arrow tables, and the driver writes them in batches of whole games, each one
short transaction.

Guarantees (each has a test): a game is stored with all its rows or not at all (one transaction per
batch, and a batch holds whole games); importing again adds nothing (games are keyed by a content id,
rejections by file, position and text); a killed import rerun gives the database a clean run gives;
the file is held for writing only while a batch is written, so readers and other importers get turns.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ingest import summaries
from ingest.db import DatabaseError, reader, writer
from ingest.derived import APART_FROM_GAMES, refresh_derived, refresh_derived_apart
from ingest.locate import locate, row_counts
from ingest.openings import fill_openings
from ingest.pipeline import ImportSummary, Staged
from ingest.rows import READ_POSITIONS, parse_item, process_arrow, rejection_id
from ingest.schema import GAMES, PLAYERS, REJECTIONS, expand_runs_sql, moves_schema, player_states_of
from ingest.stored import StoredGame, StoredGames, id_keys, source_conflict, stored_in
from replay.collector import collector_paused
from replay.errors import InternalError
from replay.log_reader import RawGame, read_raw
from replay.logfile import LogRecord

#: Games per task sent to a worker, and games per write transaction (GOVERNOR_WRITE_BATCH overrides
#: it: smaller batches hold the file for shorter times).
CHUNK = 64
WRITE_BATCH = int(os.environ.get("GOVERNOR_WRITE_BATCH", "1024"))
#: A task also ends past this many bytes of games, so that tasks in flight stay small in memory
#: whatever the size of the games (each may be up to ``MAX_GAME_BYTES``).
CHUNK_BYTES = 32 * 1024 * 1024



def _chunks(files: Sequence[Path], display_names: dict[str, str]) -> Iterator[list[RawGame | LogRecord]]:
    """Games in chunks, unparsed: the workers parse them (parsing costs about as much as writing)."""
    chunk: list[RawGame | LogRecord] = []
    size = min(CHUNK, WRITE_BATCH)
    chunk_bytes = 0
    for file in files:
        for item in read_raw(file, display_names.get(str(file))):
            chunk.append(item)
            chunk_bytes += len(item.data) if isinstance(item, RawGame) else 0
            if len(chunk) >= size or chunk_bytes >= CHUNK_BYTES:
                yield chunk
                chunk = []
                chunk_bytes = 0
    if chunk:
        yield chunk


def _work(items: list[RawGame | LogRecord], known: Mapping[str, StoredGame] | None = None
          ) -> tuple[dict[str, pa.Table], list[str], int, int]:
    # The cycle collector is paused while a chunk is laid out: its rows (a few hundred thousand
    # objects) make no cycles, yet each pass walked all of them (15 to 25% of a worker's time even
    # with the thresholds above; ``replay.collector``).
    with collector_paused():
        records = [parse_item(item) for item in items]
        tables, ids, skipped = process_arrow(records, {} if known is None else known)
        return tables, ids, skipped, len(records)


class WrittenGames:
    """What one import has written so far, so that a batch need not look up every stored game to
    leave out copies: the 64-bit keys of the ids of the games it wrote (``id_keys``, a sorted array,
    8 bytes a game) and the number of games the database held after its last batch.

    Looking each batch's ids up in ``games`` read a block of every row group of the table (one per
    batch) and kept it in DuckDB's buffers: 0.2 to 0.5 s and about 25 MiB more per 100,000 games
    stored, the growth of an import's memory with its size (docs/benchmarks.md, "A million games")."""

    def __init__(self, games: int) -> None:
        self.games = games
        #: The number of rows of each table ``ingest.locate`` locates after the last batch (where the
        #: next batch's rows start), once a batch has counted them: kept instead of counted again,
        #: since a count reads something of every row group of a table.
        self.rows: dict[str, int] | None = None
        #: No other writer has added games since the import started (once one has, every batch looks
        #: all its ids up: this import does not know which games the other wrote).
        self.alone = True
        self._keys = np.empty(0, dtype=np.uint64)

    def still_alone(self, games: int) -> bool:
        """Whether the database, holding ``games`` games, holds only what it held when the import
        started and what this import wrote."""
        if games != self.games:
            self.alone = False
        return self.alone

    def maybe_written(self, ids: Sequence[str]) -> list[str]:
        """The ids this import may have written already (a hash collision names a few more)."""
        if not len(self._keys) or not ids:
            return []
        keys = id_keys(ids)
        at = np.minimum(np.searchsorted(self._keys, keys), len(self._keys) - 1)
        return [gid for gid, hit in zip(ids, self._keys[at] == keys) if hit]

    def add(self, ids: Sequence[str], games: int, rows: dict[str, int] | None) -> None:
        """``ids`` written by a batch, after which the database held ``games`` games and, when the batch
        wrote any, ``rows`` rows in the located tables."""
        keys = np.sort(id_keys(ids))
        self._keys = np.insert(self._keys, np.searchsorted(self._keys, keys), keys)
        self.games = games
        if rows is not None:
            self.rows = rows


def stage_chunk(items: list[RawGame | LogRecord], known: Mapping[str, StoredGame]) -> Staged:
    """A worker's task: parse and replay a chunk of games into tables (written by the driver)."""
    tables, _ids, skipped, count = _work(items, known)
    rejections = tables.get("rejections")
    messages = rejections.column("message").to_pylist() if rejections is not None else []
    bugs = rejections.column("kind").to_pylist().count(InternalError.kind) if rejections is not None else 0
    return Staged(count, skipped, messages, bugs, tables)


def write_batch(db: str | Path, tables: list[dict[str, pa.Table]], summary: ImportSummary,
                so_far: WrittenGames | None = None) -> None:
    """Write whole games in one transaction, leaving out games already stored and rejections already
    recorded (by another importer, or an earlier run). A left-out copy that names another source id
    than the game kept is recorded as a rejection (see ``ingest.stored``). With ``so_far`` (what this
    import wrote, and the number of games after its last batch), only the ids it may have written are
    looked up, until the database holds another number of games than it left (another writer came
    in between): from then on every id is, as without it."""
    if not any(part for part in tables):
        return
    with writer(db) as con:
        con.execute("BEGIN TRANSACTION")
        try:
            ids = [gid for part in tables if "games" in part for gid in part["games"].column("game_id").to_pylist()]
            # Copies of one game replayed in different tasks, or stored meanwhile by another importer.
            # The import's own record, when no other writer has added games since it started.
            alone = so_far if so_far is not None and ids and so_far.still_alone(_count(con, "games")) else None
            look_up = alone.maybe_written(ids) if alone is not None else ids
            kept: dict[str, tuple[str | None, str]] = {
                r[0]: (r[1], r[2]) for r in con.execute(
                    "SELECT game_id, source_id, file FROM games WHERE game_id IN (SELECT unnest(?))", [look_up]
                ).fetchall()
            } if look_up else {}
            to_write: dict[str, list[pa.Table]] = {}
            fresh_ids: list[str] = []
            conflicts: list[dict[str, Any]] = []
            rejections = [part["rejections"] for part in tables if "rejections" in part]
            # Task by task: a task's tables hold each game once (``process`` skips copies within it), so
            # its rows are kept or left out by game id alone.
            for part in tables:
                games = part.get("games")
                if games is None or not games.num_rows:
                    continue
                part_ids = games.column("game_id").to_pylist()
                sources = games.column("source_id").to_pylist()
                files = games.column("file").to_pylist()
                keep = []
                for i, gid in enumerate(part_ids):
                    first = kept.get(gid)
                    keep.append(first is None)
                    if first is None:
                        kept[gid] = (sources[i], files[i])
                    elif sources[i] is not None and first[0] is not None and sources[i] != first[0]:
                        conflicts.append(_source_conflict(games, i, first))
                    else:
                        summary.duplicates += 1
                fresh = [g for g, k in zip(part_ids, keep) if k]
                # Almost always every game of a task is new: its tables are then written as they are
                # (filtering copies every column).
                every = len(fresh) == len(part_ids)
                fresh_set = pa.array(fresh, pa.string())
                for name, table in part.items():
                    if name in ("rejections", READ_POSITIONS):
                        continue
                    if every:
                        pass
                    elif name == "games":
                        table = table.filter(pa.array(keep))
                    else:
                        table = table.filter(pc.is_in(table.column("game_id"), value_set=fresh_set))
                    if table.num_rows:
                        to_write.setdefault(name, []).append(table)
                summary.imported += len(fresh)
                summary.add_ids(fresh)
                fresh_ids.extend(fresh)
            written = {name: pa.concat_tables(parts) for name, parts in to_write.items()}
            # Where the batch's rows start: kept from the import's last batch while no one else wrote.
            appended_from: dict[str, int] = {}
            if written:
                appended_from = dict(alone.rows) if alone is not None and alone.rows else row_counts(con)
            rows_after = dict(appended_from)
            for name, table in written.items():
                added = _insert(con, name, table)
                summary.rows += added
                if _target(name) in rows_after:
                    rows_after[_target(name)] += added
            if fresh_ids:
                # The summaries and openings are made from the batch's own rows: made from the stored
                # tables, each batch scanned every move stored so far, so an import slowed as it grew.
                source = {name: f"batch_{name}" for name in ("games", "players", "moves")}
                for name, view in source.items():
                    schema = {"games": GAMES, "players": PLAYERS, "moves": moves_schema()}[name]
                    con.register(view, written.get(name, schema.empty_table()))
                try:
                    summaries.fill(con, fresh_ids, source)
                    fill_openings(con, fresh_ids, source)
                finally:
                    for view in source.values():
                        con.unregister(view)
            if conflicts:
                summary.rejected += len(conflicts)
                summary.add_messages(row["message"] for row in conflicts)
                rejections.append(pa.Table.from_pylist(conflicts, schema=REJECTIONS))
            read = [part[READ_POSITIONS] for part in tables if READ_POSITIONS in part]
            if read:
                _drop_stale_rejections(con, pa.concat_tables(read), rejections)
            if rejections:
                _insert(
                    con, "rejections", pa.concat_tables(rejections),
                    "WHERE rejection_id NOT IN (SELECT rejection_id FROM rejections)",
                )
            con.execute("COMMIT")
            if alone is not None:
                # It held ``alone.games`` when the batch began, and no other writer can come in during it.
                alone.add(fresh_ids, alone.games + len(fresh_ids), rows_after if written else None)
        except BaseException:
            try:
                con.execute("ROLLBACK")
            except duckdb.Error:
                pass  # the failed write already ended the transaction; report the write's error
            raise
        if written:
            # Where the batch's games sit, from its own rows, once committed (rows appended in a
            # transaction have other row ids until it commits). Done at the end of the import instead,
            # it grouped every row of the import at once: 2.8 GB of memory for a million games. A
            # batch killed before this is located by the next import's start.
            con.execute("BEGIN TRANSACTION")
            locate(con, since=appended_from)
            con.execute("COMMIT")


def _drop_stale_rejections(con: duckdb.DuckDBPyConnection, read: pa.Table, rejections: list[pa.Table]) -> None:
    """Delete the stored rejections of the positions ``read`` (file, game) that this reading did not
    give again: the game there is now stored, a copy, or rejected for another reason."""
    again = pa.concat_tables(rejections).select(["rejection_id"]) if rejections else REJECTIONS.empty_table().select(["rejection_id"])
    con.register("batch_read", read)
    con.register("batch_rejected", again)
    try:
        con.execute(
            "DELETE FROM rejections WHERE EXISTS (SELECT 1 FROM batch_read r WHERE r.file = rejections.file "
            "AND r.game_index = rejections.game_index) "
            "AND rejection_id NOT IN (SELECT rejection_id FROM batch_rejected)"
        )
    finally:
        for view in ("batch_read", "batch_rejected"):
            try:
                con.unregister(view)
            except duckdb.Error:
                pass  # an aborted transaction refuses this too: the write's own error is the one to report


def _source_conflict(games: pa.Table, i: int, first: tuple[str | None, str]) -> dict[str, Any]:
    """The rejection of row ``i`` of ``games``: a copy of a game kept with another source id."""
    row = games.slice(i, 1).to_pylist()[0]
    error = source_conflict(
        row["source_id"], StoredGame((), (), first[0], first[1]),
        file=row["file"], game_index=row["file_index"], game_id=row["game_id"],
    )
    assert error is not None
    return {
        "rejection_id": rejection_id(row["file"], row["file_index"], row["log"]),
        "file": row["file"],
        "game_index": row["file_index"],
        "game_id": row["game_id"],
        "kind": error.kind,
        "move_number": None,
        "seat": None,
        "player": None,
        "rule": error.path,
        "message": error.message,
        "rejected_at": row["imported_at"],
    }


def _count(con: duckdb.DuckDBPyConnection, table: str) -> int:
    return int(con.execute(f'SELECT count(*) FROM "{table}"').fetchall()[0][0])


def _target(name: str) -> str:
    """The table a batch's table ``name`` is written to: runs of per-seat state (``<game>_player_changes``)
    go to ``<game>_player_states``, one row per step."""
    return player_states_of(name) if name.endswith("_player_changes") else name


def _insert(con: duckdb.DuckDBPyConnection, name: str, table: pa.Table, where: str = "") -> int:
    """Insert an Arrow table (the rows that pass ``where``); runs of per-seat state are expanded to
    one row per step. Returns the number of rows written."""
    con.register("incoming", table)
    try:
        if name.endswith("_player_changes"):
            # An INSERT answers the number of rows it wrote (counting the table before and after read
            # something of each of its row groups: 0.05-0.07 s a count at a million games).
            written = int(con.execute(
                f'INSERT INTO "{_target(name)}" {expand_runs_sql(table.column_names, "incoming")}'
            ).fetchall()[0][0])
        else:
            # By name: a column added by a migration sits last in an old file, wherever the schema lists it.
            written = int(con.execute(f'INSERT INTO "{name}" BY NAME SELECT * FROM incoming {where}').fetchall()[0][0])
    except BaseException:
        # After a failed write (a full disk) the transaction is aborted and unregistering fails too,
        # with "Current transaction is aborted": that error must not hide the real one ("No space left").
        try:
            con.unregister("incoming")
        except duckdb.Error:
            pass
        raise
    con.unregister("incoming")
    return written


def stored_games(db: str | Path) -> StoredGames:
    """Every stored game by id (none when the database does not exist yet)."""
    if not Path(db).exists():
        return StoredGames()
    try:
        with reader(db) as con:
            tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
            if "games" not in tables:
                return StoredGames()
            return stored_in(con)
    except DatabaseError:
        return StoredGames()


class DuckDBStore:
    """An import's store in a DuckDB file (``ingest.pipeline.Store``). ``end_step_apart=False`` keeps
    the end step (openings left over, ratings) in this process however large the database (a caller
    that runs the import in a process of its own and may kill it, so that no child outlives it)."""

    depth = 3
    count_ahead = False

    def __init__(self, db: str | Path, end_step_apart: bool = True) -> None:
        self.db = db
        self.target = str(db)
        self.end_step_apart = end_step_apart
        self.games_before = 0
        self.written: WrittenGames | None = None
        self.pending: list[dict[str, pa.Table]] = []
        self.pending_games = 0

    def own_paths(self) -> list[tuple[str, str]]:
        """The database file and its write-ahead log (never read as logs)."""
        db = os.fspath(self.db)
        return [(db, "the database this import writes"), (db + ".wal", "the write-ahead log of the database this "
                                                                         "import writes")]

    def prepare(self) -> StoredGames:
        """Create or migrate the schema, fail early on a read-only database, and locate the rows of
        games an interrupted import left unlocated (each batch locates its own games from its first
        row on). Raises ``DatabaseError`` when the file cannot be written."""
        with writer(self.db) as con:
            con.execute("BEGIN TRANSACTION")
            locate(con)
            self.games_before = _count(con, "games")
            con.execute("COMMIT")
        known = stored_games(self.db)
        # Unless the stored games could not all be read: then every batch looks all its games up.
        self.written = WrittenGames(self.games_before) if len(known) >= self.games_before else None
        return known

    def tasks(self, files: Sequence[Path], display_names: dict[str, str]) -> Iterator[Any]:
        return _chunks(files, display_names)

    def stager(self, display_names: dict[str, str]) -> Callable[[Any, Any], Staged]:
        return stage_chunk

    def commit(self, staged: Staged, summary: ImportSummary) -> None:
        self.pending.append(staged.payload)
        self.pending_games += staged.games_read
        if self.pending_games >= WRITE_BATCH:
            self.finish(summary)

    def finish(self, summary: ImportSummary) -> None:
        if self.pending:
            write_batch(self.db, self.pending, summary, self.written)
            self.pending = []
            self.pending_games = 0

    def close(self) -> None:
        """Nothing to let go: the file is held only while a batch is written."""
        return None

    def refresh_derived(self, summary: ImportSummary) -> None:
        """The Explorer's openings and the players' ratings; past a size, in a process of its own, so
        that its memory does not add up with what this process holds after the batches."""
        if self.end_step_apart and self.games_before + summary.imported >= APART_FROM_GAMES:
            refresh_derived_apart(self.db)
        else:
            refresh_derived(self.db)
