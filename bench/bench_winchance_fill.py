"""``governor winchance --db`` on a large database: how many games a second it fills.

Simulates ``--base`` games (default 10,000): every game and player count in equal parts (San Juan 2,
3 and 4 players, Puerto Rico 3, 4 and 5), played by the expert bots from ``--seed``, imported with
``governor import`` into a DuckDB file under ``bench/out`` (made once, then reused). A database of more
games (``--games``, default 100,000) holds each of these as many times as it takes, each copy its own
game under another id (``<id>-copy<k>``, made by SQL: the import of 100,000 games costs an hour on the
busy machine, and the fill has nothing to gain from a copy, which it replays and predicts as any
game). Then:

- the command itself: ``governor winchance --db`` on a copy of that database with ``--workers``
  processes (default 2), its wall-clock and CPU time (its own and its workers'), games and rows filled;
- each game and player count alone: a worker's work (``analysis.winchance.fill.Worker``: replaying,
  the whole view's vectors, the trees) on ``--sample`` of its games in this process, per CPU second.

Writes ``bench/results_winchance_fill.json`` and prints a markdown table. The engines and the games'
``spaces`` modules run compiled when ``governor native build`` is current (the results say which).

    nice -n 5 python bench/bench_winchance_fill.py --games 10000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402

from bench.common import OUT, corpus, machine  # noqa: E402

#: Every game and player count, in equal parts.
PARTS = (("san_juan", (2, 3, 4)), ("puerto_rico", (3, 4, 5)))


def database(games: int, base: int, seed: int, workers: int) -> Path:
    """The database of ``games`` games, the ``base`` simulated ones and copies of them under other ids
    (made once, then reused from bench/out)."""
    if games > base:
        return copies(database(base, base, seed, workers), games)
    db = OUT / f"winchance-fill-{games}-s{seed}-expert.duckdb"
    done = Path(f"{db}.done")
    if done.exists():
        return db
    folders = []
    for game, counts in PARTS:
        # simulate cycles the player counts: a third of the game's games each.
        folders.append(corpus(game, list(counts), games // len(PARTS), seed=seed, bot="expert"))
    for suffix in ("", ".wal"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    subprocess.run([sys.executable, "-m", "governor.cli", "import", *map(str, folders), "--db", str(db),
                    "--workers", str(workers), "--progress", "never"], check=True, cwd=ROOT)
    done.write_text("ok\n")
    return db


def copies(source: Path, games: int) -> Path:
    """``source`` with its games copied under other ids up to ``games`` games (made once)."""
    db = OUT / f"{source.stem}-copied-to-{games}.duckdb"
    done = Path(f"{db}.done")
    if done.exists():
        return db
    shutil.copyfile(source, db)
    with duckdb.connect(str(db)) as con:
        have = con.execute("SELECT count(*) FROM games").fetchone()[0]  # type: ignore[index]
        copy = 1
        while have < games:
            con.execute("INSERT INTO games SELECT * REPLACE (game_id || '-copy' || ? AS game_id) FROM "
                        "(SELECT * FROM games WHERE NOT contains(game_id, '-copy') ORDER BY game_id LIMIT ?)",
                        [copy, games - have])
            have = con.execute("SELECT count(*) FROM games").fetchone()[0]  # type: ignore[index]
            copy += 1
    done.write_text("ok\n")
    return db


def command(db: Path, workers: int) -> dict[str, Any]:
    """``governor winchance --db`` on a copy of ``db``: its wall-clock and CPU seconds, games and rows."""
    work = OUT / f"{db.stem}-filling.duckdb"
    for suffix in ("", ".wal"):
        Path(f"{work}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(db, work)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load = os.getloadavg()
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "governor.cli", "winchance", "--db", str(work), "--workers",
                           str(workers), "--progress", "never"], capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with duckdb.connect(str(work), read_only=True) as con:
        games, rows = con.execute("SELECT count(DISTINCT game_id), count(*) FROM win_chance").fetchone()  # type: ignore[misc]
        total = con.execute("SELECT count(*) FROM games").fetchone()[0]  # type: ignore[index]
    for suffix in ("", ".wal"):
        Path(f"{work}{suffix}").unlink(missing_ok=True)
    return {"workers": workers, "games": games, "games_in_database": total, "rows": rows, "wall_s": round(wall, 1),
            "cpu_s": round(cpu, 1), "games_per_s": round(games / wall, 1), "games_per_cpu_s": round(games / cpu, 1),
            "load_average_before": [round(x, 2) for x in load],
            "load_average_after": [round(x, 2) for x in os.getloadavg()], "line": proc.stderr.strip().splitlines()[-1]}


def parts(db: Path, sample: int) -> list[dict[str, Any]]:
    """A worker's work on ``sample`` games of each game and player count, in this process (one core)."""
    from analysis.winchance.fill import TASK_GAMES, Worker

    out = []
    worker = Worker(None)
    with duckdb.connect(str(db), read_only=True) as con:
        for game, counts in PARTS:
            for players in counts:
                logs = [(str(a), str(b)) for a, b in con.execute(
                    "SELECT game_id, log FROM games WHERE game = ? AND player_count = ? ORDER BY game_id LIMIT ?",
                    [game, players, sample]).fetchall()]
                worker.chunk(logs[:1])  # the model loaded before the clock starts
                start = time.process_time()
                rows = 0
                for first in range(0, len(logs), TASK_GAMES):
                    outcome = worker.chunk(logs[first:first + TASK_GAMES])
                    rows += sum(chances.size for _, chances in outcome.found)
                cpu = time.process_time() - start
                out.append({"game": game, "players": players, "games": len(logs), "rows_per_game": round(rows / len(logs)),
                            "cpu_s": round(cpu, 2), "games_per_cpu_s": round(len(logs) / cpu, 1)})
    return out


def table(results: dict[str, Any]) -> str:
    """The results as a markdown table."""
    run = results["command"]
    lines = ["| game | players | games | rows a game | games per CPU second (one core) |",
             "| --- | ---: | ---: | ---: | ---: |"]
    for part in results["parts"]:
        lines.append(f"| {part['game']} | {part['players']} | {part['games']:,} | {part['rows_per_game']:,} | "
                     f"{part['games_per_cpu_s']} |")
    lines += ["", "| governor winchance --db | games | rows | wall-clock s | CPU s | games/s | games per CPU s |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
              f"| workers {run['workers']}, {results['machine']['engines']} | {run['games']:,} | {run['rows']:,} | "
              f"{run['wall_s']} | {run['cpu_s']} | {run['games_per_s']} | {run['games_per_cpu_s']} |"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--base", type=int, default=10_000, help="games simulated; more are copies of them")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sample", type=int, default=300, help="games of each game and player count timed alone")
    parser.add_argument("--out", type=Path, default=HERE / "results_winchance_fill.json")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    db = database(args.games, args.base, args.seed, args.workers)
    made = time.perf_counter() - started
    results: dict[str, Any] = {"machine": machine(), "games": args.games, "simulated": min(args.games, args.base),
                               "seed": args.seed, "bot": "expert",
                               "database_made_s": round(made, 1), "database_bytes": db.stat().st_size}
    results["command"] = command(db, args.workers)
    results["parts"] = parts(db, args.sample)
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(table(results))
    return results


if __name__ == "__main__":
    main()
