"""The dashboard in a real browser: ``governor dashboard --headless`` driven by headless Chromium.

Opens every page, steps through a game with the buttons and the arrow keys, and fails on any
Streamlit exception, traceback or page error. Run with ``pytest -m browser``; set
``GOVERNOR_SCREENSHOTS=DIR`` to also write a screenshot of each page there."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dashboards.screenshots import CHROMIUM, wait_for_app

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)"),
]

#: URL paths of the pages (the Games page is the default page, at the root).
PAGES = {"games": "", "replay": "replay", "statistics": "statistics", "sql": "sql", "import": "import"}


def assert_clean(page, errors: list[str], where: str) -> None:
    assert not errors, f"{where}: page errors: {errors}"
    assert page.locator('[data-testid="stException"]').count() == 0, f"{where}: a Streamlit exception is shown"
    body = page.inner_text("body")
    assert "Traceback" not in body, f"{where}: a traceback is shown"
    assert "Page not found" not in body, f"{where}: streamlit did not find the page"


def test_every_page_and_stepping_in_a_browser(dash_site, dash_db: Path, sql) -> None:
    (game_id,) = sql(dash_db, "SELECT min(game_id) FROM games WHERE game = 'san_juan'")[0]
    shots = os.environ.get("GOVERNOR_SCREENSHOTS")
    url, browser = dash_site
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    for name, path in PAGES.items():
        page.goto(f"{url}/{path}")
        wait_for_app(page)
        assert_clean(page, errors, name)
        if shots:
            Path(shots).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(shots) / f"{name}.png"), full_page=True)
    # Games: the table is there, at "/" and at "/games" (the name in the menu), which leads to "/".
    for path in ("", "games"):
        page.goto(f"{url}/{path}")
        wait_for_app(page)
        assert_clean(page, errors, f"/{path}")
        page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=30_000)
        assert page.url.rstrip("/") == url.rstrip("/"), page.url

    # Replay: the buttons and keys step in the browser (test_replay_browser.py checks it in detail).
    page.goto(f"{url}/replay?game={game_id}&step=0")
    wait_for_app(page)
    page.wait_for_selector(".gv-root[data-step='0']")
    for _ in range(3):
        page.locator("button[data-go='next']").click()
    page.wait_for_selector(".gv-root[data-step='3']")
    (words,) = sql(dash_db, "SELECT words FROM moves WHERE game_id = ? AND step = 3", [game_id])[0]
    assert page.locator(".moves .mv.current .w").inner_text() == words
    page.locator("button[data-go='last']").click()
    page.wait_for_selector(".badge.win")
    assert_clean(page, errors, "replay")

    # SQL: a refused statement shows a clear message, not an exception.
    page.goto(f"{url}/sql")
    wait_for_app(page)
    page.locator("textarea").fill("COPY games TO '/tmp/x.csv'")
    page.get_by_role("button", name="Run").click()
    # The run the click starts may not have begun when the page looks idle: wait for its answer.
    page.get_by_text("Refused: COPY").first.wait_for(timeout=30_000)
    wait_for_app(page)
    assert "Refused: COPY" in page.inner_text("body")
    assert_clean(page, errors, "sql")
