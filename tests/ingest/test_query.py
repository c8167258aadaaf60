"""``governor query`` stopped by Ctrl-C: one line and 130, whatever DuckDB does while it stops."""

from __future__ import annotations

import _thread
import gc
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import pytest

from governor.cli import main
from ingest import query, query_bounds


class _Result:
    """Stands for a query's result reader, which keeps its connection busy while it lives."""


def test_a_query_thread_that_ends_after_the_grace_keeps_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """DuckDB may take longer than the grace to stop (a busy machine): the error the thread ends with
    then, which holds the result reader, is dropped, not kept for a caller that has gone on."""
    monkeypatch.setattr(query_bounds, "STOP_GRACE", 0.05)
    release, ended = threading.Event(), threading.Event()
    held: list[weakref.ref[_Result]] = []

    def work() -> int:
        result = _Result()
        held.append(weakref.ref(result))
        release.wait(10)
        try:
            raise RuntimeError(result)
        finally:
            ended.set()

    stops: list[str] = []
    threading.Timer(0.2, _thread.interrupt_main).start()
    with pytest.raises(KeyboardInterrupt) as caught:
        query_bounds.in_thread(work, lambda: stops.append("stop"))
    release.set()
    assert ended.wait(10)
    for thread in threading.enumerate():
        if thread.name == "governor-query":
            thread.join(10)
    gc.collect()
    assert stops == ["stop"]
    assert held and held[0]() is None, "the late error and its result are still held"
    del caught


def test_a_connection_that_fails_to_close_after_an_interruption_adds_no_line(
        sample_db: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The connection's close may fail once a query was interrupted (DuckDB: "connection is busy
    with another call" while the stopped statement lets go): the run was interrupted, one line, 130.
    ``run_query`` raises the interruption, and the command says it, as every command does."""
    real = query.reader

    @contextmanager
    def busy_on_close(path: str, **kwargs: Any) -> Iterator[duckdb.DuckDBPyConnection]:
        with real(path, **kwargs) as con:
            yield con
        raise duckdb.ConnectionException(
            "Resource In Use Error: connection is busy with another call")

    def interrupted(work: Any, stop: Any, ended: threading.Event) -> int:
        ended.set()  # DuckDB stopped in time
        raise KeyboardInterrupt

    monkeypatch.setattr(query, "reader", busy_on_close)
    monkeypatch.setattr(query, "in_thread", interrupted)
    with pytest.raises(KeyboardInterrupt):
        query.run_query("SELECT 1", str(sample_db))
    assert capsys.readouterr() == ("", "")
    assert main(["query", "SELECT 1", "--db", str(sample_db)]) == 130
    assert capsys.readouterr() == ("", "governor query: interrupted\n")


def test_csv_rows_end_in_a_line_feed(sample_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A script takes a field with ``$(governor query ... --format csv | tail -1)``: no carriage
    return may come with it, on standard output or in a file."""
    sql = "SELECT player_count, count(*) AS n FROM games GROUP BY 1 ORDER BY 1"
    assert query.run_query(sql, str(sample_db), "csv") == 0
    assert capsys.readouterr().out == "player_count,n\n2,10\n3,10\n4,10\n"
    out = tmp_path / "q.csv"
    assert query.run_query(sql, str(sample_db), "csv", str(out)) == 0
    assert out.read_bytes() == b"player_count,n\n2,10\n3,10\n4,10\n"
