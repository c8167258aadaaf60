"""Importing logs into a DuckDB file or a lake: ``import_paths`` opens the store its target names
(``ingest.stores``) and runs the one pipeline (``ingest.pipeline``) over it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ingest.duckdb_store import stored_games, write_batch
from ingest.pipeline import ImportSummary
from ingest.pipeline import import_paths as run_pipeline
from ingest.rows import Batch
from ingest.stores import open_store


def existing_ids(db: str | Path) -> frozenset[str]:
    """Game ids already stored (none when the database does not exist yet)."""
    return frozenset(stored_games(db))


def import_paths(
    paths: Sequence[str | Path],
    db: str | Path,
    *,
    workers: int | None = None,
    progress: bool = False,
    display_names: dict[str, str] | None = None,
    on_rejection: Callable[[str], None] | None = None,
    on_problem: Callable[[str], None] | None = None,
    keep_ids: bool = True,
    end_step_apart: bool = True,
) -> ImportSummary:
    """Import every game under ``paths`` into ``db``, a DuckDB file or a lake (a folder with the
    lake's mark, or a URL: the dashboard's Import page on a lake). See ``ingest.pipeline.import_paths``
    for the arguments; ``end_step_apart=False`` keeps the end step (openings left over, ratings) in
    this process however large the database (a caller that runs the import in a process of its own and
    may kill it, so that no child outlives it).
    Raises ``DatabaseError`` when the database cannot be written, ``LakeError`` for a lake."""
    store = open_store(db, end_step_apart=end_step_apart)
    return run_pipeline(paths, store, workers=workers, progress=progress, display_names=display_names,
                        on_rejection=on_rejection, on_problem=on_problem, keep_ids=keep_ids)


__all__ = ["Batch", "ImportSummary", "import_paths", "write_batch", "existing_ids"]
