"""The Review in headless Chromium: started from the Replay page with a tiny rollout budget, its
results shown when it ends (no click: the progress polls), then a mistake with its better move, and one pass of "Learn from your mistakes": the
board at the position before the mistake in that seat's view, the seat's legal moves as buttons in
the "legal moves" group, the best move accepted and the solution shown."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from analysis import variation as V
from analysis.decisions import own_choices
from analysis.store import load
from dashboards import drill_panel
from dashboards.review_data import decisions_from_rows, mistakes
from dashboards.screenshots import CHROMIUM, launch_browser, running_dashboard, wait_for_app
from replay.logfile import parse_game
from replay.registry import engine_for

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)"),
]

GAME_FILE = Path(__file__).resolve().parents[2] / "sample_logs" / "san_juan" / "san_juan-2p-seed2026-0000.json"


@pytest.fixture(scope="module")
def site(dash_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any, Path]]:
    from playwright.sync_api import sync_playwright

    db = tmp_path_factory.mktemp("review_site") / "review.duckdb"
    shutil.copy(dash_db, db)
    with running_dashboard(db) as url, sync_playwright() as pw:
        browser = launch_browser(pw)
        yield url, browser, db
        browser.close()


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
        page.get_by_text(f"Better: {d.best.words} \u00b7 {d.best.estimate * 100:.0f}%").wait_for()

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
