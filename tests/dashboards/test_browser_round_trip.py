"""Filters survive a sidebar round trip, Back and a reload in a real browser, on every page that has
them; the SQL page's query survives a reload; a hostile URL shows no traceback and no server path.
Run with ``pytest -m browser``."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from dashboards.screenshots import CHROMIUM, wait_for_app
from tests.dashboards.pages import FIELD_VALUES, open_page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)"),
]


def query(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def sidebar(page, title: str) -> None:
    """Click a page in the sidebar menu and wait for it."""
    page.locator('[data-testid="stSidebarNav"] a').filter(has_text=title).first.click()
    page.wait_for_timeout(300)
    wait_for_app(page)


def back_to(page, path: str) -> None:
    """Press Back until the browser shows ``path`` (Streamlit adds two history entries per page),
    letting the app finish each run first, as a person would: a Back pressed while a run is under way
    lets that run's late URL land on the next history entry (Streamlit rewrites the current entry)."""
    for _ in range(4):
        page.go_back()
        page.wait_for_timeout(300)
        wait_for_app(page)
        if urlparse(page.url).path == path:
            return
    raise AssertionError(f"Back never reached {path}: {page.url}")


def test_filters_survive_the_sidebar_back_and_a_reload(dash_site, dash_db: Path, sql) -> None:
    (name,) = sql(dash_db, "SELECT name FROM players GROUP BY name ORDER BY count(*) DESC, name LIMIT 1")[0]
    url, browser = dash_site
    page, errors = open_page(browser, 1400, 1100)

    # Statistics: game, counts, minimum n and the tab, through another page and back.
    page.goto(f"{url}/statistics?counts=3,4&min_n=50&tab=VP%20curves")
    wait_for_app(page)
    sidebar(page, "Players")
    assert "/players" in page.url
    sidebar(page, "Statistics")
    assert query(page) == {"game": "san_juan", "counts": "3,4", "min_n": "50", "tab": "VP curves"}
    body = page.inner_text("body")
    assert "player counts 3, 4 of 2, 3, 4" in body and "Average VP at the end of each round" in body
    expect(page.locator(".st-key-stats_min_n input")).to_have_value("50", timeout=15_000)

    # Games: the search, through the sidebar, then Back from another page, then a reload.
    page.goto(f"{url}/?q=Ana")
    wait_for_app(page)
    sidebar(page, "Explorer")
    sidebar(page, "Games")
    assert query(page) == {"q": "Ana"}
    # (Streamlit draws a text field empty and then fills it, even when its default is the value.)
    expect(page.locator(".st-key-games_search input")).to_have_value("Ana", timeout=15_000)
    sidebar(page, "Statistics")
    back_to(page, "/")
    page.locator(".st-key-games_search input").wait_for(timeout=30_000)
    wait_for_app(page)
    # Back shows the search again, and the URL holds it (Back pressed while the page left was
    # still writing its URL comes with that page's query string: url_state.restore).
    page.wait_for_function("() => document.querySelector('.st-key-games_search input')?.value === 'Ana'",
                           timeout=30_000)
    page.wait_for_function("() => new URL(location.href).searchParams.get('q') === 'Ana'", timeout=30_000)
    sidebar(page, "Games")
    assert query(page) == {"q": "Ana"}
    page.reload()
    wait_for_app(page)
    page.wait_for_function("() => document.querySelector('.st-key-games_search input')?.value === 'Ana'",
                           timeout=30_000)

    # Explorer and Players.
    page.goto(f"{url}/explorer?type=san_juan&players=3&path=Builder")
    wait_for_app(page)
    sidebar(page, "Games")
    sidebar(page, "Explorer")
    assert query(page) == {"type": "san_juan", "players": "3", "path": "Builder"}
    page.goto(f"{url}/players?type=san_juan&name={name}&min_games=3")
    wait_for_app(page)
    sidebar(page, "SQL")
    sidebar(page, "Players")
    assert query(page) == {"type": "san_juan", "name": name, "min_games": "3"}

    # SQL: the query run last is in the URL and survives a reload.
    sidebar(page, "SQL")
    box = page.locator("textarea")
    box.fill("SELECT 41 + 1 AS answer")
    box.press("Control+Enter")
    page.get_by_text("1 row in").wait_for(timeout=30_000)
    wait_for_app(page)
    assert query(page) == {"q": "SELECT 41 + 1 AS answer"}
    page.reload()
    wait_for_app(page)
    page.wait_for_function("() => document.querySelector('textarea')?.value === 'SELECT 41 + 1 AS answer'",
                           timeout=30_000)
    assert query(page) == {"q": "SELECT 41 + 1 AS answer"}

    # A hostile URL: the largest minimum n, no error box, no traceback, no server path.
    page.goto(f"{url}/statistics?min_n={'9' * 400}")
    wait_for_app(page)
    page.wait_for_function("() => document.querySelector('.st-key-stats_min_n input')?.value === '10000000'",
                           timeout=30_000)
    body = page.inner_text("body")
    assert "Traceback" not in body and "Error" not in body and str(Path(__file__).parents[2]) not in body
    assert page.locator('[data-testid="stException"]').count() == 0
    assert not errors, errors


def test_a_linked_filter_shows_its_value_from_the_first_paint(dash_site) -> None:
    """A number field a link fills is drawn with the link's value: it used to be drawn with its
    minimum first ("0" before "50") and then set."""
    url, browser = dash_site
    page, errors = open_page(browser, 1400, 1100)
    page.add_init_script(FIELD_VALUES)
    for path, label, value in (("statistics?min_n=50", "Minimum n in charts", "50"),
                               ("players?min_games=3", "Minimum rated games", "3")):
        page.goto(f"{url}/{path}")
        wait_for_app(page)
        page.locator(f"input[aria-label='{label}']").first.wait_for(timeout=30_000)
        assert page.evaluate("window.fieldValues")[label] == [value], path
    assert errors == []
    page.close()
