"""The one way logs are imported: ``import_paths`` opens the store its target names (a DuckDB file or a
Parquet lake, ``ingest.stores``) and runs the pipeline over it: find the logs (``ingest.sources``),
replay them in tasks on an executor (``ingest.executors``), commit each task's result to the store in
order, then refresh the derived tables. The command line, the arena's ``--db``, the Play page's store,
the dashboard's uploads and the tests all call it; the stores' parts are in ``ingest.pipeline``."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ingest.duckdb_store import write_batch
from ingest.executors import executor
from ingest.lake_store import LAKE_BATCH
from ingest.pipeline import STORE_MARKS, ImportSummary, Store, count_files
from ingest.progress import Progress
from ingest.rows import Batch
from ingest.sources import find_logs
from ingest.stores import open_store
from replay import exits


def import_paths(
    paths: Sequence[str | Path],
    target: str | Path,
    *,
    lake: bool | None = None,
    cluster: str | None = None,
    workers: int | None = None,
    batch_games: int = LAKE_BATCH,
    progress: bool = False,
    display_names: dict[str, str] | None = None,
    on_rejection: Callable[[str], None] | None = None,
    on_problem: Callable[[str], None] | None = None,
    keep_ids: bool = True,
    end_step_apart: bool = True,
) -> ImportSummary:
    """Import every game under ``paths`` into ``target``: a DuckDB file, or a lake (a folder with the
    lake's mark or a URL; with ``lake=True`` a lake whatever it holds, created when missing, ``batch_games``
    games a batch; ``lake=False`` is ``--db``: see ``ingest.stores.open_store``).

    The tasks run on the executor ``cluster`` names (``ingest.executors.executor``; ``None``: ``workers``
    local processes). ``display_names`` maps a file's path to the name stored and reported for it
    (uploads keep their original name). Arguments that name nothing and folders that cannot be read are
    listed in the summary's ``problems``; the rest is imported (when nothing at all is found, the store
    is not touched). The store's own files and any lake met are never read as logs (an argument that
    names one is a problem). ``on_rejection`` is called with each rejection's message as it comes (over
    the progress bar), ``on_problem`` with each problem as soon as it is found; ``keep_ids`` keeps the
    stored games' ids in the summary. ``end_step_apart=False`` keeps the end step (openings left over,
    ratings) in this process however large the database (a caller that runs the import in a process of
    its own and may kill it, so that no child outlives it).

    Raises ``ingest.stores.StoreError`` for a target that names no store governor can write, what the
    store raises when it cannot be written (``ingest.db.DatabaseError``, ``ingest.lake_files.LakeError``)
    and ``ingest.executors.ExecutorError`` for a cluster that cannot start."""
    store = open_store(target, lake, end_step_apart=end_step_apart, batch_games=batch_games)
    return _run(paths, store, cluster=cluster, workers=workers, progress=progress, display_names=display_names,
                on_rejection=on_rejection, on_problem=on_problem, keep_ids=keep_ids)


def _run(
    paths: Sequence[str | Path],
    store: Store,
    *,
    cluster: str | None = None,
    workers: int | None = None,
    progress: bool = False,
    display_names: dict[str, str] | None = None,
    on_rejection: Callable[[str], None] | None = None,
    on_problem: Callable[[str], None] | None = None,
    keep_ids: bool = True,
) -> ImportSummary:
    """``import_paths`` once its store is open; closes the store whatever the way it ends."""
    start = time.monotonic()
    found = find_logs(paths, stores=store.own_paths(), marks=STORE_MARKS)
    files = found.files
    summary = ImportSummary(files=len(files), problems=found.problems, keep_ids=keep_ids)
    if on_problem is not None:
        for problem in found.problems:
            on_problem(problem)
    if found.problems and not files:
        return summary
    try:
        known = store.prepare()
        bar = Progress(count_files(files) if store.count_ahead else (None if progress else 0), progress)
        summary.on_message = bar.printer(on_rejection)
        workers = workers or os.cpu_count() or 1
        try:
            with executor(cluster, workers, known, store.depth) as run:
                # The bar's total: counting reads every file once more (205 s of a million-game
                # import's 90 minutes), so only for a bar that shows it, and beside the import, not
                # before it (once the workers are forked: a process is not forked while a thread runs).
                if progress and not store.count_ahead:
                    _count_beside(bar, files)
                for staged in run(store.stager(display_names or {}), store.tasks(files, display_names or {})):
                    summary.games += staged.games_read
                    summary.duplicates += staged.skipped
                    summary.rejected += len(staged.rejection_messages)
                    summary.add_messages(staged.rejection_messages)
                    summary.internal_errors += staged.internal_errors
                    store.commit(staged, summary)
                    bar.update(summary.games, summary.rejected, summary.duplicates)
                    exits.raise_if_signalled()
                exits.raise_if_signalled()  # one swallowed while a worker was forked stops it too
                store.finish(summary)
        finally:
            bar.close()
        store.refresh_derived(summary)
    finally:
        store.close()
    summary.seconds = time.monotonic() - start
    return summary


def _count_beside(bar: Progress, files: Sequence[Path]) -> None:
    threading.Thread(target=lambda: bar.set_total(count_files(files)), name="governor-count", daemon=True).start()


__all__ = ["Batch", "ImportSummary", "import_paths", "write_batch"]
