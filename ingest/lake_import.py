"""``governor import PATH... --lake DIR [--cluster local|dask://ADDR|ray://ADDR]``: replay logs and
write the tables as Parquet into a lake (``ingest.lake``), on this machine's cores or on an existing
Dask or Ray cluster.

A task is a group of files (about ``LAKE_BATCH`` games; a ``.jsonl`` file is never split): the worker
reads them itself, replays every game, builds the rows and writes the batch's files under temporary
names. The driver takes the tasks' results in order, drops any game a previous batch of the same run
already holds (rare: the same game twice in one import), and commits each batch's manifest. So the
tables are the ones a DuckDB import of the same paths writes, row for row (tested), and a rerun
skips every game the lake holds. A bad game is a rejection row, never a failed task; a task whose
worker dies is retried by the cluster engine.
"""

from __future__ import annotations

import os
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ingest.importer import ImportSummary, _count_games
from ingest.lake import Lake, refresh_derived, rewrite_without, write_batch
from ingest.progress import Progress
from ingest.rows import parse_item, process_arrow
from ingest.stored import StoredGame
from replay.logfile import find_logs, read_raw

#: Games per task and batch (one set of files per table and game): large enough that files are not
#: tiny, small enough that a worker's memory stays low.
LAKE_BATCH = 2048
#: How many times a cluster engine runs a task again when its worker dies.
RETRIES = 3
#: The cluster engine ``--cluster local`` starts (chosen by measurement, docs/scaling.md).
LOCAL_ENGINE = "dask"

_KNOWN: Mapping[str, StoredGame] = {}


def _init_known(known: Mapping[str, StoredGame]) -> None:
    global _KNOWN
    _KNOWN = known


def lake_task(root: str, batch_id: str, files: list[str], display: dict[str, str],
              known: Mapping[str, StoredGame] | None = None) -> dict[str, Any]:
    """Read, replay and write one batch of files into the lake at ``root``; the batch's manifest
    (not yet committed), with how many games were read and skipped as already stored."""
    records = []
    for file in files:
        for item in read_raw(Path(file), display.get(file)):
            records.append(parse_item(item))
    tables, _ids, skipped = process_arrow(records, _KNOWN if known is None else known)
    manifest = write_batch(Lake(root), batch_id, tables)
    manifest["games_read"] = len(records)
    manifest["skipped"] = skipped
    return manifest


def _groups(files: Sequence[Path], size: int) -> Iterator[list[str]]:
    """Files in groups of about ``size`` games (counted as the progress bar counts them)."""
    group: list[str] = []
    count = 0
    for file in files:
        n = _count_games([file])
        if group and count + n > size:
            yield group
            group, count = [], 0
        group.append(str(file))
        count += n
    if group:
        yield group


# -- executors: each yields the tasks' results in submission order, a bounded number in flight -----


Submit = Callable[[str, list[str]], Any]


@contextmanager
def _inline(root: str, display: dict[str, str], known: Mapping[str, StoredGame]) -> Iterator[Callable[[Iterator[tuple[str, list[str]]]], Iterator[dict[str, Any]]]]:
    def run(tasks: Iterator[tuple[str, list[str]]]) -> Iterator[dict[str, Any]]:
        for batch_id, files in tasks:
            yield lake_task(root, batch_id, files, display, known)

    yield run


@contextmanager
def _processes(root: str, display: dict[str, str], known: Mapping[str, StoredGame], workers: int) -> Iterator[Any]:
    import multiprocessing as mp

    ctx = mp.get_context("fork") if hasattr(os, "fork") else mp.get_context()
    with ctx.Pool(workers, initializer=_init_known, initargs=(known,)) as pool:
        def run(tasks: Iterator[tuple[str, list[str]]]) -> Iterator[dict[str, Any]]:
            pending: deque[Any] = deque()
            for batch_id, files in tasks:
                pending.append(pool.apply_async(lake_task, (root, batch_id, files, display)))
                if len(pending) >= 2 * workers:
                    yield pending.popleft().get()
            while pending:
                yield pending.popleft().get()

        yield run


@contextmanager
def _dask(root: str, display: dict[str, str], known: Mapping[str, StoredGame], address: str | None, workers: int) -> Iterator[Any]:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise SystemExit("governor import: --cluster dask needs the cluster extra: pip install 'governor[cluster]'") from None
    cluster = None
    if address is None:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    else:
        client = Client(address if "://" in address else f"tcp://{address}")
    try:
        # A list of one: a set itself would be scattered item by item.
        [known_ref] = client.scatter([known], broadcast=True)

        def run(tasks: Iterator[tuple[str, list[str]]]) -> Iterator[dict[str, Any]]:
            depth = 2 * max(1, len(client.scheduler_info().get("workers", {})) or workers)
            pending: deque[Any] = deque()
            for batch_id, files in tasks:
                pending.append(client.submit(lake_task, root, batch_id, files, display, known_ref,
                                             retries=RETRIES, pure=False))
                if len(pending) >= depth:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()

        yield run
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


@contextmanager
def _ray(root: str, display: dict[str, str], known: Mapping[str, StoredGame], address: str | None, workers: int) -> Iterator[Any]:
    try:
        import ray
    except ImportError:
        raise SystemExit("governor import: --cluster ray needs Ray: pip install 'ray[default]'") from None
    if address is None:
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    else:
        ray.init(address=f"ray://{address}", log_to_driver=False)
    try:
        remote = ray.remote(max_retries=RETRIES, num_cpus=1)(lake_task)
        known_ref = ray.put(known)

        def run(tasks: Iterator[tuple[str, list[str]]]) -> Iterator[dict[str, Any]]:
            depth = 2 * workers
            pending: deque[Any] = deque()
            for batch_id, files in tasks:
                pending.append(remote.remote(root, batch_id, files, display, known_ref))
                if len(pending) >= depth:
                    yield ray.get(pending.popleft())
            while pending:
                yield ray.get(pending.popleft())

        yield run
    finally:
        ray.shutdown()


def executor(cluster: str | None, root: str, display: dict[str, str], known: Mapping[str, StoredGame], workers: int) -> Any:
    """The context manager running lake tasks: in this process, a local process pool, or a cluster
    (``local`` starts one of ``LOCAL_ENGINE`` here; ``dask://ADDR`` and ``ray://ADDR`` join one, and
    ``dask://local`` / ``ray://local`` start that engine locally)."""
    if cluster is None:
        return _inline(root, display, known) if workers <= 1 else _processes(root, display, known, workers)
    if cluster == "local":
        cluster = f"{LOCAL_ENGINE}://local"
    scheme, _, address = cluster.partition("://")
    target = None if address in ("", "local") else address
    if scheme == "dask":
        return _dask(root, display, known, target, workers)
    if scheme == "ray":
        return _ray(root, display, known, target, workers)
    raise SystemExit(f"governor import: --cluster expects local, dask://ADDR or ray://ADDR, not {cluster!r}")


def import_to_lake(
    paths: Sequence[str | Path],
    root: str,
    *,
    workers: int | None = None,
    cluster: str | None = None,
    progress: bool = False,
    display_names: dict[str, str] | None = None,
    batch_games: int = LAKE_BATCH,
    on_rejection: Callable[[str], None] | None = None,
    on_problem: Callable[[str], None] | None = None,
    keep_ids: bool = True,
) -> ImportSummary:
    """Import every game under ``paths`` into the lake at ``root`` (created when missing). Raises
    ``ingest.lake.LakeError`` when the lake cannot be used; paths that name nothing are listed in the
    summary's ``problems``. ``on_rejection``, ``on_problem`` and ``keep_ids`` as in ``ingest.importer.import_paths``."""
    start = time.monotonic()
    # As the DuckDB import: arguments that name nothing are problems, the rest is imported.
    found = find_logs(paths)
    files = found.files
    summary = ImportSummary(files=len(files), problems=found.problems, keep_ids=keep_ids)
    if on_problem is not None:
        for problem in found.problems:
            on_problem(problem)
    if found.problems and not files:
        return summary
    lake = Lake(root)
    lake.create()
    lake.remove_orphans()
    known_games, known_rejections = lake.known()
    seen_games, seen_rejections = set(known_games), set(known_rejections)
    bar = Progress(_count_games(files), progress)
    summary.on_message = bar.printer(on_rejection)
    run_id = datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
    tasks = ((f"{run_id}-{n:06d}", group) for n, group in enumerate(_groups(files, batch_games)))
    workers = workers or os.cpu_count() or 1
    try:
        with executor(cluster, root, display_names or {}, known_games, workers) as run:
            for manifest in run(tasks):
                summary.games += manifest["games_read"]
                summary.duplicates += manifest["skipped"]
                # Rejections are reported as the DuckDB import reports them: every bad game read.
                summary.rejected += len(manifest["rejection_ids"])
                summary.add_messages(manifest["rejection_messages"])
                dup_games = [g for g in manifest["game_ids"] if g in seen_games]
                dup_rejections = [r for r in manifest["rejection_ids"] if r in seen_rejections]
                if dup_games or dup_rejections:
                    summary.duplicates += len(dup_games)
                    manifest = rewrite_without(lake, manifest, dup_games, dup_rejections)
                if manifest["files"]:
                    lake.commit(manifest)
                seen_games.update(manifest["game_ids"])
                seen_rejections.update(manifest["rejection_ids"])
                summary.imported += len(manifest["game_ids"])
                summary.add_ids(manifest["game_ids"])
                summary.rows += sum(manifest["rows"].values())
                bar.update(summary.games, summary.rejected, summary.duplicates)
    finally:
        bar.close()
    if summary.imported:
        refresh_derived(lake, run_id)
    summary.seconds = time.monotonic() - start
    return summary
