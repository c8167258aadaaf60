"""Finding log files: the files, folders (searched recursively) and globs a command names, in a
stable order, each file once, never a store's own files; what cannot be searched is a problem, and the
rest is still searched. Reading them is ``replay.log_reader``.
"""

from __future__ import annotations

import glob
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from replay.errors import printable
from replay.log_reader import display_name, is_log_file


@dataclass
class FoundLogs:
    """The log files named by some arguments, and what could not be searched (each a message)."""

    files: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class _Stores:
    """The stores discovery never reads as logs: the files and folders a command writes (``own``: path
    and what it is, as ``"the lake this import writes"``) and any folder holding one of ``marks`` (a
    file name and what such a folder is, as ``("_governor_lake.json", "a Governor lake")``)."""

    def __init__(self, own: Iterable[tuple[str, str]], marks: Iterable[tuple[str, str]]) -> None:
        self.keys: dict[tuple[int, int], str] = {}
        self.folders: list[tuple[str, str]] = []
        for path, what in own:
            try:
                info = os.stat(path)
            except OSError:
                continue  # not made yet: nothing of it can be met
            self.keys[(info.st_dev, info.st_ino)] = what
            if stat.S_ISDIR(info.st_mode):
                self.folders.append((os.path.realpath(path), what))
        self.marks = list(marks)
        self._marked: dict[str, str | None] = {}

    def mark_of(self, folder: str) -> str | None:
        """What ``folder`` is when it holds one of the marks (a store of that kind), else None."""
        for name, what in self.marks:
            if os.path.isfile(os.path.join(folder, name)):
                return what
        return None

    def _marked_above(self, real: str) -> str | None:
        """What the nearest folder holding a mark at or above the real path ``real`` is (cached)."""
        if real in self._marked:
            return self._marked[real]
        parent = os.path.dirname(real)
        what = self.mark_of(real) or (self._marked_above(parent) if parent != real else None)
        self._marked[real] = what
        return what

    def reason(self, path: str, info: os.stat_result) -> str | None:
        """Why ``path`` (an argument, or a glob's match) is never read: it is, or lies in, a store."""
        if not self.keys and not self.marks:
            return None
        what = self.keys.get((info.st_dev, info.st_ino))
        if what is not None:
            return f"it is {what}"
        real = os.path.realpath(path)
        for folder, what in self.folders:
            if real.startswith(folder.rstrip(os.sep) + os.sep):
                return f"it is in {what}"
        if self.marks:
            if stat.S_ISDIR(info.st_mode) and (what := self.mark_of(real)) is not None:
                return f"it is {what}"
            what = self._marked_above(os.path.dirname(real))
            if what is not None:
                return f"it is in {what}"
        return None


def _walk(folder: Path, found: FoundLogs, seen: set[tuple[int, int]], stores: _Stores) -> None:
    """Log files under ``folder``: a folder's files (sorted) before its subfolders (sorted), symbolic
    links followed, each folder once (a link back to a parent is no loop). Unreadable folders are
    problems, never silently skipped; a store's files and folders (``stores``) are skipped silently."""
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            info = os.stat(current)
            key = (info.st_dev, info.st_ino)
            if key in seen:
                continue
            seen.add(key)
            if current != folder and (key in stores.keys or stores.mark_of(os.fspath(current))):
                continue  # a store met inside a folder: its files are never logs
            with os.scandir(current) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as err:
            found.problems.append(f"cannot read folder {display_name(current)}: {err.strerror or err}")
            continue
        subfolders = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                subfolders.append(Path(entry.path))
            elif is_log_file(entry.name):
                if stores.keys and (info.st_dev, entry.inode()) in stores.keys:
                    continue  # a database file named like a log
                found.files.append(Path(entry.path))
        stack.extend(reversed(subfolders))


def find_logs(args: Iterable[str | Path], *, stores: Iterable[tuple[str, str]] = (),
              marks: Iterable[tuple[str, str]] = ()) -> FoundLogs:
    """Files, folders (searched recursively for log files) and globs, in a stable order, each file
    once. An argument that exists is taken literally (``[good].json`` is a file, not a glob); one
    that names nothing, or cannot be reached, is a problem and the others are still searched.

    A file named directly or matched by a glob is kept whatever its name; a glob's match that cannot be
    reached (a dangling link) is reported when read. Inside folders only log files are taken
    (``.json``, ``.jsonl``, ``.gz``, in any letter case).

    A store's own files are never read as logs: the files and folders of ``stores`` (path, what it is:
    the store the command writes) and every folder holding a file named in ``marks`` (file name, what
    such a folder is: a lake) are skipped, silently when met inside a folder or matched by a glob,
    and with a problem naming them when an argument names one of them or something inside."""
    found = FoundLogs()
    seen_folders: set[tuple[int, int]] = set()
    known = _Stores(stores, marks)
    for arg in args:
        text = os.fspath(arg)
        globbed = not os.path.lexists(text) and glob.has_magic(text)
        if not globbed:
            matches = [text]
        else:
            matches = sorted(glob.glob(text, recursive=True))
            if not matches:
                found.problems.append(f"no file matches {printable(text)}")
                continue
        for match in matches:
            try:
                info = os.stat(match)
            except OSError as err:
                if globbed:
                    found.files.append(Path(match))  # a dangling link or a loop: reported when read
                elif isinstance(err, FileNotFoundError):
                    found.problems.append(f"no such file or folder: {display_name(match)}")
                else:
                    found.problems.append(f"cannot access {display_name(match)}: {err.strerror or err}")
                continue
            skipped = known.reason(match, info)
            if skipped is not None:
                if not globbed:
                    found.problems.append(f"{display_name(match)}: skipped, {skipped}: a store's own files are "
                                          "never read as logs")
                continue
            if stat.S_ISDIR(info.st_mode):
                _walk(Path(match), found, seen_folders, known)
            else:
                found.files.append(Path(match))
    seen: set[str] = set()
    unique = []
    for path in found.files:
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            unique.append(path)
    found.files = unique
    return found


def expand_paths(args: Iterable[str | Path]) -> list[Path]:
    """The files of ``find_logs``. Raises ``FileNotFoundError`` naming the first problem."""
    found = find_logs(args)
    if found.problems:
        raise FileNotFoundError(found.problems[0])
    return found.files
