"""Boards for every table size, in headless Chromium: the 5-player Puerto Rico board at 1400, 1000 and
390 px (no name cut below 8 characters, the full name on hover; tabs on a phone), role cards in words,
the end-of-game scoring by source, and a VP chart that tells five seats apart without colour."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dashboards.screenshots import CHROMIUM, running_dashboard, wait_for_app

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)"),
]

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "sample_logs" / "puerto_rico" / "puerto_rico-5p-seed2026-0002.json"
NAMES = ["Maximiliana Fernández-Oyarzábal", "Bartholomew Kingsley", "Carlotta Esposito", "Dieter",
         "W" * 60]

#: How many characters of each player name show: all of an uncut name, else the characters before
#: the ellipsis (measured in the element's own font).
SHOWN_CHARS = """els => els.map((e) => {
  const t = e.textContent;
  if (e.scrollWidth <= e.clientWidth) { return t.length; }
  const cs = getComputedStyle(e);
  const c = document.createElement('canvas').getContext('2d');
  c.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
  const room = e.clientWidth - c.measureText('\\u2026').width;
  let n = 0;
  while (n < t.length && c.measureText(t.slice(0, n + 1)).width <= room) { n++; }
  return n;
})"""


@pytest.fixture(scope="module")
def five(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, int, list[int]]:
    from ingest.importer import import_paths

    log = json.loads(SOURCE.read_text())
    for seat, player in enumerate(log["players"]):
        player["name"] = NAMES[seat]
    folder = tmp_path_factory.mktemp("five_logs")
    (folder / "five.json").write_text(json.dumps(log))
    db = tmp_path_factory.mktemp("five_db") / "five.duckdb"
    assert import_paths([folder], db, workers=1).imported == 1
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        game_id, moves = con.execute("SELECT game_id, moves FROM games").fetchone()
        scores = [r[0] for r in con.execute("SELECT score FROM players ORDER BY seat").fetchall()]
    return db, game_id, moves, scores


@pytest.fixture(scope="module")
def site(five, chromium: Any) -> Iterator[tuple[str, Any]]:
    with running_dashboard(five[0]) as url:
        yield url, chromium


def open_replay(site, query: str, width: int, height: int = 1000) -> Any:
    url, browser = site
    page = browser.new_page(viewport={"width": width, "height": height})
    page.errors = []
    page.on("pageerror", lambda err: page.errors.append(str(err)))
    page.goto(f"{url}/replay?{query}")
    wait_for_app(page)
    page.wait_for_selector(".gv-root[data-step]")
    return page


@pytest.mark.parametrize("width", [1400, 1000, 390])
def test_five_names_show_at_least_eight_characters(site, five, width: int) -> None:
    _, game_id, _, _ = five
    page = open_replay(site, f"game={game_id}&step=40", width)
    names = page.locator(".player .pname")
    assert names.all_text_contents() == NAMES
    assert [names.nth(i).get_attribute("title") for i in range(5)] == NAMES
    shown = names.evaluate_all(SHOWN_CHARS)
    # A name is whole, or cut after 8 characters at the least.
    assert all(n == len(name) or 8 <= n < len(name) for n, name in zip(shown, NAMES)), shown
    assert shown[3] == len("Dieter")
    # Role cards in words: the second prospector too.
    bar = page.locator(".board .bar").first.text_content()
    assert "Prospector (2nd)" in bar and "prospector_2" not in bar
    assert page.errors == []
    page.close()


def test_a_phone_has_tabs_for_board_moves_and_charts(site, five) -> None:
    _, game_id, _, _ = five
    page = open_replay(site, f"game={game_id}&step=40", 390, 900)
    assert page.locator(".board").is_visible() and not page.locator(".moves").is_visible()
    page.get_by_role("tab", name="Moves").click()
    assert page.locator(".moves").is_visible() and not page.locator(".board").is_visible()
    # The move list is at hand, not 2,000 px down the page.
    assert page.locator(".moves").bounding_box()["y"] < 600
    assert page.locator(".moves .mv.current").is_visible()
    page.get_by_role("tab", name="Charts").click()
    assert page.locator(".chart svg").is_visible() and page.locator(".chart svg").bounding_box()["y"] < 600
    page.get_by_role("tab", name="Board").click()
    assert page.locator(".board").is_visible()
    assert page.errors == []
    page.close()


def test_the_last_step_shows_the_scoring_and_the_vp_chart_tells_five_seats_apart(site, five) -> None:
    _, game_id, moves, scores = five
    page = open_replay(site, f"game={game_id}&step={moves}", 1400)
    table = page.locator(".scoring table.score")
    assert table.locator("th").all_text_contents() == ["player", "buildings", "VP chips", "bonuses", "total",
                                                       "tie-break (doubloons + goods)"]
    rows = table.locator("tbody tr")
    assert rows.count() == 5
    cells = [rows.nth(i).locator("td").all_text_contents() for i in range(5)]
    assert [c[0] for c in cells] == NAMES
    assert [int(c[4]) for c in cells] == scores
    assert all(int(c[1]) + int(c[2]) + int(c[3]) == int(c[4]) for c in cells)
    # One step back: no scoring table.
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector(f".gv-root[data-step='{moves - 1}']")
    assert not page.locator(".scoring").is_visible()
    # Each seat's line has its own dash, and its own marker shape.
    dashes = page.locator(".chart path.line").evaluate_all("ps => ps.map((p) => p.getAttribute('stroke-dasharray'))")
    assert len(dashes) == 5 and len(set(dashes)) == 5
    marks = page.locator(".chart path.dot").evaluate_all("ps => ps.map((p) => p.getAttribute('d'))")
    assert len(set(marks)) == 5
    # Values on hover.
    page.locator(".chart svg").scroll_into_view_if_needed()
    box = page.locator(".chart svg").bounding_box()
    page.mouse.move(box["x"] + box["width"] - 10, box["y"] + box["height"] / 2)
    readout = page.locator(".chartbox .readout").text_content()
    assert readout.startswith("move ") and all(name in readout for name in NAMES)
    assert page.errors == []
    page.close()
