"""A large import, watched while it runs: memory of every process, CPU, games stored, and the dashboard.

``governor import`` of ``--games`` distinct San Juan games (the simulated corpus of ``bench_import.py``,
copies renamed so every game id differs) into a new database with every core. Meanwhile:

- every ``--sample-every`` seconds the import's processes are read from /proc: resident memory of each
  (the largest is what must stay flat) and CPU seconds of all of them;
- every ``--probe-every`` seconds a fresh Python process runs the dashboard's Games page and the Replay
  page of a stored game through Streamlit's AppTest against the database being written (cold caches),
  and counts the stored games: whether the dashboard answers during the import, how fast, and the
  import's progress over time.

Writes ``bench/results_import_large.json`` (``--out`` to change it), with each process's role (the
importer, a worker, the end step spawned past 100,000 games), peak memory, CPU seconds and when it ran.

    python bench/bench_import_large.py --games 1000000
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench.bench_import import import_command  # noqa: E402
from bench.common import machine  # noqa: E402

_TICK = os.sysconf("SC_CLK_TCK")
_PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024

# Run in a fresh process by the probe: prints one JSON line.
_PROBE = r"""
import json, os, sys, time
start = time.perf_counter()
sys.path.insert(0, sys.argv[1])
os.environ["GOVERNOR_DB"] = sys.argv[2]
from ingest.db import read_arrow, DatabaseError
out = {}
try:
    t = time.perf_counter()
    row = read_arrow(sys.argv[2], "SELECT count(*) AS n, min(game_id) AS g FROM games").to_pylist()[0]
    out["games"] = row["n"]
    out["count_s"] = round(time.perf_counter() - t, 3)
    from streamlit.testing.v1 import AppTest
    app = os.path.join(sys.argv[1], "dashboards", "app.py")
    for page, params in (("views/games.py", {}), ("views/replay.py", {"game": row["g"], "step": "-1"})):
        at = AppTest.from_file(app, default_timeout=120)
        for key, value in params.items():
            at.query_params[key] = value
        t = time.perf_counter()
        if page != "views/games.py":
            at.switch_page(page)
        at.run()
        name = page.split("/")[1].removesuffix(".py")
        out[name + "_s"] = round(time.perf_counter() - t, 3)
        errors = [e.value for e in at.exception] + [e.value for e in at.error]
        if errors:
            out[name + "_error"] = str(errors[0])[:300]
except DatabaseError as err:
    out["error"] = str(err)[:300]
out["probe_s"] = round(time.perf_counter() - start, 3)
print(json.dumps(out))
"""


def _tree(root: int) -> list[int]:
    """``root`` and every process descended from it."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _sample(pids: list[int]) -> tuple[list[int], float]:
    """Resident KiB of each process and CPU seconds (user + system) of all of them."""
    rss, cpu = [], 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            statm = Path(f"/proc/{pid}/statm").read_text().split()
        except OSError:
            continue
        cpu += (int(fields[11]) + int(fields[12])) / _TICK
        rss.append(int(statm[1]) * _PAGE_KIB)
    return rss, cpu


def _role(pid: int, root: int) -> str:
    if pid == root:
        return "importer"
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "?"
    return "end step (spawned)" if "spawn_main" in cmdline else "worker"


def run(games: int, workers: int, base: int, sample_every: float, probe_every: float) -> dict[str, Any]:
    _, db, cmd = import_command(games, workers, base)
    samples: list[dict[str, Any]] = []
    probes: list[dict[str, Any]] = []
    peak_by_pid: dict[int, int] = {}
    cpu_by_pid: dict[int, float] = {}
    seen_by_pid: dict[int, list[float]] = {}  # first and last time a process was seen
    role_by_pid: dict[int, str] = {}
    stop = threading.Event()
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def sampler() -> None:
        while not stop.is_set():
            pids = _tree(proc.pid)
            total_rss = 0
            largest = 0
            for pid in pids:
                rss, cpu = _sample([pid])
                if not rss:
                    continue
                peak_by_pid[pid] = max(peak_by_pid.get(pid, 0), rss[0])
                now = round(time.perf_counter() - start, 1)
                seen_by_pid.setdefault(pid, [now, now])[1] = now
                if pid not in role_by_pid:
                    role_by_pid[pid] = _role(pid, proc.pid)
                cpu_by_pid[pid] = cpu  # cumulative per process: the last reading is its total
                total_rss += rss[0]
                largest = max(largest, rss[0])
            samples.append({"t": round(time.perf_counter() - start, 1), "processes": len(pids),
                            "largest_mib": round(largest / 1024, 1), "total_mib": round(total_rss / 1024, 1),
                            "cpu_s": round(sum(cpu_by_pid.values()), 1), "load": os.getloadavg()[0]})
            stop.wait(sample_every)

    def prober() -> None:
        while not stop.wait(probe_every):
            t = round(time.perf_counter() - start, 1)
            if not db.exists():
                continue
            try:
                out = subprocess.run([sys.executable, "-c", _PROBE, str(ROOT), str(db)], capture_output=True,
                                     text=True, timeout=600)
                line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else "{}"
                # DuckDB may draw its progress bar for a slow query on the same line, before the JSON.
                result = json.loads(line[line.index("{"):] if "{" in line else "{}")
                if out.returncode:
                    result["error"] = out.stderr.strip().splitlines()[-1][:300] if out.stderr.strip() else "failed"
            except (subprocess.TimeoutExpired, json.JSONDecodeError) as err:
                result = {"error": str(err)[:300]}
            result["t"] = t
            probes.append(result)
            print("probe", json.dumps(result), flush=True)

    threads = [threading.Thread(target=sampler, daemon=True), threading.Thread(target=prober, daemon=True)]
    for thread in threads:
        thread.start()
    stdout, stderr = proc.communicate()
    seconds = time.perf_counter() - start
    stop.set()
    for thread in threads:
        thread.join(timeout=700)
    if proc.returncode != 0:
        raise SystemExit(stderr[-3000:])
    line = stderr.strip().splitlines()[-1] if stderr.strip() else stdout.strip().splitlines()[-1]
    size = db.stat().st_size
    peaks = sorted(peak_by_pid.values(), reverse=True)
    # The largest process's resident memory in each tenth of the run: flat means these stay level.
    by_tenth = []
    for k in range(10):
        part = [s["largest_mib"] for s in samples if seconds * k / 10 <= s["t"] < seconds * (k + 1) / 10]
        by_tenth.append(max(part) if part else None)
    return {
        "games": games,
        "workers": workers,
        "import_seconds": round(seconds, 1),
        "import_games_per_s": round(games / seconds, 1),
        "summary_line": line,
        "cpu_seconds_all_processes": round(sum(cpu_by_pid.values()), 1),
        "cpu_ms_per_game": round(1000 * sum(cpu_by_pid.values()) / games, 2),
        "peak_rss_mib_by_process": [round(p / 1024, 1) for p in peaks],
        # Each process: what it is (the importer, a pool worker, the end step spawned past 100,000
        # games), its peak, its CPU and when it was seen.
        "processes": [
            {"role": role_by_pid.get(pid, "?"), "peak_mib": round(peak_by_pid[pid] / 1024, 1),
             "cpu_s": round(cpu_by_pid.get(pid, 0.0), 1), "seen_s": seen_by_pid.get(pid)}
            for pid in sorted(peak_by_pid, key=lambda p: seen_by_pid.get(p, [0.0])[0])
        ],
        "largest_process_mib_by_tenth_of_the_run": by_tenth,
        "db_bytes": size,
        "db_bytes_per_game": round(size / games),
        "samples_every_60s": [s for i, s in enumerate(samples) if i % max(1, int(60 / sample_every)) == 0],
        "probes": probes,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--base", type=int, default=10_000)
    parser.add_argument("--sample-every", type=float, default=5.0)
    parser.add_argument("--probe-every", type=float, default=300.0)
    parser.add_argument("--out", type=Path, default=HERE / "results_import_large.json")
    args = parser.parse_args(argv)
    results = {"machine": machine(),
               "run": run(args.games, args.workers, args.base, args.sample_every, args.probe_every)}
    results["machine_after"] = {"load_average": os.getloadavg()}
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps({k: v for k, v in results["run"].items() if k not in ("samples_every_60s", "probes")}, indent=1))
    return results


if __name__ == "__main__":
    main()
