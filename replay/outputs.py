"""Writing an output without ever destroying what was there: the one way every command writes a file.

The rule (the same for ``query --out``, ``export``, ``simulate``, ``golden``, the arena's log and the
lake's local files): a command writes only what it creates, and replaces an existing output only on
success, by an atomic rename of a file it created itself.

- The file is written under a temporary name made *exclusively* (``O_CREAT | O_EXCL``, a random name,
  mode 0600 until it is complete) in the target's own folder, so a planted file or symbolic link of a
  guessable name is never opened, followed or truncated; then ``os.replace`` puts it in place.
- When the work fails or is interrupted, only that temporary file is removed: the existing output is
  untouched, and so is anything a link points to.
- ``--out`` naming a symbolic link writes to the file the link names (its real path), so the link
  stays a link; naming something that is not a regular file (``/dev/null``, ``/dev/stdout``, a named
  pipe) writes straight into it, and a failure removes nothing.
- The complete file gets the mode of the file it replaces, else the one ``open`` would have given it
  (0666 less the umask).
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

PathLike = str | bytes | os.PathLike[str] | os.PathLike[bytes]


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # not thread-safe, hence only where /proc cannot tell
    os.umask(mask)
    return mask


def resolve_target(path: PathLike) -> tuple[str, os.stat_result | None]:
    """Where writing ``path`` lands: its real path (a symbolic link followed to what it names, even
    a dangling one; bytes that are not UTF-8 carried as ``os.fsdecode`` does), with that file's status,
    or None when nothing is there yet."""
    target = os.path.realpath(os.fsdecode(os.fspath(path)))
    try:
        info: os.stat_result | None = os.stat(target)
    except (FileNotFoundError, NotADirectoryError):
        info = None
    return target, info


def is_special(info: os.stat_result | None) -> bool:
    """Whether an existing output is something written into rather than replaced (a device, a pipe,
    a socket): ``/dev/null``, ``/dev/stdout``."""
    return info is not None and not stat.S_ISREG(info.st_mode) and not stat.S_ISDIR(info.st_mode)


@contextmanager
def replacing(path: PathLike) -> Iterator[str]:
    """A path to write the output ``path`` to: a new file of a random name beside the target, made
    exclusively and empty, renamed over the target when the block ends well and removed when it does
    not (an exception, Ctrl-C, SIGTERM). For a device or a pipe, the target itself (nothing to remove).

    Raises ``OSError`` when the temporary file cannot be made (the folder is missing or read-only),
    before the block runs, and ``IsADirectoryError`` when the target is a folder."""
    target, info = resolve_target(path)
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(21, "Is a directory", os.fsdecode(target))
    if is_special(info):
        yield target
        return
    folder, name = os.path.split(target)
    mode = stat.S_IMODE(info.st_mode) if info is not None else 0o666 & ~_umask()
    fd, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder or ".")
    os.close(fd)
    done = False
    try:
        yield temp
        os.chmod(temp, mode)
        os.replace(temp, target)
        done = True
    finally:
        if not done:
            try:
                os.unlink(temp)
            except OSError:
                pass


@contextmanager
def open_output(path: PathLike, mode: str = "w", encoding: str | None = "utf-8",
                newline: str | None = None) -> Iterator[IO[Any]]:
    """``open`` for an output that replaces ``path`` only when the block ends well (see ``replacing``).
    ``mode`` is ``"w"`` or ``"wb"``."""
    if mode not in ("w", "wb"):
        raise ValueError(f"open_output writes a new file ('w' or 'wb'), not {mode!r}")
    with replacing(path) as temp:
        if mode == "wb":
            with open(temp, "wb") as handle:
                yield handle
        else:
            with open(temp, "w", encoding=encoding, newline=newline) as handle:
                yield handle


def write_bytes(path: PathLike, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (see ``replacing``)."""
    with open_output(path, "wb") as handle:
        handle.write(data)


def check_writable(path: PathLike) -> str | None:
    """Why an output file at ``path`` could not be written, before any work is done, or None: its
    folder is missing, not a folder or not writable, or ``path`` is a folder. Makes and removes one
    temporary file of a random name (the only sure test: permissions, read-only mounts, ACLs)."""
    target, info = resolve_target(path)
    if info is not None and stat.S_ISDIR(info.st_mode):
        return "is a folder"
    if is_special(info):
        return None if os.access(target, os.W_OK) else "permission denied"
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        return "its folder does not exist" if not os.path.exists(folder) else "its folder is not a folder"
    try:
        fd, temp = tempfile.mkstemp(prefix=".governor-check-", dir=folder)
    except OSError as err:
        return err.strerror or str(err)
    os.close(fd)
    Path(temp).unlink(missing_ok=True)
    return None
