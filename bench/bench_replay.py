"""Replay throughput: how many games (and moves) a second are parsed, replayed and checked.

Not a test. Measures, on the sample logs and on N freshly simulated San Juan games per player count:

* parse: reading the file, JSON decoding and the envelope check (``read_records``);
* replay: the checked replay of every move and the result check (``final_state``, what ``validate``
  does), single core, and the full replay keeping every snapshot and the words (``replay``);
* parse + replay on every core, with one worker process per core (``multiprocessing``).

Each timing is the best of ``--repeat`` runs (other work on the machine only ever slows a run down).
Writes ``bench/results_replay.json`` and prints a markdown table::

    python bench/bench_replay.py --games 300
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import machine  # noqa: E402
from ingest.sources import expand_paths  # noqa: E402
from replay.log_reader import read_records  # noqa: E402
from replay.logfile import GameLog  # noqa: E402
from replay.registry import all_engines  # noqa: E402
from replay.replayer import final_state, replay  # noqa: E402
from replay.simulate import write_simulated  # noqa: E402

TARGET_PER_CORE = 500  # San Juan games per second per core, replayed and checked


def best_of(repeat: int, run: Callable[[], Any]) -> tuple[float, Any]:
    """The shortest wall time of ``repeat`` runs and the result of the last one."""
    best = float("inf")
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result


def parse_files(files: Sequence[Path]) -> list[GameLog]:
    """Every game of ``files``; raises on a bad one (benchmark data must be good)."""
    logs = []
    for file in files:
        for record in read_records(file):
            if record.error is not None:
                raise record.error
            assert record.log is not None
            logs.append(record.log)
    return logs


def replay_all(logs: Sequence[GameLog]) -> int:
    """Replay and check every game, keeping only the final state. Returns the number of moves."""
    moves = 0
    for log in logs:
        final_state(log)
        moves += len(log.moves)
    return moves


def replay_full(logs: Sequence[GameLog]) -> int:
    """Replay every game keeping every snapshot and the move in words (what import and the dashboard do)."""
    return sum(len(replay(log).steps) for log in logs)


def _worker(files: list[str]) -> tuple[int, int]:
    logs = parse_files([Path(f) for f in files])
    return len(logs), replay_all(logs)


def parallel(pool: Any, files: Sequence[Path], workers: int) -> tuple[int, int]:
    """Parse and replay ``files`` across the pool's workers (files dealt round-robin)."""
    chunks = [[str(f) for f in files[k::workers]] for k in range(workers)]
    games = moves = 0
    for g, m in pool.map(_worker, [c for c in chunks if c]):
        games += g
        moves += m
    return games, moves


def row(dataset: str, game: str, players: str, phase: str, workers: int, games: int, moves: int,
        seconds: float) -> dict[str, Any]:
    return {
        "dataset": dataset,
        "game": game,
        "players": players,
        "phase": phase,
        "workers": workers,
        "games": games,
        "moves": moves,
        "seconds": round(seconds, 4),
        "games_per_s": round(games / seconds, 1),
        "moves_per_s": round(moves / seconds),
        "games_per_s_per_core": round(games / seconds / workers, 1),
    }


def measure(dataset: str, game: str, players: str, files: Sequence[Path], repeat: int, pool: Any,
            workers: int) -> list[dict[str, Any]]:
    """Every phase on one set of files."""
    parse_s, logs = best_of(repeat, lambda: parse_files(files))
    logs = [log for log in logs if log.game == game]
    games = len(logs)
    moves = sum(len(log.moves) for log in logs)
    replay_s, _ = best_of(repeat, lambda: replay_all(logs))
    full_s, _ = best_of(repeat, lambda: replay_full(logs))
    rows = [
        row(dataset, game, players, "parse", 1, games, moves, parse_s),
        row(dataset, game, players, "replay+check", 1, games, moves, replay_s),
        row(dataset, game, players, "parse+replay+check", 1, games, moves, parse_s + replay_s),
        row(dataset, game, players, "replay, all snapshots+words", 1, games, moves, full_s),
    ]
    if pool is not None:
        par_s, _ = best_of(repeat, lambda: parallel(pool, files, workers))
        rows.append(row(dataset, game, players, "parse+replay+check", workers, games, moves, par_s))
    return rows


def markdown(rows: Sequence[dict[str, Any]]) -> str:
    """The rows as a markdown table."""
    head = "| data | game | players | phase | cores | games | moves | s | games/s | games/s/core | moves/s |"
    lines = [head, "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r['dataset']} | {r['game']} | {r['players']} | {r['phase']} | {r['workers']} | {r['games']} | "
            f"{r['moves']} | {r['seconds']:.3f} | {r['games_per_s']:,.0f} | {r['games_per_s_per_core']:,.0f} | "
            f"{r['moves_per_s']:,} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="simulated games per game and player count (default 300)")
    parser.add_argument("--seed", type=int, default=7, help="simulation seed (default 7)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing, best kept (default 3)")
    parser.add_argument("--workers", type=int, default=None, help="processes for the all-cores run (default: usable cores)")
    parser.add_argument("--samples", default=str(ROOT / "sample_logs"), help="sample logs folder")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results_replay.json"), help="results file")
    args = parser.parse_args(argv)

    info = machine()
    workers = args.workers or info["cores"] or 1
    engines = all_engines()
    rows: list[dict[str, Any]] = []
    ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    with ctx.Pool(workers) as pool, tempfile.TemporaryDirectory(prefix="governor-bench-") as tmp:
        pool.map(_worker, [[] for _ in range(workers)])  # start and import in every worker before timing
        samples = Path(args.samples)
        for game in sorted(engines):
            folder = samples / game
            if folder.is_dir():
                files = expand_paths([folder])
                rows += measure("sample_logs", game, "all", files, args.repeat, pool, workers)
        sim_seconds = {}
        for game in sorted(engines):
            engine = engines[game]
            for count in range(engine.min_players, engine.max_players + 1):
                start = time.perf_counter()
                # One .jsonl file per worker share, so the all-cores run has files to deal out.
                files = []
                per_file = -(-args.games // workers)
                for k in range(workers):
                    n = min(per_file, args.games - k * per_file)
                    if n > 0:
                        out = Path(tmp) / f"{game}-{count}p-{k}"
                        files += write_simulated(out, game, [count], n, args.seed * 100 + count * 10 + k, jsonl=True)
                sim_seconds[f"{game}-{count}p"] = round(time.perf_counter() - start, 2)
                rows += measure("simulated", game, str(count), files, args.repeat, pool, workers)
    result = {
        "machine": info,
        "params": {"games_per_player_count": args.games, "seed": args.seed, "repeat": args.repeat, "workers": workers},
        "simulation_seconds": sim_seconds,
        "target_games_per_s_per_core": TARGET_PER_CORE,
        "rows": rows,
    }
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"{info['cpu']}, {info['cores']} usable core(s), Python {info['python']}, "
          f"load average {info['load_average']}")
    print()
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
