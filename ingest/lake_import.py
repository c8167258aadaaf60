"""``governor import PATH... --lake DIR [--cluster local|dask://ADDR|ray://ADDR]``: replay logs and
write the tables as Parquet into a lake (``ingest.lake``, ``ingest.lake_store``), on this machine's
cores or on an existing Dask or Ray cluster (``ingest.executors``), through the one import pipeline
(``ingest.pipeline``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ingest.lake_store import LAKE_BATCH, LakeStore
from ingest.pipeline import ImportSummary, import_paths


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
    """Import every game under ``paths`` into the lake at ``root`` (created when missing), ``batch_games``
    games a batch. Raises ``ingest.lake_files.LakeError`` when the lake cannot be used and
    ``ingest.executors.ExecutorError`` when ``cluster`` cannot start; paths that name nothing are listed
    in the summary's ``problems``. The other arguments as in ``ingest.pipeline.import_paths``."""
    return import_paths(paths, LakeStore(root, batch_games=batch_games), cluster=cluster, workers=workers,
                        progress=progress, display_names=display_names, on_rejection=on_rejection,
                        on_problem=on_problem, keep_ids=keep_ids)
