"""Seconds to analyse a whole game: a 4-player San Juan and a 5-player Puerto Rico sample game.

    python bench/bench_analysis.py [--rollouts 100] [--top 6] [--workers 2] [--out bench/results_analysis.json]

Measures wall time (run it on an otherwise idle machine), decisions analysed, candidates and rollouts
played, and rollouts per second.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from analysis.decisions import Options, analyse  # noqa: E402
from bench.common import machine  # noqa: E402
from replay.logfile import read_records  # noqa: E402

GAMES = {
    "san_juan 4p": ROOT / "sample_logs" / "san_juan" / "san_juan-4p-seed2026-0002.json",
    "puerto_rico 5p": ROOT / "sample_logs" / "puerto_rico" / "puerto_rico-5p-seed2026-0002.json",
}


def bench_game(path: Path, options: Options) -> dict[str, Any]:
    record = next(iter(read_records(path)))
    assert record.log is not None
    wall = time.perf_counter()
    decisions = list(analyse(record.log, options))
    wall = time.perf_counter() - wall
    candidates = sum(len(d.candidates) for d in decisions)
    rollouts = sum(c.rollouts for d in decisions for c in d.candidates)
    return {
        "file": str(path.relative_to(ROOT)), "moves": len(record.log.moves), "decisions": len(decisions),
        "candidates": candidates, "rollouts": rollouts, "seconds": round(wall, 1),
        "rollouts_per_second": round(rollouts / wall, 1),
        "tags": {t: sum(1 for d in decisions if d.tag == t) for t in ("inaccuracy", "mistake", "blunder")},
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rollouts", type=int, default=100)
    parser.add_argument("--top", type=int, default=6)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=HERE / "results_analysis.json")
    args = parser.parse_args(argv)
    options = Options(rollouts=args.rollouts, seed=1, top=args.top, workers=args.workers)
    rows = {name: bench_game(path, options) for name, path in GAMES.items()}
    result = {"machine": machine(), "rollouts": args.rollouts, "top": args.top, "workers": args.workers,
              "load_average": os.getloadavg(), "games": rows}
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
