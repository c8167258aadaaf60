"""Faults: a full disk and a read-only database give clear errors and leave a usable database."""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from governor.cli import main
from ingest.db import DatabaseError
from ingest.importer import import_paths
from ingest.query import run_query

ROOT = Path(__file__).resolve().parents[2]
SJ = ROOT / "sample_logs" / "san_juan"


def _limit_file_size() -> None:
    # Writes past 300 kB fail as on a full disk (EFBIG instead of ENOSPC).
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (300_000, 300_000))


def _games(db: Path) -> int:
    with duckdb.connect(str(db), read_only=True) as con:
        return int(con.execute("SELECT count(*) FROM games").fetchall()[0][0])


def test_full_disk_gives_a_clear_error_and_a_rerun_completes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "full.duckdb"
    run = subprocess.run(
        [sys.executable, "-m", "governor.cli", "import", str(SJ), "--db", str(db), "--workers", "1"],
        preexec_fn=_limit_file_size, capture_output=True, text=True, cwd=ROOT,
    )
    assert run.returncode == 2
    assert run.stderr.startswith(
        f"governor import: {db}: cannot write: the disk is full or the file size limit is reached ("
    )
    assert "Traceback" not in run.stderr
    # The rerun, in this process: only its status and what it stored are checked.
    assert main(["import", str(SJ), "--db", str(db), "--workers", "1"]) == 0, capsys.readouterr().err
    assert _games(db) == 30


def test_read_only_database_gives_a_clear_error(sample_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "ro.duckdb"
    shutil.copy(sample_db, db)
    db.chmod(0o444)
    if os.geteuid() == 0:
        # root may write any file: make the permission check see what any other user would.
        real_access = os.access
        monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == db and mode == os.W_OK else real_access(p, mode))
    with pytest.raises(DatabaseError) as err:
        import_paths([SJ / "san_juan-2p-seed2026-0000.json"], db, workers=1)
    assert str(err.value) == f"{db}: the database file is read-only"
    assert run_query("SELECT count(*) AS n FROM games", str(db), "csv", str(tmp_path / "n.csv")) == 0
    assert (tmp_path / "n.csv").read_text().splitlines() == ["n", "30"]


def test_missing_folder_gives_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "nope" / "x.duckdb"
    assert main(["import", str(SJ / "san_juan-2p-seed2026-0000.json"), "--db", str(db)]) == 2
    assert capsys.readouterr().err == f"governor import: {db}: the folder {db.parent} does not exist\n"


def test_missing_input_gives_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(tmp_path / "nothing.json"), "--db", str(tmp_path / "d.duckdb")]) == 2
    assert capsys.readouterr().err == f"governor import: no such file or folder: {tmp_path / 'nothing.json'}\n"


class _FullDisk:
    """A connection on a full disk: the insert fails, and then so does everything else in the
    aborted transaction (DuckDB's own behaviour)."""

    def register(self, name: str, table: object) -> None:
        pass

    def execute(self, sql: str) -> None:
        raise duckdb.IOException('IO Error: Could not write file "x.duckdb.wal": No space left on device')

    def unregister(self, name: str) -> None:
        raise duckdb.TransactionException("TransactionContext Error: Current transaction is aborted (please ROLLBACK)")


def test_the_real_write_error_is_not_masked_by_the_cleanup() -> None:
    import pyarrow as pa

    from ingest.duckdb_store import _insert

    with pytest.raises(duckdb.IOException, match="No space left on device"):
        _insert(_FullDisk(), "games", pa.table({"game_id": ["x"]}))  # type: ignore[arg-type]


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("mount"),
                    reason="missing optional dependency: root and mount(8), to mount a small full disk (tmpfs)")
def test_a_really_full_disk_says_no_space_left(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(disk)], capture_output=True).returncode:
        pytest.skip("missing optional dependency: permission to mount a tmpfs (this machine refuses it)")
    try:
        db = disk / "full.duckdb"
        run = subprocess.run(
            [sys.executable, "-m", "governor.cli", "import", str(SJ), "--db", str(db), "--workers", "1"],
            capture_output=True, text=True, cwd=ROOT,
        )
    finally:
        subprocess.run(["umount", str(disk)], check=True)
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith(f"governor import: {db}: cannot write: the disk is full")
    assert "No space left on device" in run.stderr
    assert "Current transaction is aborted" not in run.stderr and "Traceback" not in run.stderr
