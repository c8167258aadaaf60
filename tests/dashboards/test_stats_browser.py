"""The Statistics and Games pages in headless Chromium: filters typed and clicked by a user end up in
the URL, and a typed player name is taken whole (run with ``pytest -m browser``)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from dashboards.screenshots import CHROMIUM, wait_for_app
from tests.dashboards.pages import open_page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)"),
]


def test_statistics_and_games_filters_in_a_browser(dated_db: Path, served, chromium, sql) -> None:
    wins, n = sql(dated_db, "SELECT sum(won::INT), count(*) FROM players WHERE name = 'Diego'")[0]
    url, browser = served(dated_db), chromium
    page, errors = open_page(browser, 1400, 1200)
    page.goto(f"{url}/statistics?counts=3,4")
    wait_for_app(page)
    body = page.inner_text("body")
    assert "player counts 3, 4 of 2, 3, 4" in body
    # Type a name into the player box and take it with Enter.
    page.locator(".st-key-stats_player input").fill("Diego")
    page.keyboard.press("Enter")
    wait_for_app(page)
    query = parse_qs(urlparse(page.url).query)
    assert query["player"] == ["Diego"] and query["counts"] == ["3,4"]
    assert f"{wins / n:.1%}" in page.inner_text("body")
    # Games: a winner typed in the More filters goes to the URL too.
    page.goto(f"{url}/?winner=ana")
    wait_for_app(page)
    (count,) = sql(dated_db, "SELECT count(*) FROM games WHERE list_contains(winner_names, 'Ana')")[0]
    assert f"{count} of 30 games" in page.inner_text("body")
    assert parse_qs(urlparse(page.url).query)["winner"] == ["ana"]
    assert not errors, errors
    assert page.locator('[data-testid="stException"]').count() == 0
