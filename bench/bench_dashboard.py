"""Dashboard benchmark: the time each page's script takes (queries included) on a database, cold
(caches cleared) and warm (the Replay page steps in the browser: see bench/bench_replay_view.py). Besides wall-clock
seconds it records the CPU seconds of the cold run (all threads of this process: the page's script
and DuckDB's), which a busy machine does not inflate the way it inflates wall-clock time. Uses Streamlit's AppTest,
so it measures the server side of a page, not the browser drawing it.

    python bench/bench_dashboard.py --db FILE [--repeat 3]
    python bench/bench_dashboard.py --db BIG --replicate SMALL --times 10   # BIG = SMALL's games x 10

``--replicate`` makes a large database quickly from an imported one: every game is stored ``times``
times under new ids (``<id>~<k>``), so the tables have the row counts of a real import of that many
games (the queries' cost depends on the rows, not on how different the games are).
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

import streamlit as st  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from ingest.db import read_arrow  # noqa: E402

APP = ROOT / "dashboards" / "app.py"
PAGES = {
    "games": "views/games.py",
    "replay": "views/replay.py",
    "statistics": "views/statistics.py",
    "sql": "views/sql.py",
    "import": "views/import_logs.py",
}


def _open(page: str, params: dict[str, str], cold: bool = False) -> tuple[AppTest, float, float]:
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()  # the default page (Games) first, as a browser would
    if cold:
        st.cache_data.clear()
        st.cache_resource.clear()
    for key, value in params.items():
        at.query_params[key] = value
    start, cpu = time.perf_counter(), time.process_time()
    at.switch_page(page)
    at.run()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    if at.exception:
        raise SystemExit(f"{page}: {[e.value for e in at.exception]}")
    return at, seconds, cpu


def replicate(src: Path, dst: Path, times: int) -> None:
    """Write ``dst``: a copy of ``src`` whose games (with their players, moves and states) are stored
    ``times`` times, copy ``k`` under the ids ``<game_id>~<k>`` (copy 0 keeps the original ids)."""
    import shutil

    import duckdb

    for suffix in ("", ".wal"):
        Path(str(dst) + suffix).unlink(missing_ok=True)
    shutil.copy(src, dst)
    con = duckdb.connect(str(dst))
    try:
        tables = [r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.columns WHERE column_name = 'game_id' AND table_name IN "
            "(SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE') "
            "AND table_name NOT IN ('rejections', 'game_rows')").fetchall()]
        for table in tables:
            original = f"(SELECT * FROM \"{table}\")"
            con.execute(f'CREATE TEMP TABLE orig AS {original}')
            for k in range(1, times):
                con.execute(f"INSERT INTO \"{table}\" SELECT * REPLACE (game_id || '~{k}' AS game_id) FROM orig")
            con.execute("DROP TABLE orig")
            con.execute("CHECKPOINT")
        # The copies' row ranges, as an import records them.
        from ingest.locate import locate

        locate(con)
        con.execute("CHECKPOINT")
    finally:
        con.close()


def measure(db: Path, repeat: int, only: list[str] | None = None) -> dict[str, Any]:
    os.environ["GOVERNOR_DB"] = str(db)
    game = read_arrow(db, "SELECT game_id, moves FROM games ORDER BY moves DESC LIMIT 1").to_pylist()[0]
    params = {"replay": {"game": game["game_id"], "step": str(game["moves"] // 2)}}
    pages: dict[str, Any] = {}
    for name, page in PAGES.items():
        if only and name not in only:
            continue
        cold, cold_cpu, warm = [], [], []
        for _ in range(repeat):
            _, seconds, cpu = _open(page, params.get(name, {}), cold=True)
            cold.append(seconds)
            cold_cpu.append(cpu)
            warm.append(_open(page, params.get(name, {}))[1])
        pages[name] = {"cold_s": round(statistics.median(cold), 3), "warm_s": round(statistics.median(warm), 3),
                       "cold_cpu_s": round(statistics.median(cold_cpu), 3)}
    steps = []
    if not only or "replay" in only:
        at = _open(PAGES["replay"], params["replay"], cold=True)[0]
        # The Replay page steps in the browser now; a server-side Next button is timed only where it exists.
        if any(getattr(b, "key", None) == "replay_next" for b in at.button):
            for _ in range(repeat * 3):
                start = time.perf_counter()
                at.button(key="replay_next").click().run()
                steps.append(time.perf_counter() - start)
    games = read_arrow(db, "SELECT count(*) AS n FROM games").column("n")[0].as_py()
    return {
        "db": str(db),
        "games": games,
        "db_bytes": db.stat().st_size,
        "pages": pages,
        "replay_next_step_s": round(statistics.median(steps), 3) if steps else None,
        "load_average": os.getloadavg(),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None, help="write the result as JSON here")
    parser.add_argument("--pages", nargs="+", choices=list(PAGES), default=None, help="only these pages")
    parser.add_argument("--replicate", type=Path, default=None, help="first make --db from this database")
    parser.add_argument("--times", type=int, default=10, help="with --replicate: copies of each game")
    args = parser.parse_args(argv)
    if args.replicate:
        replicate(args.replicate, args.db, args.times)
    result = measure(args.db, args.repeat, args.pages)
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
