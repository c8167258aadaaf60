"""Import benchmark: simulated games into a fresh database, against the floors the libraries set.

Measures, for each corpus size: games/s and rows/s of ``governor import`` with all cores, peak memory,
database bytes per game; replay alone over the same games with the same cores (so the report says what
storing adds); reading and parsing the files without replaying them; and writing the same rows to
DuckDB from prepared Arrow tables. Writes ``bench/results_import.json``.

Corpora larger than ``--base`` games (10,000 by default) are made from the simulated ones by renaming the
players of each further copy (copy ``k`` prefixes every name and source id with ``k``), which changes
every game id: a million distinct games cost a file copy, not a million simulations.

    python bench/bench_import.py [--games 10000 100000] [--base 10000]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench.common import OUT, corpus, machine  # noqa: E402
from ingest.importer import ImportSummary, write_batch  # noqa: E402
from ingest.rows import process  # noqa: E402
from ingest.sources import expand_paths  # noqa: E402
from replay.log_reader import read_records  # noqa: E402
from replay.replayer import final_state  # noqa: E402


def _records(folder: Path) -> list[Any]:
    return [r for f in expand_paths([folder]) for r in read_records(f)]


def _replay_chunk(paths: list[str]) -> int:
    count = 0
    for path in paths:
        for record in read_records(path):
            final_state(record.log)
            count += 1
    return count


def replay_only(folder: Path, workers: int) -> float:
    """Seconds to read and replay every game with ``workers`` processes (no storing)."""
    files = [str(p) for p in expand_paths([folder])]
    start = time.perf_counter()
    with mp.get_context("fork").Pool(workers) as pool:
        sum(pool.imap_unordered(_replay_chunk, [[f] for f in files]))
    return time.perf_counter() - start


def parse_only(folder: Path) -> float:
    start = time.perf_counter()
    n = len(_records(folder))
    assert n
    return time.perf_counter() - start


def arrow_floor(folder: Path, db: Path, games: int) -> dict[str, float]:
    """Time to write prepared Arrow tables of up to 2,000 games to DuckDB, per game."""
    records = _records(folder)[: min(games, 2000)]
    batch = process(records)
    tables = batch.to_arrow()
    rows = sum(t.num_rows for t in tables.values())
    start = time.perf_counter()
    write_batch(db, [tables], ImportSummary())
    seconds = time.perf_counter() - start
    return {"games": len(records), "rows_sent": rows, "seconds": seconds, "games_per_s": len(records) / seconds}


_PEAK_OF = (
    "import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
    "print('peak_kib', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(r.returncode)"
)


def renamed_corpus(games: int, base: int) -> Path:
    """A folder of ``games`` distinct games: the ``base`` simulated ones, then copies of them whose
    players (and source ids) are renamed (made once, then reused from bench/out)."""
    if games <= base:
        return corpus("san_juan", [2, 3, 4], games, seed=7)
    source = corpus("san_juan", [2, 3, 4], base, seed=7)
    folder = OUT / f"san_juan-2-3-4p-{games}-renamed-from-{base}-s7"
    done = folder / "DONE"
    if done.exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    parts = sorted(p for p in source.iterdir() if p.suffix == ".jsonl")
    written = 0
    copy = 0
    while written < games:
        with open(folder / f"copy{copy:04d}.jsonl", "w", encoding="utf-8") as out:
            for part in parts:
                with open(part, encoding="utf-8") as lines:
                    for line in lines:
                        if written >= games:
                            break
                        if copy:
                            # Names occur only in "players"; a name's change changes the game id.
                            line = line.replace('"name":"', f'"name":"{copy} ').replace(
                                '"source_id":"', f'"source_id":"{copy}-')
                        out.write(line)
                        written += 1
        copy += 1
    done.write_text("ok\n")
    return folder


def import_command(games: int, workers: int, base: int) -> tuple[Path, Path, list[str]]:
    """The corpus of ``games`` games, a new (removed) database for it, and the ``governor import``
    command that imports one into the other with ``workers`` processes."""
    folder = renamed_corpus(games, base)
    db = OUT / f"import-{games}.duckdb"
    for suffix in ("", ".wal"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "governor.cli", "import", str(folder), "--db", str(db), "--workers", str(workers),
           "--progress", "never"]
    return folder, db, cmd


def run(games: int, workers: int, base: int = 10_000) -> dict[str, Any]:
    folder, db, cmd = import_command(games, workers, base)
    # Through a process of its own, whose children's peak is that of this import alone (the largest of
    # its processes), not of every process this script has waited for.
    wrapper = [sys.executable, "-c", _PEAK_OF]
    start = time.perf_counter()
    proc = subprocess.run(wrapper + cmd, capture_output=True, text=True, cwd=HERE.parent)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    *lines, peak_line = proc.stderr.strip().splitlines()
    peak_kib = int(peak_line.removeprefix("peak_kib "))
    line = lines[-1]
    rows = int(line.split(" rows")[0].rsplit("files, ", 1)[1].replace(",", ""))
    size = db.stat().st_size
    replay_s = replay_only(folder, workers)
    parse_s = parse_only(folder)
    floor_db = OUT / f"floor-{games}.duckdb"
    for suffix in ("", ".wal"):
        Path(str(floor_db) + suffix).unlink(missing_ok=True)
    floor = arrow_floor(folder, floor_db, games)
    return {
        "games": games,
        "workers": workers,
        "import_seconds": round(seconds, 2),
        "import_games_per_s": round(games / seconds, 1),
        "import_rows_per_s": round(rows / seconds),
        "rows": rows,
        "peak_rss_mib_largest_process": round(peak_kib / 1024, 1),
        "db_bytes": size,
        "db_bytes_per_game": round(size / games),
        "replay_only_seconds": round(replay_s, 2),
        "replay_only_games_per_s": round(games / replay_s, 1),
        "storing_overhead_pct": round(100 * (seconds - replay_s) / replay_s, 1),
        "parse_only_seconds": round(parse_s, 2),
        "parse_only_games_per_s": round(games / parse_s, 1),
        "duckdb_write_floor": {k: round(v, 3) if isinstance(v, float) else v for k, v in floor.items()},
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, nargs="+", default=[10_000])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--base", type=int, default=10_000, help="simulated games; more are made by renaming players")
    args = parser.parse_args(argv)
    results = {"machine": machine(), "runs": [run(n, args.workers, args.base) for n in args.games]}
    (HERE / "results_import.json").write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(results, indent=1))
    return results


if __name__ == "__main__":
    main()
