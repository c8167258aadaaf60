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
- A file a command names itself inside a folder it writes (an export's tables, simulated games, golden
  files: ``follow=False``) is never written through: a link, a pipe or a file of that name is replaced.
- Inside a store's folder (a lake: ``open_folder``, ``creating_in``, ``remove_in``) nothing is followed
  at all: every folder from the store's root down is opened without following a link, so a folder or a
  file replaced by a link makes the write or the removal fail (``FollowRefused``) instead of reaching
  outside the store.
"""

from __future__ import annotations

import errno
import os
import secrets
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


#: Flags of a temporary file: made by this call or not at all, never through a link.
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


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


def _entry(path: PathLike) -> tuple[str, os.stat_result | None]:
    """Where writing ``path`` without following it lands: its folder's real path joined with its own
    name, with the status of what is there now (a link's own), or None."""
    folder, name = os.path.split(os.path.abspath(os.fsdecode(os.fspath(path))))
    target = os.path.join(os.path.realpath(folder), name)
    try:
        info: os.stat_result | None = os.lstat(target)
    except (FileNotFoundError, NotADirectoryError):
        info = None
    return target, info


@contextmanager
def replacing(path: PathLike, *, follow: bool = True) -> Iterator[str]:
    """A path to write the output ``path`` to: a new file of a random name beside the target, made
    exclusively and empty, renamed over the target when the block succeeds and removed when it does
    not (an exception, Ctrl-C, SIGTERM). For a device or a pipe, the target itself (nothing to remove).

    With ``follow`` False (a file the command names itself inside a folder it writes), what is at
    ``path`` is replaced whatever it is, a symbolic link, a pipe or a device included: nothing is ever
    written through it.

    Raises ``OSError`` when the temporary file cannot be made (the folder is missing or read-only),
    before the block runs, and ``IsADirectoryError`` when the target is a folder."""
    target, info = resolve_target(path) if follow else _entry(path)
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(21, "Is a directory", os.fsdecode(target))
    if follow and is_special(info):
        yield target
        return
    folder, name = os.path.split(target)
    regular = info is not None and stat.S_ISREG(info.st_mode)
    mode = stat.S_IMODE(info.st_mode) if regular and info is not None else 0o666 & ~_umask()
    # The name is chosen before the file is made, so that an interruption at any moment (Ctrl-C,
    # SIGTERM raising between two steps) finds it known to the cleanup below; a name this call could not
    # make (``refused``) is someone else's and never removed.
    temp = os.path.join(folder or ".", f".{name}.{secrets.token_hex(8)}.tmp")
    refused = done = False
    try:
        try:
            os.close(os.open(temp, _NEW_FILE, 0o600))
        except OSError:
            refused = True
            raise
        yield temp
        os.chmod(temp, mode)
        os.replace(temp, target)
        done = True
    finally:
        if not done and not refused:
            try:
                os.unlink(temp)
            except OSError:
                pass


@contextmanager
def open_output(path: PathLike, mode: str = "w", encoding: str | None = "utf-8",
                newline: str | None = None, *, follow: bool = True) -> Iterator[IO[Any]]:
    """``open`` for an output that replaces ``path`` only when the block succeeds (see ``replacing``,
    also for ``follow``). ``mode`` is ``"w"`` or ``"wb"``."""
    if mode not in ("w", "wb"):
        raise ValueError(f"open_output writes a new file ('w' or 'wb'), not {mode!r}")
    with replacing(path, follow=follow) as temp:
        if mode == "wb":
            with open(temp, "wb") as handle:
                yield handle
        else:
            with open(temp, "w", encoding=encoding, newline=newline) as handle:
                yield handle


def write_bytes(path: PathLike, data: bytes, *, follow: bool = True) -> None:
    """Replace ``path`` with ``data`` atomically (see ``replacing``, also for ``follow``)."""
    with open_output(path, "wb", follow=follow) as handle:
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


# -- inside a store: nothing followed ----------------------------------------------------------------


class FollowRefused(OSError):
    """A step of a path inside a store is a symbolic link, or not what it should be (a file where a
    folder belongs): nothing is written, read or removed through it. ``path`` names the step and
    ``found`` says what is there (``a symbolic link (to X)``, ``not a folder``)."""

    def __init__(self, path: str, found: str) -> None:
        super().__init__(errno.ELOOP, found, path)
        self.path = path
        self.found = found

    def __str__(self) -> str:
        return f"{self.path}: {self.found}"


_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)


def _what_is(folder: int, name: str, expected: str) -> str:
    """What the entry ``name`` of the open ``folder`` is, for a message: a link and where it points, or
    ``not <expected>``."""
    try:
        info = os.lstat(name, dir_fd=folder)
    except OSError:
        return f"not {expected}"
    if stat.S_ISLNK(info.st_mode):
        try:
            return f"a symbolic link (to {os.fsdecode(os.readlink(name, dir_fd=folder))})"
        except OSError:
            return "a symbolic link"
    return f"not {expected}"


def open_folder(root: PathLike, rel: str = "", make: bool = False) -> int:
    """A descriptor of the folder ``rel`` (``a/b``, relative) under the store's folder ``root``, every
    step below ``root`` opened without following a symbolic link (``root`` itself is what the user
    named, so a link there is followed), and made when missing with ``make``. The caller closes it.

    Raises ``FollowRefused`` naming the first step that is a link or not a folder, ``ValueError`` for a
    step ``..`` or ``.``, and ``OSError`` when a folder is missing (``make`` False) or cannot be made."""
    base = os.fsdecode(os.fspath(root))
    fd = os.open(base, _FOLDER_FLAGS)
    try:
        walked = base
        for part in (p for p in rel.split("/") if p):
            if part in (".", ".."):
                raise ValueError(f"{rel!r}: a path inside a store never climbs")
            walked = os.path.join(walked, part)
            if make:
                try:
                    os.mkdir(part, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass
            try:
                inner = os.open(part, _FOLDER_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as err:
                if err.errno in (errno.ENOTDIR, errno.ELOOP):
                    raise FollowRefused(walked, _what_is(fd, part, "a folder")) from None
                raise
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


@contextmanager
def creating_in(folder: int, name: str) -> Iterator[IO[bytes]]:
    """A new file ``name`` in the open ``folder`` (``open_folder``), written through the handle given:
    made exclusively under the temporary name ``<name>.tmp-<random>`` (``O_EXCL``, never following a
    link), renamed to ``name`` when the block succeeds (replacing the entry there, a link itself and
    never what it names) and removed when it does not.

    Raises ``OSError`` when the file cannot be made, written or renamed (a folder of that name)."""
    temp = f"{name}.tmp-{secrets.token_hex(16)}"
    refused = done = False  # as in ``replacing``: an interruption at any step finds the name known
    try:
        try:
            fd = os.open(temp, _NEW_FILE, 0o666, dir_fd=folder)
        except OSError:
            refused = True
            raise
        with os.fdopen(fd, "wb") as handle:
            yield handle
        os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
        done = True
    finally:
        if not done and not refused:
            try:
                os.unlink(temp, dir_fd=folder)
            except OSError:
                pass


def remove_in(folder: int, name: str, where: str) -> bool:
    """Remove the regular file ``name`` of the open ``folder`` (``where`` names it in messages);
    False when nothing is there. Removing never follows a link.

    Raises ``FollowRefused`` when ``name`` is a link or not a regular file (nothing is removed)."""
    try:
        info = os.lstat(name, dir_fd=folder)
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(info.st_mode):
        raise FollowRefused(where, _what_is(folder, name, "a file"))
    try:
        os.unlink(name, dir_fd=folder)
    except FileNotFoundError:
        return False
    return True
