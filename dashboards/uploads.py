"""Importing uploaded files: checked, written under generated names, imported in a child process.

An uploaded file's name is only ever displayed: the bytes go to ``upload-NNN.json`` or
``upload-NNN.jsonl`` in a fresh temporary folder. Every upload is bounded before the importer sees
it: its size as uploaded and once decompressed (a gzipped file is expanded here, within the limit,
and written expanded), the number of games, and the rejection messages kept. A file that is not
JSON at all is refused as a file, not counted as a rejected game.

The import runs ``ingest.importer.import_paths`` in a separate process because DuckDB refuses,
within one process, a read-write connection next to the dashboard's read-only ones. At the time
limit that process is killed; the importer writes whole games in transactions, so what it stored
before is complete, and the report counts it from the database.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from multiprocessing import get_context
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pandas as pd

from ingest.db import DatabaseError, reader
from replay.logfile import MAX_GAME_BYTES

#: The largest file accepted as uploaded (streamlit's server.maxUploadSize is set to the same).
MAX_FILE_BYTES = 50 * 2**20
#: The most a ``.jsonl`` file may hold once decompressed (a ``.json`` file holds one game: at most
#: ``MAX_GAME_BYTES``, the importer's limit per game).
MAX_EXPANDED_BYTES = 200 * 2**20
#: The most all the files of one upload may hold once decompressed.
MAX_UPLOAD_BYTES = 200 * 2**20
#: The most games one upload may hold (a ``.json`` file is one game, a ``.jsonl`` file one a line).
MAX_GAMES = 10_000
#: Rejection messages kept in a report; the rest are counted (and stored in the rejections table).
MAX_MESSAGES = 20
#: How long an import may run before its process is killed, in seconds.
DEFAULT_TIMEOUT = 600.0
#: Suffixes the importer reads, longest first so ``.jsonl.gz`` wins over ``.gz``.
SUFFIXES = (".jsonl.gz", ".json.gz", ".jsonl", ".json")


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


class Refused(Exception):
    """An uploaded file cannot be imported; the message says why."""


@dataclass(frozen=True)
class Upload:
    """An accepted upload: its name, its suffix once expanded (``.json`` or ``.jsonl``), its
    expanded bytes and how many games it holds."""

    name: str
    suffix: str
    data: bytes
    games: int


def log_suffix(name: str) -> str | None:
    """The log suffix of an uploaded name (``.json``, ``.jsonl``, ``.json.gz``, ``.jsonl.gz``), or None."""
    lower = name.lower()
    return next((s for s in SUFFIXES if lower.endswith(s)), None)


def check_upload(name: str, content: bytes) -> str | None:
    """Why an upload is refused, or None when it may be imported."""
    try:
        read_upload(name, content)
    except Refused as err:
        return str(err)
    return None


def read_upload(name: str, content: bytes) -> Upload:
    """The upload expanded and checked: a log suffix, at most ``MAX_FILE_BYTES`` as uploaded, gzip
    that expands within its limit, UTF-8 text, JSON (for ``.jsonl``: at least one line is JSON), at
    most ``MAX_GAMES`` games.

    Raises ``Refused`` saying why the file cannot be imported."""
    suffix = log_suffix(name)
    if suffix is None:
        if name.lower().endswith(".gz"):
            raise Refused("a gzipped log must be named .json.gz or .jsonl.gz")
        raise Refused("not a log file (.json, .jsonl, .json.gz or .jsonl.gz)")
    if len(content) > MAX_FILE_BYTES:
        raise Refused(f"{len(content) / 2**20:.1f} MB is more than the limit of {MAX_FILE_BYTES // 2**20} MB per file")
    if not content.strip():
        raise Refused("the file is empty")
    lines = suffix.startswith(".jsonl")
    limit = MAX_EXPANDED_BYTES if lines else MAX_GAME_BYTES
    data = _gunzip(content, limit) if suffix.endswith(".gz") else content
    if len(data) > limit:
        raise Refused(_too_big(limit, lines))
    if not data.strip():
        raise Refused("the file is empty")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise Refused(f"not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start:,})") from None
    if not lines:
        try:
            json.loads(text)
        except (ValueError, RecursionError) as err:
            raise Refused(f"not JSON: {_json_error(err)}") from None
        return Upload(name, ".json", data, 1)
    games = _count_lines(data, MAX_GAMES + 1)
    if games > MAX_GAMES:
        raise Refused(
            f"more than {MAX_GAMES:,} games (non-empty lines), the most one upload may hold: split the file or "
            "import it with governor import"
        )
    first_error: str | None = None
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            json.loads(line)
        except (ValueError, RecursionError) as err:
            first_error = first_error or f"line {number}: {_json_error(err)}"
            continue
        return Upload(name, ".jsonl", data, games)
    raise Refused(f"not JSON lines: no line is JSON ({first_error})")


def _too_big(limit: int, lines: bool) -> str:
    what = "per .jsonl file" if lines else "per game (a .json file holds one game)"
    return f"expands to more than {limit // 2**20} MB, the limit {what}"


def _gunzip(content: bytes, limit: int) -> bytes:
    """The decompressed bytes of a gzip upload (all its members), reading at most ``limit`` + 1 bytes
    of output, so that a small bomb never expands in memory.

    Raises ``Refused`` for data that is not gzip, is cut short, or expands past ``limit``."""
    out: list[bytes] = []
    size = 0
    data = content
    while True:
        stream = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            while not stream.eof:
                chunk = stream.decompress(data, limit + 1 - size)
                out.append(chunk)
                size += len(chunk)
                if size > limit:
                    return b"".join(out)  # the caller refuses it: more than the limit
                data = stream.unconsumed_tail
                if not chunk and not data:
                    break
        except zlib.error as err:
            raise Refused(f"not gzip data ({err})") from None
        if not stream.eof:
            raise Refused("the gzip data is cut short")
        data = stream.unused_data
        if not data.strip(b"\x00"):  # gzip allows zero padding after the last member
            return b"".join(out)


def _count_lines(data: bytes, stop: int) -> int:
    """Non-empty lines of ``data`` (as the importer counts games), counting no further than ``stop``."""
    count = 0
    for _ in re.finditer(rb"[^\n]*\S[^\n]*", data):
        count += 1
        if count >= stop:
            break
    return count


def _json_error(err: BaseException) -> str:
    if isinstance(err, json.JSONDecodeError):
        return f"{err.msg} at line {err.lineno} column {err.colno}"
    if isinstance(err, RecursionError):
        return "nested too deeply"
    return str(err).splitlines()[0] if str(err) else type(err).__name__


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


def import_uploads(files: Sequence[tuple[str, bytes]], db: str, timeout: float = DEFAULT_TIMEOUT) -> ImportReport:
    """Check, store and import uploaded ``(name, bytes)`` files into ``db``; never raises for bad
    input: refusals, rejections and errors are in the report.

    At ``timeout`` seconds the import's process is killed; the report then counts the games of this
    upload the database holds (whole games only: each write is a transaction)."""
    report = ImportReport()
    folder = Path(tempfile.mkdtemp(prefix="governor-upload-"))
    names: dict[str, str] = {}
    games = size = 0
    try:
        for index, (name, content) in enumerate(files):
            try:
                upload = read_upload(name, content)
                if games + upload.games > MAX_GAMES:
                    raise Refused(f"the upload would hold more than {MAX_GAMES:,} games: import this file separately")
                if size + len(upload.data) > MAX_UPLOAD_BYTES:
                    raise Refused(
                        f"the upload would hold more than {MAX_UPLOAD_BYTES // 2**20} MB: import this file separately"
                    )
            except Refused as err:
                report.refused.append((name, str(err)))
                continue
            games += upload.games
            size += len(upload.data)
            path = folder / f"upload-{index:03d}{upload.suffix}"
            path.write_bytes(upload.data)
            names[str(path)] = name
        if names:
            _import(report, folder, db, names, timeout)
        return report
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _import(report: ImportReport, folder: Path, db: str, names: dict[str, str], timeout: float) -> None:
    """Run the import process, killing it at ``timeout``, and fill ``report``."""
    context = get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_run_import, args=(sender, str(folder), db, names), name="governor-upload")
    started = datetime.now(UTC)
    deadline = time.monotonic() + timeout
    message: tuple[Any, ...] | None = None
    try:
        process.start()
        sender.close()
        if receiver.poll(max(0.0, deadline - time.monotonic())):
            try:
                message = receiver.recv()
            except EOFError:
                message = None
    finally:
        receiver.close()
        if process.is_alive():
            process.kill()
        process.join()
        process.close()
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
    for path, name in names.items():
        message = message.replace(path, name)
    return message.replace(str(folder) + "/", "")
