"""Where an import's tasks run: in this process, in a pool of local processes, or on a Dask or Ray
cluster. An executor knows nothing of stores: it runs ``task(item, shared)`` for each item and yields
the results in the order of the items, with a bounded number in flight, so that neither the items read
ahead nor the results waiting to be committed pile up in memory. ``shared`` (the games already stored,
which every task checks copies against) is handed to each worker once: inherited by forked processes,
scattered to Dask workers, put in Ray's object store.
"""

from __future__ import annotations

import gc
import multiprocessing as mp
import os
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from replay import exits, pools

#: How many times a cluster engine runs a task again when its worker dies.
RETRIES = 3
#: The cluster engine ``--cluster local`` starts (chosen by measurement, docs/scaling.md).
LOCAL_ENGINE = "dask"

Task = Callable[[Any, Any], Any]
#: Runs a task over items: results in the items' order.
Run = Callable[[Task, Iterator[Any]], Iterator[Any]]


class ExecutorError(Exception):
    """The executor cannot start: a cluster engine that is not installed, or an unknown ``--cluster``."""


_SHARED: Any = None


def _init_worker(shared: Any) -> None:
    global _SHARED
    _SHARED = shared
    exits.worker_leaves_stopping_to_driver()
    # A replay allocates many small containers that live only for a move; the default thresholds run
    # the cycle collector every few hundred allocations for nothing (measured: 10% of import time).
    gc.set_threshold(50_000, 20, 100)


def _call(task: Task, item: Any) -> Any:
    return task(item, _SHARED)


def _call_with(task: Task, item: Any, shared: Any) -> Any:
    return task(item, shared)


@contextmanager
def inline(shared: Any) -> Iterator[Run]:
    """Every task in this process, one after the other."""
    global _SHARED
    _SHARED = shared
    gc.set_threshold(50_000, 20, 100)

    def run(task: Task, items: Iterator[Any]) -> Iterator[Any]:
        for item in items:
            yield task(item, shared)

    yield run


@contextmanager
def processes(shared: Any, workers: int, depth: int) -> Iterator[Run]:
    """A pool of ``workers`` local processes (forked where the system can), ``depth`` tasks in flight
    per worker."""
    ctx = mp.get_context("fork") if hasattr(os, "fork") else mp.get_context()
    pool = None
    try:
        # An interruption waits until the pool is made, so that the pool is always ended.
        with exits.signals_held():
            pool = ctx.Pool(workers, initializer=_init_worker, initargs=(shared,))
        started = pool

        def run(task: Task, items: Iterator[Any]) -> Iterator[Any]:
            pending: deque[Any] = deque()
            for item in items:
                pending.append(started.apply_async(_call, (task, item)))
                if len(pending) >= depth * workers:
                    yield pools.get(pending.popleft())
            while pending:
                yield pools.get(pending.popleft())

        yield run
    finally:
        if pool is not None:
            pool.terminate()
    # Every task done: an interruption Python swallowed as the pool ended (met in a ``__del__`` of its
    # pipes) stops the command here, before whatever it does next.
    exits.raise_if_signalled()


@contextmanager
def dask(shared: Any, address: str | None, workers: int, depth: int) -> Iterator[Run]:
    """A Dask cluster at ``address`` (``None``: a local one of ``workers`` processes, started here).
    Raises ``ExecutorError`` when Dask's ``distributed`` is not installed."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ExecutorError("--cluster dask needs the cluster extra: pip install 'governor[cluster]'") from None
    cluster = None
    if address is None:
        # No dashboard; the scheduler's own HTTP server (health, metrics) on a free local port, not on
        # 8787, which another local cluster (another command) may hold.
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                               scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
        client = Client(cluster)
    else:
        client = Client(address if "://" in address else f"tcp://{address}")
    try:
        # A list of one: a set itself would be scattered item by item.
        [shared_ref] = client.scatter([shared], broadcast=True)

        def run(task: Task, items: Iterator[Any]) -> Iterator[Any]:
            limit = depth * max(1, len(client.scheduler_info().get("workers", {})) or workers)
            pending: deque[Any] = deque()
            for item in items:
                pending.append(client.submit(_call_with, task, item, shared_ref, retries=RETRIES, pure=False))
                if len(pending) >= limit:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()

        yield run
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


@contextmanager
def ray(shared: Any, address: str | None, workers: int, depth: int) -> Iterator[Run]:
    """A Ray cluster at ``address`` (``None``: a local one of ``workers`` CPUs, started here). Raises
    ``ExecutorError`` when Ray is not installed."""
    try:
        import ray as ray_module
    except ImportError:
        raise ExecutorError("--cluster ray needs Ray: pip install 'ray[default]'") from None
    if address is None:
        ray_module.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    else:
        ray_module.init(address=f"ray://{address}", log_to_driver=False)
    try:
        remote = ray_module.remote(max_retries=RETRIES, num_cpus=1)(_call_with)
        shared_ref = ray_module.put(shared)

        def run(task: Task, items: Iterator[Any]) -> Iterator[Any]:
            pending: deque[Any] = deque()
            for item in items:
                pending.append(remote.remote(task, item, shared_ref))
                if len(pending) >= depth * workers:
                    yield ray_module.get(pending.popleft())
            while pending:
                yield ray_module.get(pending.popleft())

        yield run
    finally:
        ray_module.shutdown()


def executor(cluster: str | None, workers: int, shared: Any, depth: int) -> Any:
    """The context manager running tasks: in this process (one worker), a local process pool, or a
    cluster (``local`` starts one of ``LOCAL_ENGINE`` here; ``dask://ADDR`` and ``ray://ADDR`` join one,
    and ``dask://local`` / ``ray://local`` start that engine locally). ``depth``: tasks in flight per
    worker. Raises ``ExecutorError`` for a ``cluster`` it does not know."""
    if cluster is None:
        return inline(shared) if workers <= 1 else processes(shared, workers, depth)
    if cluster == "local":
        cluster = f"{LOCAL_ENGINE}://local"
    scheme, _, address = cluster.partition("://")
    target = None if address in ("", "local") else address
    if scheme == "dask":
        return dask(shared, target, workers, depth)
    if scheme == "ray":
        return ray(shared, target, workers, depth)
    raise ExecutorError(f"--cluster expects local, dask://ADDR or ray://ADDR, not {cluster!r}")
