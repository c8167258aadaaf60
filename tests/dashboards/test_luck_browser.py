"""Luck in a real browser, on a small database whose luck is stored: the Replay page's graph marks
each seat's luckiest and unluckiest moves with their captions, a click on a mark or a caption goes to
its move, and the Players page says a player's results beside its luck."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest

from dashboards.screenshots import CHROMIUM

#: The chance part of three moves of a 3-player game (move: seat 0, 1, 2); every other move's is 0.
LUCK = {5: (0.21, -0.21, 0.0), 30: (-0.15, 0.0, 0.15), 60: (0.0, 0.3, -0.3)}


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)")
def test_the_moments_and_the_players_luck_in_a_browser(chromium: Any, dash_db: Path, tmp_path: Path, sql: Callable) -> None:
    from dashboards.screenshots import running_dashboard

    db = tmp_path / "luck.duckdb"
    shutil.copy(dash_db, db)
    game_id, moves, names = sql(db, "SELECT game_id, moves, players FROM games WHERE player_count = 3 "
                                    "ORDER BY game_id LIMIT 1")[0]
    won = sql(db, "SELECT won FROM players WHERE game_id = ? AND seat = 0", [game_id])[0][0]
    played = sql(db, "SELECT count(*) FROM players WHERE name = ?", [names[0]])[0][0]
    with duckdb.connect(str(db)) as con:
        con.executemany("INSERT INTO luck VALUES (?, ?, ?, ?, 0.0)", [
            [game_id, step, seat, LUCK.get(step, (0.0, 0.0, 0.0))[seat]]
            for step in range(1, moves + 1) for seat in range(3)])
    with running_dashboard(db) as url:
        page = chromium.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{url}/replay?game={game_id}&step=0")
        # The moments come with the graph, once the board is drawn (no need to wait for the page's end).
        page.wait_for_selector(".moments button", timeout=60_000)
        captions = [text.replace("\u2068", "").replace("\u2069", "")
                    for text in page.locator(".moments button").all_inner_texts()]
        # A click on a mark of the graph goes to its move, and so does a click on a caption.
        # The last mark drawn is on top of any other it may cover (Bruno's of the same move).
        page.locator('.model .luckmark[data-step="60"]').last.click()
        page.wait_for_selector('.gv-root[data-step="60"]', timeout=10_000)
        page.locator('.moments button[data-step="30"]').first.click()
        page.wait_for_selector('.gv-root[data-step="30"]', timeout=10_000)
        page.goto(f"{url}/players?type=san_juan&name={names[0]}")
        line = page.locator(".gv-luck").inner_text(timeout=30_000)
    ana, bruno, carla = names
    assert captions == [
        f"Luckiest: move 5, {ana} +0.21 from the draw", f"Unluckiest: move 30, {ana} -0.15 from the draw",
        f"Luckiest: move 60, {bruno} +0.30 from the draw", f"Unluckiest: move 5, {bruno} -0.21 from the draw",
        f"Luckiest: move 30, {carla} +0.15 from the draw", f"Unluckiest: move 60, {carla} -0.30 from the draw",
    ]
    assert line == f"won {int(won)} of 1; luck +0.1 games; skill 0.0 games (luck known for 1 of its {played} games)"
