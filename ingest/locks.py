"""Waiting for an exclusive ``flock`` with a deadline: the database's turnstile (``ingest.db``) and the
lake's writer lock (``ingest.lake_write``) both wait this way."""

from __future__ import annotations

import fcntl
import time


def flock_until(fd: int, deadline: float, *, pause: float, longest: float) -> bool:
    """Take an exclusive ``flock`` on ``fd``, trying again while another process holds it: first after
    ``pause`` seconds, each pause twice the one before up to ``longest``, until ``time.monotonic()``
    reaches ``deadline``. Returns whether the lock is held (closing ``fd`` lets go of it).

    Raises ``OSError`` when the lock cannot be taken for another reason (a file system without
    ``flock``)."""
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            # Not fair but lock-free: a non-blocking try with pauses never hangs past the deadline,
            # where a blocking flock could only be cut short by a signal.
            if time.monotonic() >= deadline:
                return False
            time.sleep(pause)
            pause = min(pause * 2, longest)
