"""Ending a pool of workers at once (``replay.pools.stop_now``)."""

from __future__ import annotations

import multiprocessing
import os
import struct
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from replay import pools

#: The pool under test, as its forked worker inherits it: the task writes into its result pipe.
_POOL: ProcessPoolExecutor | None = None


def _half_a_result(marker: str) -> None:
    """In the worker: write the first half of a result message (its length says 100 bytes, 10 come),
    as a worker ended in the middle of sending its result leaves it, then wait to be ended."""
    assert _POOL is not None
    writer = _POOL._result_queue._writer  # type: ignore[attr-defined]
    os.write(writer.fileno(), struct.pack("!i", 100) + b"x" * 10)
    Path(marker).touch()
    time.sleep(60)


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + 30
    while not path.exists():
        assert time.monotonic() < deadline, "the worker never started its task"
        time.sleep(0.02)


def test_a_worker_ended_while_it_sent_a_result_does_not_hang_the_pool(tmp_path: Path) -> None:
    """The pool's manager thread, left reading the rest of a half-sent result, ends once the pool is
    stopped: before, it waited for ever, and so did the interpreter's exit ("interrupted", then a hang)."""
    global _POOL
    marker = tmp_path / "sent"
    _POOL = pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
    future = pool.submit(_half_a_result, str(marker))
    manager = pool._executor_manager_thread  # type: ignore[attr-defined]
    results = pool._result_queue  # type: ignore[attr-defined]
    worker = next(iter(pool._processes.values()))  # type: ignore[attr-defined]
    try:
        _wait_for(marker)
        time.sleep(0.2)  # the manager thread is inside the read of the rest
        pools.stop_now(pool)
        manager.join(timeout=10)
        assert not manager.is_alive()
        assert not worker.is_alive()
        assert future.cancelled() or future.exception() is not None
    finally:
        _POOL = None
        if manager.is_alive():  # the code under test failed: let the thread (and pytest's exit) end
            results._writer.close()
            worker.kill()
            manager.join(timeout=10)


def test_stopping_a_pool_that_never_started_a_worker_is_quiet() -> None:
    pool = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork"))
    pools.stop_now(pool)
    assert pool._processes is None or pool._processes == {}  # type: ignore[attr-defined]
