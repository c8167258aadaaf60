"""Screenshots of every page for docs/dashboard.md: ``python -m dashboards.screenshots --db FILE``.

Starts ``governor dashboard --headless`` on a free port, opens each page in headless Chromium
through Playwright and writes ``docs/screenshots/<page>.png``. The browser test uses the same
helpers to start and stop the server."""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from replay.registry import all_engines

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def running_dashboard(db: str | Path, port: int | None = None, timeout: float = 60.0) -> Iterator[str]:
    """Run ``governor dashboard --headless`` on ``db`` and yield its base URL; stop it afterwards.

    Raises ``RuntimeError`` with the server's output when it does not answer within ``timeout``."""
    with dashboard_process(db, port, timeout) as (url, _proc):
        yield url


@contextmanager
def dashboard_process(db: str | Path, port: int | None = None,
                      timeout: float = 60.0) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``running_dashboard``, also yielding the server's process (a test may kill it). Raises
    ``RuntimeError`` with the server's output when it does not answer within ``timeout``."""
    port = port or free_port()
    # The server's output goes to a file of no name (a fixed name in the shared temporary folder was
    # opened through whatever link was planted there), gone when the server is.
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "governor.cli", "dashboard", "--headless", "--port", str(port), "--db", str(db)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as answer:
                        if answer.status == 200:
                            break
                except OSError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    output = log.read().decode(errors="replace")
                    raise RuntimeError(f"the dashboard did not start on {url}:\n{output}")
                time.sleep(0.3)
            yield url, proc
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(10)


def launch_browser(playwright: Any) -> Any:
    """Headless Chromium from the system (never a downloaded browser)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


def wait_for_app(page: Any, timeout: float = 30_000) -> None:
    """Wait until streamlit has finished running the page's script."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    page.wait_for_function(
        """() => {
            const app = document.querySelector('[data-testid="stApp"]');
            return app && app.getAttribute('data-test-script-state') === 'notRunning'
                && app.getAttribute('data-test-connection-state') === 'CONNECTED';
        }""",
        timeout=timeout,
    )
    page.wait_for_timeout(600)
    if "/replay" in page.url:
        _wait_for_replay_panels(page, timeout)


def _wait_for_replay_panels(page: Any, timeout: float) -> None:
    """On the Replay page, a board drawn for the first time in a tab asks for the panels under it
    (a second run of the page): wait for that run too."""
    try:
        page.wait_for_selector(".gv-root[data-step]", timeout=5_000)
    except Exception:  # noqa: BLE001 - no board on this page (no game, no state tables)
        return
    if page.locator(".gv-root[data-panels='asked']").count():
        page.get_by_role("heading", name="Winning chances").wait_for(timeout=timeout)
        page.wait_for_function(
            """() => document.querySelector('[data-testid="stApp"]').getAttribute('data-test-script-state') === 'notRunning'""",
            timeout=timeout,
        )
        page.wait_for_timeout(300)


#: The games in the registry's order: the first is the one the Explorer, Players and Replay shots show.
GAMES = list(all_engines())
PAGES = {
    "games": "/",
    # Two games of the first kind side by side (``_compared``: the ids of the two largest).
    "games_compare": "/?compare=1&ids={ids}",
    "replay": "/replay?step=40",
    "statistics": "/statistics",
    # The Explorer one decision deep: the most common first decision (``_first_decision``).
    "explorer": f"/explorer?type={GAMES[0]}&players=3&path={{decision}}",
    "players": f"/players?type={GAMES[0]}&name=Ana",
    "sql": "/sql",
    "import": "/import",
}


def take_screenshots(db: str | Path, out: Path, game_id: str | None = None, pages: list[str] | None = None) -> list[Path]:
    """Write one PNG per page into ``out`` (all of ``PAGES``, or those named in ``pages``); returns
    the files. The Replay page is shot at 1400 x 1000 as a game of the registry's first game
    (``replay.png``), of each other game (``replay_<game>.png``) and of the last one in the
    dark theme (``replay_dark.png``), each the largest game of its kind unless ``game_id`` names one."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    written = []
    wanted = pages or list(PAGES)
    with running_dashboard(db) as url, sync_playwright() as pw:
        browser = launch_browser(pw)
        page = browser.new_page(viewport={"width": 1500, "height": 1700})
        for name, path in PAGES.items():
            if name not in wanted or name == "replay":
                continue
            if name == "games_compare":
                ids = _compared(db, GAMES[0])
                if ids is None:
                    continue
                path = path.format(ids=ids)
            if name == "explorer":
                path = path.format(decision=urllib.parse.quote(_first_decision(db, GAMES[0]) or ""))
            page.goto(url + path)
            wait_for_app(page)
            if name == "sql":
                page.get_by_role("button", name="Run").click()
                wait_for_app(page)
            _wait_for_drawing(page)
            target = out / f"{name}.png"
            page.screenshot(path=str(target), full_page=True)
            written.append(target)
        if "replay" in wanted:
            # The first game as ``replay.png``, each other as ``replay_<game>.png``, the last in the dark.
            shots = [("replay", game_id or _first_game(db, GAMES[0]), "light")]
            shots += [(f"replay_{game}", _first_game(db, game), "light") for game in GAMES[1:]]
            shots.append(("replay_dark", _first_game(db, GAMES[-1]) or _first_game(db, GAMES[0]), "dark"))
            for name, game, scheme in shots:
                if not game:
                    continue
                replay = browser.new_page(viewport={"width": 1400, "height": 1000}, color_scheme=scheme)
                replay.goto(url + f"/replay?game={game}&step=60")
                wait_for_app(replay)
                replay.wait_for_selector(".gv-root[data-step='60']")
                target = out / f"{name}.png"
                replay.screenshot(path=str(target))
                written.append(target)
                replay.close()
        browser.close()
    return written


#: The Replay page with a stored analysis: at 1400 px in the light theme, and on a 390 px phone in the
#: dark theme (its Moves tab: tags and estimates in the move list).
ANALYSIS_SHOTS = (("replay_analysis", 1400, 1000, "light", None), ("replay_analysis_phone_dark", 390, 900, "dark", "Moves"))


def take_analysis_screenshots(db: str | Path, out: Path, game_id: str, step: int) -> list[Path]:
    """Write ``ANALYSIS_SHOTS`` of ``game_id`` (a game with a stored analysis, ``governor analyse
    --store``) at ``step`` into ``out``; returns the files. Raises ``RuntimeError`` as
    ``running_dashboard``."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    written = []
    with running_dashboard(db) as url, sync_playwright() as pw:
        browser = launch_browser(pw)
        for name, width, height, scheme, tab in ANALYSIS_SHOTS:
            page = browser.new_page(viewport={"width": width, "height": height}, color_scheme=scheme)
            page.goto(url + f"/replay?game={game_id}&step={step}")
            wait_for_app(page)
            page.wait_for_selector(f".gv-root[data-step='{step}']")
            page.wait_for_selector(".chancebox:not([hidden])", state="attached")
            if tab:
                page.get_by_role("tab", name=tab).click()
            page.wait_for_timeout(300)
            target = out / f"{name}.png"
            page.screenshot(path=str(target))
            written.append(target)
            page.close()
        browser.close()
    return written


def _wait_for_drawing(page: Any, timeout: float = 30_000) -> None:
    """Wait until every chart and table of the page is drawn: Streamlit's script has finished before
    Plotly and the table's canvas draw (on a busy machine a shot showed empty boxes)."""
    for chart in page.locator('[data-testid="stPlotlyChart"]:visible').all():
        chart.locator(".main-svg").first.wait_for(state="attached", timeout=timeout)
    for table in page.locator('[data-testid="stDataFrame"]:visible').all():
        table.locator("canvas").first.wait_for(state="attached", timeout=timeout)
    page.wait_for_timeout(1_000)
    # A page that wrote its URL may have run once more meanwhile: its tables are drawn anew.
    wait_for_app(page, timeout)
    for table in page.locator('[data-testid="stDataFrame"]:visible').all():
        table.locator("canvas").first.wait_for(state="attached", timeout=timeout)
    page.wait_for_timeout(500)


def _compared(db: str | Path, game: str) -> str | None:
    """Two games of a kind to compare (most players, then most moves), as the URL's ``ids``."""
    from ingest.db import read_arrow

    try:
        rows = read_arrow(db, "SELECT game_id AS g FROM games WHERE game = ? ORDER BY player_count DESC, moves DESC, "
                          "game_id LIMIT 2", [game])
    except Exception:  # no database or no games table: no screenshot
        return None
    found = rows.column("g").to_pylist()
    return ",".join(found) if len(found) == 2 else None


def _first_decision(db: str | Path, game: str) -> str | None:
    """The most common first decision of a kind of game in its stored openings (the Explorer's first
    node), or None when there is none."""
    from ingest.db import read_arrow

    try:
        rows = read_arrow(db, "SELECT decisions[1] AS d FROM openings WHERE game = ? AND len(decisions) > 0 "
                          "GROUP BY 1 ORDER BY count(*) DESC, d LIMIT 1", [game])
    except Exception:  # no database or no openings table: the Explorer's start
        return None
    found = rows.column("d").to_pylist()
    return found[0] if found else None


def _first_game(db: str | Path, game: str) -> str | None:
    """The game to show of a kind: most players, then most moves, then the smallest id."""
    from ingest.db import read_arrow

    try:
        rows = read_arrow(db, "SELECT game_id AS g FROM games WHERE game = ? ORDER BY player_count DESC, moves DESC, "
                          "game_id LIMIT 1", [game])
    except Exception:  # no database or no games table: no screenshot of that game
        return None
    found = rows.column("g").to_pylist()
    return found[0] if found else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="database to show")
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"), help="output folder")
    parser.add_argument("--game", help="game id for the first Replay screenshot (default: the largest game)")
    parser.add_argument("--pages", nargs="+", choices=list(PAGES), help="only these pages (default: all)")
    parser.add_argument("--analysis", metavar="GAME_ID", help="only the Replay shots with the stored analysis of this game")
    parser.add_argument("--step", type=int, default=40, help="the step of the analysis shots (default: 40)")
    args = parser.parse_args(argv)
    if args.analysis:
        for path in take_analysis_screenshots(args.db, Path(args.out), args.analysis, args.step):
            print(path)
        return 0
    for path in take_screenshots(args.db, Path(args.out), args.game, args.pages):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
