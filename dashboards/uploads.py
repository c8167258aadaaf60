"""Importing an upload: the files of a session's upload box (``dashboards.upload_box``, filled by
``PUT /upload``: ``dashboards.upload_route``), each checked and expanded when it arrived
(``dashboards.upload_files``), imported in a child process, and the report the Import page shows.

The import runs ``ingest.importer.import_paths`` in a separate process because DuckDB refuses,
within one process, a read-write connection next to the dashboard's read-only ones. At the time
limit that process is killed; the importer writes whole games in transactions, so what it stored
before is complete, and the report counts it from the database.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from multiprocessing.connection import Connection
from pathlib import Path

import pandas as pd

from dashboards.child import run_in_child
from dashboards.plain import isolate
from dashboards.upload_box import UploadBox
from dashboards.upload_files import Source
from ingest.db import DatabaseError, reader

#: Rejection messages kept in a report; the rest are counted (and stored in the rejections table).
MAX_MESSAGES = 20
#: How long an import may run before its process is killed, in seconds.
DEFAULT_TIMEOUT = 600.0


@dataclass
class ImportReport:
    """What an upload did: counts, refused files with the reason, the first ``MAX_MESSAGES``
    rejection messages (with uploaded names in place of temporary paths), the imported games and
    any error that stopped the import."""

    imported: int = 0
    duplicates: int = 0
    rejected: int = 0
    refused: list[tuple[str, str]] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    game_ids: list[str] = field(default_factory=list)
    games: pd.DataFrame | None = None
    error: str | None = None

    def messages_note(self) -> str | None:
        """The line above the rejection messages: how many games were rejected and how many of their
        messages are shown (None when nothing was rejected)."""
        if not self.rejected:
            return None
        if self.rejected > len(self.messages):
            return (
                f"{self.rejected:,} games rejected: the first {len(self.messages)} messages are shown "
                "(all are in the rejections table)."
            )
        return f"{self.rejected:,} game{'s' if self.rejected != 1 else ''} rejected:"


def import_box(box: UploadBox, db: str, timeout: float = DEFAULT_TIMEOUT) -> ImportReport:
    """Import the files of ``box`` into ``db`` and empty it; never raises for bad input: refused
    files, rejections and errors are in the report. At ``timeout`` seconds the import's process is
    killed; the report then counts the games of this upload the database holds (whole games only:
    each write is a transaction). Raises ``Unavailable`` while a file is still arriving."""
    accepted, refused = box.take_all()
    report = ImportReport(refused=refused)
    try:
        names = {str(u.path): u.name for u in accepted}
        if names:
            _import(report, box.folder, db, names, timeout)
        return report
    finally:
        box.clear()


def _run_import(pipe: Connection, folder: str, db: str, names: dict[str, str]) -> None:
    """The import process: import the folder and send back the counts, the first messages and the
    stored game ids (or why it failed)."""
    from ingest.importer import import_paths

    try:
        # This process is the upload's own and is killed at the time limit: the end step stays in it.
        summary = import_paths([folder], db, workers=1, progress=False, display_names=names, end_step_apart=False)
        pipe.send((
            "done", summary.imported, summary.duplicates, summary.rejected, summary.messages[:MAX_MESSAGES],
            list(summary.game_ids),
        ))
    except DatabaseError as err:
        pipe.send(("error", f"The import failed: {err}"))
    except Exception as err:  # reported on the page, not lost in a process nobody watches
        pipe.send(("error", f"The import failed: {type(err).__name__}: {err}"))
    finally:
        pipe.close()


def import_uploads(files: Sequence[Source | tuple[str, bytes]], db: str, timeout: float = DEFAULT_TIMEOUT) -> ImportReport:
    """Check, store and import uploaded files (``(name, bytes)`` or anything with a name, a size and
    ``read``) into ``db`` through an ``UploadBox`` of their own, as the page does with the files sent
    to ``PUT /upload``; never raises for bad input: refusals, rejections and errors are in the report.

    Each file is read in chunks to disk with a running total: a file that would take the upload past
    ``MAX_UPLOAD_BYTES`` or ``MAX_GAMES`` is refused, unread when its size says so."""
    box = UploadBox()
    try:
        for item in files:
            box.add_file(item)
        return import_box(box, db, timeout)
    finally:
        box.close()


def _import(report: ImportReport, folder: Path, db: str, names: dict[str, str], timeout: float) -> None:
    """Run the import process, killing it at ``timeout``, and fill ``report``."""
    started = datetime.now(UTC)
    deadline = time.monotonic() + timeout
    message = run_in_child(_run_import, (str(folder), db, names), "governor-upload", timeout)
    if message is not None and message[0] == "done":
        _kind, report.imported, report.duplicates, report.rejected, messages, report.game_ids = message
        report.messages = [_display_names(m, names, folder) for m in messages]
        return
    if message is not None:
        why = str(message[1])
    elif time.monotonic() >= deadline:
        why = f"The import stopped at the time limit of {timeout:g} s"
    else:
        why = "The import's process ended without a report"
    _count_stored(report, db, list(names.values()), started, why)


def _count_stored(report: ImportReport, db: str, names: list[str], since: datetime, why: str) -> None:
    """After an import that did not finish: what of this upload the database holds, read back from it
    (games and rejections of these file names written since the import started)."""
    if not Path(db).exists():
        report.error = f"{why}, before it created the database: nothing was stored."
        return
    try:
        with reader(db, timeout=30.0) as con:
            tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
            if "games" in tables:
                report.game_ids = [r[0] for r in con.execute(
                    "SELECT game_id FROM games WHERE file IN (SELECT unnest(?)) AND imported_at >= ? "
                    "ORDER BY file, file_index", [names, since],
                ).fetchall()]
            if "rejections" in tables:
                report.rejected = int(con.execute(
                    "SELECT count(*) FROM rejections WHERE file IN (SELECT unnest(?)) AND rejected_at >= ?", [names, since]
                ).fetchall()[0][0])
    except DatabaseError as err:
        report.error = f"{why}; what it stored cannot be read back: {err}"
        return
    report.imported = len(report.game_ids)
    listed = " (listed below)" if report.imported else ""
    report.error = (
        f"{why}. Before it stopped, {report.imported:,} games of this upload were stored{listed} and "
        f"{report.rejected:,} rejected; the rest were not imported. Upload the files again to import the rest: "
        "games already stored are skipped."
    )


def _display_names(message: str, names: dict[str, str], folder: Path) -> str:
    """``message`` with each temporary path replaced by the uploaded file's name, isolated
    (``plain.isolate``: a right-to-left file name keeps the message around it in order)."""
    for path, name in names.items():
        message = message.replace(path, isolate(name))
    return message.replace(str(folder) + "/", "")
