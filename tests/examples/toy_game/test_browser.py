"""The toy game in the dashboard, in headless Chromium, with the game installed by pip and nothing else
changed: the Replay page shows a Climb game with its board in every view, and a seat's view sends the
browser no card of another seat's hand (read off the wire: the page as sent and every websocket
message), nor a score that counts it, nor the card another seat drew; the score is Climb's "points", its
chart reaches below 0 and a hidden score is "?", never 0; the Statistics page works with Climb games
imported and shows only the sections Climb declares; the Explorer says why it has nothing for Climb. At
1400 and 390 px wide."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from dashboards.screenshots import CHROMIUM, running_dashboard, wait_for_app
from tests.dashboards.test_replay_secrets_browser import Wire
from tests.examples.conftest import governor_on

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)"),
]



@pytest.fixture(scope="module")
def toy_db(pip_installed_toy: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Climb games of 2, 3 and 4 players, simulated and imported by the command on the installed game."""
    folder = tmp_path_factory.mktemp("toy-browser")
    logs, db = folder / "logs", folder / "toy.duckdb"
    run = governor_on(pip_installed_toy, "simulate", "--game", "toy", "--players", "2", "3", "4", "--games", "6",
                      "--seed", "11", "--bot", "mixed", "--out", str(logs))
    assert run.returncode == 0, run.stderr
    run = governor_on(pip_installed_toy, "import", str(logs), "--db", str(db))
    assert run.returncode == 0, run.stderr
    return db


@pytest.fixture(scope="module")
def site(pip_installed_toy: Path, toy_db: Path, chromium: Any) -> Iterator[tuple[str, Any]]:
    """The dashboard on ``toy_db``, its process's path holding the installed game, and the browser."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", str(pip_installed_toy))
        with running_dashboard(toy_db) as url:
            yield url, chromium


def _rows(db: Path, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def _sent(text: str, key: str) -> list[Any]:
    """Every value sent under ``key`` in the page and the messages (JSON, or JSON in a string): a
    seat's ``hand`` or ``vp`` runs (``[[step, value], ...]``), the ``chart``'s runs by seat."""
    decoder = json.JSONDecoder()
    out = []
    for found in re.finditer(r'\\?"' + key + r'\\?":\s*(?=\[)', text):
        escaped = text[found.start()] == "\\"
        chunk = text[found.end():found.end() + 50000]
        out.append(decoder.raw_decode(chunk.replace('\\"', '"') if escaped else chunk)[0])
    return out


def _is_runs(value: Any) -> bool:
    """Whether ``value`` is a column's runs, ``[[step, value], ...]``."""
    return isinstance(value, list) and all(isinstance(r, list) and len(r) == 2 and type(r[0]) is int for r in value)


def _game(db: Path, players: int) -> tuple[str, int, list[str]]:
    game_id, moves, names = _rows(db, "SELECT game_id, moves, players FROM games WHERE player_count = ? "
                                      "ORDER BY game_id LIMIT 1", [players])[0]
    return game_id, moves, list(names)


def _hands(db: Path, game_id: str, seat: int) -> dict[int, list[int]]:
    return {step: list(hand) for step, hand in _rows(
        db, "SELECT step, hand FROM toy_player_states WHERE game_id = ? AND seat = ?", [game_id, seat])}


def _at(runs: list[list[Any]], step: int) -> Any:
    """A run's value at ``step`` (the last change at or before it)."""
    value = None
    for at, v in runs:
        if at <= step:
            value = v
    return value


@pytest.mark.parametrize("view", ["seat0", "public"])
def test_a_seat_view_sends_no_other_hand_and_the_board_shows_backs(site: tuple[str, Any], toy_db: Path,
                                                                   view: str, tmp_path: Path) -> None:
    game_id, moves, names = _game(toy_db, 3)
    own = _hands(toy_db, game_id, 0)
    step = moves // 2
    wire = Wire(site, f"game={game_id}&step={step}&view={view}")
    try:
        text = wire.wire()
        hands = [run for run in _sent(text, "hand") if _is_runs(run)]
        scores = [run for run in _sent(text, "vp") if _is_runs(run)] + [
            run for chart in _sent(text, "chart") for run in chart if _is_runs(run)]
        assert hands and scores
        # Before the end, a hand the view may not see is None at every step; seat 0 sees its own.
        for run in hands:
            for at, value in run:
                if at < moves and value is not None:
                    assert view == "seat0" and value == own[at], (at, value)
        assert (view == "seat0") == any(v is not None for run in hands for at, v in run if at < moves)
        # So is a score, which counts the hand.
        own_vp = dict(_rows(toy_db, "SELECT step, vp FROM toy_player_states WHERE game_id = ? AND seat = 0", [game_id]))
        for run in scores:
            for at, value in run:
                if at < moves and value is not None:
                    assert view == "seat0" and value == own_vp[at], (at, value)
        # Every draw of another seat names no card; the words of seat 0's own draws do (in its view).
        others = "|".join(re.escape(n) for n in names[1:])
        assert re.search(rf"(?:{others}) draws an? \d", text) is None
        assert f"{names[1]} draws a card" in text
        assert (re.search(rf"{re.escape(names[0])} draws an? \d", text) is not None) == (view == "seat0")
        # The board: a panel per seat, another seat's hand face down, the viewer's own face up.
        page = wire.page
        assert page.locator(".player").count() == 3
        for seat in (1, 2):
            assert page.locator(f".player[data-seat='{seat}'] .climb-back").count() == len(_hands(toy_db, game_id, seat)[step])
            assert page.locator(f".player[data-seat='{seat}'] .climb-hand .climb-card").count() == 0
            assert page.locator(f".player[data-seat='{seat}'] .pvp").inner_text() == "? points"
        shown = page.locator(".player[data-seat='0'] .climb-hand .climb-card").all_inner_texts()
        assert shown == ([str(c) for c in _at([[s, h] for s, h in sorted(own.items())], step)] if view == "seat0" else [])
        # The chart: Climb's points, a score the view hides is "?" (not 0) and has no dot, no line.
        assert page.locator(".charthead .scorename").text_content() == "Points"
        readout = re.sub("[\u2068\u2069]", "", page.locator(".readout").first.inner_text())  # names isolated
        assert readout == f"move {step}: " + " \u00b7 ".join(
            f"{name} {own_vp[step] if seat == 0 and view == 'seat0' else '?'}" for seat, name in enumerate(names))
        for seat in (1, 2):
            assert page.locator(f".chart .dot[data-seat='{seat}']").evaluate("d => getComputedStyle(d).display") == "none"
        assert not wire.errors, wire.errors
        page.screenshot(path=str(tmp_path / f"replay-{view}.png"), full_page=True)
    finally:
        wire.close()


def _ticks(page: Any) -> list[int]:
    """The score chart's y-axis labels (the round labels, under the axis, left out)."""
    return [int(t.replace("\u2212", "-")) for t in page.locator(".chart svg text.tick[text-anchor='end']").all_text_contents()
            if t.strip() and t != "rd"]


def test_the_whole_view_holds_every_hand_and_the_last_step_shows_them(site: tuple[str, Any], toy_db: Path,
                                                                      tmp_path: Path) -> None:
    game_id, moves, names = _game(toy_db, 4)
    lowest = _rows(toy_db, "SELECT min(vp) FROM toy_player_states WHERE game_id = ?", [game_id])[0][0]
    assert lowest < 0
    wire = Wire(site, f"game={game_id}&step={moves // 2}&view=all")
    try:
        hands = [run for run in _sent(wire.wire(), "hand") if _is_runs(run)]
        assert len([run for run in hands if all(v is not None for _, v in run)]) >= 4
        page = wire.page
        assert page.locator(".player").count() == 4 and page.locator(".player .climb-back").count() == 0
        # The chart's axis reaches the lowest score (it started at 0 and cut the negative scores off).
        assert min(_ticks(page)) <= lowest and 0 in _ticks(page)
        assert page.locator(".chart svg").get_attribute("aria-label") == "Points by move"
        page.screenshot(path=str(tmp_path / "replay-all.png"), full_page=True)
    finally:
        wire.close()
    # At the end, every view shows every hand: the public view's last step.
    wire = Wire(site, f"game={game_id}&step={moves}&view=public")
    try:
        page = wire.page
        assert page.locator(".player .climb-back").count() == 0
        for seat in range(4):
            hand = _hands(toy_db, game_id, seat)[moves]
            assert page.locator(f".player[data-seat='{seat}'] .climb-hand .climb-card").all_inner_texts() == [str(c) for c in hand]
        # The scoring under the board: the view's table, every seat's ladder, hand, total and tie-break.
        scored = [[" ".join(c.split()) for c in row.locator("td").all_inner_texts()]
                  for row in page.locator("table.score tbody tr").all()]
        stored = _rows(toy_db, "SELECT seat, ladder, hand, vp FROM toy_player_states WHERE game_id = ? AND step = ? "
                               "ORDER BY seat", [game_id, moves])
        assert scored == [[names[seat], str(sum(ladder)), str(-sum(hand)), str(vp), str(len(ladder))]
                          for seat, ladder, hand, vp in stored]
        page.screenshot(path=str(tmp_path / "replay-end.png"), full_page=True)
    finally:
        wire.close()


def test_the_statistics_page_counts_the_climb_games(site: tuple[str, Any], toy_db: Path, tmp_path: Path) -> None:
    url, browser = site
    (games, seats) = _rows(toy_db, "SELECT count(DISTINCT game_id), count(*) FROM players")[0]
    page = browser.new_page(viewport={"width": 1400, "height": 1200})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        page.goto(f"{url}/statistics?game=toy")
        wait_for_app(page)
        # the metrics row is drawn one metric at a time (a run read "Games" then "Average score" while the
        # second was being drawn): read the row until it holds what the database says, for at most 60 s
        want = [f"Games {games}", f"Player seats {seats}"]
        deadline = time.monotonic() + 60
        while True:
            page.wait_for_selector('[data-testid="stMetric"]:has-text("Player seats")', timeout=60_000)
            metrics = [" ".join(t.split()) for t in page.locator('[data-testid="stMetric"]').all_inner_texts()]
            if metrics[:2] == want or time.monotonic() > deadline:
                break
            page.wait_for_timeout(250)
        assert metrics[:2] == [f"Games {games}", f"Player seats {seats}"]
        assert "Climb, player counts 2, 3, 4 of 2, 3, 4." in page.inner_text("body")
        body = page.inner_text("body")
        assert "Climb declares no buildings and no roles: no win rate by building or by role is shown." in body
        assert "building owned" not in body and "Rank buildings by" not in body
        for tab in ("Scores and length", "Points curves"):
            page.get_by_role("tab", name=tab).click()
            wait_for_app(page)
        page.wait_for_selector("text=Average points at the end of each round", timeout=60_000)
        assert page.locator('[data-testid="stException"]').count() == 0
        assert not errors, errors
        page.screenshot(path=str(tmp_path / "statistics.png"), full_page=True)
    finally:
        page.close()


@pytest.mark.parametrize("width", [1400, 390])
def test_the_pages_at_both_widths_name_climbs_score_and_say_why_the_explorer_is_empty(
        site: tuple[str, Any], toy_db: Path, width: int, tmp_path: Path) -> None:
    url, browser = site
    game_id, moves, names = _game(toy_db, 3)
    page = browser.new_page(viewport={"width": width, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        page.goto(f"{url}/explorer?type=toy")
        wait_for_app(page)
        page.wait_for_selector("text=Climb declares no opening decisions", timeout=60_000)
        assert ("Climb declares no opening decisions (the first moves the Explorer counts), so it has no tree to "
                "explore.") in page.inner_text("body")
        page.screenshot(path=str(tmp_path / f"explorer-{width}.png"), full_page=True)
        page.goto(f"{url}/replay?game={game_id}&step={moves // 2}&view=seat1")
        wait_for_app(page)
        page.wait_for_selector(".gv-root[data-step]", timeout=60_000)
        assert page.locator(".player[data-seat='0'] .pvp").inner_text() == "? points"
        page.screenshot(path=str(tmp_path / f"replay-{width}.png"), full_page=True)
        if width < 700:  # the narrow page's chart is under a tab of its own
            page.locator(".tabs button[data-tab='charts']").click()
        assert page.locator(".charthead .scorename").text_content() == "Points"
        readout = re.sub("[\u2068\u2069]", "", page.locator(".readout").first.inner_text())
        assert readout.startswith(f"move {moves // 2}: {names[0]} ? \u00b7 {names[1]} ")
        page.screenshot(path=str(tmp_path / f"replay-charts-{width}.png"), full_page=True)
        assert not errors, errors
    finally:
        page.close()
