"""Reviewing a game on the Replay page in headless Chromium: hostile names in the Replay charts show as
typed (no tag of theirs is drawn), the stored analysis moves the board in place (a tagged move, the
N / P keys, a click on the winning-chance chart: no new tab, no reload), and a what-if variation
survives a reload (it is in the URL) and opens from the move list."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from analysis.decisions import Options, analyse
from analysis.store import store
from dashboards.screenshots import CHROMIUM, running_dashboard, wait_for_app
from replay.logfile import parse_game

from .test_chart_text import NAMES

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)"),
]

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("san_juan/san_juan-2p-seed2026-0000.json", "puerto_rico/puerto_rico-5p-seed2026-0002.json")


@pytest.fixture(scope="module")
def review_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A 2-player San Juan game and a 5-player Puerto Rico game whose seats carry the hostile names,
    the latter with a stored analysis of its first decisions, the former of its move 7."""
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
    # San Juan's move 7 chooses the councillor: two decisions, the chooser's and the other seat's
    # (whether to refrain from the draw), tagged below with the step.
    log = parse_game(json.loads((folder / Path(SOURCES[0]).name).read_text()), file=SOURCES[0])
    options = Options(rollouts=2, top=2, seed=1, steps=(7, 7), workers=1)
    store(db, log.game_id, "1.0", list(analyse(log, options)), options)
    # Two tagged moves to step between (a few rollouts seldom give a significant loss).
    import duckdb

    with duckdb.connect(str(db)) as con:
        # Exactly these two: whatever tags two rollouts happened to give are cleared first.
        con.execute("UPDATE analysis SET tag = NULL")
        con.execute("UPDATE analysis SET tag = 'mistake', loss = 0.12 WHERE step = 7 AND played")
        con.execute("UPDATE analysis SET tag = 'blunder', loss = 0.3 WHERE step = 9 AND played")
    return db, ids


@pytest.fixture(scope="module")
def site(review_db, chromium: Any) -> Iterator[tuple[str, Any]]:
    with running_dashboard(review_db[0]) as url:
        yield url, chromium


def open_replay(site, query: str, width: int = 1400, height: int = 1000) -> Any:
    url, browser = site
    page = browser.new_page(viewport={"width": width, "height": height})
    page.errors = []
    page.on("pageerror", lambda err: page.errors.append(str(err)))
    page.goto(f"{url}/replay?{query}")
    wait_for_app(page)
    page.wait_for_selector(".gv-root[data-step]")
    return page


def test_hostile_names_in_the_replay_charts_show_as_typed(site, review_db) -> None:
    _, ids = review_db
    page = open_replay(site, f"game={ids['puerto_rico']}&step=7")
    page.wait_for_selector(".chancebox:not([hidden]) .chance svg")
    # The charts' legend (VP and winning chances) names each seat as typed, and nothing of a name is drawn
    # as a link, bold, a line break or a styled span.
    assert page.locator(".gv-root .chartbox .legend .lgname").all_text_contents() == NAMES
    assert page.locator(".gv-root .chance-legend .lgname").all_text_contents() == NAMES[:len(
        page.locator(".gv-root .chance-legend .lgname").all_text_contents())]
    for selector in ("a", "b", "i", "br", "span[style*='40px']"):
        assert page.locator(f".gv-root .legend {selector}, .gv-root .chance {selector}").count() == 0, selector
    titles = page.locator(".chance .tagdot title").all_text_contents()
    assert len(titles) == 2 and titles[0].startswith(f"move 7: {NAMES[1]} ")
    assert page.locator(".now .review").text_content().startswith(f"{NAMES[1]} ")
    assert page.errors == []
    page.close()


def test_the_analysis_moves_the_board_in_place(site, review_db) -> None:
    _, ids = review_db
    page = open_replay(site, f"game={ids['puerto_rico']}&step=0")
    page.wait_for_selector(".chancebox:not([hidden]) .chance svg")
    page.evaluate("window.__samePage = 1")
    pages = len(page.context.pages)
    page.locator(".moves .mv[data-step='9'] .tag").click()
    page.wait_for_selector(".gv-root[data-step='9']", timeout=5000)
    page.keyboard.press("p")
    page.wait_for_selector(".gv-root[data-step='7']", timeout=5000)
    page.keyboard.press("n")
    page.wait_for_selector(".gv-root[data-step='9']", timeout=5000)
    # A click on the winning-chance chart goes to the move under the pointer.
    total = int(page.locator(".gv-root .slider").get_attribute("max"))
    page.locator(".chance svg").scroll_into_view_if_needed()
    box = page.locator(".chance svg").bounding_box()
    half = total // 2
    page.mouse.click(box["x"] + 30 + half / total * (box["width"] - 38), box["y"] + box["height"] / 2)
    page.wait_for_selector(".gv-root:not([data-step='9'])", timeout=5000)
    assert abs(int(page.locator(".gv-root").get_attribute("data-step")) - half) <= 1
    # In place: no new tab, and the page was not loaded again.
    assert len(page.context.pages) == pages and page.evaluate("window.__samePage") == 1
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


def test_the_winning_chance_chart_says_its_values_and_names_its_series(site, review_db, sql) -> None:
    """The chance chart had no legend and said no value on hover: it names each analysed seat and the
    tags' colours, and says each seat's chance after its last decision at the move shown or hovered."""
    db, ids = review_db
    page = open_replay(site, f"game={ids['puerto_rico']}&step=9")
    page.wait_for_selector(".chancebox:not([hidden]) .chance svg")
    decisions = sql(db, "SELECT step, seat, estimate FROM analysis WHERE game_id = ? AND played ORDER BY step, rowid",
                    [ids["puerto_rico"]])
    seats = sorted({seat for _, seat, _ in decisions})
    assert page.locator(".chance-legend bdi.lgname").all_text_contents() == [NAMES[s] for s in seats]
    assert page.locator(".chance-legend .lg").all_text_contents()[len(seats):] == ["?! inaccuracy", "? mistake", "?? blunder"]

    def said(step: int) -> str:
        parts = []
        for seat in seats:
            mine = [e for s, k, e in decisions if k == seat and s <= step]
            parts.append(f"\u2068{NAMES[seat]}\u2069 " + (f"{math.floor(mine[-1] * 100 + 0.5)}%" if mine else "\u2013"))
        return f"move {step}: " + " \u00b7 ".join(parts)

    readout = page.locator(".chance-readout")
    assert readout.text_content() == said(9)
    page.locator(".chance svg").scroll_into_view_if_needed()
    box = page.locator(".chance svg").bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.02 + 30 * box["width"] / 272, box["y"] + box["height"] / 2)
    hovered = readout.text_content()
    at = int(hovered.split(":")[0].split()[1])
    assert at != 9 and hovered == said(at)
    page.mouse.move(0, 0)
    assert readout.text_content() == said(9)
    assert page.errors == []
    page.close()


def test_the_tagged_moves_fit_the_page_and_a_row_shows_its_own_decision_on_the_board(site, review_db, sql) -> None:
    """At 1400 px the table's columns were cut (the chances, the loss and the tag out of sight); a row
    chosen moved the board while it stayed off the screen, 1,100 px up; and the second decision of a
    step (the other seat's refrain from the councillor's draw) read as the chooser's move, with the
    chooser's engine line. Now every column fits, the board comes into view at the move, and the
    second row says whose decision it is, in whose move, with its own engine line."""
    from dashboards.analysis_panel import ROW_HEIGHT

    db, ids = review_db
    game = ids["san_juan"]
    decisions = sql(db, "SELECT seat FROM analysis WHERE game_id = ? AND step = 7 AND played ORDER BY rowid", [game])
    assert [seat for (seat,) in decisions] == [0, 1]
    page = open_replay(site, f"game={game}&step=2", height=900)
    table = page.locator("[data-testid='stDataFrame']").last  # the tagged moves, under the panels
    table.scroll_into_view_if_needed()
    # The grid draws its headers once it is in view: wait for them rather than for a fixed time.
    page.wait_for_function("(t) => t.querySelectorAll('[role=columnheader]').length === 6",
                           arg=table.element_handle(), timeout=30_000)
    assert table.locator("[role=columnheader]").all_inner_texts() == [
        "move", "player", "played \u00b7 chance (95% interval)", "best \u00b7 chance (95% interval)", "loss", "tag"]
    assert table.evaluate("(t) => { const s = t.querySelector('.dvn-scroller'); return s.scrollWidth - s.clientWidth; }") <= 0
    assert page.locator(".gv-root .board").bounding_box()["y"] < 0  # the board is far above the table
    # The second row: Bruno's part of Ana's move.
    box = table.bounding_box()
    page.mouse.click(box["x"] + 16, box["y"] + 35 + ROW_HEIGHT * 1.5)
    page.wait_for_selector(".gv-root[data-step='7']", timeout=10_000)
    wait_for_app(page)
    board = page.locator(".gv-root .board").bounding_box()
    assert 0 <= board["y"] < 900 - 100, board
    review = page.locator(".now .review span").all_text_contents()
    assert len(review) == 2 and review[1].startswith(f"\u2068{NAMES[1]}\u2069's decision in \u2068{NAMES[0]}\u2069's move: ")
    assert not review[0].startswith(f"\u2068{NAMES[1]}")
    main = page.locator("[data-testid='stMain']").inner_text()
    assert f"Engine line of \u2068{NAMES[1]}\u2069, in \u2068{NAMES[0]}\u2069's move from move 7" in main
    assert page.errors == []
    page.close()
