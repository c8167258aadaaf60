"""Running a visitor's SQL against the database, read-only and fenced in.

Layers, each enough on its own for some attacks and together for all we know of:

1. Only one statement, and it must be a read: a query (``SELECT``, ``WITH``, ``FROM``, ``VALUES``,
   ``PIVOT``, ``UNPIVOT``, ``DESCRIBE``, ``SHOW``, ``SUMMARIZE``) or a plain ``EXPLAIN`` of one.
   ``COPY``, ``ATTACH``, ``INSTALL``/``LOAD``, ``SET``, ``PRAGMA``, ``CREATE``/``INSERT``/``DROP``,
   ``EXPLAIN ANALYZE`` and the like are refused before they reach DuckDB.
2. The connection is read-only and configured with ``READ_CONFIG``: no file, network or extension
   access beyond the database itself (``read_csv('/etc/passwd')`` fails), and the configuration is
   locked so a statement cannot loosen it.
3. The query runs in a child process of its own, with its address space capped
   (``RLIMIT_AS``) and DuckDB's ``memory_limit`` inside that; the process is killed at the time limit
   or when the caller cancels. A killed process frees its memory and its read lock on the file at
   once, so an import can start right after.
4. The whole result comes back only up to ``download_bytes``; at most ``max_rows`` rows of it are
   meant for display.

The text itself is hostile too: one longer than ``MAX_SQL_CHARS`` is refused unread, and even a
short one is parsed (``dashboards.sql_check``) only inside the query's process (a few kilobytes of
nested parentheses make DuckDB's parser take megabytes). What a query spills to disk goes to a folder
of its own (``dashboards.sql_spill.spill_root``), at most ``spill_mb`` MiB, removed when the query ends
or is killed; folders left by a dashboard process that died are removed by the next query.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import resource
import shutil
import signal
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from dashboards.sql_check import SandboxError, check_length, check_statement, first_line
from dashboards.sql_spill import remove_stale_spills, spill_root
from ingest.db import DatabaseError, reader

#: The configuration of every connection the dashboard opens. The dashboard process uses one
#: configuration for all its connections because DuckDB refuses a second connection to the same
#: file with a different one (the sandbox's child processes add their own memory limit).
READ_CONFIG: dict[str, Any] = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "lock_configuration": True,
    "memory_limit": "2GB",
}

DEFAULT_TIMEOUT = 10.0
#: Environment variable that sets the SQL page's time limit in seconds (default ``DEFAULT_TIMEOUT``).
TIMEOUT_VARIABLE = "GOVERNOR_SQL_TIMEOUT"
DEFAULT_MAX_ROWS = 5_000
#: DuckDB's own memory limit inside a query's process, in MiB.
DEFAULT_MEMORY_MB = 1024
#: The largest whole result (Arrow bytes in memory) kept for download; past it only the first rows return.
DEFAULT_DOWNLOAD_BYTES = 50 * 2**20
#: Address space a query's process may add on top of what it holds when it starts, per MiB of
#: DuckDB memory limit and fixed (thread stacks, allocator arenas, the Arrow copy of the result).
_ADDRESS_SPACE_FACTOR = 2
_ADDRESS_SPACE_FIXED = 512 * 2**20
#: Disk a query may fill with what it spills (sorts, joins, aggregates larger than its memory), in MiB.
DEFAULT_SPILL_MB = 2048
#: Address space the parse of a query's text may add (a text at the length limit needs about 400 MB).
_PARSE_BYTES = 1536 * 2**20
#: How often the caller's ``on_wait`` is called while a query runs, in seconds.
_POLL = 0.1


@dataclass(frozen=True)
class SandboxResult:
    """A query's rows: ``table`` holds at most ``max_rows`` of them for display, ``truncated`` says
    whether more exist; ``whole`` is the entire result when it fits in the download limit (else
    None); ``rows`` counts the rows read (all of them when ``whole`` is set, else a lower bound)."""

    table: pa.Table
    truncated: bool
    seconds: float
    whole: pa.Table | None = None
    rows: int = 0


def page_timeout() -> float:
    """The SQL page's time limit: ``$GOVERNOR_SQL_TIMEOUT`` seconds when set to a positive number,
    else ``DEFAULT_TIMEOUT``."""
    try:
        value = float(os.environ.get(TIMEOUT_VARIABLE, ""))
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if value > 0 else DEFAULT_TIMEOUT


def run_sandboxed(
    db_path: str | Path,
    sql: str,
    timeout: float | None = None,
    max_rows: int = DEFAULT_MAX_ROWS,
    *,
    memory_mb: int = DEFAULT_MEMORY_MB,
    download_bytes: int = DEFAULT_DOWNLOAD_BYTES,
    spill_mb: int = DEFAULT_SPILL_MB,
    on_wait: Callable[[float], bool | None] | None = None,
) -> SandboxResult:
    """Run one read query in a child process on a read-only, locked-down connection, within
    ``timeout`` seconds (default: ``page_timeout()``) and ``memory_mb`` MiB of DuckDB memory (the process's address space is capped
    too), keeping the whole result when it fits in ``download_bytes``. The text is checked
    (``check_statement``) in that process; what the query spills goes to a folder of its own under
    ``spill_root(db_path)``, at most ``spill_mb`` MiB, removed on the way out.

    ``on_wait(seconds_so_far)`` is called about every 0.1 s while the query runs: returning False
    cancels the query, and an exception it raises (a Streamlit rerun, say) kills the query and
    propagates. The child process is always gone, with its lock on the file, when this returns.

    Raises ``SandboxError`` when the query is too long, refused, fails in DuckDB (including access
    to files or extensions, which the configuration forbids), needs more memory or spill space than
    allowed, is cancelled, or is still running at the time limit."""
    check_length(sql)
    timeout = page_timeout() if timeout is None else timeout
    root = spill_root(db_path)
    remove_stale_spills(root)
    spill = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=root))
    receiver, sender = _context().Pipe(duplex=False)
    process = _context().Process(
        target=_run_child,
        args=(sender, str(db_path), sql, memory_mb, download_bytes, max_rows, timeout, str(spill), spill_mb),
        name="sql-sandbox",
        daemon=True,
    )
    opened = locked = False
    try:
        process.start()
        sender.close()
        # The clock starts once the process exists: the first query of a dashboard process also
        # starts the fork server, which is not the query's time.
        started = time.monotonic()
        deadline = started + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                if opened or not locked:
                    raise SandboxError(f"The query was stopped after the time limit of {timeout:g} s.")
                raise SandboxError(
                    f"The database stayed locked by a writer (an import) for the whole time limit of {timeout:g} s; "
                    "run the query again when the import has finished."
                )
            if receiver.poll(min(_POLL, remaining)):
                try:
                    message = receiver.recv()
                except EOFError:
                    process.join(1.0)
                    raise SandboxError(_death(process.exitcode, memory_mb)) from None
                if message[0] in ("open", "locked"):
                    opened = opened or message[0] == "open"
                    locked = locked or message[0] == "locked"
                    continue
                return _result(message, started, max_rows, memory_mb)
            if on_wait is not None and on_wait(time.monotonic() - started) is False:
                raise SandboxError(f"The query was cancelled after {time.monotonic() - started:.1f} s.")
    finally:
        receiver.close()
        if process.is_alive():
            process.kill()
        if process.pid is not None:
            process.join()
            process.close()
        # After the join: the process that wrote the spill files is gone.
        shutil.rmtree(spill, ignore_errors=True)


def _result(message: tuple[Any, ...], started: float, max_rows: int, memory_mb: int) -> SandboxResult:
    seconds = time.monotonic() - started
    if message[0] == "memory":
        raise SandboxError(_memory_text(memory_mb, message[1]))
    if message[0] == "error":
        raise SandboxError(message[1])
    _kind, table, complete, rows = message
    whole = table if complete else None
    return SandboxResult(
        table=table.slice(0, max_rows), truncated=rows > max_rows, seconds=seconds, whole=whole, rows=rows
    )


def _memory_text(memory_mb: int, detail: str = "") -> str:
    text = (
        f"The query needed more memory than its limit of {memory_mb:,} MB and was stopped: "
        "aggregate, filter or add a LIMIT."
    )
    return f"{text} ({detail})" if detail else text


def _death(exitcode: int | None, memory_mb: int) -> str:
    if exitcode is not None and exitcode < 0:
        name = signal.Signals(-exitcode).name if -exitcode in signal.valid_signals() else str(-exitcode)
        if -exitcode in (signal.SIGKILL, signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS):
            return _memory_text(memory_mb, f"its process ended on {name}")
        return f"The query's process ended on {name}."
    return f"The query's process ended without an answer (exit code {exitcode})."


_CONTEXT: Any = None


def _context() -> Any:
    """The multiprocessing context of the query processes: a fork server, started once, that has
    imported DuckDB and Arrow, so a query's process starts in a few milliseconds; forking the
    dashboard itself would copy its threads' locks in whatever state they are."""
    global _CONTEXT
    if _CONTEXT is None:
        context = mp.get_context("forkserver")
        # "__main__" too: the server imports the main script once, and its children, seeing it
        # imported, do not run it again for every query (multiprocessing's spawn preparation).
        # ingest.lake_read is what ingest.db.reader imports on each call: seconds a query should not pay.
        context.set_forkserver_preload(["__main__", "dashboards.sql_sandbox", "ingest.lake_read"])
        _CONTEXT = context
    return _CONTEXT


def _address_space() -> int:
    """The address space this process holds now, in bytes."""
    with open("/proc/self/status", encoding="ascii") as status:
        return next((int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:")), 0)


def _cap_address_space(memory_mb: int) -> None:
    """Cap this process's address space at what it holds now plus room for ``memory_mb`` of DuckDB
    memory, so that no query can take the machine's memory, whatever DuckDB's own accounting says."""
    cap = _address_space() + _ADDRESS_SPACE_FACTOR * memory_mb * 2**20 + _ADDRESS_SPACE_FIXED
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _run_child(
    pipe: Connection, db_path: str, sql: str, memory_mb: int, download_bytes: int, max_rows: int, timeout: float,
    spill: str, spill_mb: int,
) -> None:
    """The query process: check the text, open, run, send the result (or why it failed) back
    through ``pipe``."""
    try:
        threads = min(4, os.cpu_count() or 1)
        # A backstop should the dashboard die without killing this process: it cannot run for ever.
        cpu = int(timeout * threads) + 30
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
        # The parse has a cap of its own (the soft limit, raised again below): nested parentheses
        # take about 3 KB each, and the parser's DuckDB instance reserves address space of its own.
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (_address_space() + _PARSE_BYTES, hard))
        query = check_statement(sql)
        _cap_address_space(memory_mb)
        # Few threads: each reserves address space (stack, allocator arena) that counts against the cap.
        config = {**READ_CONFIG, "memory_limit": f"{memory_mb}MB", "threads": threads,
                  "temp_directory": spill, "max_temp_directory_size": f"{spill_mb}MB"}
        try:
            duckdb.connect(db_path, read_only=True, config=config).close()
        except duckdb.Error as err:
            if "lock" in str(err).lower():  # a writer has the file: reader() waits for it
                pipe.send(("locked",))
        with reader(db_path, timeout=timeout, config=config) as con:
            pipe.send(("open",))
            relation = con.sql(query)
            if relation is None:  # a statement without a result
                pipe.send(("done", pa.table({}), True, 0))
                return
            batches = []
            size = rows = 0
            complete = True
            arrow = relation.to_arrow_reader(batch_size=65536)
            for batch in arrow:
                batches.append(batch)
                size += batch.nbytes
                rows += batch.num_rows
                if size > download_bytes:
                    complete = False
                    break
            table = pa.Table.from_batches(batches, schema=arrow.schema)
            if not complete:
                table = table.slice(0, max_rows)
            pipe.send(("done", table, complete, rows))
    except SandboxError as err:
        pipe.send(("error", str(err)))
    except (duckdb.OutOfMemoryException, MemoryError, pa.ArrowMemoryError) as err:
        text = first_line(err)
        if "offload" in text.lower() or "max_temp_directory_size" in text:  # the spill folder is full
            pipe.send(("error", f"The query spilled more to disk than its limit of {spill_mb:,} MB and was stopped: "
                                f"aggregate, filter or add a LIMIT. ({text})"))
        else:
            pipe.send(("memory", text))
    except duckdb.Error as err:
        pipe.send(("error", _explain(err)))
    except DatabaseError as err:
        pipe.send(("error", str(err)))
    except Exception as err:  # anything else is reported, not raised in a process nobody watches
        pipe.send(("error", f"The query failed: {type(err).__name__}: {first_line(err)}"))
    finally:
        pipe.close()


def _explain(err: duckdb.Error) -> str:
    text = first_line(err)
    lowered = text.lower()
    if "external access" in lowered or "disabled by configuration" in lowered:
        return f"Files, the network and extensions are off limits on this page: {text}"
    if "interrupt" in lowered:
        return "The query was interrupted."
    return f"The query failed: {text}"


