"""Driving a pool of worker processes (``concurrent.futures.ProcessPoolExecutor``) from a command's main
thread so that Ctrl-C and SIGTERM always end it: the pool's calls run with the interruption deferred
(``submit``, ``wait_any``, ``result``, and ``get`` for a ``multiprocessing`` pool), and ``stop_now`` ends it at once after an interruption, a cancel
or a consumer that stops reading: the work not started is dropped and the workers are ended in the
middle of what they do, which holds nothing (a task's result is all it makes).

Why deferred: the interruption is an exception raised wherever the main thread is. Raised inside
``concurrent.futures.wait`` while it takes the locks of the futures one after the other, it left some of
them taken for good; the pool's own thread then waited forever for one of them as the pool ended, and
the interpreter's exit waited forever for that thread: the command hung after saying "terminated".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from typing import Any, TypeVar

from replay import exits

T = TypeVar("T")

#: How long a wait for a result lasts at most before an interruption noted meanwhile is raised (s).
POLL = 0.1


def submit(pool: Executor, fn: Callable[..., T], *args: Any) -> Future[T]:
    """``pool.submit(fn, *args)``, an interruption raised only once it returned (it starts a worker
    process when one is missing)."""
    with exits.signals_deferred():
        return pool.submit(fn, *args)


def wait_any(futures: Iterable[Future[Any]]) -> None:
    """Return once one of ``futures`` is done (at once when one already is). An interruption is raised
    within ``POLL`` seconds, between two waits, never while a future's lock is held."""
    futures = list(futures)
    while futures:
        with exits.signals_deferred():
            done, _ = wait(futures, timeout=POLL, return_when=FIRST_COMPLETED)
        if done:
            return


def result(future: Future[T]) -> T:
    """``future.result()``, waited for as ``wait_any`` waits: raises what the task raised."""
    wait_any([future])
    with exits.signals_deferred():
        return future.result()


def get(pending: Any) -> Any:
    """``pending.get()`` for a ``multiprocessing.pool.AsyncResult``, waited for as ``wait_any`` waits:
    raises what the task raised."""
    while True:
        with exits.signals_deferred():
            pending.wait(POLL)
            if pending.ready():
                return pending.get()


def stop_now(pool: ProcessPoolExecutor, grace: float = 1.0) -> None:
    """Drop ``pool``'s pending work and end its workers: SIGTERM (a worker's own handler may clean up,
    e.g. end the processes it started), then SIGKILL for one still alive after ``grace`` seconds.
    Returns once every worker is gone; the pool's manager thread then ends by itself. A further
    interruption meanwhile is raised once it is done.

    A worker ended while it wrote a result leaves half a message in the pool's result pipe. The
    manager thread then waits forever for the rest (and the interpreter's exit waits on that
    thread: the command hung after saying "interrupted"), because this process holds the pipe's
    write end too, so the pipe never reaches its end. Closing that end once every worker is gone
    turns the wait into an end of file, which the manager takes as a broken pool, and it ends."""
    with exits.signals_deferred():
        _stop_now(pool, grace)


def _stop_now(pool: ProcessPoolExecutor, grace: float) -> None:
    # Taken before the shutdown, which forgets them; Python 3.14 has kill_workers() for this.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    results = getattr(pool, "_result_queue", None)
    try:
        pool.shutdown(wait=False, cancel_futures=True)
    finally:
        for process in processes:
            try:
                process.terminate()
            except (OSError, ValueError, AttributeError):  # already gone, or never started
                pass
        for process in processes:
            try:
                process.join(timeout=grace)
                if process.is_alive():
                    process.kill()
                    process.join()
            except (OSError, ValueError, AttributeError, AssertionError):  # never started
                pass
        writer = getattr(results, "_writer", None)
        if writer is not None:
            writer.close()
