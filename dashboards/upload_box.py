"""One session's upload box: a folder of its own where the files of one upload arrive, a chunk at a
time, counted as they arrive against the limits of an upload (its files, games and bytes) and of the
server (the bytes every box holds on disk together), each checked once whole
(``dashboards.upload_files``). The route ``PUT /upload`` (``dashboards.upload_route``) fills it; the
Import page lists it and imports it (``dashboards.uploads``).
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
import threading
import weakref
from pathlib import Path
from typing import NoReturn

from dashboards.upload_files import (
    CHUNK,
    MAX_FILE_BYTES,
    MAX_GAMES,
    MAX_UPLOAD_BYTES,
    BytesSource,
    Refused,
    Source,
    Upload,
    check_declared,
    settle,
    too_large,
)

#: The most files one upload may take, accepted or refused.
MAX_FILES = 10_000
#: The longest uploaded file name kept (a longer one is cut: it is only ever displayed).
MAX_NAME_CHARS = 500
#: The most Streamlit's in-memory upload store may hold for all sessions together, and the most the
#: upload boxes of all sessions may hold on disk together.
MAX_HELD_BYTES = 1024 * 2**20


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
        item = BytesSource(*source) if isinstance(source, tuple) else source
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
            self.refuse(too_large(None), limit=True)
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
