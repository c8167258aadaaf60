"""ingest/locks.py: the one wait for a ``flock`` with a deadline, shared by the database's turnstile and
the lake's writer lock."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from ingest import locks


def _open(path: Path) -> int:
    # Two descriptions of one file conflict under flock even in one process.
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)


def test_a_free_lock_is_taken_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr(locks.time, "sleep", slept.append)
    fd = _open(tmp_path / "lock")
    try:
        assert locks.flock_until(fd, time.monotonic() + 60, pause=0.005, longest=0.05) is True
        assert slept == []
    finally:
        os.close(fd)


def test_a_held_lock_is_tried_again_with_doubling_pauses_until_the_deadline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    holder, waiter = _open(tmp_path / "lock"), _open(tmp_path / "lock")
    now = [100.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:  # a clock of the test's own: no real waiting, no timing
        slept.append(seconds)
        now[0] += seconds

    monkeypatch.setattr(locks.time, "sleep", sleep)
    monkeypatch.setattr(locks.time, "monotonic", lambda: now[0])
    try:
        assert locks.flock_until(holder, 0.0, pause=0.005, longest=0.05) is True
        assert locks.flock_until(waiter, 100.2, pause=0.005, longest=0.05) is False
        assert slept == pytest.approx([0.005, 0.01, 0.02, 0.04, 0.05, 0.05, 0.05])
        os.close(holder)  # let go: the next try takes it
        holder = -1
        assert locks.flock_until(waiter, 0.0, pause=0.05, longest=0.05) is True
    finally:
        for fd in (holder, waiter):
            if fd >= 0:
                os.close(fd)
