"""The Review in headless Chromium: started from the Replay page with a tiny rollout budget, its
results shown when it ends (no click: the progress polls), then a mistake with its better move, and one pass of "Learn from your mistakes": the
board at the position before the mistake in that seat's view, the seat's legal moves as buttons in
the "legal moves" group, the best move accepted and the solution shown. A game just played on the
Play page: its link opens the Replay page at the Review, which runs on it and starts the drill."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from analysis import variation as V
from analysis.accuracy import seat_summaries
from analysis.decisions import own_choices
from analysis.store import load
from dashboards import drill_panel
from dashboards.review_data import decisions_from_rows, mistakes
from dashboards.screenshots import CHROMIUM, running_dashboard, wait_for_app
from replay.logfile import parse_game
from replay.registry import engine_for

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)"),
]

GAME_FILE = Path(__file__).resolve().parents[2] / "sample_logs" / "san_juan" / "san_juan-2p-seed2026-0000.json"


@pytest.fixture(scope="module")
def site(dash_db: Path, tmp_path_factory: pytest.TempPathFactory, chromium: Any) -> Iterator[tuple[str, Any, Path]]:
    db = tmp_path_factory.mktemp("review_site") / "review.duckdb"
    shutil.copy(dash_db, db)
    with running_dashboard(db) as url:
        yield url, chromium, db


def test_review_a_game_then_retry_a_mistake(site: tuple[str, Any, Path]) -> None:
    url, browser, db = site
    log = parse_game(json.loads(GAME_FILE.read_text()), file=str(GAME_FILE))
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(f"{url}/replay?game={log.game_id}")
    wait_for_app(page)
    page.get_by_role("spinbutton", name="Rollouts per move").fill("2")
    page.keyboard.press("Enter")
    page.get_by_role("spinbutton", name="Moves compared per decision").fill("2")
    page.keyboard.press("Enter")
    wait_for_app(page)
    page.get_by_role("button", name="Review this game").click()
    # Nothing more is clicked: the progress (polled every second; its bar is checked in
    # test_review_page.py, where the job is held) shows the results once the review has ended.
    page.get_by_role("button", name="Learn from these mistakes").wait_for(timeout=120_000)
    wait_for_app(page)

    decided = decisions_from_rows(load(db, log.game_id).to_pandas(), log)
    found = mistakes(decided)
    assert found and len({(d.step, d.seat) for d in decided}) == 122
    for d in found:
        page.get_by_text(f"Move {d.step} \u00b7 \u2068{d.player}\u2069 \u00b7 {d.tag}", exact=False).wait_for()
        page.locator(".gv-text", has_text=f"Better: {d.best.words} \u00b7 {d.best.estimate * 100:.0f}%").first.wait_for()

    # Beside the board (the side column, at this width): each seat's accuracy and every mistake, each
    # a way to the position before it.
    box = page.locator(".gv-root .reviewbox")
    assert box.is_visible()
    summaries = seat_summaries(decided, list(log.players))
    rows = box.locator(".rv-acc tbody tr")
    assert rows.count() == 2
    for row, s in zip(rows.all(), summaries):
        assert row.locator("td").all_inner_texts() == [s.player, f"{s.accuracy:.1f}", str(s.inaccuracies),
                                                       str(s.mistakes), str(s.blunders)]
    listed = box.locator(".rv-mistake")
    assert listed.count() == len(found)
    assert listed.first.inner_text().startswith(f"{found[0].step}\n")
    assert f"Better: {found[0].best.words} \u00b7 {found[0].best.estimate * 100:.0f}%" in listed.first.inner_text()
    listed.first.click()
    page.wait_for_selector(f".gv-root[data-step='{found[0].step - 1}']", state="attached")
    # Too narrow for a side column: the Review is under the board only.
    page.set_viewport_size({"width": 390, "height": 900})
    box.wait_for(state="hidden")
    page.set_viewport_size({"width": 1400, "height": 1000})

    # The drill of the first seat with a mistake (the view everything names no seat of its own).
    seat = next(s for s in range(2) if drill_panel.drill_mistakes(log.game, decided, s))
    first = drill_panel.drill_mistakes(log.game, decided, seat)[0]
    page.get_by_role("button", name="Learn from these mistakes").click()
    group = page.get_by_role("group", name="legal moves")
    group.wait_for(timeout=30_000)
    wait_for_app(page)
    assert f"step={first.step - 1}" in page.url and f"view=seat{seat}" in page.url
    page.wait_for_selector(f".gv-root[data-step='{first.step - 1}']", state="attached")
    state = V.start(log, first.step - 1).state
    expected = [m.text() for m in own_choices(engine_for(log.game), state, seat, first.played.move)]
    assert group.get_by_role("button").all_inner_texts() == expected
    total = len(drill_panel.drill_mistakes(log.game, decided, seat))
    page.get_by_text(f"1 of {total} \u00b7 move {first.step} \u00b7 {first.tag}").wait_for()
    group.get_by_role("button", name=first.best.text, exact=True).click()
    page.get_by_text(f"\u2713 Good: {first.best.words} \u00b7 {first.best.estimate * 100:.0f}%").wait_for(timeout=30_000)
    page.get_by_text(f"Best: {first.best.words} \u00b7 {first.best.estimate * 100:.0f}% winning chance").wait_for()
    assert page.get_by_role("group", name="legal moves").count() == 0
    assert errors == []
    page.close()


def test_a_game_just_played_is_reviewed_from_the_play_page_and_its_mistakes_drilled(
        site: tuple[str, Any, Path], tmp_path: Path) -> None:
    """The Play page's link opens the Replay page at the Review of the game just played; the review
    runs on it (a tiny budget) and shows each seat's accuracy, and "Learn from these mistakes" starts."""
    from playwright.sync_api import expect

    from play.session import game_log
    from play.setup import Setup
    from play.store import Store, play_folder
    from tests.dashboards.test_play_browser import Player, dashboard
    from tests.play.driving import to_near_end

    db = tmp_path / "games.duckdb"
    setup = Setup.from_query({"game": "san_juan", "players": "2", "seat": "1", "bots": "heuristic", "seed": "7",
                              "name": "Tester"})

    # Most of the game is played on the server; the page resumes it and the browser makes its last moves.
    with Store(play_folder(db)) as games:
        session = to_near_end(games, games.start(setup), 3, tmp_path / "scratch")
    # The module's browser, on a dashboard of the game's own database.
    browser = site[1]
    with dashboard(db) as (url, _):
        tab = Player(browser)
        tab.open(f"{url}/play?id={session.id}")
        while tab.settle() != "over":
            tab.play()
        stored = game_log(Store(play_folder(db)).load(session.id)).game_id
        link = tab.page.get_by_role("link", name="Review it on the Replay page")
        link.wait_for(timeout=60_000)
        assert link.get_attribute("href") == f"replay?game={stored}&view=all#review"
        with tab.page.context.expect_page() as opened:
            link.click()
        page = opened.value
        errors: list[str] = []
        page.on("pageerror", lambda err: errors.append(str(err)))
        wait_for_app(page)
        rollouts = page.get_by_role("spinbutton", name="Rollouts per move")
        rollouts.wait_for(timeout=30_000)
        # At the Review: its heading is in view (scrolled to once the page has drawn it: on a loaded machine,
        # later than the default 5 s of waiting).
        expect(page.locator("[data-testid='stHeadingWithActionElements']", has_text="Review").first).to_be_in_viewport(
            timeout=30_000)
        rollouts.fill("2")
        page.keyboard.press("Enter")
        page.get_by_role("spinbutton", name="Moves compared per decision").fill("2")
        page.keyboard.press("Enter")
        wait_for_app(page)
        page.get_by_role("button", name="Review this game").click()
        page.get_by_role("button", name="Learn from these mistakes").wait_for(timeout=180_000)
        wait_for_app(page)
        # Each seat's accuracy, from the analysis the review stored.
        log = game_log(Store(play_folder(db)).load(session.id))
        decided = decisions_from_rows(load(db, stored).to_pandas(), log)
        summaries = seat_summaries(decided, list(setup.names))
        assert [s.player for s in summaries] == ["heuristic", "Tester"] and all(s.moves for s in summaries)
        grid = page.locator("[data-testid='stDataFrame']").first
        grid.wait_for()
        for s in summaries:
            cells = grid.locator("[role='row']", has_text=s.player).first.locator("[role='gridcell']").all_inner_texts()
            assert cells == [f"\u2068{s.player}\u2069", f"{s.accuracy:.1f}", str(s.inaccuracies), str(s.mistakes),
                             str(s.blunders), f"{round(s.avg_loss * 100, 1):.1f}", str(s.moves)], cells
        for d in mistakes(decided)[:3]:
            page.get_by_text(f"Better: {d.best.words} \u00b7 {d.best.estimate * 100:.0f}%").first.wait_for()
        page.get_by_role("button", name="Learn from these mistakes").click()
        page.get_by_role("group", name="legal moves").wait_for(timeout=30_000)
        assert page.get_by_role("group", name="legal moves").get_by_role("button").count() > 0
        assert errors == [] and not tab.errors
        page.close()
        tab.page.close()
