"""Reading log files: ``.json`` (one game), ``.jsonl`` (one game a line), either gzip compressed.

Every game read is a ``LogRecord`` (``replay.logfile``): one bad game never stops the others in the
same file, and a file that cannot be read is one record with the error. Only regular files are read,
and memory stays bounded whatever the file. Which files to read is the caller's choice (the importer
finds them in folders and globs: ``ingest.sources``).
"""

from __future__ import annotations

import gzip
import io
import os
import re
import stat
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from replay.errors import LogFormatError, printable
from replay.logfile import LogRecord, parse_game
from replay.strict_json import strict_loads

LOG_SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz")
#: A single game larger than this is refused before parsing (real games are a few tens of KiB). A
#: compressed ``.json.gz`` is decompressed only this far: a small file cannot make a large read.
MAX_GAME_BYTES = 16 * 1024 * 1024
#: A ``.jsonl`` (or ``.jsonl.gz``) file is read at most this far once decompressed (about 150,000
#: games): the games before the limit are read, then the file is reported as too large.
MAX_FILE_BYTES = 4 * 1024**3
#: Files are read and decompressed this many bytes at a time.
READ_CHUNK = 1024 * 1024


def _decode(data: bytes, file: str, index: int | None) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise LogFormatError(
            f"not UTF-8 text (byte {err.start}: {data[err.start:err.start + 1]!r})",
            file=file,
            game_index=index,
        ) from None


def _lower(path: Path | str) -> str:
    return os.path.basename(path).lower()


def is_log_file(path: Path | str) -> bool:
    """Whether a file name has one of the log suffixes (in any letter case: ``.JSON`` too)."""
    return _lower(path).endswith(LOG_SUFFIXES)


def _is_jsonl(path: Path | str) -> bool:
    return _lower(path).endswith((".jsonl", ".jsonl.gz"))


def display_name(path: Path | str) -> str:
    """How a file is named in messages and in the database: its path, with control characters and
    undecodable bytes escaped (a file name may hold a newline)."""
    return printable(os.fsdecode(path))


_KINDS = {
    stat.S_IFIFO: "a named pipe",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}


def _open_regular(path: Path) -> tuple[io.BufferedReader, int]:
    """The file opened for reading and its size. Only a regular file is read: a named pipe would
    block the run and a device (``/dev/zero``) never ends. Raises ``LogFormatError`` or ``OSError``."""
    # O_NONBLOCK: opening a FIFO for reading waits for a writer; with it, open returns at once.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = _KINDS.get(stat.S_IFMT(info.st_mode), "not a file")
            raise LogFormatError(f"not a regular file ({kind}): only regular files are read")
        os.set_blocking(fd, True)
        return io.BufferedReader(io.FileIO(fd, "rb")), info.st_size
    except BaseException:
        os.close(fd)
        raise


class _OverLimit(Exception):
    """More bytes came out of a file than its limit allows."""


def _chunks(handle: io.BufferedReader, compressed: bool, limit: int) -> Iterator[bytes]:
    """The file's bytes, decompressed, ``READ_CHUNK`` at a time. Raises ``LogFormatError`` for a bad
    gzip stream or a read error, and ``_OverLimit`` once more than ``limit`` bytes came out."""
    stream: io.BufferedReader | gzip.GzipFile = gzip.GzipFile(fileobj=handle, mode="rb") if compressed else handle
    total = 0
    while True:
        try:
            # read1: what one read gave, so that the whole games before a corrupt part still come out.
            chunk = stream.read1(READ_CHUNK)
        except (gzip.BadGzipFile, EOFError, zlib.error) as err:
            raise LogFormatError(f"not a readable gzip file ({err or type(err).__name__})") from None
        except OSError as err:
            raise LogFormatError(f"cannot read file: {err.strerror or err}") from None
        if not chunk:
            return
        total += len(chunk)
        if total > limit:
            raise _OverLimit
        yield chunk


#: The whitespace ``bytes.strip`` removes: blank lines are skipped at C speed, however many.
_NON_SPACE = re.compile(rb"[^ \t\n\r\x0b\x0c]")


def _lines(chunks: Iterable[bytes], keep: bool = True) -> Iterator[bytes | int]:
    """The non-blank lines of a stream of chunks. A line longer than ``MAX_GAME_BYTES`` is not kept:
    its length (an int) comes in its place. With ``keep`` False every line is its length."""
    parts: list[bytes] = []
    size = 0  # bytes of the current line so far; 0 between lines
    for chunk in chunks:
        pos, end = 0, len(chunk)
        while pos < end:
            if size == 0:
                found = _NON_SPACE.search(chunk, pos)
                if found is None:
                    break
                pos = found.start()
            newline = chunk.find(b"\n", pos)
            stop = end if newline < 0 else newline
            size += stop - pos
            if keep and size <= MAX_GAME_BYTES:
                parts.append(chunk[pos:stop])
            elif parts:
                parts.clear()
            if newline < 0:
                break
            yield b"".join(parts) if parts else size
            parts.clear()
            size = 0
            pos = newline + 1
    if size:
        yield b"".join(parts) if parts else size


@dataclass(frozen=True)
class RawGame:
    """One game's bytes, not parsed yet (cheap to send to a worker process)."""

    file: str
    index: int
    data: bytes

    def parse(self) -> LogRecord:
        """The game as a record: a ``GameLog`` or the error that stopped it."""
        return _record(self.file, self.index, self.data)


def _too_large(file: str, index: int, size: int | None, compressed: bool) -> LogRecord:
    if size is not None and not compressed:
        reason = f"game is {size} bytes, more than the limit of {MAX_GAME_BYTES}"
    else:
        reason = f"game is more than the limit of {MAX_GAME_BYTES} bytes once decompressed"
    return LogRecord(file, index, "", None, LogFormatError(reason, file=file, game_index=index))


def read_raw(path: str | Path, display: str | None = None) -> Iterator[RawGame | LogRecord]:
    """Yield every game of one file unparsed, or a record with the error for a game or a file that
    cannot be read (missing, not a regular file, not gzip, past a size limit). ``display`` names the
    file instead of its path. Memory stays bounded by ``MAX_GAME_BYTES`` a game, whatever the file."""
    path = Path(path)
    file = printable(display) if display is not None else display_name(path)
    compressed = _lower(path).endswith(".gz")
    index = 0
    try:
        handle, size = _open_regular(path)
    except LogFormatError as err:
        yield LogRecord(file, 0, "", None, err.with_context(file=file))
        return
    except OSError as err:
        yield LogRecord(file, 0, "", None, LogFormatError(f"cannot read file: {err.strerror or err}", file=file))
        return
    with handle:
        try:
            if not _is_jsonl(path):
                if not compressed and size > MAX_GAME_BYTES:
                    yield _too_large(file, 0, size, compressed)
                    return
                data = bytearray()
                for chunk in _chunks(handle, compressed, MAX_GAME_BYTES):
                    data += chunk
                yield RawGame(file, 0, bytes(data))
                return
            for line in _lines(_chunks(handle, compressed, MAX_FILE_BYTES)):
                if isinstance(line, int):
                    yield _too_large(file, index, line, False)
                else:
                    yield RawGame(file, index, line)
                index += 1
        except LogFormatError as err:
            yield LogRecord(file, index, "", None, err.with_context(file=file, game_index=index if index else None))
        except _OverLimit:
            if not _is_jsonl(path):
                yield _too_large(file, 0, None, compressed)
            else:
                reason = (
                    f"the file is more than the limit of {MAX_FILE_BYTES} bytes{' once decompressed' if compressed else ''}; "
                    f"the {index} game(s) before the limit were read"
                )
                yield LogRecord(file, index, "", None, LogFormatError(reason, file=file, game_index=index))


def count_games(path: str | Path) -> int:
    """How many games a file holds (non-blank lines of a ``.jsonl``), for a progress bar: bounded
    like ``read_raw`` and never blocking; a file that cannot be read counts as one."""
    path = Path(path)
    if not _is_jsonl(path):
        return 1
    count = 0
    try:
        handle, _ = _open_regular(path)
        with handle:
            for _ in _lines(_chunks(handle, _lower(path).endswith(".gz"), MAX_FILE_BYTES), keep=False):
                count += 1
    except (LogFormatError, OSError, _OverLimit):
        count += 1
    return max(count, 1)


def read_records(path: str | Path, display: str | None = None) -> Iterator[LogRecord]:
    """Yield every game of one file; a bad game is a record with an error, never an exception.

    ``display`` names the file in records and messages instead of its path (an uploaded file's
    original name). A file that cannot be read at all (missing, not gzip) yields one record with the error.
    """
    for item in read_raw(path, display):
        yield item.parse() if isinstance(item, RawGame) else item


def _record(file: str, index: int, data: bytes) -> LogRecord:
    try:
        if len(data) > MAX_GAME_BYTES:
            raise LogFormatError(
                f"game is {len(data)} bytes, more than the limit of {MAX_GAME_BYTES}",
                file=file,
                game_index=index,
            )
        text = _decode(data, file, index)
        obj = strict_loads(text, file, index)
        return LogRecord(file, index, text, parse_game(obj, file=file, index=index), None)
    except LogFormatError as err:
        text = data.decode("utf-8", errors="replace") if len(data) <= MAX_GAME_BYTES else ""
        return LogRecord(file, index, text, None, err)


def read_game(path: str | Path, number: int, display: str | None = None) -> tuple[LogRecord | None, int]:
    """The ``number``-th game (1-based) of one file, parsing only that game: the lines of a ``.jsonl``
    before it are split but not parsed, and the file is read no further than its line. Returns
    ``(record, number)``, or ``(None, games in the file)`` when the file holds fewer games. A file that
    cannot be read is its first game: a record with the error. Raises nothing."""
    count = 0
    for item in read_raw(path, display):
        if count == number - 1:
            return (item.parse() if isinstance(item, RawGame) else item), number
        count += 1
    return None, count
