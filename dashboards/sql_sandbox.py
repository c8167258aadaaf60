"""Running a visitor's SQL against the database, read-only and fenced in.

Layers, each enough on its own for some attacks and together for all we know of:

1. Only one statement, and it must parse as a read (``SELECT``, ``WITH``, ``FROM``, ``VALUES``,
   ``DESCRIBE``, ``SHOW``, ``SUMMARIZE``): ``COPY``, ``ATTACH``, ``INSTALL``/``LOAD``, ``SET``,
   ``PRAGMA``, ``CREATE``/``INSERT``/``DROP`` and the like are refused before they reach DuckDB.
2. The connection is read-only and configured with ``READ_CONFIG``: no file, network or extension
   access beyond the database itself (``read_csv('/etc/passwd')`` fails), and the configuration is
   locked so a statement cannot loosen it.
3. At most ``max_rows`` rows come back, and a query still running after ``timeout`` seconds is
   interrupted.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from ingest.db import DatabaseError, reader

#: The configuration of every connection the dashboard opens. The dashboard process uses one
#: configuration for all its connections because DuckDB refuses a second connection to the same
#: file with a different one.
READ_CONFIG: dict[str, Any] = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "lock_configuration": True,
    "memory_limit": "2GB",
}

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_ROWS = 5_000

_READ_TYPES = frozenset({duckdb.StatementType.SELECT})


class SandboxError(Exception):
    """The query was refused, failed, or ran out of time; the message says which and why."""


@dataclass(frozen=True)
class SandboxResult:
    """Rows of a query (at most ``max_rows``), whether more were cut off, and the time it took."""

    table: pa.Table
    truncated: bool
    seconds: float


def check_statement(sql: str) -> str:
    """The one read statement in ``sql``, or ``SandboxError`` saying why it is refused.

    Raises ``SandboxError`` for empty input, a syntax error, several statements, or any statement
    that is not a read."""
    if not sql or not sql.strip():
        raise SandboxError("Enter a query: one SELECT (or WITH ... SELECT) statement.")
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as err:
        raise SandboxError(f"The query does not parse: {_first_line(err)}") from None
    if not statements:
        raise SandboxError("Enter a query: one SELECT (or WITH ... SELECT) statement.")
    if len(statements) > 1:
        raise SandboxError(
            f"Only one statement is allowed; this input holds {len(statements)}. Remove the extra ';' statements."
        )
    statement = statements[0]
    if statement.type not in _READ_TYPES:
        kind = statement.type.name.replace("_", " ")
        raise SandboxError(
            f"Refused: {kind} statement. Only read queries (SELECT, WITH, FROM, VALUES, DESCRIBE, SHOW) "
            "are allowed; the SQL page cannot change the database, its settings, files or extensions."
        )
    return _strip_trailing_semicolons(statement.query)


def _strip_trailing_semicolons(text: str) -> str:
    """The statement without the ``;`` (and any comments after it) that ends it: the relational API,
    which caps the rows, takes one statement without a terminator."""
    cut = text.rfind(";")
    while cut >= 0:
        try:
            rest = duckdb.extract_statements(text[cut + 1 :])
        except duckdb.Error:
            return text
        if rest:
            return text
        text = text[:cut]
        cut = text.rfind(";")
    return text


def run_sandboxed(
    db_path: str | Path,
    sql: str,
    timeout: float = DEFAULT_TIMEOUT,
    max_rows: int = DEFAULT_MAX_ROWS,
) -> SandboxResult:
    """Run one read query on a read-only, locked-down connection, within ``timeout`` seconds and
    returning at most ``max_rows`` rows.

    Raises ``SandboxError`` when the query is refused, fails in DuckDB (including access to files or
    extensions, which the configuration forbids), or is interrupted at the time limit."""
    query = check_statement(sql)
    started = time.monotonic()
    outcome: dict[str, Any] = {}
    try:
        with reader(db_path, config=READ_CONFIG) as con:

            def work() -> None:
                try:
                    outcome["table"] = con.sql(query).limit(max_rows + 1).to_arrow_table()
                except BaseException as err:  # handed to the caller's thread
                    outcome["error"] = err

            thread = threading.Thread(target=work, name="sql-sandbox", daemon=True)
            thread.start()
            thread.join(timeout)
            timed_out = thread.is_alive()
            if timed_out:
                con.interrupt()
                thread.join(5.0)
    except DatabaseError as err:
        raise SandboxError(str(err)) from None
    seconds = time.monotonic() - started
    if timed_out:
        raise SandboxError(f"The query was stopped after the time limit of {timeout:g} s.")
    error = outcome.get("error")
    if error is not None:
        if isinstance(error, duckdb.InterruptException):
            raise SandboxError(f"The query was stopped after the time limit of {timeout:g} s.")
        if isinstance(error, duckdb.Error):
            raise SandboxError(_explain(error)) from None
        raise SandboxError(f"The query failed: {type(error).__name__}: {error}") from None
    table: pa.Table = outcome["table"]
    truncated = table.num_rows > max_rows
    if truncated:
        table = table.slice(0, max_rows)
    return SandboxResult(table=table, truncated=truncated, seconds=seconds)


def _explain(err: duckdb.Error) -> str:
    text = _first_line(err)
    if "external access" in text.lower() or "disabled by configuration" in text.lower():
        return f"Files, the network and extensions are off limits on this page: {text}"
    return f"The query failed: {text}"


def _first_line(err: Exception) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__
