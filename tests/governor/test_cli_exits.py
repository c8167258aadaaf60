"""Exit statuses and one clear line for every failure: 0 all good, 1 something rejected, 2 usage or
environment error, 3 a bug (with a traceback and a request to report it), 130 interrupted. Paths that
cannot be searched are reported and the rest goes on; ``governor query`` runs one read-only statement."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

import replay.replayer
from governor.cli import build_parser, main
from ingest.query import run_query
from replay import exits
from tests.hostile import ROOT, SJ, as_nobody, line, sample

GOOD = SJ / "san_juan-2p-seed2026-0000.json"


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A folder every user may enter (pytest's own tmp folders are root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="governor-perm-"))
    folder.chmod(0o755)
    yield folder
    for path in [folder, *folder.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)
    shutil.rmtree(folder)


def test_every_help_documents_the_exit_statuses() -> None:
    parser = build_parser()
    helps = [parser.format_help()]
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert set(commands) >= {"validate", "replay", "simulate", "golden", "import", "query", "export", "dashboard"}
    helps += [command.format_help() for command in commands.values()]
    for text in helps:
        flat = " ".join(text.split())
        assert "exit status: 0 all good; 1 something was rejected" in flat
        assert "2 usage or environment error" in flat and "3 a bug in governor" in flat and "130 interrupted" in flat
    readme = (ROOT / "README.md").read_text()
    assert "## Exit status" in readme and "| 130 |" in readme


def test_validate_exit_statuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(GOOD)]) == 0
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert main(["validate", str(bad)]) == 1
    assert main(["validate", str(tmp_path / "missing.json")]) == 2
    # A missing path is reported and the others are still checked; the worse status wins.
    assert main(["validate", str(tmp_path / "missing.json"), str(GOOD), str(bad)]) == 2
    out, err = capsys.readouterr()
    assert err.splitlines()[-2:] == [f"governor validate: no such file or folder: {tmp_path / 'missing.json'}", "1 good, 1 bad game(s) in 2 file(s)"]


def test_a_bug_on_one_game_is_reported_and_the_others_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = replay.replayer.final_state

    def flaky(log: replay.replayer.GameLog) -> object:
        if len(log.players) == 3:
            raise TypeError("unsupported operand")
        return real(log)

    monkeypatch.setattr(replay.replayer, "final_state", flaky)
    three = SJ / "san_juan-3p-seed2026-0001.json"
    assert main(["validate", str(GOOD), str(three)]) == 3
    out, err = capsys.readouterr()
    assert out == f"bad: {three}, game 1: internal error (a bug in governor, please report it): TypeError: unsupported operand\n"
    assert "Traceback (most recent call last)" in err
    assert err.splitlines()[-2:] == [
        "1 good, 1 bad game(s) in 2 file(s)",
        "governor: 1 game(s) met a bug in governor: this is a bug in governor, not a problem with your input; "
        "please report it to the Governor issue tracker with the command you ran and the file that caused it",
    ]


def test_a_bug_in_an_import_rejects_that_game_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ingest.rows
    from ingest.cli import run_import

    real = ingest.rows.add_record

    def flaky(batch: ingest.rows.Batch, record: ingest.rows.LogRecord, *args: object, **kwargs: object) -> None:
        if record.log is not None and len(record.log.players) == 3:
            raise KeyError("seat")
        real(batch, record, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ingest.rows, "add_record", flaky)
    db = tmp_path / "bug.duckdb"
    assert run_import([str(GOOD), str(SJ / "san_juan-3p-seed2026-0001.json"), str(SJ / "san_juan-4p-seed2026-0002.json")], str(db), workers=1) == 3
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT player_count FROM games ORDER BY 1").fetchall() == [(2,), (4,)]
        assert con.execute("SELECT kind, message FROM rejections").fetchall() == [
            ("internal", f"{SJ / 'san_juan-3p-seed2026-0001.json'}, game 1: internal error (a bug in governor, please report it): KeyError: 'seat'")
        ]
        # Every table holds rows of the two stored games only.
        assert con.execute("SELECT count(DISTINCT game_id) FROM san_juan_player_states").fetchall() == [(2,)]


def test_an_unexpected_crash_prints_a_traceback_and_asks_for_a_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import replay.golden

    monkeypatch.setattr(replay.golden, "write_golden", lambda logs, files, out, problems=None: 1 / 0)
    assert main(["golden", "--logs", str(SJ), "--out", str(tmp_path / "y")]) == 3
    err = capsys.readouterr().err
    assert "ZeroDivisionError" in err and err.endswith("with the command you ran and the file that caused it\n")


def test_unreadable_folders_and_files_are_reported_and_the_rest_goes_on(open_dir: Path) -> None:
    logs = open_dir / "logs"
    (logs / "locked").mkdir(parents=True)
    (logs / "open").mkdir()
    shutil.copy(GOOD, logs / "open" / "a.json")
    shutil.copy(GOOD, logs / "open" / "secret.json")
    (logs / "open" / "secret.json").chmod(0)
    shutil.copy(GOOD, logs / "locked" / "b.json")
    outside = open_dir / "closed"
    outside.mkdir()
    shutil.copy(GOOD, outside / "c.json")
    (logs / "locked").chmod(0)
    outside.chmod(0)
    status, out, err = as_nobody(["validate", str(logs), str(outside / "c.json")], open_dir)
    assert status == 2, err
    assert out == f"bad: {logs / 'open' / 'secret.json'}: cannot read file: Permission denied\n"
    assert err.splitlines() == [
        f"governor validate: cannot read folder {logs / 'locked'}: Permission denied",
        f"governor validate: cannot access {outside / 'c.json'}: Permission denied",
        "1 good, 1 bad game(s) in 2 file(s)",
    ]
    (open_dir / "db").mkdir(mode=0o777)
    (open_dir / "db").chmod(0o777)
    db = open_dir / "db" / "x.duckdb"
    status, out, err = as_nobody(["import", str(logs), "--db", str(db), "--workers", "1"], open_dir)
    assert status == 2, err
    assert err.splitlines()[0] == f"governor import: cannot read folder {logs / 'locked'}: Permission denied"
    assert err.splitlines()[1] == f"rejected: {logs / 'open' / 'secret.json'}: cannot read file: Permission denied"
    assert err.splitlines()[2].startswith(f"{db}: 1 imported, 0 duplicates skipped, 1 rejected")


def test_links_loops_odd_names_and_globs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = tmp_path / "logs"
    (logs / "sub").mkdir(parents=True)
    shutil.copy(GOOD, logs / "UPPER.JSON")
    shutil.copy(GOOD, logs / "[good].json")
    (logs / "sub" / "back").symlink_to(logs)  # a folder loop
    (logs / "loop.json").symlink_to("loop.json")  # a file loop
    (logs / "dangling.json").symlink_to("nowhere.json")
    odd = os.fsdecode(b"bad\xff.json")
    (logs / odd).write_bytes(line(sample()))
    assert main(["validate", str(logs)]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"bad: {logs}/dangling.json: cannot read file: No such file or directory",
        f"bad: {logs}/loop.json: cannot read file: Too many levels of symbolic links",
    ]
    assert err == "3 good, 2 bad game(s) in 5 file(s)\n"
    # A glob with a dangling link among its matches still checks the others.
    assert main(["validate", str(logs / "*.json")]) == 1
    assert capsys.readouterr().err == "2 good, 2 bad game(s) in 4 file(s)\n"
    # An existing name is taken literally, never as a glob ([good] would match 'g', 'o' or 'd').
    assert main(["validate", "-v", str(logs / "[good].json")]) == 0
    assert capsys.readouterr().out == f"ok: {logs}/[good].json, game 1\n"
    # An undecodable byte in a file name is shown escaped, and the game imports.
    db = tmp_path / "odd.duckdb"
    from ingest.importer import import_paths

    summary = import_paths([logs / odd], db, workers=1)
    assert summary.imported == 1
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT file FROM games").fetchall() == [(f"{logs}/bad\\xff.json",)]


def test_query_runs_one_read_only_statement(sample_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "out.csv"
    refused = {
        f"COPY games TO '{target}'": "only a query that reads is allowed (SELECT, WITH, FROM, DESCRIBE, SHOW...), not COPY",
        f"EXPORT DATABASE '{tmp_path / 'dump'}'": "only a query that reads is allowed (SELECT, WITH, FROM, DESCRIBE, SHOW...), not EXPORT",
        f"COPY games TO '{target}'; SELECT 42": "one statement at a time, please: this text holds 2",
        "SELECT 1; SELECT 2": "one statement at a time, please: this text holds 2",
        "SET memory_limit = '1GB'": "only a query that reads is allowed (SELECT, WITH, FROM, DESCRIBE, SHOW...), not SET",
        f"ATTACH '{tmp_path / 'other.duckdb'}'": "only a query that reads is allowed (SELECT, WITH, FROM, DESCRIBE, SHOW...), not ATTACH",
        "  ": "no SQL statement given",
    }
    for sql, message in refused.items():
        assert run_query(sql, str(sample_db)) == 1, sql
        assert capsys.readouterr().err == f"governor query: {message}\n", sql
    assert not target.exists() and not (tmp_path / "dump").exists() and not (tmp_path / "other.duckdb").exists()
    # No file can be reached from a query either.
    (tmp_path / "secret.csv").write_text("a\n1\n")
    assert run_query(f"SELECT * FROM read_csv('{tmp_path / 'secret.csv'}')", str(sample_db)) == 1
    assert "disabled" in capsys.readouterr().err
    assert run_query("WITH n AS (SELECT count(*) AS games FROM games) SELECT games FROM n", str(sample_db), "csv") == 0
    assert capsys.readouterr().out.splitlines() == ["games", "30"]


def test_query_output_escapes_control_characters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "q.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("CREATE TABLE t AS SELECT 'a' || chr(10) || 'b' || chr(27) || '[31m' AS s")
    assert run_query("SELECT s FROM t", str(db)) == 0
    assert capsys.readouterr().out.splitlines() == ["s" + " " * 11, "-" * 12, "a\\nb\\x1b[31m", "(1 row)"]


def test_ctrl_c_during_a_query_is_a_clean_130(sample_db: Path) -> None:
    child = subprocess.Popen(
        [sys.executable, "-m", "governor.cli", "query", "SELECT count(*) FROM range(100000000000) a",
         "--db", str(sample_db)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )
    time.sleep(3)  # interrupting earlier or later gives the same answer, only the place differs
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 130, err
    assert err in ("governor query: interrupted\n", "governor: interrupted\n")
    assert out == ""


def test_exit_status_helpers() -> None:
    assert exits.status() == 0
    assert exits.status(rejected=True) == 1
    assert exits.status(rejected=True, environment=True) == 2
    assert exits.status(rejected=True, environment=True, bug=True) == 3
    assert json.dumps(exits.INTERRUPTED) == "130"
