"""Writing a lake (``ingest.lake``): one importer at a time (``writing``, the lake's lock), a batch's
tables as the lake's files (``write_batch``, written under temporary names and not yet visible; the
driver commits the batch's manifest with ``Lake.commit``), a batch written again without the games an
earlier batch of the same run holds (``rewrite_without``), and the derived tables (``refresh_derived``).
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ingest.lake import BY_GAME, LOCK, Lake
from ingest.lake_files import LakeError, local_path, refused
from ingest.lake_read import connect_lake
from ingest.lake_repair import drop_stale_derived
from ingest.locks import flock_until
from ingest.rows import READ_POSITIONS
from ingest.schema import DERIVED_TABLES, expand_runs_sql, player_states_of, table_schemas
from replay.errors import printable
from replay.outputs import FollowRefused

#: How long an importer waits for another to finish writing the lake (``writing``).
LOCK_TIMEOUT = 3600.0


@contextmanager
def writing(lake: Lake, timeout: float | None = None) -> Iterator[None]:
    """Hold the lake for writing: one importer at a time (others wait their turn, up to ``timeout``
    seconds, default ``LOCK_TIMEOUT``). The lock is the operating system's on ``_governor_lake.lock``
    (``flock``), so a killed importer's lock goes with it. A lake on an object store has no such
    lock: one importer at a time is then the user's to ensure (docs/scaling.md). Raises
    ``LakeError`` when the lake stays held past the timeout."""
    local = local_path(lake.root)
    if local is None:
        yield
        return
    os.makedirs(local, exist_ok=True)
    path = os.path.join(local, LOCK)
    try:
        # Never through a link: the lock is truncated and written (a planted link would make that
        # a file outside the lake).
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0),
                     0o644)
    except OSError as err:
        if os.path.islink(path):
            raise refused(FollowRefused(path, f"a symbolic link (to {os.readlink(path)})")) from None
        raise LakeError(f"{printable(path)}: cannot open the lake's lock: {err.strerror or err}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise refused(FollowRefused(path, "not a regular file"))
        deadline = time.monotonic() + (LOCK_TIMEOUT if timeout is None else timeout)
        if not flock_until(fd, deadline, pause=0.05, longest=0.05):
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "another process"
            raise LakeError(f"{lake.root}: another import (pid {holder}) is still writing the lake; "
                            "run this one again when it has finished")
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def expand_player_changes(name: str, runs: pa.Table) -> tuple[str, pa.Table]:
    """Runs of unchanged per-seat state (``<game>_player_changes``) as one row per step, the rows of
    ``<game>_player_states`` (the same expansion the DuckDB store does when it writes)."""
    target = player_states_of(name)
    con = duckdb.connect(":memory:")
    try:
        con.register("incoming", runs)
        expanded = con.sql(expand_runs_sql(runs.column_names, "incoming")).to_arrow_table()
    finally:
        con.close()
    return target, expanded.cast(table_schemas()[target])


def summary_tables(tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
    """The summary tables (``ingest.summaries``) of a batch's games, from its games, players and moves,
    by the same SQL the DuckDB import runs."""
    from ingest import summaries

    con = duckdb.connect(":memory:")
    try:
        for name in ("games", "players", "moves"):
            con.register(name, tables[name])
        for name, schema in summaries.SUMMARY_TABLES.items():
            empty = schema.empty_table()
            con.register(f"_empty_{name}", empty)
            con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM "_empty_{name}"')
        summaries.fill(con)
        return {name: con.sql(f'SELECT * FROM "{name}"').to_arrow_table().cast(schema)
                for name, schema in summaries.SUMMARY_TABLES.items()}
    finally:
        con.close()


def _sort(name: str, table: pa.Table) -> pa.Table:
    keys = [(k, "ascending") for k in ("game_id", "step", "seat", "rejection_id") if k in table.column_names]
    return table.sort_by(keys) if keys else table


def batch_files(tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
    """A batch's tables as the lake's files: relative path -> rows (player-state runs expanded, the
    summary tables added, rows of games, players and moves split by game, every file sorted by game
    id)."""
    ready: dict[str, pa.Table] = {}
    for name, table in tables.items():
        if name.endswith("_player_changes"):
            name, table = expand_player_changes(name, table)
        if table.num_rows:
            ready[name] = table
    if all(name in ready for name in ("games", "players", "moves")):
        ready.update({name: table for name, table in summary_tables(ready).items() if table.num_rows})
    out: dict[str, pa.Table] = {}
    games = ready.get("games")
    game_of = dict(zip(games.column("game_id").to_pylist(), games.column("game").to_pylist())) if games else {}
    for name, table in ready.items():
        if name in BY_GAME:
            kinds = [game_of[g] for g in table.column("game_id").to_pylist()]
            for game in sorted(set(kinds)):
                part = table.filter(pc.equal(pa.array(kinds, pa.string()), game))
                out[f"{name}/game={game}"] = _sort(name, part)
        else:
            out[name] = _sort(name, table)
    return out


def filter_out(tables: dict[str, pa.Table], game_ids: Iterable[str], rejection_ids: Iterable[str]) -> dict[str, pa.Table]:
    """``tables`` without the rows of ``game_ids`` and the rejections of ``rejection_ids``."""
    drop_games = pa.array(sorted(set(game_ids)), pa.string())
    drop_rejections = pa.array(sorted(set(rejection_ids)), pa.string())
    out = {}
    for name, table in tables.items():
        if name == "rejections":
            table = table.filter(pc.invert(pc.is_in(table.column("rejection_id"), value_set=drop_rejections)))
        elif "game_id" in table.column_names and len(drop_games):
            table = table.filter(pc.invert(pc.is_in(table.column("game_id"), value_set=drop_games)))
        out[name] = table
    return out


def write_batch(lake: Lake, batch_id: str, tables: dict[str, pa.Table]) -> dict[str, Any]:
    """Write one batch's files (not yet visible) and return its manifest, to be committed."""
    files: dict[str, list[str]] = {}
    rows: dict[str, int] = {}
    read = tables.get(READ_POSITIONS)
    tables = {name: table for name, table in tables.items() if name != READ_POSITIONS}
    for rel_dir, table in batch_files(tables).items():
        name = rel_dir.split("/", 1)[0]
        rel = f"{rel_dir}/part-{batch_id}.parquet"
        lake.write_parquet(rel, table)
        files.setdefault(name, []).append(rel)
        rows[name] = rows.get(name, 0) + table.num_rows
    games = tables.get("games")
    rejections = tables.get("rejections")
    return {
        "batch": batch_id,
        "files": files,
        "rows": rows,
        "game_ids": games.column("game_id").to_pylist() if games is not None else [],
        "rejection_ids": rejections.column("rejection_id").to_pylist() if rejections is not None else [],
        "rejection_messages": rejections.column("message").to_pylist() if rejections is not None else [],
        # For the driver only (``ingest.lake_store.LakeStore`` takes it out before the commit).
        "read_positions": list(zip(read.column("file").to_pylist(), read.column("game_index").to_pylist()))
        if read is not None else [],
    }


def read_batch(lake: Lake, manifest: dict[str, Any]) -> dict[str, pa.Table]:
    """The tables of a written (maybe not committed) batch, by file path."""
    out = {}
    for rels in manifest["files"].values():
        for rel in rels:
            out[rel] = pq.read_table(lake.path(rel), filesystem=lake.fs)
    return out


def rewrite_without(lake: Lake, manifest: dict[str, Any], game_ids: Sequence[str],
                    rejection_ids: Sequence[str]) -> dict[str, Any]:
    """A written batch with some games and rejections left out (duplicates of earlier batches of the
    same run, found only when the batch came back): its files are written again under a new batch
    id and the old ones deleted. Rare: only when one run imports the same game twice."""
    new_id = f"{manifest['batch']}r"
    files: dict[str, list[str]] = {}
    rows: dict[str, int] = {}
    drop_games, drop_rejections = set(game_ids), set(rejection_ids)
    for rel, table in read_batch(lake, manifest).items():
        name = rel.split("/", 1)[0]
        (kept,) = filter_out({name: table}, drop_games, drop_rejections).values()
        lake.remove(rel)
        if kept.num_rows:
            new_rel = rel.replace(f"part-{manifest['batch']}.parquet", f"part-{new_id}.parquet")
            lake.write_parquet(new_rel, kept)
            files.setdefault(name, []).append(new_rel)
            rows[name] = rows.get(name, 0) + kept.num_rows
    kept_rejections = [(i, m) for i, m in zip(manifest["rejection_ids"], manifest["rejection_messages"])
                       if i not in drop_rejections]
    return {
        "batch": new_id,
        "files": files,
        "rows": rows,
        "game_ids": [g for g in manifest["game_ids"] if g not in drop_games],
        "rejection_ids": [i for i, _ in kept_rejections],
        "rejection_messages": [m for _, m in kept_rejections],
    }


def refresh_derived(lake: Lake, run_id: str) -> None:
    """Compute the derived tables (openings, ratings) from the lake's games and commit them as one
    derived batch replacing the previous one, recording the batches it was computed from
    (``Lake.derived_basis``). The caller holds the lake (``writing``)."""
    from ingest.openings import fill_openings
    from ingest.ratings import recompute_ratings

    con = connect_lake(lake)
    basis = lake.derived_basis()
    try:
        for name, schema in DERIVED_TABLES.items():
            con.execute(f'DROP VIEW IF EXISTS "{name}"')
            empty = schema.empty_table()
            con.register(f"_derived_empty_{name}", empty)
            con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM "_derived_empty_{name}"')
        fill_openings(con)
        recompute_ratings(con)
        batch_id = f"{run_id}-derived"
        files: dict[str, list[str]] = {}
        rows: dict[str, int] = {}
        for name, schema in DERIVED_TABLES.items():
            table = con.sql(f'SELECT * FROM "{name}"').to_arrow_table().cast(schema)
            rel = f"{name}/part-{batch_id}.parquet"
            lake.write_parquet(rel, _sort(name, table))
            files[name] = [rel]
            rows[name] = table.num_rows
    finally:
        con.close()
    lake.commit({"batch": batch_id, "derived": True, "files": files, "rows": rows, "game_ids": [],
                 "rejection_ids": [], "rejection_messages": [], "basis": basis})
    drop_stale_derived(lake)
