"""The SQL page in a real browser (what only a browser shows): Ctrl+Enter in the query box runs the
query, and a long query shows a running clock with a Cancel button that stops it. Run with
``pytest -m browser``."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboards.screenshots import CHROMIUM, wait_for_app
from tests.dashboards.pages import open_page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)"),
]

ENDLESS = "SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b"


def test_ctrl_enter_runs_and_cancel_stops_a_query(dash_site) -> None:
    url, browser = dash_site
    page, errors = open_page(browser, 1400, 1000)
    page.goto(f"{url}/sql")
    wait_for_app(page)

    box = page.locator("textarea")
    box.fill("SELECT 41 + 1 AS answer")
    box.press("Control+Enter")
    page.get_by_text("1 row in").wait_for(timeout=30_000)
    wait_for_app(page)
    assert "History (1)" in page.inner_text("body")

    box.fill(ENDLESS)
    box.press("Control+Enter")
    page.get_by_text("Running...").wait_for(timeout=30_000)
    page.get_by_role("button", name="Cancel").click()
    page.get_by_text("The query was cancelled.").wait_for(timeout=30_000)
    wait_for_app(page)
    body = page.inner_text("body")
    assert "Running..." not in body and "History (2)" in body
    assert not errors and page.locator('[data-testid="stException"]').count() == 0


def test_a_query_stopped_by_a_page_switch_says_so_on_return(dash_site) -> None:
    url, browser = dash_site
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{url}/sql")
    wait_for_app(page)
    box = page.locator("textarea")
    box.fill(ENDLESS)
    box.press("Control+Enter")
    page.get_by_text("Running...").wait_for(timeout=30_000)
    page.locator('[data-testid="stSidebarNav"] a').filter(has_text="Games").first.click()
    page.get_by_text("Select a row to replay the game.").wait_for(timeout=30_000)
    page.locator('[data-testid="stSidebarNav"] a').filter(has_text="SQL").first.click()
    page.get_by_text("because the page was left (or used) while it ran").wait_for(timeout=30_000)
    wait_for_app(page)
    assert page.locator("textarea").input_value() == ENDLESS
    assert "History (1)" in page.inner_text("body") and "Running..." not in page.inner_text("body")
