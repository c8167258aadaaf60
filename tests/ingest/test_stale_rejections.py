"""A rejection is about what a position (file, game in it) held when it was read: once a later import
reads that position again and stores its game (or rejects it for another reason), the old rejection
goes, in the DuckDB file and in the lake; one that is met again stays, once."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import duckdb
import pytest

from ingest.importer import import_paths
from ingest.lake import Lake
from ingest.lake_read import connect_lake

ROOT = Path(__file__).resolve().parents[2]
SJ = sorted((ROOT / "sample_logs" / "san_juan").glob("*.json"))
BAD = ROOT / "tests" / "replay" / "bad_logs" / "logs" / "build_underpaid.json"


def _rejections(target: Path, lake: bool) -> list[tuple[str, int, str]]:
    con = connect_lake(Lake(str(target))) if lake else duckdb.connect(str(target), read_only=True)
    try:
        return [(Path(f).name, i, k) for f, i, k in con.execute(
            "SELECT file, game_index, kind FROM rejections ORDER BY file, game_index").fetchall()]
    finally:
        con.close()


def _games(target: Path, lake: bool) -> int:
    con = connect_lake(Lake(str(target))) if lake else duckdb.connect(str(target), read_only=True)
    try:
        return int(con.execute("SELECT count(*) FROM games").fetchall()[0][0])
    finally:
        con.close()


@pytest.mark.parametrize("lake", [False, True], ids=["duckdb", "lake"])
def test_a_rejection_goes_once_its_position_is_stored(tmp_path: Path, lake: bool) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    for path in SJ[:5]:
        shutil.copy(path, logs / path.name)
    shutil.copy(BAD, logs / "bad.json")
    # A position that cannot be read now (as a file deleted or replaced during an import), and a
    # .jsonl whose second game is bad now and is put right later.
    os.mkfifo(logs / "later.json")
    games = [json.loads(p.read_text()) for p in SJ[5:8]]
    broken = dict(games[1], moves=games[1]["moves"][:-3])
    (logs / "three.jsonl").write_text("\n".join(json.dumps(g) for g in (games[0], broken, games[2])) + "\n")
    target = tmp_path / ("lake" if lake else "g.duckdb")

    def run() -> tuple[int, int, int]:
        if lake:
            summary = import_paths([logs], str(target), lake=True, workers=1)
        else:
            summary = import_paths([logs], target, workers=1)
        return summary.imported, summary.duplicates, summary.rejected

    assert run() == (7, 0, 3)
    assert _rejections(target, lake) == [("bad.json", 0, "illegal"), ("later.json", 0, "format"),
                                         ("three.jsonl", 1, "format")]
    # Again, nothing changed: the same three rejections, each once.
    assert run() == (0, 7, 3)
    assert len(_rejections(target, lake)) == 3
    (logs / "later.json").unlink()
    shutil.copy(SJ[8], logs / "later.json")
    (logs / "three.jsonl").write_text("\n".join(json.dumps(g) for g in games) + "\n")
    assert run() == (2, 7, 1)
    assert _rejections(target, lake) == [("bad.json", 0, "illegal")]
    assert _games(target, lake) == 9
    assert run() == (0, 9, 1)
    assert _rejections(target, lake) == [("bad.json", 0, "illegal")]
