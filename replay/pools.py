"""Ending a pool of worker processes (``concurrent.futures.ProcessPoolExecutor``) at once, after an
interruption (Ctrl-C, SIGTERM), a cancel or a consumer that stops reading: the work not started is
dropped and the workers are ended in the middle of what they do, which holds nothing (a task's result
is all it makes).
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor


def stop_now(pool: ProcessPoolExecutor, grace: float = 1.0) -> None:
    """Drop ``pool``'s pending work and end its workers: SIGTERM (a worker's own handler may clean up,
    e.g. end the processes it started), then SIGKILL for one still alive after ``grace`` seconds.
    Returns once every worker is gone; the pool's manager thread then ends by itself.

    A worker ended while it wrote a result leaves half a message in the pool's result pipe. The
    manager thread then waits forever for the rest (and the interpreter's exit waits on that
    thread: the command hung after saying "interrupted"), because this process holds the pipe's
    write end too, so the pipe never reaches its end. Closing that end once every worker is gone
    turns the wait into an end of file, which the manager takes as a broken pool, and it ends."""
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
