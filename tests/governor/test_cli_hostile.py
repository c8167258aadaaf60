"""The command line against hostile arguments: outputs that would overwrite inputs, numbers out of
range, paths with escape codes and undecodable bytes, bad logs among good ones. Every input is built
at run time; every refusal is one exact line and exit status 2."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from governor.cli import main
from replay.simulate import MAX_GAMES, MAX_SEED
from tests.hostile import SJ, sample

GOOD = SJ / "san_juan-2p-seed2026-0000.json"
OVERWRITE = "an output never overwrites an input"


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A lake of one San Juan game."""
    folder = tmp_path_factory.mktemp("lake") / "lake"
    assert main(["import", str(GOOD), "--lake", str(folder), "--workers", "1", "--progress", "never"]) == 0
    return folder


def _err(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().err


# -- outputs never overwrite inputs -------------------------------------------------------------


def test_query_out_naming_the_database_is_refused_and_the_database_kept(
    sample_db_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = sample_db_copy
    before = db.read_bytes()
    link = tmp_path / "link.duckdb"
    link.symlink_to(db)
    for out, what, path in [(db, "the database", db), (link, "the database", db),
                            (Path(str(db) + ".wal"), "the database's write-ahead log", Path(str(db) + ".wal"))]:
        for sql in ("SELECT 1", "SELECT error('boom')"):
            assert main(["query", sql, "--db", str(db), "--out", str(out), "--format", "csv"]) == 2
            assert _err(capsys) == f"governor query: --out {out} is {what} {path}: {OVERWRITE}\n"
    # The relative spelling of the same file is the same file.
    monkeypatch.chdir(db.parent)
    assert main(["query", "SELECT 1", "--db", str(db), "--out", f"./{db.name}"]) == 2
    assert _err(capsys) == f"governor query: --out ./{db.name} is the database {db}: {OVERWRITE}\n"
    assert db.read_bytes() == before
    assert not Path(str(db) + ".wal").exists()


def test_query_out_inside_the_lake_and_export_into_inputs_are_refused(
    lake: Path, sample_db_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = sorted(p for p in lake.rglob("*") if p.is_file())
    inside = next(p for p in files if p.suffix == ".parquet")
    for out in (inside, lake / "new.csv"):
        assert main(["query", "SELECT 1", "--lake", str(lake), "--out", str(out)]) == 2
        assert _err(capsys) == f"governor query: --out {out} is in the lake {lake}: {OVERWRITE}\n"
    assert main(["export", "--lake", str(lake), "--parquet", str(lake)]) == 2
    assert _err(capsys) == f"governor export: --parquet {lake} is in the lake {lake}: {OVERWRITE}\n"
    assert sorted(p for p in lake.rglob("*") if p.is_file()) == files
    db = sample_db_copy
    assert main(["export", "--db", str(db), "--parquet", str(db.parent)]) == 2
    assert _err(capsys) == f"governor export: --parquet {db.parent} holds the database {db}: {OVERWRITE}\n"
    assert main(["export", "--db", str(db), "--parquet", str(db)]) == 2
    assert _err(capsys) == f"governor export: --parquet {db} is the database {db}: {OVERWRITE}\n"
    assert sorted(p.name for p in db.parent.iterdir()) == [db.name]


def test_simulate_and_golden_outputs_are_refused_where_they_would_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "a.json"
    shutil.copy(GOOD, log)
    assert main(["simulate", "--game", "san_juan", "--games", "1", "--out", str(log)]) == 2
    assert _err(capsys) == f"governor simulate: --out {log} is a file, not a folder: {OVERWRITE}\n"
    assert main(["golden", "--logs", str(tmp_path), "--out", str(tmp_path)]) == 2
    assert _err(capsys) == (
        f"governor golden: --out {tmp_path} is the folder of the logs (--logs) {tmp_path}: {OVERWRITE}\n")
    assert main(["golden", "--logs", str(tmp_path), "--out", str(log)]) == 2
    assert _err(capsys) == f"governor golden: --out {log} is a file, not a folder: {OVERWRITE}\n"
    assert log.read_bytes() == GOOD.read_bytes() and sorted(tmp_path.iterdir()) == [log]


# -- every numeric argument is checked before any work --------------------------------------------


@pytest.mark.parametrize(("argv", "line"), [
    (["simulate", "--game", "san_juan", "--games", "-5", "--out", "{tmp}"],
     f"governor simulate: argument --games: must be an integer from 1 to {MAX_GAMES}, not '-5'"),
    (["simulate", "--game", "san_juan", "--games", "0", "--out", "{tmp}"],
     f"governor simulate: argument --games: must be an integer from 1 to {MAX_GAMES}, not '0'"),
    (["simulate", "--game", "san_juan", "--seed", "10000000000000", "--out", "{tmp}"],
     f"governor simulate: argument --seed: must be an integer from 0 to {MAX_SEED}, not '10000000000000'"),
    (["simulate", "--game", "san_juan", "--seed", "-1", "--out", "{tmp}"],
     f"governor simulate: argument --seed: must be an integer from 0 to {MAX_SEED}, not '-1'"),
    (["simulate", "--game", "san_juan", "--players", "7", "--out", "{tmp}"],
     "governor simulate: san_juan is for 2 to 4 players, not 7"),
    (["replay", str(GOOD), "--game", "0"],
     "governor replay: argument --game: must be an integer from 1 to 2147483647, not '0'"),
    (["replay", str(GOOD), "--step", "x"],
     "governor replay: argument --step: must be an integer from -2147483647 to 2147483647, not 'x'"),
    (["import", str(GOOD), "--workers", "0", "--db", "{tmp}/x.duckdb"],
     "governor import: argument --workers: must be an integer from 1 to 256, not '0'"),
    (["dashboard", "--port", "70000"],
     "governor dashboard: argument --port: must be an integer from 1 to 65535, not '70000'"),
    (["analyse", str(GOOD), "--seed", "1" * 26, "--store", "--db", "{tmp}/x.duckdb"],
     f"governor analyse: argument --seed: must be an integer from {-2**63} to {2**63 - 1}, not '{'1' * 26}'"),
    (["analyse", str(GOOD), "--top", "40000", "--store", "--db", "{tmp}/x.duckdb"],
     "governor analyse: argument --top: must be an integer from 1 to 1000, not '40000'"),
    (["analyse", str(GOOD), "--rollouts", "1000000000"],
     "governor analyse: argument --rollouts: must be an integer from 1 to 10000, not '1000000000'"),
    (["analyse", str(GOOD), "--rollouts", "0"],
     "governor analyse: argument --rollouts: must be an integer from 1 to 10000, not '0'"),
    (["analyse", str(GOOD), "--workers", "100000"],
     "governor analyse: argument --workers: must be an integer from 1 to 256, not '100000'"),
    # Usage errors, each one line and exit status 2.
    (["analyse", str(GOOD), "--steps", "abc"],
     "governor analyse: argument --steps: expects A:B, move numbers with 1 <= A <= B <= 2147483647, not 'abc'"),
    (["analyse", str(GOOD), "--steps", "5:2"],
     "governor analyse: argument --steps: expects A:B, move numbers with 1 <= A <= B <= 2147483647, not '5:2'"),
    (["analyse", "{tmp}/missing.json"], "governor analyse: {tmp}/missing.json: No such file or directory"),
    (["import", str(GOOD), "--cluster", "local"], "governor import: --cluster writes a lake: give --lake DIR too"),
    (["import", str(GOOD), "--lake", "{tmp}/lake", "--cluster", "spark://x"],
     "governor import: --cluster expects local, dask://ADDR or ray://ADDR, not 'spark://x'"),
    (["query", "SELECT 1", "--db", "{tmp}/a.duckdb", "--lake", "{tmp}/lake"], "governor query: give --db or --lake, not both"),
    (["export", "--parquet", "{tmp}/out", "--db", "{tmp}/a.duckdb", "--lake", "{tmp}/lake"],
     "governor export: give --db or --lake, not both"),
])
def test_bad_arguments_are_one_line_and_exit_2_before_any_work(
    argv: list[str], line: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    line = line.replace("{tmp}", str(tmp_path))
    assert err in (line + "\n", f"{line} (see governor {argv[0]} --help)\n")
    assert out == ""
    # Nothing was written: no database, no lake, no simulated game.
    assert list(tmp_path.iterdir()) == []


def test_the_largest_seed_writes_logs_that_validate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--game", "san_juan", "--players", "2", "--games", "1", "--seed", str(MAX_SEED),
                 "--out", str(tmp_path)]) == 0
    (written,) = tmp_path.iterdir()
    assert json.loads(written.read_text())["meta"]["seed"] <= 2**63 - 1
    assert main(["validate", str(written)]) == 0
    assert capsys.readouterr().err.endswith("1 good, 0 bad game(s) in 1 file(s)\n")


# -- paths are printed escaped, and any path the OS accepts works -----------------------------------


def test_paths_with_escape_codes_are_printed_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out\x1b]0;x\x07\nfake"
    assert main(["simulate", "--game", "san_juan", "--players", "2", "--games", "1", "--out", str(out)]) == 0
    assert _err(capsys) == f"wrote 1 game(s) to 1 file(s) in {tmp_path}/out\\x1b]0;x\\x07\\nfake\n"
    empty = tmp_path / "empty\x1b[2J\r.jsonl"
    empty.write_bytes(b"\n\n")
    assert main(["analyse", str(empty)]) == 2
    assert _err(capsys) == f"governor analyse: {tmp_path}/empty\\x1b[2J\\r.jsonl holds 0 game(s), no game 1\n"
    assert main(["replay", str(empty)]) == 1
    assert _err(capsys) == f"governor replay: {tmp_path}/empty\\x1b[2J\\r.jsonl: no game in the file\n"


def test_undecodable_bytes_in_output_paths(sample_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = os.fsdecode(os.fsencode(str(tmp_path)) + b"/parquet\xff\x1b")
    assert main(["export", "--db", str(sample_db), "--parquet", folder]) == 0
    err = _err(capsys)
    assert f"games: 30 rows -> {tmp_path}/parquet\\xff\\x1b/games.parquet\n" in err
    assert "\x1b" not in err
    assert (Path(folder) / "games.parquet").stat().st_size > 0
    out = os.fsdecode(os.fsencode(str(tmp_path)) + b"/q\xff.parquet")
    assert main(["query", "SELECT count(*) AS n FROM games", "--db", str(sample_db), "--format", "parquet", "--out", out]) == 0
    assert _err(capsys) == f"wrote 1 rows to {tmp_path}/q\\xff.parquet\n"
    import pyarrow.parquet as pq

    assert pq.read_table(open(out, "rb")).to_pylist() == [{"n": 30}]


# -- golden: a bad log is one escaped line, the others are written ----------------------------------


def test_golden_reports_a_bad_log_in_one_escaped_line_and_writes_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(GOOD, logs / "a.json")
    game = sample()
    game["setup"]["deck"][0] = "\x1b]0;owned\x07\r\nfake line"
    (logs / "b.json").write_text(json.dumps(game))
    out = tmp_path / "golden"
    assert main(["golden", "--logs", str(logs), "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert captured.out == (
        f"bad: {logs}/b.json, game 1: setup.deck[0]: unknown card '\\x1b]0;owned\\x07\\r\\nfake line'\n")
    assert captured.err == f"wrote 1 golden file(s) to {out}\n"
    assert [p.name for p in out.iterdir()] == ["a.txt"]


# -- simulate streams: each game written as it is played ------------------------------------------


def test_simulate_writes_each_game_as_it_is_played(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gzip

    import replay.simulate as simulate
    from replay.logfile import dumps_game

    games = list(simulate.simulate_many("san_juan", [2, 3], 3, 5))
    whole = gzip.compress("".join(dumps_game(g) + "\n" for g in games).encode(), mtime=0)
    # The .jsonl grows a game at a time under a temporary name of its own (random, made exclusively),
    # and ends as gzip.compress of all of it.
    seen: list[int] = []
    path = tmp_path / "a" / "san_juan-seed5-3games.jsonl.gz"

    def watched(*args: object, **kwargs: object) -> object:
        for game in games:
            temps = list(path.parent.glob(f".{path.name}.*.tmp"))
            seen.append(temps[0].stat().st_size if len(temps) == 1 else -1)
            yield game

    monkeypatch.setattr(simulate, "simulate_many", watched)
    assert simulate.write_simulated(tmp_path / "a", "san_juan", [2, 3], 3, 5, jsonl=True, gzip=True) == [path]
    assert path.read_bytes() == whole and sorted(p.name for p in path.parent.iterdir()) == [path.name]
    seen.clear()
    path = tmp_path / "a" / "san_juan-seed5-3games.jsonl"
    assert simulate.write_simulated(tmp_path / "a", "san_juan", [2, 3], 3, 5, jsonl=True) == [path]
    sizes = [len(dumps_game(g).encode()) + 1 for g in games]
    assert seen == [0, sizes[0], sizes[0] + sizes[1]]
    # One .json per game: each file is complete before the next game is played.
    stream = simulate.stream_simulated(tmp_path / "b", "san_juan", [2, 3], 3, 5)
    first = next(stream)
    assert [p.name for p in (tmp_path / "b").iterdir()] == [first.name]
    assert json.loads(first.read_text()) == games[0]
    stream.close()
    # Stopped midway (Ctrl-C in the bots), nothing half-written is left.

    def interrupted(*args: object, **kwargs: object) -> object:
        yield games[0]
        raise KeyboardInterrupt

    monkeypatch.setattr(simulate, "simulate_many", interrupted)
    with pytest.raises(KeyboardInterrupt):
        simulate.write_simulated(tmp_path / "c", "san_juan", [2], 3, 5, jsonl=True)
    assert list((tmp_path / "c").iterdir()) == []


# -- an unreadable build of the compiled engines ----------------------------------------------------


def test_an_unreadable_native_build_falls_back_to_pure_python_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from replay import native

    build = tmp_path / ".native"
    build.mkdir()
    (build / "manifest.json").write_text('{"digest": "x", "files": {}}')
    monkeypatch.setattr(native, "NATIVE_DIR", build)
    monkeypatch.delenv(native.PURE_ENV, raising=False)
    real_stat = os.stat

    def denied(path: object, *args: object, **kwargs: object) -> object:
        # As for a user who cannot enter a folder of mode 700 (tests run as root, who can).
        if os.fspath(path).startswith(os.fspath(build)):  # type: ignore[call-overload]
            raise PermissionError(13, "Permission denied", os.fspath(path))  # type: ignore[call-overload]
        return real_stat(path, *args, **kwargs)  # type: ignore[call-overload]

    before = native.status
    monkeypatch.setattr(os, "stat", denied)
    try:
        status = native.activate()
    finally:
        monkeypatch.setattr(os, "stat", real_stat)
        native.status = before
    assert status == f"pure Python: cannot read {build}/manifest.json: Permission denied"
    assert capsys.readouterr().err == (
        f"governor: cannot read {build}/manifest.json: Permission denied (the compiled engines): "
        "the engines run as pure Python\n")


def test_an_export_stopped_midway_leaves_no_half_written_file(
    sample_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import ingest.export as export

    real = export.write_parquet
    written: list[str] = []

    def stopped(schema: object, batches: object, path: Path) -> int:
        if len(written) == 2:
            with open(path, "wb") as handle:
                handle.write(b"PAR1 half")
            raise KeyboardInterrupt
        written.append(Path(path).name)
        return real(schema, batches, path)

    monkeypatch.setattr(export, "write_parquet", stopped)
    out = tmp_path / "out"
    assert main(["export", "--db", str(sample_db), "--parquet", str(out)]) == 130
    assert capsys.readouterr().err.endswith("governor export: interrupted\n")
    # Each under a temporary name of its own (random, made exclusively), never a guessable one.
    assert [re.fullmatch(r"\.(\w+\.parquet)\.\w+\.tmp", name)[1] for name in written] == ["games.parquet", "players.parquet"]  # type: ignore[index]
    assert sorted(p.name for p in out.iterdir()) == ["games.parquet", "players.parquet"]


def test_a_bugs_traceback_is_printed_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import replay.golden

    def crash(logs: object, files: object, out: object, problems: object = None) -> object:
        raise KeyError("\x1b]0;owned\x07\r\nforged line")

    monkeypatch.setattr(replay.golden, "write_golden", crash)
    assert main(["golden", "--logs", str(SJ), "--out", str(tmp_path / "g")]) == 3
    err = capsys.readouterr().err
    assert "KeyError: '\\x1b]0;owned\\x07\\r\\nforged line'\n" in err
    assert "\x1b" not in err and "\r" not in err
