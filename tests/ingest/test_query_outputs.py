"""``governor query --out``: the output is replaced only by a complete result. A query that fails, before
its first row or midway, leaves an existing file, a symbolic link and what it names, or a device as they
were; a full disk names the output, not the database."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from governor.cli import main
from ingest.importer import import_paths
from ingest.query import run_query
from tests.hostile import SJ

#: A query that fails before any row, and one that fails after thousands of rows were written (DuckDB
#: hands the rows over 2,048 at a time).
FAILING = ["SELECT * FROM gamez",
           "SELECT CASE WHEN range < 5000 THEN range ELSE error('boom at ' || range) END AS n FROM range(10000)"]
MESSAGES = ["governor query: Catalog Error: Table with name gamez does not exist!\n",
            "governor query: Invalid Input Error: boom at 5000\n"]


@pytest.fixture(scope="module")
def sample_lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lake = tmp_path_factory.mktemp("lake") / "lake"
    summary = import_paths([SJ], str(lake), lake=True, workers=1)
    assert summary.rejected == 0
    return lake


def _store(kind: str, sample_db: Path, sample_lake: Path) -> list[str]:
    return ["--db", str(sample_db)] if kind == "db" else ["--lake", str(sample_lake)]


@pytest.mark.parametrize("kind", ["db", "lake"])
@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
@pytest.mark.parametrize(("sql", "message"), list(zip(FAILING, MESSAGES)), ids=["at-once", "midway"])
def test_a_failing_query_leaves_an_existing_output_as_it_was(
        sample_db: Path, sample_lake: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        kind: str, fmt: str, sql: str, message: str) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    results = folder / "results.csv"
    results.write_text("the results of yesterday\n")
    assert main(["query", sql, *_store(kind, sample_db, sample_lake), "--format", fmt, "--out", str(results)]) == 1
    assert capsys.readouterr() == ("", message)
    assert results.read_text() == "the results of yesterday\n"
    assert [p.name for p in folder.iterdir()] == ["results.csv"]  # no temporary file left either


@pytest.mark.parametrize("sql", FAILING, ids=["at-once", "midway"])
def test_a_link_and_what_it_names_stay_when_the_query_fails(
        sample_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], sql: str) -> None:
    target = tmp_path / "target.csv"
    target.write_text("kept\n")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    assert run_query(sql, str(sample_db), "csv", str(link)) == 1
    capsys.readouterr()
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "kept\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.csv", "target.csv"]
    # A query that succeeds writes the file the link names, and the link stays a link.
    assert run_query("SELECT 7 AS n", str(sample_db), "csv", str(link)) == 0
    assert link.is_symlink() and target.read_text() == "n\n7\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.csv", "target.csv"]


def _device(tmp_path: Path, name: str, minor: int) -> Path:
    """A character device of the kernel's memory devices (3: null, 7: full): a node of our own in the
    test's folder when the test may make one (the code before this fix removed the node it failed to
    write, and as root it would have removed the system's), else the system's, which only root could
    remove."""
    if os.geteuid() != 0:
        return Path("/dev") / name
    device = tmp_path / name
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, minor))
    return device


@pytest.mark.parametrize("sql", FAILING, ids=["at-once", "midway"])
def test_a_device_is_written_into_and_never_removed(
        sample_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], sql: str) -> None:
    """``--out /dev/null`` as root: a failing query removed the device node."""
    device = _device(tmp_path, "null", 3)
    assert run_query(sql, str(sample_db), "csv", str(device)) == 1
    capsys.readouterr()
    assert stat.S_ISCHR(device.lstat().st_mode)
    assert run_query("SELECT 7 AS n", str(sample_db), "json", str(device)) == 0
    assert stat.S_ISCHR(device.lstat().st_mode)


@pytest.mark.parametrize("kind", ["db", "lake"])
@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_a_full_disk_names_the_output(sample_db: Path, sample_lake: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str], kind: str, fmt: str) -> None:
    """The full device takes no byte: writing it fails with ENOSPC, as a full disk does (often only as
    the file is closed, when its last bytes go). The message named the database instead, and the
    device was removed."""
    full = _device(tmp_path, "full", 7)
    assert main(["query", "SELECT 7 AS n", *_store(kind, sample_db, sample_lake), "--format", fmt,
                 "--out", str(full)]) == 2
    assert capsys.readouterr() == ("", f"governor query: cannot write {full}: No space left on device\n")
    assert stat.S_ISCHR(full.lstat().st_mode)


def test_an_output_in_a_missing_folder_is_one_line(sample_db: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "missing" / "q.csv"
    assert run_query("SELECT 1", str(sample_db), "csv", str(out)) == 2
    assert capsys.readouterr() == ("", f"governor query: cannot write {out}: No such file or directory\n")
    assert not (tmp_path / "missing").exists()
