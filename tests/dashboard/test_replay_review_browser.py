"""Reviewing a game on the Replay page in headless Chromium: hostile names in the Winning-chances chart
show as typed (no tag of theirs is drawn), and a what-if variation survives a reload (it is in the
URL) and opens from the move list."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from analysis.decisions import Options, analyse
from analysis.store import store
from dashboards.plain import cut
from dashboards.screenshots import CHROMIUM, launch_browser, running_dashboard, wait_for_app
from replay.logfile import parse_game

from .test_chart_text import NAMES

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing (apt-get install -y chromium)"),
]

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("san_juan/san_juan-2p-seed2026-0000.json", "puerto_rico/puerto_rico-5p-seed2026-0002.json")


@pytest.fixture(scope="module")
def review_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A 2-player San Juan game and a 5-player Puerto Rico game whose seats carry the hostile names,
    the latter with a stored analysis of its first decisions."""
    from ingest.importer import import_paths

    folder = tmp_path_factory.mktemp("review_logs")
    ids = {}
    for source in SOURCES:
        log = json.loads((ROOT / "sample_logs" / source).read_text())
        for seat, player in enumerate(log["players"]):
            player["name"] = NAMES[seat]
        (folder / Path(source).name).write_text(json.dumps(log))
        ids[log["game"]] = parse_game(log, file=source).game_id
    db = tmp_path_factory.mktemp("review_db") / "review.duckdb"
    assert import_paths([folder], db, workers=1).imported == 2
    log = parse_game(json.loads((folder / Path(SOURCES[1]).name).read_text()), file=SOURCES[1])
    options = Options(rollouts=2, top=2, seed=1, steps=(1, 10), workers=1)
    store(db, log.game_id, "1.0", list(analyse(log, options)), options)
    return db, ids


@pytest.fixture(scope="module")
def site(review_db) -> Iterator[tuple[str, Any]]:
    from playwright.sync_api import sync_playwright

    with running_dashboard(review_db[0]) as url, sync_playwright() as pw:
        browser = launch_browser(pw)
        yield url, browser
        browser.close()


def open_replay(site, query: str, width: int = 1400, height: int = 1000) -> Any:
    url, browser = site
    page = browser.new_page(viewport={"width": width, "height": height})
    page.errors = []
    page.on("pageerror", lambda err: page.errors.append(str(err)))
    page.goto(f"{url}/replay?{query}")
    wait_for_app(page)
    page.wait_for_selector(".gv-root[data-step]")
    return page


def test_hostile_names_in_the_winning_chances_chart_show_as_typed(site, review_db) -> None:
    _, ids = review_db
    page = open_replay(site, f"game={ids['puerto_rico']}")
    page.wait_for_selector(".js-plotly-plot .legendtext", timeout=15000)
    legend = page.eval_on_selector_all(".js-plotly-plot .legendtext", "els => els.map(e => [e.textContent, e.innerHTML])")
    assert [text for text, _ in legend] == [cut(name) for name in NAMES]
    # Plotly draws <b>, <i>, <br>, <span style> and <a href> as tspans and links: none is drawn.
    assert [inner for _, inner in legend if "<tspan" in inner or "<a" in inner] == []
    assert page.locator(".js-plotly-plot a").count() == 0
    assert page.errors == []
    page.close()


def test_a_variation_survives_a_reload_and_opens_from_the_move_list(site, review_db) -> None:
    _, ids = review_db
    page = open_replay(site, f"game={ids['san_juan']}&step=10")
    page.get_by_role("button", name="Play this instead").click()
    # The viewer shows the variation: a way back, its own move marked, no winner yet.
    page.wait_for_selector(".moves .vback", timeout=15000)
    assert page.locator(".moves .mv.varmv").count() == 1
    assert "unfinished" in page.locator(".facts").text_content()
    page.wait_for_function("() => new URL(location.href).searchParams.get('var') !== null")
    code = page.evaluate("new URL(location.href).searchParams.get('var')")
    assert code.startswith("10_") and code.endswith("_u")
    page.reload()
    wait_for_app(page)
    page.wait_for_selector(".moves .vline", timeout=15000)
    # Under move 10, indented, with its result.
    head = page.locator(".moves .vline .vhead")
    assert head.text_content() == "\u21b3 Variation 1 unfinished"
    previous = page.locator(".moves .vline").evaluate("e => e.previousElementSibling.getAttribute('data-step')")
    assert previous == "10"
    page.locator(".moves .vline .vmv").first.click()
    page.wait_for_selector(".moves .vback", timeout=15000)
    assert page.locator(".gv-root").get_attribute("data-step") == "11"
    page.locator(".moves .vback").click()
    page.wait_for_selector(".moves .vline", timeout=15000)
    assert page.errors == []
    page.close()
