"""The frames the arena and an agent host exchange over their two pipes: a 4-byte length, then the
bytes. The arena sends pickles (its own plain data: the view, the legal moves); a host answers in
JSON only, so that nothing an agent makes is ever unpickled, or even built as an object, in the arena.

Both sides of the blocking helpers here are the host's; the arena reads and writes with deadlines
(``play.hosted``).
"""

from __future__ import annotations

import os
import struct

#: The length prefix of every frame.
HEADER = struct.Struct("!I")
#: The largest answer a host may send (bytes): a longer one is a broken host, not a move.
MAX_ANSWER = 1 << 20


def frame(data: bytes) -> bytes:
    """``data`` with its length in front."""
    return HEADER.pack(len(data)) + data


def write_frame(fd: int, data: bytes) -> None:
    """Write one frame to ``fd`` (blocking). Raises ``OSError`` (``BrokenPipeError`` when the reader
    is gone)."""
    view = memoryview(frame(data))
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _read_exactly(fd: int, count: int) -> bytes | None:
    chunks = []
    while count:
        chunk = os.read(fd, min(count, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> bytes | None:
    """The next frame from ``fd`` (blocking), or None once the writer is gone. Raises ``OSError``."""
    head = _read_exactly(fd, HEADER.size)
    if head is None:
        return None
    (size,) = HEADER.unpack(head)
    return _read_exactly(fd, size) if size else b""
