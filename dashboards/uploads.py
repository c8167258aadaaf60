"""Importing uploaded files: checked, written under generated names, imported in a child process.

An uploaded file's name is only ever displayed: the bytes go to ``upload-NNN.json`` or
``upload-NNN.jsonl`` in a fresh temporary folder. Every upload is bounded before the importer sees
it: its size as uploaded and once decompressed (a gzipped file is expanded here, within the limit,
and written expanded), the number of games, and the rejection messages kept. Every file is read a
chunk at a time to disk with a running total, so the page never holds an upload whole in memory. A file that is not
JSON at all is refused as a file, not counted as a rejected game.

The import runs ``ingest.importer.import_paths`` in a separate process because DuckDB refuses,
within one process, a read-write connection next to the dashboard's read-only ones. At the time
limit that process is killed; the importer writes whole games in transactions, so what it stored
before is complete, and the report counts it from the database.
"""

from __future__ import annotations

import codecs
import io
import itertools
import json
import re
import shutil
import tempfile
import time
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from multiprocessing import get_context
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from dashboards.plain import isolate
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
#: Bytes read or written at a time: an upload is never held whole in memory.
CHUNK = 2**20
#: Suffixes the importer reads, longest first so ``.jsonl.gz`` wins over ``.gz``.
SUFFIXES = (".jsonl.gz", ".json.gz", ".jsonl", ".json")


#: The most Streamlit's in-memory upload store may hold for all sessions together.
MAX_HELD_BYTES = 1024 * 2**20


class HeldUploadsFull(Exception):
    """A file would take what Streamlit holds of uploads past its bound; the message says which."""


def cap_held_uploads(manager: Any, per_session: int | None = None, total: int = MAX_HELD_BYTES) -> bool:
    """Make Streamlit's in-memory upload store (``Runtime.instance().uploaded_file_mgr``) refuse a file
    that would take one session's files past ``per_session`` bytes (default ``MAX_UPLOAD_BYTES``, what
    one import takes) or all sessions' past ``total``: Streamlit limits each file (``maxUploadSize``)
    but not how many a visitor adds, and holds every one in memory until the page reads it. The
    refused file's upload fails (HTTP 413) before it is stored. Installs once; returns whether it did
    now (False for a store of another kind, or one already capped).

    The wrapped ``add_file`` raises ``starlette.exceptions.HTTPException`` (413) when Starlette is
    the server, else ``HeldUploadsFull``."""
    if getattr(manager, "_governor_capped", False) or not hasattr(manager, "file_storage"):
        return False
    limit = MAX_UPLOAD_BYTES if per_session is None else per_session
    original = manager.add_file

    def add_file(session_id: str, file: Any) -> None:
        with manager._lock:
            mine = sum(len(held.data) for key, held in manager.file_storage.get(session_id, {}).items()
                       if key != file.file_id)
            everyone = int(getattr(manager, "_total_bytes", 0))
        if mine + len(file.data) > limit:
            _refuse(f"the files in the upload box would hold more than {limit // 2**20} MB: import these first")
        if everyone + len(file.data) > total:
            _refuse("the server holds as many uploads as it may: try again in a moment")
        original(session_id, file)

    manager.add_file = add_file
    manager._governor_capped = True
    return True


def _refuse(reason: str) -> None:
    try:
        from starlette.exceptions import HTTPException
    except ImportError:  # another server: its handler turns any exception into an error status
        raise HeldUploadsFull(reason) from None
    raise HTTPException(status_code=413, detail=reason)


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


class Source(Protocol):
    """An uploaded file as the page gets it (Streamlit's ``UploadedFile``): a name, a size and bytes
    to read."""

    name: str
    size: int

    def read(self, size: int = -1, /) -> bytes:
        """At most ``size`` of the next bytes."""
        ...


class _Bytes(io.BytesIO):
    """``(name, bytes)`` as a ``Source``."""

    def __init__(self, name: str, content: bytes) -> None:
        super().__init__(content)
        self.name = name
        self.size = len(content)


@dataclass(frozen=True)
class Upload:
    """An accepted upload: its name, its suffix once expanded (``.json`` or ``.jsonl``), the file that
    holds its expanded bytes, their size and how many games it holds."""

    name: str
    suffix: str
    path: Path
    size: int
    games: int


def log_suffix(name: str) -> str | None:
    """The log suffix of an uploaded name (``.json``, ``.jsonl``, ``.json.gz``, ``.jsonl.gz``), or None."""
    lower = name.lower()
    return next((s for s in SUFFIXES if lower.endswith(s)), None)


def check_upload(name: str, content: bytes) -> str | None:
    """Why an upload is refused, or None when it may be imported."""
    with tempfile.TemporaryDirectory(prefix="governor-check-") as folder:
        try:
            spool_upload(_Bytes(name, content), Path(folder), 0)
        except Refused as err:
            return str(err)
    return None


def spool_upload(source: Source, folder: Path, index: int, room: int = MAX_UPLOAD_BYTES) -> Upload:
    """Write one uploaded file to ``folder`` as ``upload-<index>.json`` or ``.jsonl``, expanded and
    checked, reading it in chunks of ``CHUNK`` bytes so that no more than one chunk (one game for a
    ``.json`` file) is held in memory: a log suffix, at most ``MAX_FILE_BYTES`` as uploaded and at
    most ``room`` bytes once expanded (what the upload has left), gzip that expands within its limit,
    UTF-8 text, JSON (for ``.jsonl``: at least one line is JSON), at most ``MAX_GAMES`` games. A file
    whose declared size is past a limit is refused before a byte of it is read.

    Raises ``Refused`` saying why the file cannot be imported; nothing of it is then left in ``folder``."""
    name = str(source.name)
    suffix = log_suffix(name)
    if suffix is None:
        if name.lower().endswith(".gz"):
            raise Refused("a gzipped log must be named .json.gz or .jsonl.gz")
        raise Refused("not a log file (.json, .jsonl, .json.gz or .jsonl.gz)")
    declared = int(getattr(source, "size", 0) or 0)
    if declared > MAX_FILE_BYTES:
        raise Refused(_too_large(declared))
    if declared > room:
        raise Refused(_upload_full())
    lines = suffix.startswith(".jsonl")
    raw = folder / f"raw-{index:03d}"
    out = folder / f"upload-{index:03d}{'.jsonl' if lines else '.json'}"
    try:
        copied = _copy(source, raw, MAX_FILE_BYTES + 1)
        if copied > MAX_FILE_BYTES:
            raise Refused(_too_large(None))
        if _blank(raw):
            raise Refused("the file is empty")
        limit = MAX_EXPANDED_BYTES if lines else MAX_GAME_BYTES
        if suffix.endswith(".gz"):
            size = _gunzip_file(raw, out, min(limit, room) + 1)
            raw.unlink()
        else:
            size = copied
            raw.rename(out)
        if size > limit:
            raise Refused(_too_big(limit, lines))
        if size > room:
            raise Refused(_upload_full())
        if _blank(out):
            raise Refused("the file is empty")
        _check_utf8(out)
        if not lines:
            try:
                json.loads(out.read_bytes())
            except (ValueError, RecursionError) as err:
                raise Refused(f"not JSON: {_json_error(err)}") from None
            return Upload(name, ".json", out, size, 1)
        games = _count_lines(out, MAX_GAMES + 1)
        if games > MAX_GAMES:
            raise Refused(
                f"more than {MAX_GAMES:,} games (non-empty lines), the most one upload may hold: split the file or "
                "import it with governor import"
            )
        _check_json_lines(out)
        return Upload(name, ".jsonl", out, size, games)
    except BaseException:
        raw.unlink(missing_ok=True)
        out.unlink(missing_ok=True)
        raise


def _too_large(size: int | None) -> str:
    limit = f"the limit of {MAX_FILE_BYTES // 2**20} MB per file"
    return f"{size / 2**20:.1f} MB is more than {limit}" if size is not None else f"the file holds more than {limit}"


def _upload_full() -> str:
    return f"the upload would hold more than {MAX_UPLOAD_BYTES // 2**20} MB: import this file separately"


def _too_big(limit: int, lines: bool) -> str:
    what = "per .jsonl file" if lines else "per game (a .json file holds one game)"
    return f"expands to more than {limit // 2**20} MB, the limit {what}"


def _copy(source: Source, target: Path, stop: int) -> int:
    """Copy ``source`` to ``target`` a chunk at a time, no further than ``stop`` bytes; the bytes copied."""
    copied = 0
    with open(target, "wb") as out:
        while copied < stop:
            chunk = source.read(min(CHUNK, stop - copied))
            if not chunk:
                break
            out.write(chunk)
            copied += len(chunk)
    return copied


def _chunks(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as data:
        while chunk := data.read(CHUNK):
            yield chunk


def _blank(path: Path) -> bool:
    """Whether the file holds nothing but white space."""
    return not any(chunk.strip() for chunk in _chunks(path))


def _gunzip_file(source: Path, target: Path, stop: int) -> int:
    """Expand the gzip file ``source`` (all its members) into ``target``, writing no more than
    ``stop`` bytes; returns the bytes written (``stop`` means: more than the caller's limit).

    Raises ``Refused`` for data that is not gzip or is cut short."""
    size = 0
    stream = zlib.decompressobj(16 + zlib.MAX_WBITS)
    fed = False  # the current member has had input
    with open(source, "rb") as packed, open(target, "wb") as out:
        while chunk := packed.read(CHUNK):
            data = chunk
            while data:
                if not fed:
                    data = data.lstrip(b"\x00")  # gzip allows zero padding after the last member
                    if not data:
                        break
                try:
                    expanded = stream.decompress(data, stop - size)
                except zlib.error as err:
                    raise Refused(f"not gzip data ({err})") from None
                fed = True
                out.write(expanded)
                size += len(expanded)
                if size >= stop:
                    return size
                if stream.eof:
                    data = stream.unused_data
                    stream = zlib.decompressobj(16 + zlib.MAX_WBITS)
                    fed = False
                else:
                    data = stream.unconsumed_tail
    if fed:
        raise Refused("the gzip data is cut short")
    return size


def _check_utf8(path: Path) -> None:
    """Raises ``Refused`` naming the first byte that is not UTF-8 and its offset."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0
    for chunk in itertools.chain(_chunks(path), [b""]):
        held = len(decoder.getstate()[0])
        try:
            decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as err:
            raise Refused(f"not UTF-8 text (byte 0x{err.object[err.start]:02x} at offset {offset - held + err.start:,})") \
                from None
        offset += len(chunk)


_CONTENT = re.compile(rb"\S[^\n]*")


def _count_lines(path: Path, stop: int) -> int:
    """Non-empty lines of the file (as the importer counts games), counting no further than ``stop``."""
    count = 0
    open_line = False  # the previous chunk ended inside a line already counted
    for chunk in _chunks(path):
        found = sum(1 for _ in _CONTENT.finditer(chunk))
        first_break = chunk.find(b"\n")
        if open_line and chunk[: first_break if first_break >= 0 else len(chunk)].strip():
            found -= 1
        last_break = chunk.rfind(b"\n")
        open_line = bool(chunk[last_break + 1 :].strip()) or (open_line and last_break < 0)
        count += found
        if count >= stop:
            return stop
    return count


def _check_json_lines(path: Path) -> None:
    """Raises ``Refused`` when no line of the file is JSON (one good line is enough: the bad ones are
    rejected games). A line is read whole only up to the importer's limit per game."""
    first_error: str | None = None
    number = 0
    with open(path, "rb") as data:
        while line := data.readline(MAX_GAME_BYTES + 1):
            number += 1
            if len(line) > MAX_GAME_BYTES and not line.endswith(b"\n"):
                while (rest := data.readline(CHUNK)) and not rest.endswith(b"\n"):
                    pass
                first_error = first_error or f"line {number}: longer than {MAX_GAME_BYTES // 2**20} MB"
                continue
            if not line.strip():
                continue
            try:
                json.loads(line)
            except (ValueError, RecursionError) as err:
                first_error = first_error or f"line {number}: {_json_error(err)}"
                continue
            return
    raise Refused(f"not JSON lines: no line is JSON ({first_error})")


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


def import_uploads(files: Sequence[Source | tuple[str, bytes]], db: str, timeout: float = DEFAULT_TIMEOUT) -> ImportReport:
    """Check, store and import uploaded files (Streamlit's ``UploadedFile`` or ``(name, bytes)``) into
    ``db``; never raises for bad input: refusals, rejections and errors are in the report.

    Each file is read in chunks to disk with a running total: a file that would take the upload past
    ``MAX_UPLOAD_BYTES`` or ``MAX_GAMES`` is refused, unread when its size says so. At ``timeout``
    seconds the import's process is killed; the report then counts the games of this upload the
    database holds (whole games only: each write is a transaction)."""
    report = ImportReport()
    folder = Path(tempfile.mkdtemp(prefix="governor-upload-"))
    names: dict[str, str] = {}
    games = size = 0
    try:
        for index, item in enumerate(files):
            source = _Bytes(*item) if isinstance(item, tuple) else item
            try:
                upload = spool_upload(source, folder, index, MAX_UPLOAD_BYTES - size)
                if games + upload.games > MAX_GAMES:
                    upload.path.unlink()
                    raise Refused(f"the upload would hold more than {MAX_GAMES:,} games: import this file separately")
            except Refused as err:
                report.refused.append((str(source.name), str(err)))
                continue
            games += upload.games
            size += upload.size
            names[str(upload.path)] = upload.name
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
    """``message`` with each temporary path replaced by the uploaded file's name, isolated
    (``plain.isolate``: a right-to-left file name keeps the message around it in order)."""
    for path, name in names.items():
        message = message.replace(path, isolate(name))
    return message.replace(str(folder) + "/", "")
