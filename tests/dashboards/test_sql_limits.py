"""The SQL page's fences around the query text and the disk: a text past its length limit is refused
unread, any other text is parsed only in the query's process, and what a query spills to disk is
bounded and gone when the query ends, whatever ended it."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dashboards import sql_check
from dashboards.sql_check import MAX_SQL_CHARS, SandboxError
from dashboards.sql_sandbox import run_sandboxed
from dashboards.sql_spill import spill_root

#: DuckDB memory of the queries below: small, so that they spill within their first 200 MB or so of data,
#: a fraction of a second on an idle machine (the page's default, 1 GB, took seconds to fill on a busy one).
SMALL_MEMORY_MB = 128
#: A sort of 30 million 200-byte strings: gigabytes, so it spills until the spill limit stops it.
SPILLING = "SELECT x::VARCHAR || repeat('y', 200) AS s FROM range(30000000) t(x) ORDER BY s DESC"
#: Holds 1 million 200-byte strings (about 250 MB: it spills at once, and at most that, far below the
#: spill limit), then compares each with 10 million numbers: hours of work. Whatever the machine's
#: speed, only the time limit stops it, and its spill files are on disk until then.
STALLING = ("SELECT count(*) AS n FROM (SELECT x::VARCHAR || repeat('y', 200) AS s FROM range(1000000) t(x)) t, "
            "range(10000000) r WHERE hash(t.s, r.range) = 0")


def nested(depth: int) -> str:
    """A query of ``depth`` nested parentheses: its parse takes about 3 KB per parenthesis."""
    return "SELECT " + "(" * depth + "1" + ")" * depth


def spilled_bytes(root: Path) -> int:
    """The size of the files under ``root`` now: a file DuckDB removes meanwhile counts nothing."""
    total = 0
    for folder, _, files in os.walk(root):
        for name in files:
            with contextlib.suppress(FileNotFoundError):
                total += os.lstat(os.path.join(folder, name)).st_size
    return total


def test_a_text_past_the_length_limit_is_refused_unread(dash_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_parse(_: str) -> None:
        raise AssertionError("parsed in the dashboard's process")

    monkeypatch.setattr(sql_check.duckdb, "extract_statements", no_parse)
    monkeypatch.setattr(sql_check.duckdb, "tokenize", no_parse)
    text = nested(2 * 2**20)  # 4 MB, the text that took the server from 253 to 5,103 MB
    with pytest.raises(SandboxError) as info:
        run_sandboxed(dash_db, text, timeout=30.0)
    assert str(info.value) == (f"The query is {len(text):,} characters long; the limit is {MAX_SQL_CHARS:,}. "
                               "Shorten it (a long list of values belongs in a table).")


def test_a_text_within_the_limit_is_parsed_in_the_query_process(dash_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_parse(_: str) -> None:
        raise AssertionError("parsed in the dashboard's process")

    # The query's process is forked from the fork server, which never sees this patch.
    monkeypatch.setattr(sql_check.duckdb, "extract_statements", no_parse)
    monkeypatch.setattr(sql_check.duckdb, "tokenize", no_parse)
    text = nested((MAX_SQL_CHARS - 10) // 2)
    assert len(text) <= MAX_SQL_CHARS
    with pytest.raises(SandboxError) as info:
        run_sandboxed(dash_db, text, timeout=60.0)
    assert str(info.value).startswith("The query does not parse: Parser Error: Max expression depth limit of 1000")
    result = run_sandboxed(dash_db, "SELECT 41 + 1 AS answer;", timeout=60.0)
    assert result.table.to_pylist() == [{"answer": 42}]


def test_a_query_stopped_at_its_time_limit_leaves_no_spill_files(dash_db_copy: Path) -> None:
    root = spill_root(dash_db_copy)
    seen: list[int] = []
    with pytest.raises(SandboxError) as info:
        run_sandboxed(dash_db_copy, STALLING, timeout=10.0, memory_mb=SMALL_MEMORY_MB,
                      on_wait=lambda _: seen.append(spilled_bytes(root)))
    assert str(info.value) == "The query was stopped after the time limit of 10 s."
    assert max(seen) > 0  # it did spill, in its own folder under the spill root,
    assert seen[-1] > 0  # and its spill files were there a moment before it was stopped
    assert list(root.iterdir()) == []
    assert not Path(f"{dash_db_copy}.tmp").exists()  # DuckDB's default spill folder is not used


def test_spill_space_is_bounded(dash_db_copy: Path) -> None:
    with pytest.raises(SandboxError) as info:
        run_sandboxed(dash_db_copy, SPILLING, timeout=120.0, memory_mb=SMALL_MEMORY_MB, spill_mb=50)
    assert str(info.value).startswith("The query spilled more to disk than its limit of 50 MB and was stopped: "
                                      "aggregate, filter or add a LIMIT. (Out of Memory Error: failed to offload")
    assert list(spill_root(dash_db_copy).iterdir()) == []


def test_spill_folders_of_dead_processes_are_removed(dash_db_copy: Path) -> None:
    root = spill_root(dash_db_copy)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    stale = root / f"{int(dead.stdout)}-abc123"
    stale.mkdir()
    (stale / "duckdb_temp_storage-0.tmp").write_bytes(b"\0" * 4096)
    mine = root / f"{os.getpid()}-def456"  # a live process's folder: a query of it may be running
    mine.mkdir()
    result = run_sandboxed(dash_db_copy, "SELECT count(*) AS n FROM games", timeout=60.0)
    assert result.table.to_pylist() == [{"n": 30}]
    assert sorted(p.name for p in root.iterdir()) == [mine.name]
