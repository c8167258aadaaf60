"""The Parquet lake as an import's store (``ingest.pipeline``): a task is a group of files (about
``LAKE_BATCH`` games; a ``.jsonl`` file is never split), which the worker reads itself, replays and
writes as the batch's files under temporary names (``ingest.lake_write.write_batch``). The driver takes the
tasks' results in order, drops any game a previous batch of the same run already holds (rare: the same
game twice in one import), and commits each batch's manifest. So the tables are the ones a DuckDB
import of the same paths writes, row for row (tested), and a rerun skips every game the lake holds.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ingest.lake import Lake
from ingest.lake_files import local_path
from ingest.lake_read import known, rejected_positions
from ingest.lake_repair import derived_stale, drop_stale_derived, refuse_links, remove_orphans
from ingest.lake_write import refresh_derived, rewrite_without, write_batch, writing
from ingest.pipeline import ImportSummary, Staged, count_files
from ingest.rows import parse_item, process_arrow
from ingest.stored import StoredGame, StoredGames
from replay.errors import InternalError
from replay.log_reader import read_raw

#: Games per task and batch (one set of files per table and game): large enough that files are not
#: tiny, small enough that a worker's memory stays low.
LAKE_BATCH = 2048


@dataclass(frozen=True)
class LakeStager:
    """A worker's task on a lake: read, replay and write one batch of files (not yet visible)."""

    root: str
    display: dict[str, str]

    def __call__(self, item: tuple[str, list[str]], known: Mapping[str, StoredGame]) -> Staged:
        batch_id, files = item
        records = [parse_item(raw) for file in files for raw in read_raw(Path(file), self.display.get(file))]
        tables, _ids, skipped = process_arrow(records, known)
        rejections = tables.get("rejections")
        bugs = rejections.column("kind").to_pylist().count(InternalError.kind) if rejections is not None else 0
        manifest = write_batch(Lake(self.root), batch_id, tables)
        return Staged(len(records), skipped, list(manifest["rejection_messages"]), bugs, manifest)


def _groups(files: Sequence[Path], size: int) -> Iterator[list[str]]:
    """Files in groups of about ``size`` games (counted as the progress bar counts them)."""
    group: list[str] = []
    count = 0
    for file in files:
        n = count_files([file])
        if group and count + n > size:
            yield group
            group, count = [], 0
        group.append(str(file))
        count += n
    if group:
        yield group


@dataclass
class LakeStore:
    """An import's store in a lake (``ingest.pipeline.Store``)."""

    root: str
    batch_games: int = LAKE_BATCH
    depth: int = 2
    count_ahead: bool = True
    lake: Lake = field(init=False)
    run_id: str = field(init=False)

    def __post_init__(self) -> None:
        self.lake = Lake(self.root)
        self.target = self.root
        self.run_id = datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
        self.seen_games: set[str] = set()
        self.seen_rejections: set[str] = set()
        self.rejected_at: dict[tuple[str, int], list[tuple[str, str]]] = {}
        self._held = ExitStack()

    def own_paths(self) -> list[tuple[str, str]]:
        """The lake's folder when it is on this machine (never read as logs)."""
        local = local_path(self.root)
        return [(local, "the lake this import writes")] if local is not None else []

    def prepare(self) -> StoredGames:
        """Take the lake for writing (``ingest.lake_write.writing``: other importers wait their turn),
        make it (or check it), delete what a killed import left, and read what it holds. Raises
        ``ingest.lake_files.LakeError`` when the lake cannot be used or is damaged, or when a link (or a file
        where a folder belongs) stands where the lake keeps its own files: nothing is written then."""
        refuse_links(self.lake)  # before anything is read, written or removed in the lake
        self.lake.refuse_foreign()  # before the lock file is made in a folder that is not a lake
        self._held.enter_context(writing(self.lake))
        self.lake.create()
        drop_stale_derived(self.lake)
        remove_orphans(self.lake)
        known_games, known_rejections = known(self.lake)
        self.seen_games, self.seen_rejections = set(known_games), set(known_rejections)
        self.rejected_at = rejected_positions(self.lake)
        return known_games

    def tasks(self, files: Sequence[Path], display_names: dict[str, str]) -> Iterator[Any]:
        return ((f"{self.run_id}-{n:06d}", group) for n, group in enumerate(_groups(files, self.batch_games)))

    def stager(self, display_names: dict[str, str]) -> Callable[[Any, Any], Staged]:
        return LakeStager(self.root, display_names)

    def commit(self, staged: Staged, summary: ImportSummary) -> None:
        manifest = staged.payload
        read = manifest.pop("read_positions", [])
        again = set(manifest["rejection_ids"])
        dup_games = [g for g in manifest["game_ids"] if g in self.seen_games]
        dup_rejections = [r for r in manifest["rejection_ids"] if r in self.seen_rejections]
        if dup_games or dup_rejections:
            summary.duplicates += len(dup_games)
            manifest = rewrite_without(self.lake, manifest, dup_games, dup_rejections)
        # The rejections this reading of their positions did not give again are stale.
        stale = [[rel, rejection] for position in read for rel, rejection in self.rejected_at.pop(tuple(position), ())
                 if rejection not in again]
        if stale:
            manifest["dropped_rejections"] = stale
        if manifest["files"] or stale:
            self.lake.commit(manifest)
        self.seen_games.update(manifest["game_ids"])
        self.seen_rejections.update(manifest["rejection_ids"])
        summary.imported += len(manifest["game_ids"])
        summary.add_ids(manifest["game_ids"])
        summary.rows += sum(manifest["rows"].values())

    def finish(self, summary: ImportSummary) -> None:
        return None

    def refresh_derived(self, summary: ImportSummary) -> None:
        """The derived tables, made again when this run stored games or when they do not match the
        lake's batches (a run killed after its batches, before its derived batch)."""
        if summary.imported or derived_stale(self.lake):
            refresh_derived(self.lake, self.run_id)

    def close(self) -> None:
        """Let other importers have the lake."""
        self._held.close()
