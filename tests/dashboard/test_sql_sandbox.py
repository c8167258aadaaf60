"""The SQL page's sandbox refuses every way out we know of, each with a clear message."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboards.sql_sandbox import SandboxError, check_statement, run_sandboxed


def refused(db: Path, sql: str, **kwargs: float) -> str:
    with pytest.raises(SandboxError) as info:
        run_sandboxed(db, sql, **kwargs)
    return str(info.value)


def test_a_select_returns_rows(dash_db: Path) -> None:
    result = run_sandboxed(dash_db, "SELECT count(*) AS n FROM games")
    assert result.table.column("n").to_pylist()[0] > 0
    assert not result.truncated


@pytest.mark.parametrize(
    "sql",
    [
        "WITH g AS (SELECT * FROM games) SELECT count(*) FROM g",
        "FROM games LIMIT 1",
        "VALUES (1), (2)",
        "DESCRIBE games",
        "SHOW TABLES",
        "SELECT 1; -- a trailing comment",
    ],
)
def test_read_statements_are_allowed(dash_db: Path, sql: str) -> None:
    assert run_sandboxed(dash_db, sql).table.num_rows >= 1


@pytest.mark.parametrize("function", ["read_csv", "read_csv_auto", "read_parquet", "read_text", "read_blob", "read_json"])
def test_reading_files_is_refused(dash_db: Path, function: str) -> None:
    message = refused(dash_db, f"SELECT * FROM {function}('/etc/passwd')")
    assert "off limits" in message and "/etc/passwd" in message


def test_file_globs_and_urls_are_refused(dash_db: Path) -> None:
    assert "off limits" in refused(dash_db, "SELECT * FROM glob('/etc/*')")
    assert "off limits" in refused(dash_db, "SELECT * FROM 'https://example.com/data.csv'")


@pytest.mark.parametrize(
    ("sql", "kind"),
    [
        ("COPY games TO '/tmp/governor-stolen.csv'", "COPY"),
        ("COPY (SELECT * FROM games) TO '/tmp/governor-stolen.parquet' (FORMAT parquet)", "COPY"),
        ("EXPORT DATABASE '/tmp/governor-export'", "EXPORT"),
        ("ATTACH '/tmp/governor-other.duckdb' AS other", "ATTACH"),
        ("DETACH other", "DETACH"),
        ("INSTALL httpfs", "LOAD"),
        ("LOAD httpfs", "LOAD"),
        ("SET enable_external_access = true", "SET"),
        ("RESET threads", "SET"),
        ("PRAGMA threads = 1", "SET"),
        ("PRAGMA database_list", "PRAGMA"),
        ("CALL pragma_version()", "CALL"),
        ("CREATE TABLE t (a INT)", "CREATE"),
        ("CREATE VIEW v AS SELECT 1", "CREATE"),
        ("INSERT INTO games SELECT * FROM games", "INSERT"),
        ("UPDATE players SET score = 0", "UPDATE"),
        ("DELETE FROM games", "DELETE"),
        ("DROP TABLE games", "DROP"),
        ("ALTER TABLE games ADD COLUMN x INT", "ALTER"),
        ("EXPLAIN ANALYZE SELECT 1", "EXPLAIN"),
        ("BEGIN TRANSACTION", "TRANSACTION"),
        ("CHECKPOINT", "CALL"),
        ("VACUUM", "VACUUM"),
    ],
)
def test_statements_other_than_reads_are_refused(dash_db: Path, sql: str, kind: str) -> None:
    message = refused(dash_db, sql)
    assert message.startswith("Refused:") and "Only read queries" in message
    assert kind in message


def test_several_statements_are_refused(dash_db: Path) -> None:
    message = refused(dash_db, "SELECT 1; DROP TABLE games")
    assert "Only one statement" in message and "2" in message
    assert query_games(dash_db) > 0


def query_games(db: Path) -> int:
    return run_sandboxed(db, "SELECT count(*) AS n FROM games").table.column("n").to_pylist()[0]


def test_statements_hidden_in_query_functions_are_refused(dash_db: Path) -> None:
    assert "failed" in refused(dash_db, "SELECT * FROM query('ATTACH ''/tmp/x.duckdb'' AS x')")


def test_settings_cannot_be_changed_or_loosened(dash_db: Path) -> None:
    value = run_sandboxed(dash_db, "SELECT current_setting('enable_external_access') AS v").table.column("v")
    assert value.to_pylist() == [False]
    assert "failed" in refused(dash_db, "SELECT set_config('enable_external_access', 'true')")


def test_extensions_cannot_be_listed_from_disk(dash_db: Path) -> None:
    assert "off limits" in refused(dash_db, "SELECT * FROM duckdb_extensions()")


def test_endless_recursive_query_is_stopped(dash_db: Path) -> None:
    sql = "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT count(*) FROM t"
    message = refused(dash_db, sql, timeout=1.0)
    assert "time limit of 1 s" in message


def test_huge_cross_join_is_stopped(dash_db: Path) -> None:
    sql = "SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b"
    assert "time limit" in refused(dash_db, sql, timeout=1.0)


def test_rows_are_capped(dash_db: Path) -> None:
    result = run_sandboxed(dash_db, "SELECT * FROM range(100000)", max_rows=50)
    assert result.table.num_rows == 50 and result.truncated


def test_empty_and_broken_queries_have_clear_messages(dash_db: Path) -> None:
    assert "Enter a query" in refused(dash_db, "   ")
    assert "does not parse" in refused(dash_db, "SELEC 1")
    assert "failed" in refused(dash_db, "SELECT * FROM no_such_table")


def test_the_database_is_opened_read_only(dash_db: Path) -> None:
    # Even a write that got past the statement check could not write: the connection is read-only.
    import duckdb

    from dashboards.sql_sandbox import READ_CONFIG

    con = duckdb.connect(str(dash_db), read_only=True, config=READ_CONFIG)
    try:
        with pytest.raises(duckdb.Error):
            con.execute("CREATE TABLE t (a INT)")
    finally:
        con.close()


def test_check_statement_returns_the_statement() -> None:
    assert check_statement("SELECT 1").strip() == "SELECT 1"
