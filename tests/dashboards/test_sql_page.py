"""The SQL page (issue 12): the query and its result survive a change of page, a history of the
session's queries, every read-only kind of statement, downloads, an empty database, plain text."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from .conftest import alerts


@pytest.fixture(autouse=True)
def generous_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine busy with other work must not turn these tests into time-limit tests."""
    monkeypatch.setenv("GOVERNOR_SQL_TIMEOUT", "120")


def run_query(at: AppTest, sql: str) -> AppTest:
    # The query box is in a form (Ctrl+Enter submits it): a typed query is sent with the Run click.
    at.text_area(key="sql_text").set_value(sql)
    return at.button(key="sql_run").click().run()


def result_frame(at: AppTest):
    """The result table (the schema's tables follow it)."""
    return at.dataframe[0].value


def test_query_and_result_survive_a_change_of_page(dash_db: Path, open_page) -> None:
    at = open_page(dash_db, "views/sql.py")
    assert "Limits: 120 s, 1,024 MB of memory" in at.caption[0].value  # $GOVERNOR_SQL_TIMEOUT
    sql = "SELECT count(*) AS n FROM games WHERE player_count = 3"
    run_query(at, sql)
    assert not alerts(at, "error")
    assert result_frame(at)["n"].tolist() == [10]
    at.switch_page("views/games.py").run()
    assert not at.exception
    at.switch_page("views/sql.py").run()
    assert at.text_area(key="sql_text").value == sql
    assert result_frame(at)["n"].tolist() == [10]
    assert "1 row in" in at.caption[1].value


def test_history_keeps_the_session_queries_and_loads_them_back(dash_db: Path, open_page) -> None:
    at = open_page(dash_db, "views/sql.py")
    assert at.selectbox(key="sql_history_pick").disabled
    run_query(at, "SELECT 1 AS one")
    run_query(at, "SELEC 2")
    history = at.selectbox(key="sql_history_pick")
    assert history.label == "History (2)" and history.options[0].endswith("SELEC 2  (The query does not parse: Parser Error: syntax error at or near \"SELEC\")")
    assert "  SELECT 1 AS one  (1 row, " in history.options[1] and history.options[1].endswith(" s)")
    history.select_index(1).run()
    assert at.text_area(key="sql_text").value == "SELECT 1 AS one"
    assert at.selectbox(key="sql_history_pick").value is None


def test_pivot_and_explain_run_on_the_page(dash_db: Path, open_page) -> None:
    at = open_page(dash_db, "views/sql.py")
    run_query(at, "PIVOT games ON player_count USING count(*) GROUP BY game")
    assert not alerts(at, "error")
    assert result_frame(at).to_dict("records") == [{"game": "san_juan", "2": 10, "3": 10, "4": 10}]
    run_query(at, "EXPLAIN SELECT * FROM games")
    assert not alerts(at, "error") and list(result_frame(at).columns) == ["explain_key", "explain_value"]


def test_results_offer_downloads_within_the_limit(dash_db: Path, open_page) -> None:
    at = open_page(dash_db, "views/sql.py")
    run_query(at, "SELECT * FROM range(7000)")
    assert "7,000 rows in" in at.caption[1].value and "the first 5,000 are shown" in at.caption[1].value
    assert len(result_frame(at)) == 5000
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Download CSV", "Download Parquet"]
    run_query(at, "SELECT * FROM range(10000000)")
    assert not at.get("download_button")
    assert any("larger than the download limit of 50 MB" in c.value for c in at.caption)
    assert "more than " in at.caption[1].value


def test_an_empty_database_can_be_queried(tmp_path: Path, open_page) -> None:
    from ingest.db import writer

    empty = tmp_path / "empty.duckdb"
    with writer(empty):  # the schema, no games
        pass
    at = open_page(empty, "views/sql.py")
    assert any("no games yet" in i.value for i in at.info)
    run_query(at, "SELECT count(*) AS n FROM games")
    assert not alerts(at, "error") and result_frame(at)["n"].tolist() == [0]


def test_errors_are_plain_text(dash_db: Path, open_page) -> None:
    at = open_page(dash_db, "views/sql.py")
    run_query(at, 'SELECT * FROM "**bold** :smile: <b>x</b>"')
    (error,) = alerts(at, "error")
    assert error.startswith("The query failed: Catalog Error: Table with name **bold** :smile: <b>x</b> does not exist!")
    assert not at.error  # never an st.error, which reads Markdown
