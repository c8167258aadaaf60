"""The Replay page: stepping forward and back, jumping, and what it shows against the database."""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def game(dash_db: Path, sql) -> dict:
    game_id, names, moves = sql(
        dash_db, "SELECT game_id, players, moves FROM games WHERE game = 'san_juan' AND player_count = 3 ORDER BY game_id LIMIT 1"
    )[0]
    return {"id": game_id, "names": list(names), "moves": moves}


def board(at) -> str:
    return next(h.value for h in at.html if 'class="gv-players"' in h.value)


def current_move(at) -> str:
    html = next(h.value for h in at.html if 'class="gv-moves"' in h.value)
    found = re.search(r'<div class="mv current"[^>]*><span class="n">(\d+)</span>(.*?)</div>', html)
    assert found, html
    return f"{found.group(1)}: {found.group(2)}"


def shown_vp(at, name: str) -> int:
    found = re.search(rf'gv-name">{re.escape(name)}<.*?class="gv-vp"[^>]*>(\d+) <small>', board(at))
    assert found, name
    return int(found.group(1))


def expect_step(at, db: Path, game: dict, step: int, sql) -> None:
    """The page shows ``step``: URL, heading, highlighted move and every player's VP from the database."""
    assert not at.exception, [e.value for e in at.exception]
    assert at.query_params["step"] in (str(step), [str(step)])
    assert at.session_state["replay_step"] == step
    if step:
        (words,) = sql(db, "SELECT words FROM moves WHERE game_id = ? AND step = ?", [game["id"], step])[0]
        assert current_move(at) == f"{step}: {words}".replace("&", "&amp;")
        assert any(h.value.startswith(f'<div class="gv-move-line gv-text"><b>Move {step} of {game["moves"]}</b>')
                   and escape(words) in h.value for h in at.html)
    else:
        assert current_move(at) == "0: The start of the game"
    for seat, vp in sql(db, "SELECT seat, vp FROM san_juan_player_states WHERE game_id = ? AND step = ? ORDER BY seat",
                          [game["id"], step]):
        assert shown_vp(at, game["names"][seat]) == vp


def test_stepping_forward_and_back(dash_db: Path, game: dict, open_page, sql) -> None:
    at = open_page(dash_db, "views/replay.py", game=game["id"])
    expect_step(at, dash_db, game, 0, sql)
    for step in (1, 2, 3):
        at.button(key="replay_next").click().run()
        expect_step(at, dash_db, game, step, sql)
    at.button(key="replay_prev").click().run()
    expect_step(at, dash_db, game, 2, sql)
    at.button(key="replay_last").click().run()
    expect_step(at, dash_db, game, game["moves"], sql)
    assert at.button(key="replay_next").disabled
    assert "winner" in board(at)
    at.button(key="replay_first").click().run()
    expect_step(at, dash_db, game, 0, sql)
    assert at.button(key="replay_prev").disabled


def test_slider_and_jumps(dash_db: Path, game: dict, open_page, sql) -> None:
    at = open_page(dash_db, "views/replay.py", game=game["id"])
    at.slider(key="replay_step").set_value(25).run()
    expect_step(at, dash_db, game, 25, sql)
    at.number_input(key="replay_move").set_value(40).run()
    expect_step(at, dash_db, game, 40, sql)
    (first_of_round_3,) = sql(dash_db, "SELECT min(step) FROM moves WHERE game_id = ? AND round = 3", [game["id"]])[0]
    at.number_input(key="replay_round").set_value(3).run()
    expect_step(at, dash_db, game, first_of_round_3, sql)
    assert at.number_input(key="replay_round").value == 3


def test_the_url_picks_game_and_step(dash_db: Path, game: dict, open_page, sql) -> None:
    at = open_page(dash_db, "views/replay.py", game=game["id"], step="30")
    expect_step(at, dash_db, game, 30, sql)
    at = open_page(dash_db, "views/replay.py", game=game["id"], step="99999")
    expect_step(at, dash_db, game, game["moves"], sql)
    at = open_page(dash_db, "views/replay.py", game=game["id"], step="nonsense")
    expect_step(at, dash_db, game, 0, sql)


def test_unknown_game_falls_back_to_the_newest(dash_db: Path, open_page) -> None:
    at = open_page(dash_db, "views/replay.py", game="no-such-game")
    assert any("No game with id no-such-game in the database" in h.value and "gv-alert-warning" in h.value
               for h in at.html)
    assert not at.exception


def test_board_shows_piles_roles_and_changes(dash_db: Path, game: dict, open_page, sql) -> None:
    at = open_page(dash_db, "views/replay.py", game=game["id"], step="12")
    draw, discard, rnd = sql(
        dash_db, "SELECT draw_pile, discard_pile, round FROM san_juan_states WHERE game_id = ? AND step = 12", [game["id"]]
    )[0]
    html = board(at)
    assert f"<b>Draw pile</b> {draw}" in html and f"<b>Discard pile</b> {discard}" in html
    assert f"<b>Round</b> {rnd}" in html and "Trading house" in html
    buildings = sql(dash_db, "SELECT buildings, hand FROM san_juan_player_states WHERE game_id = ? AND step = 12",
                      [game["id"]])
    for built, hand in buildings:
        for name in built + hand:
            assert name in html
    assert any('class="gv-diff"' in h.value or "Nothing stored changed" in h.value for h in at.html)
    chart = at.get("plotly_chart")
    assert chart, "the VP chart is shown"


def test_keyboard_script_is_on_the_page(dash_db: Path, game: dict, open_page) -> None:
    at = open_page(dash_db, "views/replay.py", game=game["id"])
    script = next(h.value for h in at.html if "keydown" in h.value)
    assert "ArrowLeft" in script and "replay_prev" in script and "replay_next" in script
