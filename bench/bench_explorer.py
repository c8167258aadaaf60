"""Explorer and Players benchmark: the time of one Explorer node (its queries, and the page script) on an
imported database and on a larger copy made by replicating its games, the Players page, and what the
derived tables add to an import (openings filled from the moves, ratings recomputed).

    python bench/bench_explorer.py --db FILE [--scale 10] [--repeat 3]

``--scale K`` builds (once, cached next to FILE) a database holding the ``games`` (without their log
text), ``players`` and ``openings`` rows of FILE K times over under new game ids: the Explorer reads
only ``openings`` and ``games``, and the ratings only ``games`` and ``players``, so their times on it
are those of K times as many games with the same distribution of openings. Writes
``bench/results_explorer.json``; ``bench/run_all.py`` puts its table into docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402
import streamlit as st  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from bench.common import machine  # noqa: E402
from dashboards import explorer_queries as eq  # noqa: E402
from ingest.db import writer  # noqa: E402
from ingest.openings import fill_openings  # noqa: E402
from ingest.ratings import recompute_ratings  # noqa: E402

RESULTS = HERE / "results_explorer.json"
APP = ROOT / "dashboards" / "app.py"
DEPTH = 8


def replicate(db: Path, scale: int) -> Path:
    """A database with ``scale`` copies of the games, players and openings of ``db`` (made once)."""
    target = db.with_name(f"{db.stem}-x{scale}.duckdb")
    done = target.with_suffix(".done")
    if done.exists():
        return target
    for path in (target, Path(str(target) + ".wal")):
        path.unlink(missing_ok=True)
    with writer(target) as con:  # the schema
        con.execute(f"ATTACH '{db}' AS src (READ_ONLY)")
        con.execute("BEGIN")
        copies = f"range({scale})"
        con.execute(
            f"INSERT INTO games SELECT t.* REPLACE (t.game_id || '~' || k AS game_id, '' AS log) "
            f"FROM src.games t, (SELECT unnest({copies}) AS k)"
        )
        con.execute(
            f"INSERT INTO players SELECT t.* REPLACE (t.game_id || '~' || k AS game_id) FROM src.players t, "
            f"(SELECT unnest({copies}) AS k)"
        )
        con.execute(
            f"INSERT INTO openings SELECT t.* REPLACE (t.game_id || '~' || k AS game_id) FROM src.openings t, "
            f"(SELECT unnest({copies}) AS k)"
        )
        con.execute("COMMIT")
        con.execute("DETACH src")
        con.execute("CHECKPOINT")
    done.write_text("ok\n")
    return target


def node_times(db: Path, repeat: int) -> list[dict[str, Any]]:
    """Follow the most common path of each game type (all player counts, then the most common one)
    down to ``DEPTH`` decisions; at each node, the cold time of the page's four queries."""
    os.environ["GOVERNOR_DB"] = str(db)
    out = []
    with duckdb.connect(str(db), read_only=True) as con:
        kinds = con.execute(
            "SELECT game, mode() WITHIN GROUP (ORDER BY player_count) FROM openings GROUP BY game ORDER BY game"
        ).fetchall()
    for game, common_count in kinds:
        for counts in ((), (int(common_count),)):
            path: tuple[str, ...] = ()
            for _depth in range(DEPTH + 1):
                node = eq.Node(game, counts, path)
                samples, cpu = [], []
                summary: dict[str, Any] = {}
                moves: Any = None
                for _ in range(repeat):
                    st.cache_data.clear()
                    start, start_cpu = time.perf_counter(), time.process_time()
                    summary = eq.node_summary(node)
                    moves = eq.continuations(node)
                    eq.example_games(node)
                    samples.append(time.perf_counter() - start)
                    cpu.append(time.process_time() - start_cpu)
                out.append({"game": game, "player_counts": list(counts), "depth": len(path), "games": summary["games"],
                            "next": len(moves), "seconds": round(statistics.median(samples), 4),
                            "cpu_seconds": round(statistics.median(cpu), 4)})
                if moves is None or not len(moves):
                    break
                path = path + (str(moves.iloc[0]["decision"]),)
    return out


def page_time(db: Path, page: str, params: dict[str, str], repeat: int) -> tuple[float, float]:
    """Median cold script time of one page (AppTest: queries and elements, no browser), wall-clock and
    CPU seconds of this process (its threads included: DuckDB's and the script's)."""
    os.environ["GOVERNOR_DB"] = str(db)
    samples, cpu = [], []
    for _ in range(repeat):
        at = AppTest.from_file(str(APP), default_timeout=300)
        at.run()
        st.cache_data.clear()
        for key, value in params.items():
            at.query_params[key] = value
        start, start_cpu = time.perf_counter(), time.process_time()
        at.switch_page(page)
        at.run()
        samples.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        if at.exception:
            raise SystemExit(f"{page}: {[e.value for e in at.exception]}")
    return round(statistics.median(samples), 3), round(statistics.median(cpu), 3)


def derived_times(db: Path, with_moves: bool) -> dict[str, float]:
    """Seconds to fill every game's opening from the moves (only when the database has them) and to
    recompute every rating, each in a transaction rolled back afterwards."""
    out: dict[str, float] = {}
    with writer(db) as con:
        if with_moves:
            con.execute("BEGIN")
            con.execute("DELETE FROM openings")
            start, start_cpu = time.perf_counter(), time.process_time()
            fill_openings(con)
            out["fill_openings_s"] = round(time.perf_counter() - start, 2)
            out["fill_openings_cpu_s"] = round(time.process_time() - start_cpu, 2)
            con.execute("ROLLBACK")
        con.execute("BEGIN")
        start, start_cpu = time.perf_counter(), time.process_time()
        recompute_ratings(con)
        out["recompute_ratings_s"] = round(time.perf_counter() - start, 2)
        out["recompute_ratings_cpu_s"] = round(time.process_time() - start_cpu, 2)
        con.execute("ROLLBACK")
    return out


def measure(db: Path, scale: int, repeat: int) -> dict[str, Any]:
    started = time.time()
    sets = [(db, 1)]
    if scale > 1:
        sets.append((replicate(db, scale), scale))
    results = []
    for path, k in sets:
        with duckdb.connect(str(path), read_only=True) as con:
            games = con.execute("SELECT count(*) FROM games").fetchall()[0][0]
            sj_path = con.execute(
                "SELECT decisions[1:3] FROM openings WHERE game = 'san_juan' GROUP BY 1 ORDER BY count(*) DESC LIMIT 1"
            ).fetchall()
            top = con.execute(
                "SELECT name FROM player_ratings WHERE game = 'san_juan' ORDER BY games DESC, name LIMIT 1"
            ).fetchall()
        entry: dict[str, Any] = {"db": str(path), "games": games, "replicated": k, "nodes": node_times(path, repeat)}
        params = {"type": "san_juan"}
        if sj_path:
            params["path"] = eq.path_text(tuple(sj_path[0][0]))
        entry["explorer_page_cold_s"], entry["explorer_page_cold_cpu_s"] = page_time(path, "views/explorer.py", params, repeat)
        entry["explorer_page_path"] = params.get("path", "")
        if k == 1 and top:
            entry["players_page_cold_s"], entry["players_page_cold_cpu_s"] = page_time(
                path, "views/players.py", {"type": "san_juan", "name": top[0][0]}, repeat)
        entry.update(derived_times(path, with_moves=k == 1))
        results.append(entry)
    return {"machine": machine(), "minutes": round((time.time() - started) / 60, 1), "runs": results}


def section(results: dict[str, Any] | None = None) -> str:
    """The docs/benchmarks.md section of the last run (empty when there is none)."""
    if results is None:
        if not RESULTS.exists():
            return ""
        results = json.loads(RESULTS.read_text())
    lines = [
        "## Explorer and Players",
        "",
        "`bench/bench_explorer.py`: one Explorer node is three queries over `openings` (games and wins at the node, "
        "with the seats of the path; the next decisions with their wins; ten example games joined with `games`), run "
        "cold (caches cleared; median of several runs) while following the most common path from the start, for "
        "every player count and for the most common one. The larger database replicates the imported games "
        "(`games`, `players`, `openings`) under new ids; it has no moves, so the Players page (whose roles and "
        "buildings read `moves`) and filling the openings are measured on the imported database only. "
        f"Measured {results['machine']['date']} on {results['machine']['cores']} cores shared with other work "
        f"(load average {', '.join(f'{x:.1f}' for x in results['machine']['load_average'] or [])}): "
        "every figure is wall-clock seconds / CPU seconds of the process (DuckDB's threads included). On a "
        "machine this busy the wall-clock time is mostly waiting for a core; the CPU time is the work itself, "
        "and what a node costs on an otherwise idle machine.",
        "",
    ]
    def pair(run: dict[str, Any], key: str) -> str:
        if key not in run:
            return "-"
        return f"{run[key]:.2f} / {run[key.replace('_s', '_cpu_s')]:.2f}"

    rows = []
    for run in results["runs"]:
        nodes = run["nodes"]
        worst = max(nodes, key=lambda n: n["cpu_seconds"])
        rows.append([
            f"{run['games']:,}" + (f" ({run['replicated']}x replicated)" if run["replicated"] > 1 else " (imported)"),
            f"{statistics.median(n['seconds'] for n in nodes):.2f} / {statistics.median(n['cpu_seconds'] for n in nodes):.3f}",
            f"{max(n['seconds'] for n in nodes):.2f} / {worst['cpu_seconds']:.3f} (depth {worst['depth']}, {worst['games']:,} games)",
            pair(run, "explorer_page_cold_s"), pair(run, "players_page_cold_s"),
            pair(run, "fill_openings_s"), pair(run, "recompute_ratings_s"),
        ])
    lines.append(
        "| games | one node, median (wall / CPU s) | one node, slowest (wall / CPU s) | Explorer page cold | "
        "Players page cold | fill all openings | recompute all ratings |"
    )
    lines.append("|---|---|---|---|---|---|---|")
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, type=Path)
    parser.add_argument("--scale", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    result = measure(args.db, args.scale, args.repeat)
    RESULTS.write_text(json.dumps(result, indent=1) + "\n")
    print(section(result))
    return result


if __name__ == "__main__":
    main()
