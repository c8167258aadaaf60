"""Load: the dashboard's own queries keep answering while a 400-game import, committed in 20 batches,
runs into the same database, and the import stores every game exactly once. (The speed of a
10,000-game import is the benchmarks' business: bench/bench_import_large.py.)"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from replay.logfile import write_games
from replay.simulate import simulate_many

ROOT = Path(__file__).resolve().parents[2]
GAMES = 400
#: Games per committed batch of the import: many commits while the queries run.
BATCH = 20


def _simulate(args: tuple[int, int, Path]) -> int:
    start, count, out = args
    games = list(simulate_many("san_juan", [2, 3, 4], count, seed=4242 + start))
    for k, obj in enumerate(games):
        obj["source_id"] = f"load-{start + k}"
    write_games(out / f"part-{start:05d}.jsonl", games)
    return count


def _default_signals() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@pytest.fixture(scope="module")
def many_games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("load")
    parts = [(start, min(200, GAMES - start), folder) for start in range(0, GAMES, 200)]
    # The workers die by SIGTERM when the pool ends, whatever handler this test process holds (a command
    # run in-process installs one that raises): a worker stopped by it while holding the task queue's
    # lock left the pool waiting forever for the other one.
    with mp.get_context("fork").Pool(2, initializer=_default_signals) as pool:
        assert sum(pool.map(_simulate, parts)) == GAMES
    return folder


def test_dashboard_queries_answer_during_a_400_game_import(many_games: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from dashboards import data, stats_queries
    from ingest.importer import import_paths

    db = tmp_path / "load.duckdb"
    import_paths([ROOT / "sample_logs" / "san_juan"], db, workers=1)  # the dashboard has something to show
    monkeypatch.setenv("GOVERNOR_DB", str(db))
    proc = subprocess.Popen(
        [sys.executable, "-m", "governor.cli", "import", str(many_games), "--db", str(db), "--workers", "2"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ, GOVERNOR_WRITE_BATCH=str(BATCH)),
    )
    answered: list[tuple[int, float]] = []
    filters = stats_queries.Filters(game="san_juan")
    try:
        while proc.poll() is None:
            start = time.perf_counter()
            games = data.games_list()
            newest: Any = games.iloc[0]["game_id"]
            moves = data.game_moves(newest)
            states = data.game_player_states("san_juan", newest)
            seats = stats_queries.win_rate_by_seat(filters)
            assert len(moves) > 0 and len(states) > 0 and len(seats) > 0
            answered.append((len(games), time.perf_counter() - start))
            time.sleep(0.2)
    finally:
        if proc.poll() is None:
            proc.kill()
    out, err = proc.communicate()
    assert proc.returncode == 0, err.decode()
    counts = [n for n, _ in answered]
    assert counts == sorted(counts)  # games only ever appear, whole
    # Readers went on during the import: they saw a state between its start and its end (how many
    # rounds of queries fit depends on what else the machine runs, not on the importer).
    between = {n for n in counts if 30 < n < GAMES + 30}
    assert between, f"the queries saw only {sorted(set(counts))}, nothing between the start and the end"
    assert counts[-1] > 30  # the import's batches became visible while it ran
    assert max(seconds for _, seconds in answered) < 60
    final = data.frame("SELECT count(*) AS n, count(DISTINCT game_id) AS d FROM games")
    assert (int(final["n"][0]), int(final["d"][0])) == (GAMES + 30, GAMES + 30)
    steps = data.frame("SELECT count(*) AS n FROM (SELECT DISTINCT game_id, step, seat FROM san_juan_player_states)")
    rows = data.frame("SELECT count(*) AS n FROM san_juan_player_states")
    assert int(steps["n"][0]) == int(rows["n"][0])
