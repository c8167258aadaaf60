"""Importing logs: read files, replay in worker processes, write batches in short transactions.

Guarantees (each has a test): a game is stored with all its rows or not at all (one transaction per
batch, and a batch holds whole games); importing again adds nothing (games are keyed by a content id,
rejections by file, position and text); a killed import rerun gives the database a clean run gives;
the file is held for writing only while a batch is written, so readers and other importers get turns.
"""

from __future__ import annotations

import gc
import multiprocessing as mp
import os
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from ingest import summaries
from ingest.db import DatabaseError, reader, writer
from ingest.derived import refresh_derived
from ingest.progress import Progress
from ingest.rows import Batch, process
from replay.logfile import LogRecord, RawGame, expand_paths, read_raw

#: Games per task sent to a worker, and games per write transaction (GOVERNOR_WRITE_BATCH overrides
#: it: smaller batches hold the file for shorter times).
CHUNK = 64
WRITE_BATCH = int(os.environ.get("GOVERNOR_WRITE_BATCH", "1024"))


@dataclass
class ImportSummary:
    """What an import did: counts, every rejection's message, time and rows written."""

    files: int = 0
    games: int = 0
    imported: int = 0
    duplicates: int = 0
    rejected: int = 0
    rows: int = 0
    seconds: float = 0.0
    messages: list[str] = field(default_factory=list)
    game_ids: list[str] = field(default_factory=list)

    def line(self) -> str:
        rate = self.games / self.seconds if self.seconds > 0 else 0.0
        return (
            f"{self.imported} imported, {self.duplicates} duplicates skipped, {self.rejected} rejected "
            f"({self.games} games in {self.files} files, {self.rows:,} rows, {self.seconds:.1f} s, {rate:,.0f} games/s)"
        )


def existing_ids(db: str | Path) -> frozenset[str]:
    """Game ids already stored (none when the database does not exist yet)."""
    if not Path(db).exists():
        return frozenset()
    try:
        with reader(db) as con:
            tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
            if "games" not in tables:
                return frozenset()
            return frozenset(r[0] for r in con.execute("SELECT game_id FROM games").fetchall())
    except DatabaseError:
        return frozenset()


def _chunks(files: Sequence[Path], display_names: dict[str, str]) -> Iterator[list[RawGame | LogRecord]]:
    """Games in chunks, unparsed: the workers parse them (parsing costs about as much as writing)."""
    chunk: list[RawGame | LogRecord] = []
    size = min(CHUNK, WRITE_BATCH)
    for file in files:
        for item in read_raw(file, display_names.get(str(file))):
            chunk.append(item)
            if len(chunk) >= size:
                yield chunk
                chunk = []
    if chunk:
        yield chunk


_KNOWN: frozenset[str] = frozenset()


def _init_worker(known: frozenset[str]) -> None:
    global _KNOWN
    _KNOWN = known
    # A replay allocates many small containers that live only for a move; the default thresholds run
    # the cycle collector every few hundred allocations for nothing (measured: 10% of import time).
    gc.set_threshold(50_000, 20, 100)


def _work(items: list[RawGame | LogRecord]) -> tuple[dict[str, pa.Table], list[str], int, int]:
    records = [item.parse() if isinstance(item, RawGame) else item for item in items]
    batch = process(records, _KNOWN)
    return batch.to_arrow(), batch.game_ids, batch.skipped, len(records)


def _in_order(pool: Any, chunks: Iterator[Any], depth: int) -> Iterator[Any]:
    """Results of ``_work`` over ``chunks`` in order, with at most ``depth`` chunks in flight, so that
    neither the files read ahead nor the results waiting to be written pile up in memory."""
    pending: deque[Any] = deque()
    for chunk in chunks:
        pending.append(pool.apply_async(_work, (chunk,)))
        if len(pending) >= depth:
            yield pending.popleft().get()
    while pending:
        yield pending.popleft().get()


def write_batch(db: str | Path, tables: list[dict[str, pa.Table]], summary: ImportSummary) -> None:
    """Write whole games in one transaction, leaving out games already stored and rejections already
    recorded (by another importer, or an earlier run)."""
    merged: dict[str, pa.Table] = {}
    for part in tables:
        for name, table in part.items():
            merged[name] = pa.concat_tables([merged[name], table]) if name in merged else table
    if not merged:
        return
    with writer(db) as con:
        con.execute("BEGIN TRANSACTION")
        try:
            games = merged.get("games")
            if games is not None and games.num_rows:
                ids = games.column("game_id")
                present = {r[0] for r in con.execute(
                    "SELECT game_id FROM games WHERE game_id IN (SELECT unnest(?))", [ids.to_pylist()]
                ).fetchall()}
                # Duplicates inside this batch: keep the first of each id.
                seen: set[str] = set()
                keep = []
                for gid in ids.to_pylist():
                    keep.append(gid not in present and gid not in seen)
                    seen.add(gid)
                fresh = pa.array([g for g, k in zip(ids.to_pylist(), keep) if k], pa.string())
                summary.duplicates += len(keep) - len(fresh)
                for name, table in merged.items():
                    if name == "rejections":
                        continue
                    if name == "games":
                        table = table.filter(pa.array(keep))
                    else:
                        table = table.filter(pc.is_in(table.column("game_id"), value_set=fresh))
                    if table.num_rows:
                        summary.rows += _insert(con, name, table)
                summary.imported += len(fresh)
                summary.game_ids.extend(fresh.to_pylist())
                if len(fresh):
                    summaries.fill(con, fresh.to_pylist())
            rejections = merged.get("rejections")
            if rejections is not None and rejections.num_rows:
                con.register("incoming", rejections)
                con.execute(
                    "INSERT INTO rejections SELECT * FROM incoming WHERE rejection_id NOT IN "
                    "(SELECT rejection_id FROM rejections)"
                )
                con.unregister("incoming")
            con.execute("COMMIT")
        except BaseException:
            try:
                con.execute("ROLLBACK")
            except duckdb.Error:
                pass  # the failed write already ended the transaction; report the write's error
            raise


def _insert(con: duckdb.DuckDBPyConnection, name: str, table: pa.Table) -> int:
    """Insert an Arrow table; runs of per-seat state are expanded to one row per step. Returns the
    number of rows written."""
    con.register("incoming", table)
    try:
        if name.endswith("_player_changes"):
            target = name.removesuffix("_player_changes") + "_player_states"
            columns = ", ".join(f'c."{c}"' for c in table.column_names[4:])
            before = con.execute(f'SELECT count(*) FROM "{target}"').fetchall()[0][0]
            con.execute(
                f'INSERT INTO "{target}" SELECT c.game_id, s.step::INTEGER, c.seat, {columns} '
                "FROM incoming c, LATERAL (SELECT unnest(range(c.from_step, c.to_step)) AS step) s"
            )
            return int(con.execute(f'SELECT count(*) FROM "{target}"').fetchall()[0][0] - before)
        # By name: a column added by a migration sits last in an old file, wherever the schema lists it.
        con.execute(f'INSERT INTO "{name}" BY NAME SELECT * FROM incoming')
        return table.num_rows
    finally:
        con.unregister("incoming")


def import_paths(
    paths: Sequence[str | Path],
    db: str | Path,
    *,
    workers: int | None = None,
    progress: bool = False,
    display_names: dict[str, str] | None = None,
) -> ImportSummary:
    """Import every game under ``paths`` into ``db``. ``display_names`` maps a file's path to the name
    stored and reported for it (uploads keep their original name). Raises ``FileNotFoundError`` for a
    missing path and ``DatabaseError`` when the database cannot be written."""
    from ingest.lake import is_lake

    if is_lake(db):  # a lake folder or URL (the dashboard's Import page on a lake)
        from ingest.lake_import import import_to_lake

        return import_to_lake(paths, str(db), workers=workers, progress=progress, display_names=display_names)
    start = time.monotonic()
    files = expand_paths(paths)
    summary = ImportSummary(files=len(files))
    with writer(db):  # create or migrate the schema, and fail early on a read-only database
        pass
    known = existing_ids(db)
    total = _count_games(files)
    bar = Progress(total, progress)
    workers = workers or os.cpu_count() or 1
    pending: list[dict[str, pa.Table]] = []
    pending_games = 0

    def consume(result: tuple[dict[str, pa.Table], list[str], int, int]) -> None:
        nonlocal pending_games
        tables, _ids, skipped, count = result
        summary.games += count
        summary.duplicates += skipped
        rejections = tables.get("rejections")
        if rejections is not None:
            summary.rejected += rejections.num_rows
            summary.messages.extend(rejections.column("message").to_pylist())
        pending.append(tables)
        pending_games += count
        if pending_games >= WRITE_BATCH:
            write_batch(db, pending, summary)
            pending.clear()
            pending_games = 0
        bar.update(summary.games, summary.rejected, summary.duplicates)

    try:
        if workers <= 1:
            _init_worker(known)
            for chunk in _chunks(files, display_names or {}):
                consume(_work(chunk))
        else:
            ctx = mp.get_context("fork") if hasattr(os, "fork") else mp.get_context()
            with ctx.Pool(workers, initializer=_init_worker, initargs=(known,)) as pool:
                for result in _in_order(pool, _chunks(files, display_names or {}), depth=3 * workers):
                    consume(result)
        if pending:
            write_batch(db, pending, summary)
    finally:
        bar.close()
    refresh_derived(db)  # the Explorer's openings and the players' ratings
    summary.seconds = time.monotonic() - start
    return summary


def _count_games(files: Sequence[Path]) -> int:
    """How many games the files hold (lines of .jsonl files), for the progress bar."""
    total = 0
    for file in files:
        name = file.name
        if name.endswith(".jsonl"):
            with open(file, "rb") as fh:
                total += sum(1 for line in fh if line.strip())
        elif name.endswith(".jsonl.gz"):
            import gzip

            try:
                with gzip.open(file, "rb") as fh:
                    total += sum(1 for line in fh if line.strip())
            except (OSError, EOFError):
                total += 1
        else:
            total += 1
    return total


__all__ = ["Batch", "ImportSummary", "import_paths", "write_batch", "existing_ids"]
