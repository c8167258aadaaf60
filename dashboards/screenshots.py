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
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

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
    port = port or free_port()
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"governor-dashboard-{port}.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "governor.cli", "dashboard", "--headless", "--port", str(port), "--db", str(db)],
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
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
                raise RuntimeError(f"the dashboard did not start on {url}:\n{log.read_text(errors='replace')}")
            time.sleep(0.3)
        yield url
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


PAGES = {
    "games": "/",
    "replay": "/replay?step=40",
    "statistics": "/statistics",
    "explorer": "/explorer?type=san_juan&players=3&path=Builder",
    "players": "/players?type=san_juan&name=Ana",
    "sql": "/sql",
    "import": "/import",
}


def take_screenshots(db: str | Path, out: Path, game_id: str | None = None) -> list[Path]:
    """Write one PNG per page into ``out``; returns the files."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    written = []
    game_id = game_id or _first_game(db, "san_juan")
    with running_dashboard(db) as url, sync_playwright() as pw:
        browser = launch_browser(pw)
        page = browser.new_page(viewport={"width": 1500, "height": 1700})
        for name, path in PAGES.items():
            if name == "replay" and game_id:
                path = f"/replay?game={game_id}&step=60"
            page.goto(url + path)
            wait_for_app(page)
            if name == "sql":
                page.get_by_role("button", name="Run").click()
                wait_for_app(page)
            target = out / f"{name}.png"
            page.screenshot(path=str(target), full_page=True)
            written.append(target)
        pr_game = _first_game(db, "puerto_rico")
        if pr_game:
            page.goto(url + f"/replay?game={pr_game}&step=60")
            wait_for_app(page)
            target = out / "replay_puerto_rico.png"
            page.screenshot(path=str(target), full_page=True)
            written.append(target)
        browser.close()
    return written


def _first_game(db: str | Path, game: str) -> str | None:
    from ingest.db import read_arrow

    try:
        rows = read_arrow(db, "SELECT min(game_id) AS g FROM games WHERE game = ?", [game])
    except Exception:  # no database or no games table: no screenshot of that game
        return None
    return rows.column("g").to_pylist()[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="database to show")
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"), help="output folder")
    parser.add_argument("--game", help="game id for the Replay screenshot (default: the newest game)")
    args = parser.parse_args(argv)
    for path in take_screenshots(args.db, Path(args.out), args.game):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
