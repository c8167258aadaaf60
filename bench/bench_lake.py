"""Lake imports against the DuckDB import: the same simulated games, on 1 and 2 local workers, and on
local Dask and Ray clusters of 2 workers.

    python bench/bench_lake.py [--games 100000] [--engines duckdb,lake1,lake2,dask,ray] [--out bench/results_lake.json]

The corpus is simulated San Juan and Puerto Rico games (heuristic bots, 2 to 5 players) in .jsonl files
of 500 games (a lake task is a group of files), cached in bench/out/. For each way: seconds, games/s,
bytes on disk per game, and the time of a documented query on the result.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench.common import OUT, machine  # noqa: E402
from replay.logfile import write_games  # noqa: E402
from replay.simulate import simulate_many  # noqa: E402

PART = 500
#: Games simulated for a corpus; larger corpora are copies of these under other player names.
SIMULATED = 10_000


def _part(args: tuple[int, int]) -> list[dict[str, Any]]:
    k, count = args
    game, players = (("san_juan", [2, 3, 4]) if k % 2 == 0 else ("puerto_rico", [3, 4, 5]))
    return list(simulate_many(game, players, count, 7_000 + k))


def corpus(games: int) -> Path:
    """``games`` simulated games in .jsonl files of ``PART`` games, made once. Past ``SIMULATED``
    games, the simulated corpus is copied under renamed players (``Ana`` -> ``Ana 2``): each copy is
    another game (its id hashes the names) that replays exactly as its original, so the corpus keeps
    the simulated games' mix of games, player counts and lengths."""
    folder = OUT / f"lake-corpus-{games}"
    if (folder / "DONE").exists():
        return folder
    if games > SIMULATED and games % SIMULATED == 0:
        return _renamed(corpus(SIMULATED), folder, games // SIMULATED)
    folder.mkdir(parents=True, exist_ok=True)
    jobs = [(k, min(PART, games - k * PART)) for k in range((games + PART - 1) // PART)]
    with mp.get_context("fork").Pool(os.cpu_count() or 1) as pool:
        for k, part in enumerate(pool.imap(_part, jobs)):
            write_games(folder / f"part{k:05d}.jsonl", part)
    (folder / "DONE").write_text("ok\n")
    return folder


def _renamed(source: Path, folder: Path, copies: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for copy in range(copies):
        for part in sorted(source.glob("part*.jsonl")):
            lines = part.read_text(encoding="utf-8").splitlines()
            if copy:
                games = [json.loads(line) for line in lines]
                for game in games:
                    for player in game["players"]:
                        player["name"] = f"{player['name']} {copy + 1}"
                    if game.get("source_id"):
                        game["source_id"] = f"{game['source_id']}-copy{copy + 1}"
                lines = [json.dumps(game, separators=(",", ":")) for game in games]
            (folder / f"copy{copy:03d}-{part.name}").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "DONE").write_text("ok\n")
    return folder


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _query_seconds(target: Path) -> float:
    from ingest.db import reader

    with reader(target) as con:
        start = time.perf_counter()
        con.execute("SELECT * FROM win_rate_by_building WHERE owners >= 50 ORDER BY win_rate DESC").fetchall()
        return time.perf_counter() - start


def run_one(way: str, logs: Path, work: Path) -> dict[str, Any]:
    from ingest.importer import import_paths

    target = work / (f"{way}.duckdb" if way == "duckdb" else way)
    if target.exists():
        shutil.rmtree(target) if target.is_dir() else target.unlink()
    start = time.perf_counter()
    if way == "duckdb":
        summary = import_paths([logs], target, workers=2)
    elif way in ("lake1", "lake2"):
        summary = import_paths([logs], str(target), lake=True, workers=int(way[-1]))
    else:
        summary = import_paths([logs], str(target), lake=True, workers=2, cluster=f"{way}://local")
    seconds = time.perf_counter() - start
    return {
        "way": way, "games": summary.imported, "seconds": round(seconds, 1),
        "games_per_s": round(summary.imported / seconds, 1), "bytes_per_game": round(_size(target) / max(1, summary.imported)),
        "query_s": round(_query_seconds(target), 3),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--engines", default="duckdb,lake1,lake2,dask,ray")
    parser.add_argument("--out", type=Path, default=HERE / "results_lake.json")
    args = parser.parse_args(argv)
    logs = corpus(args.games)
    work = OUT / "lake-runs"
    work.mkdir(parents=True, exist_ok=True)
    rows = [run_one(way, logs, work) for way in args.engines.split(",")]
    result = {"machine": machine(), "games": args.games, "rows": rows}
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
