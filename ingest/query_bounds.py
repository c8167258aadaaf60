"""What bounds a ``governor query`` run: its connection's settings, its memory, its spill folders on disk,
and its statement run in a thread of its own so that Ctrl-C and SIGTERM stop it at once."""

from __future__ import annotations

import gc
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from replay import exits

#: What one query may use: DuckDB's memory (past it, the query fails with one line, exit status 1)
#: and its spill space on disk, in a temporary folder of its own (named with ``SPILL_PREFIX`` and the
#: process id; ``lock_down`` points DuckDB at it, ``clean_stale_spill`` removes those of processes gone).
QUERY_MEMORY_LIMIT = "1GiB"
QUERY_SPILL_LIMIT = "8GiB"
#: What the whole command may use, DuckDB's memory included: the process may take this much more than
#: it held when the query began (``memory_bound``), so ``governor query`` stays under ``QUERY_TOTAL_MEMORY``
#: (the interpreter and its libraries take about 150 MB); past it the query ends with one line, status 1.
MIB = 1024 * 1024
QUERY_PROCESS_MEMORY = 1536 * MIB
QUERY_TOTAL_MEMORY = "2 GiB"
#: The connection cannot reach files or the network, and its settings are locked (last, once the
#: bounds above are set): even a statement that slipped past the command's read-only check of its text
#: (``ingest.query.check_read_only``) could write nothing but its result, nor lift its bounds.
QUERY_CONFIG = {"enable_external_access": False, "lock_configuration": True}
#: After Ctrl-C or SIGTERM, how long (seconds) a query is given to stop before the process leaves anyway.
STOP_GRACE = 1.0
#: The spill folders' names: ``governor-query-<pid>-<random>`` in the system's temporary folder.
SPILL_PREFIX = "governor-query-"


def query_config(lake: bool) -> dict[str, Any]:
    """The settings a ``governor query`` connection opens with: its bounds. A lake's connection
    (``ingest.lake_read``) applies them with ``SET`` in this order, the lock last; a database file's gets the
    rest from ``lock_down`` (DuckDB refuses a ``temp_directory`` once external access is off, even in
    the same config)."""
    bounds: dict[str, Any] = {"memory_limit": QUERY_MEMORY_LIMIT, "max_temp_directory_size": QUERY_SPILL_LIMIT}
    if lake:
        return {**bounds, "enable_progress_bar": False, **QUERY_CONFIG}
    return bounds


def lock_down(con: Any, spill: str) -> None:
    """Spill to the folder ``spill``, no progress bar drawn on the terminal, no file access, and the
    settings locked, in that order."""
    con.execute("SET temp_directory = ?", [spill])
    con.execute("SET enable_progress_bar = false")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


# -- spill space -------------------------------------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process: alive
    return True


def clean_stale_spill(folder: str | None = None) -> int:
    """Remove the spill folders of ``governor query`` runs whose process is gone (killed, so never
    cleaned), among this user's in ``folder`` (the system's temporary folder). Returns how many."""
    folder = folder or tempfile.gettempdir()
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        found = re.fullmatch(re.escape(SPILL_PREFIX) + r"(\d+)-.*", entry.name)
        if found is None or int(found.group(1)) == os.getpid():
            continue
        try:
            if entry.stat(follow_symlinks=False).st_uid != os.getuid() or not entry.is_dir(follow_symlinks=False):
                continue
        except OSError:
            continue
        if not _alive(int(found.group(1))):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed += 1
    return removed


def in_thread(work: Callable[[], Any], stop: Callable[[], None], ended: threading.Event | None = None) -> Any:
    """Run ``work`` in a thread and wait for it, so that Ctrl-C and SIGTERM reach this (main) thread
    at once even while DuckDB runs a long statement (which does not look at signals when it is not in
    the main thread): on one, ``stop`` interrupts DuckDB, the thread gets ``STOP_GRACE`` seconds to end,
    and the interruption goes on (a ``KeyboardInterrupt``). ``ended`` is set as the thread's last step:
    after an interruption, the caller tells by it whether DuckDB is still at work. Returns, or raises,
    what ``work`` does."""
    ended = threading.Event() if ended is None else ended
    outcome: dict[str, Any] = {}
    guard = threading.Lock()
    abandoned = False

    def target() -> None:
        try:
            try:
                value = work()
            except BaseException as err:  # handed over to the main thread
                with guard:
                    if not abandoned:
                        outcome["error"] = err
                return
            with guard:
                if not abandoned:
                    outcome["value"] = value
        finally:
            ended.set()

    thread = threading.Thread(target=target, name="governor-query", daemon=True)
    thread.start()
    try:
        # An event, not ``Thread.join``: a join that Ctrl-C interrupts marks the thread as ended while it
        # still runs (Python 3.11's ``threading`` then releases the lock the running thread holds), so
        # ``is_alive()`` said False and the process went on to exit with DuckDB at work, which aborts it.
        while not ended.wait(0.05):
            # A signal whose exception Python swallowed (one met while a module loaded) stops it too.
            exits.raise_if_signalled()
    except KeyboardInterrupt:
        stop()
        ended.wait(STOP_GRACE)
        # The query's error holds its result reader, which keeps the connection busy until dropped:
        # nothing the thread ends with is kept, even when it ends after the grace (a busy machine).
        with guard:
            abandoned = True
            outcome.clear()
        gc.collect()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


# -- the bound of the whole command ---------------------------------------------------------------


def _data_size() -> int | None:
    """This process's data in bytes (``VmData``, what ``RLIMIT_DATA`` counts), or None where
    ``/proc`` cannot tell."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


@contextmanager
def memory_bound(extra: int) -> Iterator[None]:
    """While the block runs, this process may take at most ``extra`` bytes more data than it holds now
    (its soft ``RLIMIT_DATA``, put back afterwards): an allocation past it fails (DuckDB's "Out of
    Memory Error", Python's ``MemoryError``) instead of taking the machine's memory. DuckDB's own memory
    limit covers only its buffers, not every list it builds nor the result once converted. Does nothing
    where the limit cannot be set (no ``/proc``, not Linux)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    used = _data_size()
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        bound = None if used is None else used + extra
        if bound is not None:
            bound = min([bound] + [lim for lim in (soft, hard) if lim != resource.RLIM_INFINITY])
            resource.setrlimit(resource.RLIMIT_DATA, (bound, hard))
    except (ValueError, OSError):
        bound = None
    try:
        yield
    finally:
        if bound is not None:
            resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))
