"""Importing uploaded files: received a chunk at a time to disk, checked, written under generated
names, imported in a child process.

The Import page's upload box (``dashboards/upload_component``) sends each file to the dashboard's own
route ``PUT /upload`` (``receive_upload``, added in ``dashboards/server.py``), which writes the body
to the session's own folder as it arrives (an ``UploadBox``: a folder made exclusively, named by an
unguessable token that only that session's page holds) and counts bytes and files as they arrive: a
file past its limit is refused while it arrives, saying which limit, and the server never holds more
of it than one chunk. (Streamlit's ``st.file_uploader`` kept each file whole in the server's memory
until the page read it: ten 45 MB files took the server from 195 to 564 MB at its peak; through this
route, to 199 MB: docs/dashboard.md.)

An uploaded file's name is only ever displayed: the bytes go to ``upload-NNN.json`` or
``upload-NNN.jsonl`` in the box's folder. Every upload is bounded before the importer sees it: its
size as uploaded and once decompressed (a gzipped file is expanded here, within the limit, and written
expanded), the number of games and of files, and the rejection messages kept. A file that is not JSON
at all is refused as a file, not counted as a rejected game.

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
import secrets
import shutil
import tempfile
import threading
import time
import weakref
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Protocol
from urllib.parse import unquote

import pandas as pd

from dashboards.child import run_in_child
from dashboards.plain import isolate
from ingest.db import DatabaseError, reader
from replay.log_reader import MAX_GAME_BYTES

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

#: The largest file accepted as uploaded (streamlit's server.maxUploadSize is set to the same).
MAX_FILE_BYTES = 50 * 2**20
#: The most a ``.jsonl`` file may hold once decompressed (a ``.json`` file holds one game: at most
#: ``MAX_GAME_BYTES``, the importer's limit per game).
MAX_EXPANDED_BYTES = 200 * 2**20
#: The most all the files of one upload may hold once decompressed.
MAX_UPLOAD_BYTES = 200 * 2**20
#: The most games one upload may hold (a ``.json`` file is one game, a ``.jsonl`` file one a line).
MAX_GAMES = 10_000
#: The most files one upload may take, accepted or refused.
MAX_FILES = 10_000
#: The longest uploaded file name kept (a longer one is cut: it is only ever displayed).
MAX_NAME_CHARS = 500
#: Rejection messages kept in a report; the rest are counted (and stored in the rejections table).
MAX_MESSAGES = 20
#: How long an import may run before its process is killed, in seconds.
DEFAULT_TIMEOUT = 600.0
#: Bytes read or written at a time: an upload is never held whole in memory.
CHUNK = 2**20
#: Suffixes the importer reads, longest first so ``.jsonl.gz`` wins over ``.gz``.
SUFFIXES = (".jsonl.gz", ".json.gz", ".jsonl", ".json")


#: The most Streamlit's in-memory upload store may hold for all sessions together, and the most the
#: upload boxes of all sessions may hold on disk together.
MAX_HELD_BYTES = 1024 * 2**20
#: The headers of ``PUT /upload``: the box's token, the file's name (percent-encoded UTF-8) and its
#: size as the browser knows it (a file past ``MAX_FILE_BYTES`` is sent without its bytes).
TOKEN_HEADER, NAME_HEADER, SIZE_HEADER = "X-Governor-Upload", "X-Governor-Name", "X-Governor-Size"
#: What the route still reads of a refused file's body, discarding it, so that the browser gets the
#: answer rather than a closed connection (a body past this is cut off).
DRAIN_BYTES = MAX_FILE_BYTES + 2**20


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
    """An uploaded file cannot be imported; the message says why. ``limit``: it is past a limit of
    size or number (``PUT /upload`` answers 413, else 422)."""

    def __init__(self, reason: str, limit: bool = False) -> None:
        super().__init__(reason)
        self.limit = limit


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
    suffix = check_declared(name, int(getattr(source, "size", 0) or 0), room)
    raw = folder / f"raw-{index:03d}"
    try:
        copied = _copy(source, raw, MAX_FILE_BYTES + 1)
        if copied > MAX_FILE_BYTES:
            raise Refused(_too_large(None), limit=True)
        return settle(raw, name, suffix, folder, index, room)
    except BaseException:
        raw.unlink(missing_ok=True)
        raise


def check_declared(name: str, declared: int | None, room: int) -> str:
    """The log suffix of ``name`` (``log_suffix``), once the name and the size the file declares
    (None: unknown) allow it to be read. Raises ``Refused`` saying why it cannot be."""
    suffix = log_suffix(name)
    if suffix is None:
        if name.lower().endswith(".gz"):
            raise Refused("a gzipped log must be named .json.gz or .jsonl.gz")
        raise Refused("not a log file (.json, .jsonl, .json.gz or .jsonl.gz)")
    if declared is not None and declared > MAX_FILE_BYTES:
        raise Refused(_too_large(declared), limit=True)
    if declared is not None and declared > room:
        raise Refused(_upload_full(), limit=True)
    return suffix


def settle(raw: Path, name: str, suffix: str, folder: Path, index: int, room: int) -> Upload:
    """Turn ``raw``, a file's bytes as uploaded (at most ``MAX_FILE_BYTES``), into
    ``upload-<index>.json`` or ``.jsonl`` in ``folder``: expanded (within its limit and ``room``) and
    checked as ``spool_upload`` says, reading a chunk at a time; ``raw`` is gone afterwards.

    Raises ``Refused`` saying why the file cannot be imported; nothing of it is then left."""
    lines = suffix.startswith(".jsonl")
    out = folder / f"upload-{index:03d}{'.jsonl' if lines else '.json'}"
    try:
        if _blank(raw):
            raise Refused("the file is empty")
        limit = MAX_EXPANDED_BYTES if lines else MAX_GAME_BYTES
        if suffix.endswith(".gz"):
            size = _gunzip_file(raw, out, min(limit, room) + 1)
            raw.unlink()
        else:
            size = raw.stat().st_size
            raw.rename(out)
        if size > limit:
            raise Refused(_too_big(limit, lines), limit=True)
        if size > room:
            raise Refused(_upload_full(), limit=True)
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
                "import it with governor import", limit=True,
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


class Unavailable(Exception):
    """A file cannot be taken now (the box is busy, the server holds as many uploads as it may); it
    is not recorded as refused: the same file may be sent again."""


class _Held:
    """The bytes every upload box holds on disk together (files as they arrive and accepted files),
    bounded by ``MAX_HELD_BYTES``."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.bytes = 0

    def take(self, size: int) -> None:
        """Count ``size`` more bytes. Raises ``Unavailable`` (counting nothing) past the bound."""
        with self.lock:
            if self.bytes + size > MAX_HELD_BYTES:
                raise Unavailable("the server holds as many uploads as it may: try again in a moment")
            self.bytes += size

    def give(self, size: int) -> None:
        with self.lock:
            self.bytes = max(0, self.bytes - size)


HELD = _Held()
#: Every open upload box by its token. A box lives in its session's state: when the session ends the
#: box is collected, and its finaliser removes its folder.
_BOXES: weakref.WeakValueDictionary[str, UploadBox] = weakref.WeakValueDictionary()
_BOXES_LOCK = threading.Lock()


def _discard(folder: Path, usage: list[int]) -> None:
    """Remove a box's folder and give back what it held (a box's finaliser: it holds no box)."""
    shutil.rmtree(folder, ignore_errors=True)
    HELD.give(usage[0])
    usage[0] = 0


class UploadBox:
    """One session's upload: a folder of its own (made exclusively by ``tempfile.mkdtemp``, readable by
    this user only) and what was put in it, accepted (``Upload``) or refused (name, reason), in the
    order received. ``token`` names it to ``PUT /upload``; one file arrives at a time.

    Thread-safe: files arrive in the server's event loop and its worker threads while the page reads
    the box and imports it."""

    def __init__(self) -> None:
        self.token = secrets.token_urlsafe(32)
        self.folder = Path(tempfile.mkdtemp(prefix="governor-upload-"))
        self.accepted: list[Upload] = []
        self.refused: list[tuple[str, str]] = []
        self.lock = threading.Lock()
        #: A file is arriving, or the box is being imported: another file waits.
        self.busy = False
        self._index = 0
        # Bytes this box holds on disk (shared with the finaliser, which holds no reference to the box).
        self._usage = [0]
        self._finaliser = weakref.finalize(self, _discard, self.folder, self._usage)
        with _BOXES_LOCK:
            _BOXES[self.token] = self

    @property
    def games(self) -> int:
        """Games in the accepted files."""
        return sum(u.games for u in self.accepted)

    @property
    def size(self) -> int:
        """Bytes of the accepted files once expanded."""
        return sum(u.size for u in self.accepted)

    def files(self) -> list[tuple[str, int | None, int | None, str | None]]:
        """What the box holds, for the page: (name, bytes expanded, games, reason refused) per file,
        accepted files first."""
        with self.lock:
            return ([(u.name, u.size, u.games, None) for u in self.accepted]
                    + [(name, None, None, reason) for name, reason in self.refused])

    def begin(self, name: str, declared: int | None) -> Arrival:
        """Start receiving a file: the checks that need none of its bytes (its name, the size it
        declares, the box's files), then a place for its bytes. Raises ``Refused`` (recorded) or
        ``Unavailable`` (not recorded)."""
        with self.lock:
            if self.busy:
                raise Unavailable("another file is arriving in this box or it is being imported: send this one after it")
            if len(self.accepted) + len(self.refused) >= MAX_FILES:
                raise Refused(f"the upload would hold more than {MAX_FILES:,} files: import these first", limit=True)
            try:
                suffix = check_declared(name, declared, MAX_UPLOAD_BYTES - self.size)
            except Refused as err:
                self.refused.append((name, str(err)))
                raise
            self.busy = True
            index = self._index
            self._index += 1
        try:
            return Arrival(self, name, suffix, index)
        except BaseException:
            with self.lock:
                self.busy = False
            raise

    def add_file(self, source: Source | tuple[str, bytes]) -> Upload | None:
        """Put one file in the box from ``source`` (read a chunk at a time), as ``PUT /upload`` does;
        the accepted file, or None when it was refused (its reason is in ``refused``). Raises
        ``Unavailable`` when the file cannot be taken now."""
        item = _Bytes(*source) if isinstance(source, tuple) else source
        name = str(item.name)[:MAX_NAME_CHARS]
        try:
            arrival = self.begin(name, int(getattr(item, "size", 0) or 0) or None)
        except Refused:
            return None
        try:
            while chunk := item.read(CHUNK):
                arrival.write(chunk)
            return arrival.finish()
        except Refused:
            return None
        finally:
            arrival.close()

    def take_all(self) -> tuple[list[Upload], list[tuple[str, str]]]:
        """The accepted and refused files, for an import: the box is busy (no file arrives) until
        ``clear``. Raises ``Unavailable`` while a file is arriving."""
        with self.lock:
            if self.busy:
                raise Unavailable("a file is still arriving: import when it has arrived")
            self.busy = True
            return list(self.accepted), list(self.refused)

    def clear(self) -> None:
        """Empty the box (its files are deleted) and make it ready for the next upload."""
        with self.lock:
            for upload in self.accepted:
                upload.path.unlink(missing_ok=True)
            for leftover in self.folder.iterdir():  # nothing else should be there; never a path outside
                if leftover.is_file() and not leftover.is_symlink():
                    leftover.unlink(missing_ok=True)
            HELD.give(self._usage[0])
            self._usage[0] = 0
            self.accepted.clear()
            self.refused.clear()
            self.busy = False

    def close(self) -> None:
        """Remove the box and its folder (what ending its session does)."""
        with _BOXES_LOCK:
            _BOXES.pop(self.token, None)
        self._finaliser()

    def _hold(self, size: int) -> None:
        HELD.take(size)
        self._usage[0] += size

    def _release(self, size: int) -> None:
        HELD.give(size)
        self._usage[0] = max(0, self._usage[0] - size)


class Arrival:
    """One file arriving in a box: its bytes written to ``raw-<index>`` (created exclusively) as they
    come, counted against the limits; ``finish`` checks and keeps it, ``close`` ends it either way.
    A refusal is recorded in the box with its reason."""

    def __init__(self, box: UploadBox, name: str, suffix: str, index: int) -> None:
        self.box, self.name, self.suffix, self.index = box, name, suffix, index
        self.raw = box.folder / f"raw-{index:03d}"
        # O_EXCL: a name that exists (put there by anything else) is never written through.
        self.out = open(self.raw, "xb")  # noqa: SIM115 - closed by close()
        self.received = 0
        self.done = False

    def write(self, chunk: bytes) -> None:
        """Write the next bytes. Raises ``Refused`` (recorded) once past ``MAX_FILE_BYTES`` and
        ``Unavailable`` when every box together would hold more than ``MAX_HELD_BYTES``."""
        if self.received + len(chunk) > MAX_FILE_BYTES:
            self.refuse(_too_large(None), limit=True)
        self.box._hold(len(chunk))
        self.received += len(chunk)
        self.out.write(chunk)

    def finish(self) -> Upload:
        """Check the whole file (``settle``) and keep it. Raises ``Refused`` (recorded)."""
        self.out.close()
        box = self.box
        with box.lock:
            room = MAX_UPLOAD_BYTES - box.size
            games = box.games
        try:
            upload = settle(self.raw, self.name, self.suffix, box.folder, self.index, room)
        except Refused as err:
            self.refuse(str(err), err.limit)
        if games + upload.games > MAX_GAMES:
            upload.path.unlink(missing_ok=True)
            self.refuse(f"the upload would hold more than {MAX_GAMES:,} games: import this file separately", limit=True)
        # What the box holds from now on is the expanded file, not the bytes as uploaded.
        box._release(self.received)
        self.received = 0
        try:
            box._hold(upload.size)
        except Unavailable:
            upload.path.unlink(missing_ok=True)
            raise
        with box.lock:
            box.accepted.append(upload)
        self.done = True
        return upload

    def refuse(self, reason: str, limit: bool = False) -> NoReturn:
        """Record the file as refused for ``reason`` and raise ``Refused``."""
        with self.box.lock:
            self.box.refused.append((self.name, reason))
        self.done = True
        raise Refused(reason, limit)

    def close(self) -> None:
        """End the arrival: its raw bytes are removed and what they held given back; the box takes
        the next file."""
        self.out.close()
        self.raw.unlink(missing_ok=True)
        self.box._release(self.received)
        self.received = 0
        with self.box.lock:
            self.box.busy = False


def find_box(token: str) -> UploadBox | None:
    """The open box ``token`` names, or None."""
    if not token:
        return None
    with _BOXES_LOCK:
        return _BOXES.get(token)


async def receive_upload(request: Request) -> Response:
    """``PUT /upload``: one file into the box the ``X-Governor-Upload`` header names, its name in
    ``X-Governor-Name`` and its size in ``X-Governor-Size`` (or Content-Length). The body is written
    to the box's folder as it arrives, counted against the limits, and checked once whole in a worker
    thread (the event loop serves the other sessions meanwhile). The answer is JSON: ``{"name",
    "accepted", "games", "bytes", "reason"}``; a refused file's status is 413 (too large) or 422,
    and its reason is recorded in the box; 404 names no open box, 503 a file that cannot be taken now.
    A refused file's body is still read (and discarded), up to ``DRAIN_BYTES``, so that the browser
    gets the answer rather than a closed connection."""
    import anyio
    from starlette.requests import ClientDisconnect
    from starlette.responses import JSONResponse

    name = unquote(request.headers.get(NAME_HEADER, ""))[:MAX_NAME_CHARS]

    def answer(status: int, **fields: Any) -> JSONResponse:
        body = {"name": name, "accepted": status == 200, "games": 0, "bytes": 0, "reason": None, **fields}
        return JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})

    box = find_box(request.headers.get(TOKEN_HEADER, ""))
    if box is None:
        return answer(404, reason="this upload box is closed (the page was reloaded or left): upload the files again")
    if not name.strip():
        return answer(400, reason="the file has no name")
    declared = _declared_size(request)
    stream = request.stream()
    try:
        arrival = box.begin(name, declared)
    except Refused as err:
        await _drain(stream)
        return answer(413 if err.limit else 422, reason=str(err))
    except Unavailable as err:
        await _drain(stream)
        return answer(503, reason=str(err))
    read = 0
    try:
        async for chunk in stream:
            read += len(chunk)
            arrival.write(chunk)
        upload = await anyio.to_thread.run_sync(arrival.finish)
        return answer(200, games=upload.games, bytes=upload.size)
    except Refused as err:
        await _drain(stream, read)
        return answer(413 if err.limit else 422, reason=str(err))
    except Unavailable as err:
        await _drain(stream, read)
        return answer(503, reason=str(err))
    except ClientDisconnect:  # the browser went away: nothing is kept, nobody reads the answer
        return answer(400, reason="the upload was interrupted")
    finally:
        arrival.close()


def _declared_size(request: Request) -> int | None:
    """The size the browser says the file has (``X-Governor-Size``, else Content-Length), or None."""
    for header in (SIZE_HEADER, "content-length"):
        text = request.headers.get(header, "")
        if text.isdigit() and len(text) < 19:
            return int(text)
    return None


async def _drain(stream: Any, read: int = 0) -> None:
    """Read and discard the rest of a refused file's body, up to ``DRAIN_BYTES`` in all."""
    try:
        async for chunk in stream:
            read += len(chunk)
            if read > DRAIN_BYTES:
                return
    except Exception:  # noqa: BLE001 - the body is ended or gone: the answer is sent anyway
        return


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
