"""``governor import``: logs into a DuckDB file or a Parquet lake."""

from __future__ import annotations

import signal
import sys
import threading

from ingest.db import DatabaseError
from ingest.executors import ExecutorError
from ingest.importer import import_paths
from ingest.lake_files import LakeError
from ingest.stores import StoreError
from replay import exits
from replay.errors import printable


def run_import(paths: list[str], db: str, workers: int | None = None, progress: str = "auto",
               lake: bool = False, cluster: str | None = None) -> int:
    """``governor import``: exit 0 when every game was stored or already there, 1 when any was
    rejected, 2 when a path named nothing or a folder could not be read (the rest is imported) or the
    database or lake cannot be written, 3 when a game met a bug in governor (see ``replay.exits``).
    With ``lake``, ``db`` is a lake folder or URL (``ingest.lake``), written on ``cluster`` if given."""
    show = sys.stderr.isatty() if progress == "auto" else progress == "always"

    # Each as it comes: a long import shows a path that names nothing, and each bad game, at once.
    def rejected(message: str) -> None:
        print(f"rejected: {message}", file=sys.stderr, flush=True)

    def problem(text: str) -> None:
        print(f"governor import: {text}", file=sys.stderr, flush=True)

    try:
        summary = import_paths(paths, db, lake=lake, cluster=cluster, workers=workers, progress=show,
                               on_rejection=rejected, on_problem=problem, keep_ids=False)
    except (FileNotFoundError, LakeError, DatabaseError, StoreError, ExecutorError) as err:
        print(f"governor import: {printable(str(err))}", file=sys.stderr)
        return exits.ENVIRONMENT
    except KeyboardInterrupt:
        # Stopping already (the store is consistent: a batch is committed whole or rolled back): a
        # second Ctrl-C, or the one DuckDB passes on after a statement it interrupted, must not cut the
        # clean stop short (the process died by SIGINT after saying "interrupted").
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise
    if summary.problems and not summary.files:
        return exits.ENVIRONMENT
    print(f"{printable(db)}: {summary.line()}", file=sys.stderr)
    if summary.internal_errors:
        print(exits.report_request(f"{summary.internal_errors} game(s) met a bug in governor"), file=sys.stderr)
    return exits.status(
        rejected=bool(summary.rejected), environment=bool(summary.problems), bug=bool(summary.internal_errors)
    )
