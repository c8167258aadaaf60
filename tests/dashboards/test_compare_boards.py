"""The Games page's comparison draws each final board with the Replay page's own drawing (the board
module's JS in a document of its own): in headless Chromium, every seat's panel is there, with the
names as typed (a name that looks like markup stays text) and no script error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dashboards import board_parts
from dashboards.screenshots import CHROMIUM
from replay import registry
from replay.log_reader import read_records
from replay.replayer import final_state

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ("<img src=x onerror=\"document.title='owned'\">", "</script><b>bold</b>", "Ana & `Bruno`", "${parts.bar}",
           "\u202eevil")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)")


def _final_rows(game: str) -> tuple[dict[str, Any], list[dict[str, Any]], list[int], int]:
    path = sorted((ROOT / "sample_logs" / game).glob("*.json"))[0]
    log = next(read_records(path)).log
    assert log is not None
    engine = registry.engine_for(game)
    state = final_state(log)
    table = {"game_id": "g", "step": 99, **engine.global_row(state)}
    seats = [{"game_id": "g", "step": 99, "seat": seat, **row} for seat, row in enumerate(engine.player_rows(state))]
    return table, seats, engine.winners(state), len(log.players)


def test_the_stored_rows_become_the_drawings_one_step() -> None:
    table, seats, winners, players = _final_rows("san_juan")
    step = board_parts.step_data("san_juan", table, seats[::-1], ["A", "B", "C", "D"][:players], winners)
    assert step["lo"] == 0 and "game_id" not in step["table"] and "seat" not in step["seats"][0]
    assert [s["vp"] for s in step["seats"]] == [[row["vp"]] for row in seats]
    assert step["data"]["winners"] == winners
    assert step["data"]["catalogue"] == registry.view_for("san_juan").board_catalogue()
    assert board_parts.static_board("chess", table, seats, ["A"]) is None


def test_a_helper_the_boards_need_is_named_when_missing() -> None:
    with pytest.raises(board_parts.BoardDrawingError, match=r"replay_component/replay.js has no function nope\(\)"):
        board_parts._function("function esc(value) { return value; }\n", "nope")
    assert board_parts._function("function esc(value) { return value; }\nfunction x() {}\n", "esc") == \
        "function esc(value) { return value; }"


@pytest.mark.parametrize("game", ["san_juan", "puerto_rico"])
def test_each_final_board_is_drawn_by_the_replay_drawing(chromium: Any, game: str) -> None:
    table, seats, winners, players = _final_rows(game)
    names = list(HOSTILE[:players])
    document = board_parts.static_board(game, table, seats, names, winners)
    assert document is not None
    assert "</script><b>" not in document.split("<script>", 1)[1].rsplit("</script>", 1)[0]
    page = chromium.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_content(document)
    assert errors == []
    assert page.locator(".board > .barbox").count() == 1
    assert "Governor" in page.locator(".board > .barbox").inner_text()
    assert page.locator(".board .slot").count() == players
    assert page.locator(".board .pname").all_inner_texts() == names
    assert page.locator(".board .winner").count() == len(winners)
    # Markup in a name stayed text: no element was made of it, nothing ran.
    assert page.locator(".board img, .board b:text('bold')").count() == 0
    assert page.title() != "owned"


def test_the_games_page_compares_two_boards_with_the_replay_drawing(dated_db: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  sql: Any) -> None:
    from streamlit.testing.v1 import AppTest

    from tests.dashboards.conftest import APP

    monkeypatch.setenv("GOVERNOR_DB", str(dated_db))
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["compare"] = "1"
    at.run()
    frame = at.dataframe[0].value
    a, b = (str(v) for v in frame["game_id"].iloc[:2])
    at.session_state["games_table_compare"] = {"selection": {"rows": [0, 1], "columns": [], "cells": []}}
    at.run()
    assert not at.exception
    frames = [e.proto for e in at.get("iframe")]
    assert len(frames) == 2
    for game_id, proto in zip((a, b), frames):
        document = proto.srcdoc
        assert "function draw(game, step)" in document and "function panelHead(" in document
        names, = sql(dated_db, "SELECT players FROM games WHERE game_id = ?", [game_id])[0]
        for name in names:
            assert board_parts._script_json(name) in document
