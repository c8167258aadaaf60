"""A game's journal: one file of JSON lines, written so that nothing a call returned is ever lost.

The first line is the header (the game's setup); each later line is one change of the game (a move, a
part of a move, a take-back). The journal is made exclusively (``O_CREAT | O_EXCL``, never through a
link: the ways of ``replay.outputs``) under the game's random id, in a folder of its own; every line
is written whole, flushed and ``fsync``'d before the call that wrote it returns, so a move is on disk
before anything shows it. Writers and readers take an advisory lock on the file (``fcntl.flock``:
exclusive to write, shared to read), so that two processes or two tabs on one game take turns.

Reading keeps every complete line. A last line that is cut short or unreadable (the machine stopped
in the middle of writing it: that call never returned) is dropped with a note, and the next write
cuts it off before appending; anything else unreadable makes the journal damaged
(``JournalDamaged``, naming the file and the line).
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The longest journal read (bytes): far past any game (a game of two hundred moves is about 30 KB), short of
#: what would fill memory.
MAX_JOURNAL_BYTES = 64 * 1024 * 1024
#: A journal's file name: the game's id and this suffix (not a log's: an import of the database's
#: folder never reads a journal as a log).
SUFFIX = ".journal"

_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_OPEN_FILE = os.O_RDWR | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)


class JournalError(Exception):
    """A journal, or the folder of journals, cannot be used (one line naming it and why)."""


class JournalMissing(JournalError):
    """No journal of that name (never made, or removed)."""


class JournalDamaged(JournalError):
    """A journal holds something that is not what was written: ``path``, the 1-based ``line`` (0 for
    the whole file) and the ``reason``."""

    def __init__(self, path: str, line: int, reason: str) -> None:
        where = f"{path}: line {line}" if line else path
        super().__init__(f"{where}: {reason}")
        self.path = path
        self.line = line
        self.reason = reason


@dataclass(frozen=True)
class Lines:
    """What a journal holds: its header, its entries (each a JSON object, in order), a note when a
    last line was dropped, and the file's time of last change (seconds since the epoch)."""

    header: dict[str, Any]
    entries: tuple[dict[str, Any], ...]
    note: str | None
    modified: float


def open_folder(folder: Path, make: bool) -> int:
    """A descriptor of the folder of journals (the caller closes it), made (mode 0700: the games are
    the player's) when missing and ``make``. Never through a link: a link at the folder's own name is
    refused, so that no game is written where the link points.

    Raises ``JournalMissing`` when it does not exist and not ``make``, and ``JournalError`` when it
    is a link or not a folder, or cannot be made or opened."""
    if make:
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
        except OSError as err:
            raise JournalError(f"{folder}: cannot make the folder of games: {err.strerror or err}") from None
    try:
        return os.open(folder, _FOLDER | os.O_NOFOLLOW)
    except FileNotFoundError:
        raise JournalMissing(f"{folder}: no such folder") from None
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.ENOTDIR):
            try:
                link = stat.S_ISLNK(os.lstat(folder).st_mode)
            except OSError:
                link = False
            what = "a symbolic link" if link else "not a folder"
            raise JournalError(f"{folder}: {what}: the games are kept only in a folder of their own") from None
        raise JournalError(f"{folder}: {err.strerror or err}") from None


def _sync(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError as err:
        if err.errno not in (errno.EINVAL, errno.EROFS):  # a folder that cannot be synced: nothing to lose
            raise


def line_of(entry: dict[str, Any]) -> bytes:
    """An entry as its journal line: compact JSON, UTF-8, one newline (a name may hold any character:
    JSON escapes the controls, so a line is always one line)."""
    return (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def create(folder: int, name: str, header: dict[str, Any]) -> None:
    """Make the journal ``name`` in the open ``folder`` holding ``header``, on disk (the file and its
    folder's entry ``fsync``'d) when this returns.

    Raises ``FileExistsError`` when something is there already (never opened) and ``OSError`` when it
    cannot be written (then the file is removed)."""
    fd = os.open(name, _NEW_FILE, 0o600, dir_fd=folder)
    try:
        _write_all(fd, line_of(header))
        _sync(fd)
    except BaseException:
        os.close(fd)
        try:
            os.unlink(name, dir_fd=folder)
        except OSError:
            pass
        raise
    os.close(fd)
    _sync(folder)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_all(fd: int, name: str) -> bytes:
    size = os.fstat(fd).st_size
    if size > MAX_JOURNAL_BYTES:
        raise JournalDamaged(name, 0, f"{size:,} bytes, more than a journal may hold ({MAX_JOURNAL_BYTES:,})")
    os.lseek(fd, 0, os.SEEK_SET)
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _entry(raw: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def parse(data: bytes, name: str) -> tuple[dict[str, Any], list[dict[str, Any]], int, str | None]:
    """The header and entries of a journal's bytes, the length of its whole lines, and the note of a
    dropped last line. Raises ``JournalDamaged`` for an unreadable line before the last, or for a
    journal without a whole header."""
    lines = data.split(b"\n")
    tail = lines.pop()  # after the last newline: b"" when the journal ends with a whole line
    note = None
    good = len(data) - len(tail)
    if tail:
        note = f"{name}: line {len(lines) + 1} was cut short (written when the game stopped): dropped"
    parsed: list[dict[str, Any]] = []
    for number, raw in enumerate(lines, 1):
        entry = _entry(raw)
        if entry is None:
            if number == len(lines) and not tail and number > 1:
                # The last whole line is unreadable: a write the machine never finished (a power cut
                # can leave a line's blocks zeroed); dropped like a line cut short.
                note = f"{name}: line {number} is unreadable (written when the game stopped): dropped"
                good -= len(raw) + 1
                break
            raise JournalDamaged(name, number, "not a JSON object" if raw.strip() else "an empty line")
        parsed.append(entry)
    if not parsed:
        raise JournalDamaged(name, 1, "no header: the game was never started (cut short while it was made)")
    return parsed[0], parsed[1:], good, note


class Open:
    """A journal open and locked (``opened``): read it (``lines``), add to it (``append``), remove it
    (``remove``)."""

    def __init__(self, folder: int, name: str, shown: str, fd: int, exclusive: bool) -> None:
        self.folder = folder
        self.name = name
        self.shown = shown
        self.fd = fd
        self.exclusive = exclusive
        self._good: int | None = None
        #: The entries this handle appended.
        self.added: list[dict[str, Any]] = []

    def lines(self) -> Lines:
        """What the journal holds now. Raises ``JournalDamaged``."""
        data = _read_all(self.fd, self.shown)
        header, entries, good, note = parse(data, self.shown)
        self._good = good if good != len(data) else None
        return Lines(header, tuple(entries), note, os.fstat(self.fd).st_mtime)

    def append(self, entry: dict[str, Any]) -> None:
        """Add ``entry`` as a line, on disk when this returns: a dropped last line (``lines`` saw it) is
        cut off first. Needs the exclusive lock. Raises ``OSError`` when the disk refuses (then the
        journal is as it was: a partial line is cut off again)."""
        assert self.exclusive, "a journal is written under its exclusive lock"
        if self._good is not None:
            os.ftruncate(self.fd, self._good)
            self._good = None
        end = os.lseek(self.fd, 0, os.SEEK_END)
        try:
            _write_all(self.fd, line_of(entry))
            _sync(self.fd)
            self.added.append(entry)
        except BaseException:
            try:
                os.ftruncate(self.fd, end)
            except OSError:
                pass
            raise

    def remove(self) -> None:
        """Remove the journal (its name in the folder, never what a link names) and sync the folder."""
        assert self.exclusive
        os.unlink(self.name, dir_fd=self.folder)
        _sync(self.folder)


@contextmanager
def opened(folder: int, name: str, shown: str, exclusive: bool) -> Iterator[Open]:
    """The journal ``name`` of the open ``folder``, locked (exclusive or shared) for the block, never
    opened through a link, a pipe or a device; ``shown`` names it in messages. A journal removed while
    this waited for the lock is missing.

    Raises ``JournalMissing`` when there is none, ``JournalError`` when it is not a regular file or
    cannot be opened."""
    while True:
        try:
            fd = os.open(name, _OPEN_FILE, dir_fd=folder)
        except FileNotFoundError:
            raise JournalMissing(f"{shown}: no such game") from None
        except OSError as err:
            if err.errno == errno.ELOOP:
                raise JournalError(f"{shown}: a symbolic link, not a game's journal") from None
            raise JournalError(f"{shown}: {err.strerror or err}") from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise JournalError(f"{shown}: not a regular file, not a game's journal")
            os.set_blocking(fd, True)
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            # The name may have been removed (or replaced) while this waited for the lock.
            try:
                now = os.stat(name, dir_fd=folder, follow_symlinks=False)
            except FileNotFoundError:
                raise JournalMissing(f"{shown}: no such game") from None
            if (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
                os.close(fd)
                continue
        except BaseException:
            os.close(fd)
            raise
        try:
            yield Open(folder, name, shown, fd, exclusive)
        finally:
            os.close(fd)  # closing lets go of the lock
        return
