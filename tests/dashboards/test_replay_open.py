"""Opening a game in a new tab: the board leaves the server first and the panels under it follow once
the browser has drawn it (``dashboards.delivery``, ``views/replay.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboards import delivery
from dashboards.screenshots import CHROMIUM, wait_for_app

from .pages import FIELD_VALUES


def test_without_a_server_nothing_waits() -> None:
    """A script run with no browser behind it (a headless test, a plain import) is not held."""
    assert delivery.live() is False
    assert delivery.send_now(max_wait=5.0) is False


def test_the_headless_page_shows_the_panels_in_its_first_run(open_page, dash_db: Path, sql) -> None:
    """Without a browser to say the board is drawn, the panels come in the same run as the board."""
    game_id = sql(dash_db, "SELECT game_id FROM games ORDER BY game_id LIMIT 1")[0][0]
    at = open_page(dash_db, "views/replay.py", game=game_id, step=3)
    assert [h.value for h in at.subheader] == ["Review", "What if?", "Winning chances"]
    assert at.number_input(key="whatif_branch").value == 3





@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)")
def test_a_new_tab_gets_the_board_then_the_panels(dash_site, dash_db: Path, sql) -> None:
    url, browser = dash_site
    game_id = sql(dash_db, "SELECT game_id FROM games ORDER BY game_id LIMIT 1")[0][0]
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    # Every value the What-if field shows, from the moment it is put in the page: a field drawn with
    # its minimum and then set would show "0" first.
    page.add_init_script(FIELD_VALUES)
    page.goto(f"{url}/replay?game={game_id}&step=6")
    # The board, drawn at the step asked, told the server so (the panels were held for it)...
    page.wait_for_selector(".gv-root[data-step='6'][data-panels='asked']", timeout=30_000)
    # ...and the panels came after, at the same position.
    page.get_by_role("heading", name="Winning chances").wait_for(timeout=30_000)
    wait_for_app(page)
    assert page.get_by_role("spinbutton", name="Try another move at the position after move").input_value() == "6"
    assert page.evaluate("window.fieldValues")["Try another move at the position after move"] == ["6"]
    assert page.get_by_role("heading", name="What if?").count() == 1
    # Stepping afterwards is the browser's alone: no rerun holds anything back.
    page.locator(".title").click()
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(".gv-root[data-step='7']")
    assert errors == []
    page.close()


def test_the_first_page_of_a_server_imports_the_replay_page_in_the_background(dash_db: Path) -> None:
    """A fresh server that ran only the Games page holds the Replay page's modules (a link to a game
    opened next does not pay for their import)."""
    import os
    import subprocess
    import sys

    script = (
        "import sys, threading\n"
        "from streamlit.testing.v1 import AppTest\n"
        "at = AppTest.from_file('dashboards/app.py', default_timeout=60)\n"
        "at.run()\n"
        "assert not at.exception, at.exception\n"
        "for t in threading.enumerate():\n"
        "    if t.name == 'governor-preload': t.join(60)\n"
        "print(sorted(m for m in ('dashboards.replay_component', 'dashboards.analysis_panel', 'dashboards.whatif_panel')"
        " if m in sys.modules))\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, GOVERNOR_DB=str(dash_db)))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == (
        "['dashboards.analysis_panel', 'dashboards.replay_component', 'dashboards.whatif_panel']")


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)")
def test_the_first_runs_notes_stay_when_the_panels_come(dash_site) -> None:
    """An unknown game and a step out of range are said above the board, and still are once the
    panels have come (the URL of that second run names the game shown, and no wrong step)."""
    url, browser = dash_site
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{url}/replay?game=no-such-game")
    page.get_by_role("heading", name="Winning chances").wait_for(timeout=30_000)
    wait_for_app(page)
    alerts = page.locator(".gv-alert").all_inner_texts()
    assert alerts == ["No game with id no-such-game in the database; showing the newest game instead."]
    page.close()


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)")
def test_a_links_refused_variations_are_said_once_and_stay(dash_site, dash_db: Path, sql) -> None:
    """A link whose variations cannot be played back says so above the board, once, and still does
    after the panels have come (that second run finds the variations already restored)."""
    url, browser = dash_site
    game_id, moves = sql(dash_db, "SELECT game_id, moves FROM games ORDER BY game_id LIMIT 1")[0]
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{url}/replay?game={game_id}&step=3&var=nonsense~{moves + 5}_0_f")
    page.get_by_role("heading", name="Winning chances").wait_for(timeout=30_000)
    wait_for_app(page)
    alerts = page.locator(".gv-alert").all_inner_texts()
    assert alerts == [f"The link's variations: variation 1 is not of the form branch_moves_f; variation 2 branches "
                      f"after move {moves + 5}, but the game has {moves} moves."]
    page.close()
