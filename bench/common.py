"""Helpers shared by the benchmark scripts: simulated corpora (cached), timing, the machine."""

from __future__ import annotations

import multiprocessing as mp
import os
import platform
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from replay import native
from replay.logfile import write_games
from replay.simulate import simulate_many

OUT = Path(__file__).resolve().parent / "out"


def reference_work_ms(repeat: int = 5) -> float:
    """Milliseconds of CPU, best of ``repeat``, for a fixed piece of plain Python (dict and list work
    much like a rules engine's, none of Governor's code): how fast the machine runs this day, to put
    figures of different days side by side (a shared machine's speed varies by 2 times)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        table: dict[int, list[int]] = {}
        for i in range(200_000):
            row = table.setdefault(i % 97, [])
            row.append(i * 7 % 13)
            if len(row) > 20:
                row.pop(0)
        best = min(best, time.process_time() - start)
    return round(best * 1000, 1)


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = int(line.split()[1]) // 1024
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpu": model,
        "cores": usable,
        "cpu_count": os.cpu_count(),
        "memory_mib": mem,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "date": time.strftime("%Y-%m-%d"),
        "engines": native.status,
    }


def _simulate_part(args: tuple[str, list[int], int, int, str]) -> list[dict[str, Any]]:
    game, players, count, seed, bot = args
    return list(simulate_many(game, players, count, seed, bot))


def corpus(game: str, players: list[int], games: int, seed: int = 1, bot: str = "heuristic") -> Path:
    """A folder of ``games`` simulated games as .jsonl files (made once, then reused from bench/out)."""
    folder = OUT / f"{game}-{'-'.join(map(str, players))}p-{games}-s{seed}-{bot}"
    done = folder / "DONE"
    if done.exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    part = 2000
    jobs = [(game, players, min(part, games - start), seed * 100_000 + start // part, bot) for start in range(0, games, part)]
    with mp.get_context("fork").Pool(os.cpu_count() or 1) as pool:
        for k, games_part in enumerate(pool.imap(_simulate_part, jobs)):
            write_games(folder / f"part{k:04d}.jsonl", games_part)
    done.write_text("ok\n")
    return folder


@contextmanager
def timer() -> Iterator[Callable[[], float]]:
    """Wall-clock seconds since entering, read by calling the yielded function."""
    start = time.perf_counter()
    end: list[float] = []
    yield lambda: (end[0] if end else time.perf_counter()) - start
    end.append(time.perf_counter())
