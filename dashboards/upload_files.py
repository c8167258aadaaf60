"""One uploaded file, checked and expanded before the importer sees it.

An uploaded file's name is only ever displayed: the bytes go to ``upload-NNN.json`` or
``upload-NNN.jsonl`` in the upload's folder. Every file is bounded: its size as uploaded and once
decompressed (a gzipped file is expanded here, within the limit, and written expanded) and the number
of games it holds; the upload's box (``dashboards.upload_box``) bounds the files together. A file that
is not JSON at all is refused as a file, not counted as a rejected game.
"""

from __future__ import annotations

import codecs
import io
import itertools
import json
import re
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from replay.log_reader import MAX_GAME_BYTES

#: The largest file accepted as uploaded (streamlit's server.maxUploadSize is set to the same).
MAX_FILE_BYTES = 50 * 2**20
#: The most a ``.jsonl`` file may hold once decompressed (a ``.json`` file holds one game: at most
#: ``MAX_GAME_BYTES``, the importer's limit per game).
MAX_EXPANDED_BYTES = 200 * 2**20
#: The most all the files of one upload may hold once decompressed.
MAX_UPLOAD_BYTES = 200 * 2**20
#: The most games one upload may hold (a ``.json`` file is one game, a ``.jsonl`` file one a line).
MAX_GAMES = 10_000
#: Bytes read or written at a time: an upload is never held whole in memory.
CHUNK = 2**20
#: Suffixes the importer reads, longest first so ``.jsonl.gz`` wins over ``.gz``.
SUFFIXES = (".jsonl.gz", ".json.gz", ".jsonl", ".json")


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


class BytesSource(io.BytesIO):
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
            spool_upload(BytesSource(name, content), Path(folder), 0)
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
            raise Refused(too_large(None), limit=True)
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
        raise Refused(too_large(declared), limit=True)
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


def too_large(size: int | None) -> str:
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
