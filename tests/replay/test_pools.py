"""Driving a pool of workers so that an interruption always ends it (``replay.pools``): waits that never
leave a future's lock taken, and ending a pool at once (``stop_now``)."""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import os
import signal
import struct
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

import pytest

from replay import exits, pools

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


class _SignallingLock:
    """A future's lock that sends this process SIGTERM just after it is taken for the third time: the
    signal's handler then runs at the next check of the interpreter, inside whatever took the lock."""

    def __init__(self, calls: list[int]) -> None:
        self.lock, self.calls = threading.Lock(), calls

    def acquire(self, *args: Any) -> bool:
        taken = self.lock.acquire(*args)
        self.calls[0] += 1
        if self.calls[0] == 3:
            signal.raise_signal(signal.SIGTERM)
        return taken

    def release(self) -> None:
        self.lock.release()

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()

    def locked(self) -> bool:
        return self.lock.locked()


@pytest.fixture
def command_handlers() -> Iterator[None]:
    """The handlers a command runs with (``exits.stop_on_sigterm``), put back after the test."""
    saved = exits.current_handlers()
    exits.stop_on_sigterm()
    try:
        yield
    finally:
        exits.restore_handlers(saved)


def _pending_futures(count: int) -> tuple[list[Future[Any]], list[_SignallingLock]]:
    calls = [0]
    futures: list[Future[Any]] = []
    locks = []
    for _ in range(count):
        future: Future[Any] = Future()
        lock = _SignallingLock(calls)
        future._condition = threading.Condition(lock)  # type: ignore[attr-defined]
        futures.append(future)
        locks.append(lock)
    return futures, locks


@pytest.mark.parametrize("waits", [pools.wait_any, lambda futures: pools.result(futures[0])],
                         ids=["wait_any", "result"])
def test_sigterm_while_waiting_leaves_no_lock_of_the_pool_taken(command_handlers: None,
                                                                waits: Callable[[list[Future[Any]]], Any]) -> None:
    """SIGTERM that comes while the wait takes the futures' locks one after the other is raised once the
    wait let them go. Raised where it came (``concurrent.futures.wait``), it left the locks taken for
    good: the pool's own thread then waited for one of them forever as the pool ended, and so did the
    command's exit, after it had said "terminated"."""
    futures, locks = _pending_futures(6)
    started = time.monotonic()
    with pytest.raises(exits.Terminated):
        waits(futures)
    assert time.monotonic() - started < 2 * pools.POLL + 1
    assert [lock.locked() for lock in locks] == [False] * 6


def test_the_plain_wait_leaves_locks_taken(command_handlers: None) -> None:
    """The failure the test above guards against, shown with ``concurrent.futures.wait`` itself (so that
    the test above would see it, should ``pools`` stop deferring the interruption)."""
    futures, locks = _pending_futures(6)
    with pytest.raises(exits.Terminated):
        wait(futures, timeout=5)
    assert any(lock.locked() for lock in locks)
    for lock in locks:
        if lock.locked():
            lock.release()


def test_wait_any_returns_once_one_future_is_done() -> None:
    futures: list[Future[int]] = [Future(), Future()]
    threading.Timer(0.3, futures[1].set_result, (7,)).start()
    pools.wait_any(futures)
    assert [f.done() for f in futures] == [False, True]
    assert pools.result(futures[1]) == 7
    failed: Future[int] = Future()
    failed.set_exception(ValueError("no"))
    with pytest.raises(ValueError, match="^no$"):
        pools.result(failed)


def _slow_double(x: int) -> int:
    time.sleep(0.3)
    if x < 0:
        raise ValueError(f"negative: {x}")
    return 2 * x


def test_get_waits_for_a_multiprocessing_result_and_raises_its_error() -> None:
    with multiprocessing.pool.ThreadPool(2) as pool:
        assert pools.get(pool.apply_async(_slow_double, (21,))) == 42
        with pytest.raises(ValueError, match="^negative: -1$"):
            pools.get(pool.apply_async(_slow_double, (-1,)))
