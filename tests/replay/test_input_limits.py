"""Reading is bounded: decompression stops past the per-game and per-file limits, blank lines cost
nothing, only regular files are read (never a device, never a named pipe that would block), and the
importer's counting pass is bounded the same way."""

from __future__ import annotations

import json
import os
from pathlib import Path

import duckdb
import pytest

from ingest.importer import import_paths
from replay import log_reader
from replay.log_reader import count_games, read_records
from tests.hostile import MIB, gzip_repeated, line, sample


def test_a_gzip_bomb_stops_at_the_game_limit_in_little_memory(tmp_path: Path) -> None:
    from tests.hostile import governor

    # 2 MB on disk, 2 GiB of spaces then a whole game once decompressed.
    bomb = gzip_repeated(tmp_path / "bomb.json.gz", [(b" " * MIB, 2048), (line(sample()), 1)])
    assert bomb.stat().st_size < 3 * MIB
    run = governor(["validate", str(bomb)], tmp_path)
    assert run.returncode == 1
    assert run.stdout == f"bad: {bomb}, game 1: game is more than the limit of 16777216 bytes once decompressed\n"
    assert run.peak_mib < 300, run.peak_mib


def test_a_plain_file_over_the_limit_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "spaces.json"
    with open(path, "wb") as out:
        out.truncate(17 * MIB)  # a sparse file: its size is all that is looked at
    (record,) = read_records(path)
    assert record.error is not None
    assert record.error.message == f"{path}, game 1: game is {17 * MIB} bytes, more than the limit of 16777216"


def test_a_hundred_megabytes_of_blank_lines_cost_no_memory(tmp_path: Path) -> None:
    from tests.hostile import governor

    games = [sample("san_juan-2p-seed2026-0000.json"), sample()]
    path = gzip_repeated(tmp_path / "newlines.jsonl.gz", [(line(games[0]), 1), (b"\n" * MIB, 100), (line(games[1]), 1)])
    assert path.stat().st_size < 200_000
    records = list(read_records(path))
    assert [(r.index, r.error) for r in records] == [(0, None), (1, None)]
    assert count_games(path) == 2
    run = governor(["validate", str(path)], tmp_path)
    assert (run.returncode, run.stderr) == (0, "2 good, 0 bad game(s) in 1 file(s)\n")
    assert run.peak_mib < 300, run.peak_mib


def test_a_jsonl_line_over_the_game_limit_is_one_rejection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log_reader, "MAX_GAME_BYTES", 40_000)
    good = line(sample("san_juan-2p-seed2026-0000.json"))
    long = b'{"pad": "' + b"x" * 50_000 + b'"}\n'
    path = tmp_path / "long.jsonl"
    path.write_bytes(good + long + good)
    records = list(read_records(path))
    assert [r.error is None for r in records] == [True, False, True]
    assert records[1].error is not None
    assert records[1].error.message == f"{path}, game 2: game is {len(long) - 1} bytes, more than the limit of 40000"
    assert count_games(path) == 3


def test_a_jsonl_past_the_file_limit_keeps_the_games_before_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    good = line(sample("san_juan-2p-seed2026-0000.json"))
    monkeypatch.setattr(log_reader, "MAX_FILE_BYTES", 3 * len(good) + 10)
    monkeypatch.setattr(log_reader, "READ_CHUNK", len(good))
    path = gzip_repeated(tmp_path / "many.jsonl.gz", [(good, 10)])
    records = list(read_records(path))
    assert [r.error is None for r in records] == [True, True, True, False]
    assert records[3].error is not None
    assert records[3].error.message == (
        f"{path}, game 4: the file is more than the limit of {3 * len(good) + 10} bytes once decompressed; "
        "the 3 game(s) before the limit were read"
    )
    assert count_games(path) == 4  # counting stops at the limit too: three games and the error


def test_only_regular_files_are_read_and_nothing_blocks(tmp_path: Path) -> None:
    from tests.hostile import governor

    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "good.json").write_bytes(line(sample()))
    (folder / "zero.json").symlink_to("/dev/zero")
    os.mkfifo(folder / "pipe.json")
    os.mkfifo(folder / "pipe.jsonl")
    assert count_games(folder / "pipe.jsonl") == 1
    db = tmp_path / "g.duckdb"
    run = governor(["import", str(folder), "--db", str(db), "--workers", "1"], tmp_path, timeout=120)
    assert run.returncode == 1, run.stderr
    assert run.stderr.splitlines()[:3] == [
        f"rejected: {folder / 'pipe.json'}: not a regular file (a named pipe): only regular files are read",
        f"rejected: {folder / 'pipe.jsonl'}: not a regular file (a named pipe): only regular files are read",
        f"rejected: {folder / 'zero.json'}: not a regular file (a character device): only regular files are read",
    ]
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM games").fetchall() == [(1,)]
    run = governor(["validate", str(folder / "pipe.json"), str(folder / "zero.json")], tmp_path, timeout=120)
    assert run.returncode == 1
    assert run.stdout.count("not a regular file") == 2


def test_the_counting_pass_of_an_import_is_bounded(tmp_path: Path) -> None:
    games = [sample("san_juan-2p-seed2026-0000.json"), sample()]
    path = gzip_repeated(tmp_path / "newlines.jsonl.gz", [(line(games[0]), 1), (b"\n" * MIB, 100), (line(games[1]), 1)])
    summary = import_paths([path], tmp_path / "n.duckdb", workers=1)
    assert (summary.games, summary.imported, summary.rejected) == (2, 2, 0)


def test_a_truncated_jsonl_gz_keeps_the_whole_games_before_the_cut(tmp_path: Path) -> None:
    games = [sample("san_juan-2p-seed2026-0000.json"), sample()]
    data = gzip_repeated(tmp_path / "whole.jsonl.gz", [(line(games[0]), 1), (line(games[1]) * 40, 1)]).read_bytes()
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(data[: len(data) - 2000])
    records = list(read_records(cut))
    assert all(r.error is None for r in records[:-1])
    last = records[-1].error
    assert last is not None and "not a readable gzip file" in last.message
    assert json.loads(records[0].text)["players"] == games[0]["players"]
