"""The import's guarantees under stress: killed and rerun, two importers at once, readers meanwhile."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from ingest.db import read_arrow
from replay.logfile import write_games
from replay.simulate import simulate_many

ROOT = Path(__file__).resolve().parents[2]
TABLES = {
    "games": "SELECT * EXCLUDE (imported_at) FROM games",
    "players": "SELECT * FROM players",
    "moves": "SELECT * FROM moves",
    "san_juan_states": "SELECT * FROM san_juan_states",
    "san_juan_player_states": "SELECT * FROM san_juan_player_states",
    "rejections": "SELECT * EXCLUDE (rejected_at) FROM rejections",
    "openings": "SELECT * FROM openings",
    "player_ratings": "SELECT * FROM player_ratings",
    "player_rating_history": "SELECT * FROM player_rating_history",
}


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sim")
    games = list(simulate_many("san_juan", [2, 3, 4], 240, seed=77))
    write_games(folder / "a.jsonl", games[:160])
    write_games(folder / "b.jsonl", games[80:])
    # One bad game, so that rejections are part of what must come out the same.
    (folder / "c.jsonl").write_text('{"format": "governor-log"\n')
    return folder


def fingerprint(db: Path, ignore_source: bool = False) -> dict[str, tuple[int, int]]:
    """Row count and an order-independent hash of every table's contents (times left out; with
    ``ignore_source``, also which file a game was first imported from)."""
    out = {}
    tables = dict(TABLES)
    if ignore_source:
        tables["games"] = "SELECT * EXCLUDE (imported_at, file, file_index) FROM games"
    with duckdb.connect(str(db), read_only=True) as con:
        for name, sql in tables.items():
            out[name] = tuple(con.execute(f"SELECT count(*), coalesce(sum(hash(x)), 0) FROM ({sql}) x").fetchall()[0])
    return out


def _import(paths: list[Path], db: Path, batch: int = 20, workers: int = 2) -> subprocess.Popen[bytes]:
    env = dict(os.environ, GOVERNOR_WRITE_BATCH=str(batch))
    return subprocess.Popen(
        [sys.executable, "-m", "governor.cli", "import", *map(str, paths), "--db", str(db), "--workers", str(workers)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


@pytest.fixture(scope="module")
def clean_db(logs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The logs imported by one clean run (read only)."""
    db = tmp_path_factory.mktemp("clean") / "clean.duckdb"
    proc = _import([logs], db)
    proc.wait(timeout=300)
    assert proc.returncode == 1  # the bad game
    return db


@pytest.fixture(scope="module")
def clean(clean_db: Path) -> dict[str, tuple[int, int]]:
    prints = fingerprint(clean_db)
    assert prints["games"][0] == 240
    assert prints["rejections"][0] == 1
    return prints


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_killed_import_rerun_equals_clean_run(logs: Path, clean: dict[str, tuple[int, int]], tmp_path: Path, seed: int) -> None:
    db = tmp_path / "killed.duckdb"
    rng = random.Random(seed)
    for _ in range(2):
        proc = _import([logs], db)
        time.sleep(rng.uniform(0.3, 2.5))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    rerun = _import([logs], db)
    rerun.wait(timeout=300)
    assert fingerprint(db) == clean


def test_two_imports_at_once_store_every_game_once(logs: Path, clean: dict[str, tuple[int, int]], clean_db: Path,
                                                   tmp_path: Path) -> None:
    clean_without_source = fingerprint(clean_db, ignore_source=True)
    db = tmp_path / "twice.duckdb"
    first = _import([logs / "a.jsonl", logs / "c.jsonl"], db, workers=1)
    second = _import([logs / "b.jsonl", logs / "c.jsonl"], db, workers=1)
    for proc in (first, second):
        proc.wait(timeout=300)
        assert proc.returncode == 1, proc.stderr.read().decode()  # each reports the bad game
    # The 80 games in both files come from whichever importer stored them first.
    assert fingerprint(db, ignore_source=True) == clean_without_source


def test_readers_keep_working_during_an_import(logs: Path, tmp_path: Path) -> None:
    db = tmp_path / "busy.duckdb"
    # The schema exists before the reader starts.
    first = _import([logs / "c.jsonl"], db)
    first.wait(timeout=60)
    proc = _import([logs], db, batch=10, workers=1)
    counts = []
    while proc.poll() is None:
        table = read_arrow(db, "SELECT count(*) AS n FROM games")
        counts.append(table.column("n")[0].as_py())
        time.sleep(0.05)
    assert proc.returncode == 1
    counts.append(read_arrow(db, "SELECT count(*) AS n FROM games").column("n")[0].as_py())
    assert len(counts) > 5
    assert counts == sorted(counts)  # never goes back: whole batches appear at once
    assert counts[-1] == 240
