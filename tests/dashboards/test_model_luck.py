"""The luckiest and unluckiest moments on the Replay page's win-chance graph: which moves and words
each view is sent (every seat's in the whole view, the followed seat's in a seat's view, nothing in a
seat's view of a game in play), read from the table ``luck`` when stored, else computed for the one
game only once its button is pressed."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import duckdb
import numpy as np
import pytest
import streamlit as st

from analysis.winchance.luck import game_split
from analysis.winchance.luck_fill import table_of
from analysis.winchance.model import load
from dashboards import model_chart
from dashboards.model_chart import LUCK_ASKED, model_payload, moments
from replay.logfile import parse_game
from replay.protocol import Viewer

#: Three seats over four moves: seat 0's luckiest move is 2 and unluckiest 3; chance never moved seat 2.
LUCK = np.array([[0.05, -0.05, 0.0], [0.213, -0.213, 0.0], [-0.1, 0.1, 0.0], [0.0, 0.0, 0.0]])
NAMES = ["Ana", "**Bo** <b>x</b>", "Cy"]


def test_the_moments_of_every_seat_or_of_the_followed_one() -> None:
    assert moments(LUCK, NAMES, Viewer.everything()) == [
        {"step": 2, "seat": 0, "luck": 0.21, "kind": "luckiest",
         "text": "Luckiest: move 2, \u2068Ana\u2069 +0.21 from the draw"},
        {"step": 3, "seat": 0, "luck": -0.1, "kind": "unluckiest",
         "text": "Unluckiest: move 3, \u2068Ana\u2069 -0.10 from the draw"},
        {"step": 3, "seat": 1, "luck": 0.1, "kind": "luckiest",
         "text": "Luckiest: move 3, \u2068**Bo** <b>x</b>\u2069 +0.10 from the draw"},
        {"step": 2, "seat": 1, "luck": -0.21, "kind": "unluckiest",
         "text": "Unluckiest: move 2, \u2068**Bo** <b>x</b>\u2069 -0.21 from the draw"},
    ]
    assert [m["text"] for m in moments(LUCK, NAMES, Viewer.of_seat(1))] == [
        "Luckiest: move 3, \u2068**Bo** <b>x</b>\u2069 +0.10 from the draw",
        "Unluckiest: move 2, \u2068**Bo** <b>x</b>\u2069 -0.21 from the draw"]
    assert moments(LUCK, NAMES, Viewer.of_seat(2)) == []


@pytest.fixture(scope="module")
def luck_db(dash_db: Path, tmp_path_factory: pytest.TempPathFactory, sql: Callable) -> tuple[Path, dict, str, np.ndarray]:
    """The sample database with the luck of one 3-player game stored: (database, the game's row, its
    log, its chance parts)."""
    db = tmp_path_factory.mktemp("model_luck") / "luck.duckdb"
    shutil.copy(dash_db, db)
    game_id, players, moves, winners, names, text = sql(
        db, "SELECT game_id, player_count, moves, winners, players, log FROM games WHERE player_count = 3 "
            "ORDER BY game_id LIMIT 1")[0]
    log = parse_game(json.loads(text))
    split = game_split(load(log.game, players), log)
    rows = table_of([(game_id, split)])  # noqa: F841 - read by DuckDB
    with duckdb.connect(str(db)) as con:
        con.execute("INSERT INTO luck SELECT * FROM rows")
    row = {"game_id": game_id, "player_count": players, "game": "san_juan", "moves": moves, "winners": winners,
           "players": names}
    return db, row, text, split.luck


def test_stored_luck_gives_every_view_its_moments(luck_db: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    db, row, text, luck = luck_db
    monkeypatch.setenv("GOVERNOR_DB", str(db))
    whole = model_payload(row, text, Viewer.everything())
    assert whole is not None and whole["moments"] == moments(luck, row["players"], Viewer.everything())
    assert len(whole["moments"]) == 6 and whole["luck_note"] == model_chart.LUCK_NOTE
    # Each mark is the seat's move of the largest chance part, either way.
    for m in whole["moments"]:
        column = luck[:, m["seat"]]
        assert m["step"] == 1 + int(np.argmax(column) if m["kind"] == "luckiest" else np.argmin(column))
    seat = model_payload(row, text, Viewer.of_seat(2))
    assert seat is not None and seat["moments"] == moments(luck, row["players"], Viewer.of_seat(2))
    assert {m["seat"] for m in seat["moments"]} == {2}
    assert model_payload(row, text, Viewer.public()) is None
    # A seat's view of a game in play is shown nothing of it (luck needs every card); the whole view is.
    playing = {**row, "winners": []}
    in_play = model_payload(playing, text, Viewer.of_seat(2))
    assert in_play is not None and "moments" not in in_play
    assert "moments" in (model_payload(playing, text, Viewer.everything()) or {})


def test_unstored_luck_is_computed_only_when_asked(dash_db: Path, luck_db: tuple, sql: Callable,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _, row, text, luck = luck_db
    monkeypatch.setenv("GOVERNOR_DB", str(dash_db))
    computed: list[str] = []
    real = model_chart._computed_luck
    monkeypatch.setattr(model_chart, "_computed_luck", lambda game_id, log: computed.append(game_id) or real(game_id, log))
    st.session_state.pop(LUCK_ASKED, None)
    before = model_payload(row, text, Viewer.everything())
    assert before is not None and "moments" not in before and computed == []
    st.session_state[LUCK_ASKED] = {row["game_id"]}
    try:
        asked = model_payload(row, text, Viewer.everything())
    finally:
        st.session_state.pop(LUCK_ASKED, None)
    assert computed == [row["game_id"]]
    assert asked is not None and asked["moments"] == moments(luck, row["players"], Viewer.everything())


def test_the_button_computes_the_luck_of_the_game_shown(dash_db: Path, luck_db: tuple, open_page: Callable,
                                                        sql: Callable) -> None:
    db, row, _, _ = luck_db
    other = sql(dash_db, "SELECT max(game_id) FROM games WHERE player_count = 2")[0][0]
    at = open_page(db, "views/replay.py", game=other)
    at.session_state["replay_shown"] = other
    at.run()
    button = at.button(key="model_luck")
    assert button.label == "Find the luckiest and unluckiest moments"
    button.click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state[LUCK_ASKED] == {other}
    assert not [b for b in at.button if b.key == "model_luck"]
    # A game whose luck is stored needs no button.
    at.query_params["game"] = row["game_id"]
    at.session_state["replay_shown"] = row["game_id"]
    at.run()
    assert not [b for b in at.button if b.key == "model_luck"]
