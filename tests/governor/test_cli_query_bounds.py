"""``governor query``'s bounds: memory, spill space in a folder of its own, cells the table format never
holds whole, strict JSON, and a clear line about a bad ``--lake``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import ingest.query_bounds as query_bounds
import ingest.query_output as query_output
from governor.cli import main
from ingest.query import OUT_OF_MEMORY, run_query
from ingest.query_bounds import clean_stale_spill
from ingest.query_output import TABLE_MAX_CELL
from tests.hostile import ROOT, as_nobody


@pytest.fixture
def spill_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The system's temporary folder, for this test alone."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(folder))
    return folder


def test_a_query_over_its_memory_bound_is_one_line_and_status_1(
    sample_db: Path, spill_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(query_bounds, "QUERY_MEMORY_LIMIT", "32MiB")
    monkeypatch.setattr(query_bounds, "QUERY_SPILL_LIMIT", "1MiB")
    assert run_query("SELECT list(range) FROM range(20000000)", str(sample_db), "csv") == 1
    err = capsys.readouterr().err
    assert err.startswith("governor query: Out of Memory Error: ") and err.count("\n") == 1
    assert list(spill_root.iterdir()) == []


def test_the_query_connection_is_bounded_and_spills_in_a_folder_of_its_own(
    sample_db: Path, spill_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sql = ("SELECT current_setting('memory_limit') AS m, current_setting('max_temp_directory_size') AS s, "
           "current_setting('temp_directory') AS t, current_setting('enable_external_access') AS e")
    assert run_query(sql, str(sample_db), "csv") == 0
    header, row = capsys.readouterr().out.splitlines()
    memory, spill, folder, access = row.split(",")
    assert (memory, spill, access) == ("1.0 GiB", "8.0 GiB", "False")
    assert folder.startswith(f"{spill_root}/governor-query-{os.getpid()}-")
    assert list(spill_root.iterdir()) == []  # removed at the end
    # The settings are locked once set: a query cannot lift them.
    assert run_query("SELECT set_config('memory_limit', '64GiB')", str(sample_db)) == 1
    capsys.readouterr()


def test_a_spill_folder_left_by_a_killed_run_is_removed_by_the_next(sample_db: Path, spill_root: Path) -> None:
    # No process has this pid: it is above the largest pid Linux hands out (2**22).
    gone = 2**22 + 12345
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        dead = spill_root / f"governor-query-{gone}-abc"
        dead.mkdir()
        (dead / "duckdb_temp_storage-0.tmp").write_bytes(b"x" * 1000)
        alive = spill_root / f"governor-query-{child.pid}-def"
        alive.mkdir()
        other = spill_root / "governor-query-notes"
        other.mkdir()
        assert run_query("SELECT 1", str(sample_db), "csv") == 0
        assert sorted(p.name for p in spill_root.iterdir()) == sorted([alive.name, other.name])
        assert clean_stale_spill(str(spill_root)) == 0
    finally:
        child.kill()
        child.wait()
    assert clean_stale_spill(str(spill_root)) == 1 and sorted(p.name for p in spill_root.iterdir()) == [other.name]


def test_the_table_format_cuts_huge_cells_in_sql(sample_db: Path, spill_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[int] = []
    real = query_output._rows

    def counted(batch: object) -> object:
        rows = list(real(batch))
        seen.extend(len(str(v)) for row in rows for v in row)
        return iter(rows)

    sql = ("SELECT range(0, 5000000) AS l, repeat('ab', 10000000) AS s, [repeat('x', 1000000)] AS n, "
           "{'k': repeat('y', 1000000)} AS st, 7 AS i")
    query_output._rows = counted  # type: ignore[assignment]
    try:
        assert run_query(sql, str(sample_db)) == 0
    finally:
        query_output._rows = real  # type: ignore[assignment]
    out = capsys.readouterr().out.splitlines()
    cells = [c.strip() for c in out[2].split(" | ")]
    assert cells[0] == str(list(range(201)))[: TABLE_MAX_CELL - 1] + "…"
    assert cells[1] == "ab" * 99 + "a…"
    assert cells[2] == "['" + "x" * (TABLE_MAX_CELL - 3) + "…"
    assert cells[3] == "{'k': '" + "y" * (TABLE_MAX_CELL - 8) + "…"
    assert cells[4] == "7" and out[3] == "(1 row)"
    # Python never held more than a cut of any cell.
    assert max(seen) < 2000
    # CSV still writes every character.
    assert run_query("SELECT repeat('ab', 100000) AS s", str(sample_db), "csv") == 0
    assert capsys.readouterr().out.splitlines()[1] == "ab" * 100000


def test_json_is_strict_nan_and_infinity_as_null_blobs_as_base64(
    sample_db: Path, spill_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sql = ("SELECT 'nan'::DOUBLE AS a, 'inf'::DOUBLE AS b, '-inf'::DOUBLE AS c, '\\x00\\xFF'::BLOB AS d, "
           "[1.5, 'nan'::DOUBLE] AS e, {'f': 'inf'::DOUBLE} AS f")
    assert run_query(sql, str(sample_db), "json") == 0
    import json

    text = capsys.readouterr().out
    assert json.loads(text, parse_constant=lambda c: pytest.fail(f"not JSON: {c}")) == [
        {"a": None, "b": None, "c": None, "d": "AP8=", "e": [1.5, None], "f": {"f": None}}
    ]


def test_a_bad_lake_argument_says_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    not_lake = tmp_path / "folder"
    not_lake.mkdir()
    (not_lake / "x.parquet").write_bytes(b"")
    a_file = tmp_path / "file"
    a_file.write_text("x")
    cases = {
        not_lake: f"--lake {not_lake}: not a Governor lake (no _governor_lake.json; make one with governor import --lake)",
        a_file: f"--lake {a_file}: not a folder (a lake is a folder made by governor import --lake)",
        tmp_path / "missing": f"--lake {tmp_path / 'missing'}: no such folder",
    }
    for lake, message in cases.items():
        assert main(["query", "SELECT 1", "--lake", str(lake)]) == 2
        assert capsys.readouterr().err == f"governor query: {message}\n"
        assert main(["export", "--parquet", str(tmp_path / "out"), "--lake", str(lake)]) == 2
        assert capsys.readouterr().err == f"governor export: {message}\n"
    assert not (tmp_path / "out").exists()


def test_an_unreadable_lake_says_so(tmp_path: Path) -> None:
    folder = Path(os.environ.get("GOVERNOR_TEST_OPEN_DIR", "/tmp")) / f"governor-lake-{os.getpid()}"
    folder.mkdir(mode=0o755)
    try:
        lake = folder / "lake"
        lake.mkdir()
        (lake / "_governor_lake.json").write_text('{"format": 1}')
        lake.chmod(0)
        status, out, err = as_nobody(["query", "SELECT 1", "--lake", str(lake)], tmp_path)
        assert (status, out) == (2, "")
        assert err == f"governor query: --lake {lake}: cannot read the lake: Permission denied\n"
    finally:
        lake.chmod(0o755)
        import shutil

        shutil.rmtree(folder)


def test_duckdb_has_the_bounds_we_rely_on() -> None:
    # The spill folder must be set before external access is turned off: DuckDB refuses it after.
    con = duckdb.connect()
    con.execute("SET enable_external_access = false")
    with pytest.raises(duckdb.Error, match="temp_directory"):
        con.execute("SET temp_directory = '/tmp/x'")
    readme = (ROOT / "README.md").read_text()
    assert "`governor-query-<pid>-...`" in readme and "| 143 |" in readme


# -- the whole command's memory: DuckDB's limit covers DuckDB, the rest is bounded too -----------------


def test_a_row_too_large_to_convert_is_one_line_naming_the_limit(
        sample_db: Path, spill_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A row of two million values takes 16 MB in DuckDB and many times that as Python objects and
    text: CSV and JSON refuse it with the limit named, and an existing output stays; Parquet, which
    converts nothing, writes it."""
    sql = "SELECT 1 AS n, [1::BIGINT] AS l UNION ALL SELECT 2, range(2000000) ORDER BY n"
    out = tmp_path / "q.out"
    out.write_text("kept\n")
    for fmt in ("csv", "json"):
        assert run_query(sql, str(sample_db), fmt, str(out)) == 1
        assert capsys.readouterr() == ("", (
            f"governor query: row 2 is too large to write as {fmt}: converting it would take more than 256 MiB, "
            "the most one row may take (--format parquet --out FILE writes rows without converting them)\n"))
        assert out.read_text() == "kept\n"
    assert run_query(sql, str(sample_db), "parquet", str(out)) == 0
    assert capsys.readouterr().err == f"wrote 2 rows to {out}\n"
    import pyarrow.parquet as pq

    assert [len(v) for v in pq.read_table(out).column("l").to_pylist()] == [1, 2000000]


@pytest.mark.parametrize("fmt", ["csv", "json", "table"])
def test_rows_are_converted_a_bounded_piece_at_a_time_in_order(
        sample_db: Path, spill_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        fmt: str) -> None:
    """With pieces of a few rows (a bound of 4 KB), every row is still written once, in order."""
    sql = "SELECT range AS i, repeat('x', (range % 40)::INT) AS s, [range, NULL] AS l FROM range(3000) ORDER BY i"
    assert run_query(sql, str(sample_db), fmt) == 0
    whole = capsys.readouterr().out
    monkeypatch.setattr(query_output, "PIECE_MEMORY", 4096)
    seen: list[int] = []
    real = query_output._pieces

    def counted(batch: object, first_row: int) -> object:
        for piece in real(batch, first_row):
            seen.append(piece.num_rows)
            yield piece

    monkeypatch.setattr(query_output, "_pieces", counted)
    assert run_query(sql, str(sample_db), fmt) == 0
    assert capsys.readouterr().out == whole
    assert max(seen) < 20 and sum(seen) == (3000 if fmt != "table" else query_output.TABLE_MAX_ROWS)


def test_the_whole_command_stays_under_2_gib(sample_db: Path, tmp_path: Path) -> None:
    """``SELECT list(range(60000000))`` took 5.1 GB (DuckDB's limit of 2 GiB covered DuckDB, and the
    result converted for printing was unbounded). The child runs under a cap of 4 GB of address space,
    so that the code before this bound fails here (it died of MemoryError, status 3) instead of taking
    the machine's memory."""
    import resource

    from tests.hostile import _MEASURED

    def capped() -> None:  # pragma: no cover - in the child
        resource.setrlimit(resource.RLIMIT_AS, (4_000_000_000, 4_000_000_000))

    peak = tmp_path / "peak.txt"
    child = subprocess.run(
        [sys.executable, "-c", _MEASURED, str(peak), "query", "SELECT list(range(60000000))", "--db", str(sample_db),
         "--format", "csv"], capture_output=True, text=True, cwd=ROOT, timeout=300, preexec_fn=capped,
        env={**os.environ, "TMPDIR": str(tmp_path)})
    assert (child.returncode, child.stdout) == (1, "")
    assert child.stderr in (
        # DuckDB's own limit, or the command's bound met first by DuckDB (the order depends on the machine).
        "governor query: Out of Memory Error: failed to allocate data of size 16.0 MiB (1008.0 MiB/1.0 GiB used)\n",
        f"governor query: {OUT_OF_MEMORY}\n"), child.stderr
    assert int(peak.read_text()) / 1024 < 2048
