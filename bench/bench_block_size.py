"""The database's block size: what it costs and saves. For each block size, a new database gets the
same ``--games`` simulated San Juan games in one import (every core), then twenty imports of one sample
game each (what the dashboard's uploads do); then every example query of docs/schema.md and the
dashboard's pages (``bench_dashboard.py``) are timed on each database, cold, in turn.

DuckDB writes each table's new row group of a commit into blocks of that table's own, so every
commit leaves a partly filled block per table it appended to: the smaller the block, the less is
wasted, until the compressed column segments (at most a block each) get too short.

    python bench/bench_block_size.py [--games 10000] [--sizes 262144 65536]

Writes ``bench/results_block_size.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402

import ingest.db  # noqa: E402
from bench.bench_import import renamed_corpus  # noqa: E402
from bench.common import machine  # noqa: E402
from ingest.importer import import_paths  # noqa: E402

SAMPLES = sorted((ROOT / "sample_logs" / "san_juan").glob("*.json"))


def schema_queries(game_id: str) -> list[str]:
    """The example queries of docs/schema.md, with a stored game's id for the one that needs one."""
    text = (ROOT / "docs" / "schema.md").read_text(encoding="utf-8")
    queries = re.findall(r"```sql\n(.*?)```", text, flags=re.S)
    return [q.replace("'...'", f"'{game_id}'") for q in queries if "INSERT" not in q.upper()]


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def build(db: Path, block_size: int, files: list[Path], workers: int) -> dict[str, Any]:
    for path in (db, Path(f"{db}.wal")):
        path.unlink(missing_ok=True)
    ingest.db.WRITE_CONFIG = {**ingest.db.WRITE_CONFIG, "default_block_size": block_size}
    cpu, start = cpu_seconds(), time.perf_counter()
    summary = import_paths(files, db, workers=workers)
    seconds = time.perf_counter() - start
    cpu = cpu_seconds() - cpu
    size = db.stat().st_size
    small = []
    for sample in SAMPLES[:20]:
        before = db.stat().st_size
        import_paths([sample], db, workers=1)
        small.append(db.stat().st_size - before)
    with duckdb.connect(str(db), read_only=True) as con:
        made = con.execute("SELECT block_size FROM pragma_database_size()").fetchall()[0][0]
    return {
        "block_size": made, "games": summary.imported, "import_s": round(seconds, 1),
        "games_per_s": round(summary.imported / seconds, 1), "cpu_ms_per_game": round(1000 * cpu / summary.imported, 2),
        "bytes_per_game": size // summary.imported,
        "one_game_import_bytes_median": int(statistics.median(small)),
    }


def time_queries(db: Path, queries: list[str], repeat: int) -> list[float]:
    out = []
    for sql in queries:
        runs = []
        for _ in range(repeat):
            start = time.perf_counter()
            with duckdb.connect(str(db), read_only=True) as con:
                con.execute(sql).fetchall()
            runs.append(time.perf_counter() - start)
        out.append(round(statistics.median(runs), 4))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[262_144, 65_536])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, default=HERE / "results_block_size.json")
    args = parser.parse_args()
    files = [renamed_corpus(args.games, 10_000)]
    out_dir = HERE / "out"
    dbs = {size: out_dir / f"blocks-{size}-{args.games}.duckdb" for size in args.sizes}
    built = {size: build(db, size, files, args.workers) for size, db in dbs.items()}
    for result in built.values():
        print(json.dumps(result), flush=True)
    first = next(iter(dbs.values()))
    with duckdb.connect(str(first), read_only=True) as con:
        game_id = con.execute("SELECT min(game_id) FROM games WHERE game = 'san_juan'").fetchall()[0][0]
    queries = schema_queries(game_id)
    for size, db in dbs.items():
        built[size]["schema_queries_s"] = time_queries(db, queries, args.repeat)
        dash = out_dir / f"blocks-{size}-dashboard.json"
        subprocess.run([sys.executable, str(HERE / "bench_dashboard.py"), "--db", str(db), "--repeat", "3",
                        "--pages", "games", "replay", "statistics", "sql", "--out", str(dash)], check=True)
        built[size]["dashboard"] = json.loads(dash.read_text())
    result = {"machine": machine(), "games": args.games, "queries": [" ".join(q.split())[:80] for q in queries],
              "by_block_size": list(built.values())}
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
