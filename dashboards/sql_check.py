"""The SQL page's check of a visitor's text before it runs: at most ``MAX_SQL_CHARS`` characters, and
exactly one statement that reads (``check_statement``), as DuckDB's own parser sees it."""

from __future__ import annotations

import re

import duckdb

#: The longest query text taken, in characters; a longer one is refused before it is parsed.
MAX_SQL_CHARS = 100_000
#: Words that make an ``EXPLAIN`` or a multi-part statement (a ``PIVOT`` without an ``IN`` list,
#: which DuckDB splits in two) something other than a read: ``EXPLAIN ANALYZE`` runs its statement,
#: the others start a write, a setting, a file access or a transaction.
_WRITE_WORDS = frozenset({
    "ABORT", "ALTER", "ANALYSE", "ANALYZE", "ATTACH", "BEGIN", "CALL", "CHECKPOINT", "COMMIT", "COPY",
    "CREATE", "DEALLOCATE", "DELETE", "DETACH", "DROP", "EXECUTE", "EXPORT", "FORCE", "IMPORT", "INSERT",
    "INSTALL", "LOAD", "MERGE", "PRAGMA", "PREPARE", "RESET", "ROLLBACK", "SET", "TRUNCATE", "UPDATE",
    "USE", "VACUUM",
})
#: The first word of a multi-part statement that is a query.
_QUERY_STARTS = frozenset({"SELECT", "WITH", "FROM", "PIVOT", "PIVOT_WIDER", "UNPIVOT", "PIVOT_LONGER", "VALUES"})
_ALLOWED_TEXT = "SELECT, WITH, FROM, VALUES, PIVOT, UNPIVOT, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN"


class SandboxError(Exception):
    """The query was refused, failed, ran out of time or memory, or was cancelled; the message says
    which and why."""


def check_length(sql: str) -> None:
    """Raises ``SandboxError`` when ``sql`` is longer than ``MAX_SQL_CHARS`` characters."""
    if len(sql) > MAX_SQL_CHARS:
        raise SandboxError(
            f"The query is {len(sql):,} characters long; the limit is {MAX_SQL_CHARS:,}. Shorten it "
            "(a long list of values belongs in a table)."
        )


def check_statement(sql: str) -> str:
    """The one read statement in ``sql``, or ``SandboxError`` saying why it is refused.

    Raises ``SandboxError`` for input longer than ``MAX_SQL_CHARS``, empty input, a syntax error,
    several statements, or any statement that is not a read (``EXPLAIN ANALYZE`` included: it runs
    its statement). The parse may take much memory: ``run_sandboxed`` calls this in the query's
    process."""
    check_length(sql)
    if not sql or not sql.strip():
        raise SandboxError(f"Enter a query: one read statement ({_ALLOWED_TEXT}).")
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as err:
        raise SandboxError(f"The query does not parse: {first_line(err)}") from None
    if not statements:
        raise SandboxError(f"Enter a query: one read statement ({_ALLOWED_TEXT}).")
    if len(statements) > 1:
        raise SandboxError(
            f"Only one statement is allowed; this input holds {len(statements)}. Remove the extra ';' statements."
        )
    statement = statements[0]
    query = _strip_trailing_semicolons(statement.query)
    kind = statement.type.name.replace("_", " ")
    if statement.type == duckdb.StatementType.SELECT:
        return query
    if statement.type in (duckdb.StatementType.EXPLAIN, duckdb.StatementType.MULTI):
        words = _keywords(query)
        bad = next((w for w in words if w in _WRITE_WORDS), None)
        first = words[0] if words else ""
        if statement.type == duckdb.StatementType.MULTI and first not in _QUERY_STARTS | {"EXPLAIN"}:
            bad = bad or first
            kind = first or kind
        elif statement.type == duckdb.StatementType.MULTI and first == "EXPLAIN":
            kind = "EXPLAIN"
        if bad is None:
            return query
        raise SandboxError(
            f"Refused: {kind} statement with {bad}. Only read queries ({_ALLOWED_TEXT}) are allowed; the SQL "
            "page cannot change the database, its settings, files or extensions, and EXPLAIN ANALYZE would run "
            "its statement."
        )
    raise SandboxError(
        f"Refused: {kind} statement. Only read queries ({_ALLOWED_TEXT}) are allowed; "
        "the SQL page cannot change the database, its settings, files or extensions."
    )


def _keywords(sql: str) -> list[str]:
    """The keywords of ``sql`` in order, upper case: strings, quoted names and comments are not
    keywords, so ``SELECT 'copy' AS "set"`` yields only SELECT and AS."""
    tokens = duckdb.tokenize(sql)
    words = []
    for index, (start, kind) in enumerate(tokens):
        if kind != duckdb.token_type.keyword:
            continue
        end = tokens[index + 1][0] if index + 1 < len(tokens) else len(sql)
        match = re.match(r"[A-Za-z_]+", sql[start:end])
        if match:
            words.append(match.group(0).upper())
    return words


def _strip_trailing_semicolons(text: str) -> str:
    """The statement without the ``;`` (and any comments after it) that ends it: the relational API
    takes one statement without a terminator."""
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


def first_line(err: BaseException) -> str:
    """The first line of ``err``'s message, or its type's name when it has none."""
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__
