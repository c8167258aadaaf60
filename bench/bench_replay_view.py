"""Replay viewer benchmark in headless Chromium: opening a game, stepping, and the payload's size.

    python bench/bench_replay_view.py --db FILE [--steps 120] [--opens 5] [--in-app 5] [--out FILE]
    python bench/bench_replay_view.py --build 100000      # builds bench/out/import-100000.duckdb first
    python bench/bench_replay_view.py --replicate FILE 100000  # copies FILE's games until there are 100,000

For a 4-player San Juan game and a 5-player Puerto Rico game (the longest of each in the database;
the Puerto Rico sample games are copied into it when it has no 5-player Puerto Rico game):

- open (new tab): from the browser starting to load ``/replay?game=ID&step=N`` in a new tab to the
  board drawn at N, on a running dashboard whose caches do not hold that game (the server's answer
  with the board drawn first, ``dashboards/first_paint.py``: query, transfer and first paint);
  ``streamlit_viewer_s``: until Streamlit's own viewer has taken over from it (Streamlit's start of
  a page included); several games, each opened once. The tabs share
  one browser profile that has loaded the app once before (its HTTP cache holds the app's scripts,
  as a user's browser does); ``open_cold_browser`` is the same in a fresh profile (every script
  downloaded again);
- open (in the app): on the Games page of a tab already open, the game found with the search box,
  from the click on its row to its board drawn (the page switch, query, transfer and first paint);
  other games, each opened once;
- step: from a key press (the event's time stamp) to the board updated for it and laid out, for
  ``--steps`` presses of the Right arrow and as many of the Left arrow, 70 ms apart (one a frame);
- burst: 30 presses at 20 a second, and whether the board moved exactly 30 steps;
- payload: the bytes of the game sent to the browser (JSON, and gzip-compressed as a size hint);
- transfer of a new tab's open: the bytes of the page's HTML (the board drawn first is in it) and of
  the web socket's messages to the browser until the page has run (Streamlit's viewer and the panels
  under it), each new tab's median.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench.common import OUT, corpus, machine  # noqa: E402
from ingest.db import read_arrow  # noqa: E402

#: Records, in the page, each key's time stamp and the time the board showed its step.
PROBE = """(root) => {
    window.__keys = [];
    window.__drawn = [];
    window.addEventListener('keydown', (e) => window.__keys.push(e.timeStamp), true);
    new MutationObserver(() => {
        root.offsetHeight;  // the board laid out, not only changed
        window.__drawn.push([performance.now(), Number(root.getAttribute('data-step')),
                             Number(root.getAttribute('data-render-ms'))]);
    }).observe(root, {attributes: true, attributeFilter: ['data-step']});
}"""


def build_db(games: int) -> Path:
    """``bench/out/import-N.duckdb`` from the simulated San Juan corpus of the import benchmark (made
    when missing)."""
    from ingest.importer import import_paths

    db = OUT / f"import-{games}.duckdb"
    if not db.exists():
        folder = corpus("san_juan", [2, 3, 4], games, seed=7)
        import_paths([folder], db)
    return db


def replicate(source: Path, games: int) -> Path:
    """``bench/out/replicated-N.duckdb``: ``source`` copied, then its games copied again under new ids
    (``<id>~k``) until it holds ``games`` games. The rows are the same games again, so only the sizes
    are real: what this measures is reading one game out of that many (made when missing)."""
    import shutil

    import duckdb

    db = OUT / f"replicated-{games}.duckdb"
    if db.exists():
        return db
    OUT.mkdir(parents=True, exist_ok=True)
    part = db.with_suffix(".part")
    shutil.copy(source, part)
    con = duckdb.connect(str(part))
    try:
        have = con.execute("SELECT count(*) FROM games").fetchone()[0]
        tables = [t for (t,) in con.execute(
            "SELECT table_name FROM information_schema.columns WHERE column_name = 'game_id' AND table_schema = 'main' "
            "AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE')"
        ).fetchall() if t != "rejections"]
        for k in range(1, -(-games // have)):
            for table in tables:
                con.execute(f'INSERT INTO "{table}" SELECT * REPLACE (game_id || \'~{k}\' AS game_id) FROM "{table}" '
                            "WHERE NOT contains(game_id, '~')")
        extra = con.execute("SELECT count(*) FROM games").fetchone()[0] - games
        if extra > 0:
            for table in tables:
                con.execute(f'DELETE FROM "{table}" WHERE game_id IN (SELECT game_id FROM games WHERE contains(game_id, \'~\') '
                            f"ORDER BY game_id DESC LIMIT {extra})")
        con.execute("CHECKPOINT")
    finally:
        con.close()
    part.rename(db)
    return db


def add_puerto_rico(db: Path) -> None:
    """Copy the Puerto Rico sample games into ``db`` row by row in SQL, column by name: importing them
    would first migrate an older database's schema, which on a big one takes long and measures nothing
    of the viewer."""
    import tempfile

    import duckdb

    from ingest.importer import import_paths

    with tempfile.TemporaryDirectory() as tmp:
        sample = Path(tmp) / "pr.duckdb"
        import_paths([ROOT / "sample_logs" / "puerto_rico"], sample, workers=1)
        con = duckdb.connect(str(db))
        try:
            con.execute(f"ATTACH '{sample}' AS src (READ_ONLY)")
            for table in ("games", "players", "moves", "puerto_rico_states", "puerto_rico_player_states"):
                mine = {c for (c,) in con.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_catalog = current_database() "
                    "AND table_name = ?", [table]).fetchall()}
                theirs = [c for (c,) in con.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_catalog = 'src' AND table_name = ? "
                    "ORDER BY ordinal_position", [table]).fetchall()]
                shared = ", ".join(f'"{c}"' for c in theirs if c in mine)
                con.execute(f'INSERT INTO "{table}" BY NAME SELECT {shared} FROM src."{table}" '
                            "WHERE game_id IN (SELECT game_id FROM src.games WHERE game = 'puerto_rico')")
            con.execute("DETACH src")
            con.execute("CHECKPOINT")
        finally:
            con.close()


def pick_games(db: Path, count: int = 14) -> dict[str, dict[str, Any]]:
    """The ``count`` longest 4-player San Juan and 5-player Puerto Rico games, adding the Puerto Rico
    sample games when the database has none."""
    # Games whose id is part of no other id: the Games page's search finds each alone (the copies of a
    # replicated database have the original's id plus a suffix).
    query = ("WITH top AS (SELECT game_id, moves FROM games WHERE game = ? AND player_count = ? "
             "ORDER BY moves DESC, game_id LIMIT 100) "
             "SELECT game_id, moves FROM top g WHERE NOT EXISTS "
             "(SELECT 1 FROM games o WHERE o.game_id <> g.game_id AND contains(o.game_id, g.game_id)) "
             f"ORDER BY moves DESC, game_id LIMIT {int(count)}")
    pr = read_arrow(db, query, ["puerto_rico", 5]).to_pylist()
    if not pr:
        add_puerto_rico(db)
        pr = read_arrow(db, query, ["puerto_rico", 5]).to_pylist()
    sj = read_arrow(db, query, ["san_juan", 4]).to_pylist()
    return {"san_juan 4p": {"games": sj}, "puerto_rico 5p": {"games": pr}}


def payload_bytes(db: Path, game_id: str) -> dict[str, Any]:
    """One game as the server reads it when the game is not cached (``dashboards.data.read_opened``,
    what the Replay page calls before it sends the board: one connection, the game's row, its moves
    and states, its payload), in wall-clock and CPU seconds of this process, and the payload's size
    as JSON and gzip-compressed."""
    import duckdb

    from dashboards.data import read_opened
    from dashboards.sql_sandbox import READ_CONFIG

    wall, cpu = time.perf_counter(), time.process_time()
    con = duckdb.connect(str(db), read_only=True, config=READ_CONFIG)
    try:
        names = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        with_states = tuple(sorted(n.removesuffix("_player_states") for n in names
                                   if n.endswith("_player_states") and n.replace("_player_states", "_states") in names))
        found = read_opened(con, game_id, with_states, "analysis" in names)
        assert found is not None and found.payload is not None
    finally:
        con.close()
    text = json.dumps(found.payload).encode()
    return {
        "server_total_s": round(time.perf_counter() - wall, 3), "server_total_cpu_s": round(time.process_time() - cpu, 3),
        "payload_json_bytes": len(text), "payload_gzip_bytes": len(gzip.compress(text)),
    }


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def open_in_new_tab(tabs: Any, url: str, game: dict[str, Any], parts: list[dict[str, float]] | None = None) -> tuple[Any, float]:
    """A new page of ``tabs`` (a browser context, or the browser for a fresh profile) opened at the
    middle of ``game``, and the seconds from the start of its load to the board drawn. With ``parts``,
    appends where the time went, from the page's own clock (ms since its navigation began, which the
    component stamps on its root): ``html_s`` the app's HTML received, ``data_s`` the game's view
    received by the component, ``drawn_s`` the board first drawn, ``draw_s`` = drawn - data (the
    browser's part of the app)."""
    page = tabs.new_page(viewport={"width": 1400, "height": 1000}) if not hasattr(tabs, "pages") else tabs.new_page()
    # What reaches the browser: the page's HTML, then the web socket's messages (``transfer``).
    received = {"ws": 0}
    page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: received.__setitem__("ws", received["ws"] + len(frame))))
    page.transfer = received
    start, start_epoch = time.perf_counter(), time.time()
    answer = page.goto(f"{url}/replay?game={game['game_id']}&step={game['moves'] // 2}")
    received["html"] = len(answer.body()) if answer is not None else 0
    page.wait_for_selector(f".gv-root[data-step='{game['moves'] // 2}']", timeout=60_000)
    seconds = time.perf_counter() - start
    # The board drawn first (dashboards/first_paint.py) until Streamlit's viewer takes over from it.
    # The board on the screen, by the page's clock (its origin is the navigation's start, on the same
    # system clock as ``start_epoch``): the selector above is seen only once the browser's main
    # thread is free again, which Streamlit's scripts, started right after that frame, keep busy.
    painted = page.evaluate("() => window.__gvFirstPainted ? performance.timeOrigin + window.__gvFirstPainted : null")
    on_screen = None if painted is None else painted / 1000 - start_epoch
    first_drawn = page.evaluate("() => { const h = document.getElementById('gv-first'); const r = h && h.shadowRoot"
                                " && h.shadowRoot.querySelector('.gv-root'); return r ? Number(r.getAttribute('data-drawn-ms')) : null; }")
    page.wait_for_function("() => !document.getElementById('gv-first')", timeout=60_000)
    page.wait_for_selector(f".gv-root[data-step='{game['moves'] // 2}']", timeout=60_000)
    ready = time.perf_counter() - start
    if parts is not None:
        html, data, drawn = page.locator(".gv-root").evaluate(
            "(r) => [performance.getEntriesByType('navigation')[0].responseEnd, Number(r.getAttribute('data-received-ms')),"
            " Number(r.getAttribute('data-drawn-ms'))]")
        parts.append({"html_s": round(html / 1000, 3), "data_s": round(data / 1000, 3), "drawn_s": round(drawn / 1000, 3),
                      "draw_s": round((drawn - data) / 1000, 3), "ready_s": round(ready, 3),
                      "first_drawn_s": None if first_drawn is None else round(first_drawn / 1000, 3),
                      "on_screen_s": None if on_screen is None else round(on_screen, 3)})
    return page, seconds


def measure_game(tabs: Any, url: str, games: list[dict[str, Any]], steps: int, opens: int, db: Path) -> dict[str, Any]:
    from dashboards.screenshots import wait_for_app

    main = games[0]
    open_s = []
    parts: list[dict[str, float]] = []
    server: list[float] = []
    transfer: list[dict[str, int]] = []
    for game in games[1: opens + 1] + [main]:
        page, seconds = open_in_new_tab(tabs, url, game, parts)
        open_s.append(seconds)
        # The app's server part for this game, read as the page reads it (in this process, after the
        # open: the dashboard's own caches are not touched).
        server.append(payload_bytes(db, game["game_id"])["server_total_s"])
        # The page's work after its board (the panels under it) ends before the next open starts:
        # each open is timed alone, as a user opening one link.
        wait_for_app(page)
        transfer.append({"html": page.transfer["html"], "ws": page.transfer["ws"]})
        if game is not main:
            page.close()
    root = page.locator(".gv-root")
    root.evaluate(PROBE)
    page.locator(".title").click()
    start_step = game["moves"] // 2 - steps // 2
    page.keyboard.press("Home")
    page.wait_for_selector(".gv-root[data-step='0']")
    for _ in range(max(0, start_step)):
        page.keyboard.press("ArrowRight")
    page.wait_for_selector(f".gv-root[data-step='{max(0, start_step)}']")
    page.evaluate("() => { window.__keys = []; window.__drawn = []; }")
    for key in ["ArrowRight"] * steps + ["ArrowLeft"] * steps:
        page.keyboard.press(key)
        page.wait_for_timeout(70)
    page.wait_for_timeout(300)
    keys = page.evaluate("window.__keys")
    drawn = page.evaluate("window.__drawn")
    latencies = []
    for pressed in keys:
        after = [t for t, _, _ in drawn if t >= pressed]
        if after:
            latencies.append(min(after) - pressed)
    render_ms = [ms for _, _, ms in drawn]
    # 30 presses at 20 a second.
    before = int(root.get_attribute("data-step"))
    for _ in range(30):
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(50)
    page.wait_for_timeout(500)
    after_burst = int(root.get_attribute("data-step"))
    page.close()
    return {
        "game_id": main["game_id"],
        "moves": main["moves"],
        "open_s": [round(s, 3) for s in open_s],
        "open_median_s": round(statistics.median(open_s), 3),
        "open_max_s": round(max(open_s), 3),
        # Where an open's time goes (medians): the app controls its server part (reading the game and
        # making its view: ``server_app_s``) and drawing it (``draw_s``); the rest until the view
        # arrives (``data_s`` - ``server_app_s``) is Streamlit's own start: its scripts, the websocket,
        # the session and the page's run.
        "open_parts_median": {
            "html_s": round(statistics.median(p["html_s"] for p in parts), 3),
            # The board drawn by the first paint (page clock) and Streamlit's viewer in its place
            # (wall clock from the start of the load): the board is usable from the first.
            "first_drawn_s": round(statistics.median(p["first_drawn_s"] or 0 for p in parts), 3),
            "first_paints": sum(1 for p in parts if p["first_drawn_s"] is not None),
            # From the start of the load (wall clock) to the board on the screen: what a user sees.
            "on_screen_s": round(statistics.median(p["on_screen_s"] or 0 for p in parts), 3),
            "on_screen_max_s": round(max(p["on_screen_s"] or 0 for p in parts), 3),
            "streamlit_viewer_s": round(statistics.median(p["ready_s"] for p in parts), 3),
            "data_s": round(statistics.median(p["data_s"] for p in parts), 3),
            "drawn_s": round(statistics.median(p["drawn_s"] for p in parts), 3),
            "draw_s": round(statistics.median(p["draw_s"] for p in parts), 3),
            "server_app_s": round(statistics.median(server), 3),
            "app_s": round(statistics.median(server) + statistics.median(p["draw_s"] for p in parts), 3),
            "streamlit_start_s": round(statistics.median(p["data_s"] for p in parts) - statistics.median(server), 3),
        },
        # Bytes of a new tab's open: the page's HTML and the web socket's messages to the browser.
        "open_html_bytes": int(statistics.median(t["html"] for t in transfer)),
        "open_websocket_bytes": int(statistics.median(t["ws"] for t in transfer)),
        "key_presses": len(keys),
        "boards_drawn": len(drawn),
        "step_ms_p50": round(_percentile(latencies, 0.5), 1),
        "step_ms_p95": round(_percentile(latencies, 0.95), 1),
        "step_ms_max": round(max(latencies), 1),
        # The viewer's own work per step (script and DOM, before the browser lays it out).
        "render_ms_p50": round(_percentile(render_ms, 0.5), 2),
        "render_ms_p95": round(_percentile(render_ms, 0.95), 2),
        "burst_30_moved": after_burst - before,
    }


def measure_open_in_app(tabs: Any, url: str, games: list[dict[str, Any]]) -> list[float]:
    """Seconds from a click on a game's row in the Games page to its board drawn, for each game (a
    user opening a game from the list, in a tab where the app runs already)."""
    from dashboards.screenshots import wait_for_app

    page = tabs.new_page()
    page.goto(f"{url}/")  # the Games page is the default one
    wait_for_app(page)
    seconds = []
    for game in games:
        search = page.get_by_role("textbox", name="Search")
        search.fill(game["game_id"])
        search.press("Enter")
        page.get_by_text(re.compile(r"^1 of ")).first.wait_for(timeout=60_000)
        wait_for_app(page)
        grid = page.locator('[data-testid="stDataFrame"]').first
        box = grid.bounding_box()
        assert box is not None
        start = time.perf_counter()
        # The first row's selection box (under the 35-pixel header row).
        page.mouse.click(box["x"] + 16, box["y"] + 35 + 17)
        page.wait_for_selector(".gv-root[data-step='0']", timeout=60_000)
        seconds.append(time.perf_counter() - start)
        wait_for_app(page)
        page.locator('[data-testid="stSidebarNav"] a', has_text="Games").click()
        page.get_by_role("textbox", name="Search").wait_for(timeout=60_000)
        wait_for_app(page)
    page.close()
    return seconds


def measure(db: Path, steps: int, opens: int, in_app: int = 5) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    from dashboards.screenshots import launch_browser, running_dashboard, wait_for_app

    # New tabs (and the game stepped), opens in the app, two fresh browsers, one the server reads.
    picked = pick_games(db, opens + 1 + in_app + 2 + 1)
    games_total = read_arrow(db, "SELECT count(*) AS n FROM games").column("n")[0].as_py()
    out: dict[str, Any] = {"db": str(db), "games": games_total, "db_bytes": db.stat().st_size, "machine": machine()}
    with running_dashboard(db) as url, sync_playwright() as pw:
        browser = launch_browser(pw)
        # The first page load of a fresh server starts Streamlit's machinery: not counted.
        # One browser profile, as a user's: the first visit fills its HTTP cache with the app's scripts.
        tabs = browser.new_context(viewport={"width": 1400, "height": 1000})
        warm = tabs.new_page()
        warm.goto(f"{url}/")
        warm.wait_for_selector('[data-testid="stApp"]')
        warm.close()
        for name, found in picked.items():
            games = found["games"]
            result = measure_game(tabs, url, games, steps, opens, db)
            # Games not opened by measure_game (nothing of them cached by the dashboard).
            from_list = measure_open_in_app(tabs, url, games[opens + 1: opens + 1 + in_app])
            cold = []
            for game in games[opens + 1 + in_app: opens + 3 + in_app]:
                cold.append(open_in_new_tab(browser, url, game))
                wait_for_app(cold[-1][0])
            for page, _ in cold:
                page.close()
            for key, values in (("open_in_app", from_list), ("open_cold_browser", [s for _, s in cold])):
                result.update({f"{key}_s": [round(s, 3) for s in values],
                               f"{key}_median_s": round(statistics.median(values), 3) if values else None,
                               f"{key}_max_s": round(max(values), 3) if values else None})
            # Server time on a game nobody opened yet (nothing of it cached); bytes of the game stepped.
            unopened = payload_bytes(db, found["games"][-1]["game_id"])
            result.update({k: v for k, v in unopened.items() if k.startswith("server_")})
            result.update({k: v for k, v in payload_bytes(db, result["game_id"]).items() if k.startswith("payload_")})
            out[name] = result
        browser.close()
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="database to open (default: bench/out/import-N.duckdb of --build)")
    parser.add_argument("--build", type=int, default=None, help="build bench/out/import-N.duckdb of N simulated games")
    parser.add_argument("--replicate", nargs=2, metavar=("SOURCE", "N"), default=None,
                        help="build bench/out/replicated-N.duckdb from the games of SOURCE")
    parser.add_argument("--steps", type=int, default=120)
    parser.add_argument("--opens", type=int, default=5, help="games opened in a new tab")
    parser.add_argument("--in-app", type=int, default=5, help="games opened from the Games page")
    parser.add_argument("--out", type=Path, default=HERE / "results_replay_view.json")
    args = parser.parse_args(argv)
    if args.db is None and args.build is None and args.replicate is None:
        parser.error("give --db FILE, --build N or --replicate SOURCE N")
    if args.replicate:
        db = replicate(Path(args.replicate[0]), int(args.replicate[1]))
    else:
        db = args.db or build_db(args.build)
    result = measure(db, args.steps, args.opens, args.in_app)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
