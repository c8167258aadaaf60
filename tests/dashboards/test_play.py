"""The Play page run headless (``AppTest``) and what it sends for a seat (``dashboards.play_board``):
the setup form filled from the address, a game started and resumed by its id, refused setups named,
the games in progress with Resume and Abandon, and nothing of another seat's hidden cards in what the
page sends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboards.play_board import MAX_MOVES, legal_for_browser, parts_of, play_data
from play.setup import Setup
from play.store import Store, play_folder
from tests.dashboards.conftest import APP, alerts

SETUP = {"game": "san_juan", "players": "2", "seat": "1", "bots": "heuristic", "seed": "7", "name": "Tester"}


def _open(monkeypatch: pytest.MonkeyPatch, db: Path, **params: str) -> AppTest:
    monkeypatch.setenv("GOVERNOR_DB", str(db))
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page("views/play.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_address_fills_the_form_and_start_game_starts_it(monkeypatch, tmp_path: Path) -> None:
    db = tmp_path / "games.duckdb"
    at = _open(monkeypatch, db, **SETUP)
    assert at.selectbox(key="play_game").value == "san_juan"
    assert at.selectbox(key="play_players").value == 2
    assert at.selectbox(key="play_seat").value == "1"
    assert at.selectbox(key="play_bot_0").value == "heuristic"
    assert at.selectbox(key="play_bot_0").label == "Bot at seat 0 (first governor)"
    # The strongest bot, the analysis' own search, is one of the choices offered.
    assert at.selectbox(key="play_bot_0").options == ["heuristic", "random", "expert", "search", "search:8", "search:32"]
    assert at.text_input(key="play_name").value == "Tester"
    assert at.text_input(key="play_seed").value == "7"
    at.button(key="play_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    game_id = at.query_params["id"]
    assert set(at.query_params) == {"id"}
    journal = play_folder(db) / f"{game_id}.journal"
    assert journal.is_file()
    session = Store(play_folder(db)).load(game_id)
    assert session.setup == Setup.from_query(SETUP)
    # The bots moved on the server until the person was to act.
    assert session.to_act == 1 and session.moves
    assert "Tester against heuristic" in " ".join(h.value for h in at.html)


def test_a_refused_setup_names_its_field_and_starts_nothing(monkeypatch, tmp_path: Path) -> None:
    db = tmp_path / "games.duckdb"
    at = _open(monkeypatch, db, **{**SETUP, "bots": "grandmaster"})
    at.button(key="play_start").click().run()
    (said,) = alerts(at, "error")
    assert said.startswith("The game cannot start: bots: ")
    assert "grandmaster" in said
    assert "id" not in at.query_params
    assert not play_folder(db).exists() or not list(play_folder(db).iterdir())


def test_a_game_resumes_from_its_address_and_an_unknown_id_is_said(monkeypatch, tmp_path: Path) -> None:
    db = tmp_path / "games.duckdb"
    with Store(play_folder(db)) as games:
        session = games.start(Setup.from_query(SETUP))
        while not session.human_to_act:
            made = games.bot_step(session.id, session.version)
            assert made is not None
            session = made
    at = _open(monkeypatch, db, id=session.id)
    assert alerts(at, "warning") == []
    assert Store(play_folder(db)).load(session.id).version == session.version
    unknown = "a" * 24
    at = _open(monkeypatch, db, id=unknown)
    assert alerts(at, "warning") == [f"No game {unknown} is in progress here (finished and stored, abandoned, or "
                                     "played on another database). Start a new one below."]
    # The form is shown instead, and the game in progress is listed.
    assert at.button(key="play_start")
    assert at.button(key=f"play_resume_{session.id}")


def test_games_in_progress_are_resumed_and_abandoned_after_asking(monkeypatch, tmp_path: Path) -> None:
    db = tmp_path / "games.duckdb"
    with Store(play_folder(db)) as games:
        kept = games.start(Setup.from_query(SETUP))
        gone = games.start(Setup.from_query({**SETUP, "game": "puerto_rico", "players": "3"}))
    at = _open(monkeypatch, db)
    at.button(key=f"play_resume_{kept.id}").click().run()
    assert at.query_params["id"] == kept.id
    at = _open(monkeypatch, db)
    at.button(key=f"play_abandon_{gone.id}").click().run()
    assert (play_folder(db) / f"{gone.id}.journal").exists()
    assert alerts(at, "warning") == ["Abandon this game of Puerto Rico for good? It is removed and cannot be resumed."]
    at.button(key=f"play_abandon_yes_{gone.id}").click().run()
    assert not (play_folder(db) / f"{gone.id}.journal").exists()
    assert [g.id for g in Store(play_folder(db)).in_progress()] == [kept.id]


def _other_hand_cards(session, seat: int) -> set[str]:
    """Cards in the other seat's hand now that its seat view never names: not built, not in ``seat``'s
    hand at any point, named in no move's words."""
    other = 1 - seat
    visible: set[str] = set()
    for state in session.states:
        visible.update(state.players[seat].hand)
        for p in state.players:
            visible.update(p.buildings)
    return {c for c in session.state.players[other].hand if c not in visible}


def test_what_the_page_sends_holds_no_card_of_another_hand(tmp_path: Path) -> None:
    with Store(tmp_path / "play") as games:
        session = games.start(Setup.from_query(SETUP))
        for _ in range(40):
            if session.over:
                break
            session = games.act(session.id, session.choices()[0], session.version) if session.human_to_act \
                else games.bot_step(session.id, session.version)
        while not session.human_to_act:
            session = games.bot_step(session.id, session.version)
        hidden = _other_hand_cards(session, 1)
        assert hidden, "the bot's hand holds no card the player may not know of"
        sent = json.dumps(play_data(session, 1))
        for card in hidden:
            # The catalogue lists every card by name ("Well": {...}); nothing else may name it.
            assert f'"{card}"' not in sent.replace(f'"{card}": {{', ""), card
        # The seat's own hand and its legal moves are there.
        assert all(f'"{c}"' in sent for c in session.state.players[1].hand)
        assert play_data(session, 1)["legal"]["moves"]


def test_a_kind_of_move_with_very_many_variants_is_sent_as_its_parts() -> None:
    mayors = [{"text": f"mayor [corn {n}]", "words": "", "move": {"kind": "mayor", "plantations": {"corn": n, "quarry": 1},
                                                                   "buildings": {}}} for n in range(MAX_MOVES + 1)]
    roles = [{"text": "role mayor", "words": "", "move": {"kind": "role", "role": "mayor"}}]
    sent = legal_for_browser(mayors + roles)
    assert [m["text"] for m in sent["moves"]] == ["role mayor"]
    assert sent["parts"]["mayor"]["count"] == MAX_MOVES + 1
    assert sent["parts"]["mayor"]["fields"] == {"plantations": {"type": "map", "values": [["corn", MAX_MOVES],
                                                                                          ["quarry", 1]]},
                                                "buildings": {"type": "map", "values": []}}
    assert parts_of([{"kind": "councillor", "keep": ["Well", "Well"]}, {"kind": "councillor", "keep": ["Smithy"]}]) == {
        "keep": {"type": "list", "values": [["Well", 2], ["Smithy", 1]]}}


def test_hot_seat_shows_a_seat_only_once_the_screen_is_passed(monkeypatch, tmp_path: Path) -> None:
    db = tmp_path / "games.duckdb"
    with Store(play_folder(db)) as games:
        session = games.start(Setup.from_query({**SETUP, "seat": "0,1", "name": "Ana,Bruno"}))
    assert session.setup.humans == (0, 1)
    at = _open(monkeypatch, db, id=session.id)
    assert alerts(at, "info") == ["Pass the screen to Ana. The board shows Ana's seat only once Ana is at the screen."]
    assert at.button(key="play_reveal_0").label == "I am Ana: show my seat"
    at.button(key="play_reveal_0").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert alerts(at, "info") == []
    assert at.session_state["play_revealed"] == (session.id, 0)
    # Ana's moves until Bruno is to act: the screen is then to be passed to Bruno.
    with Store(play_folder(db)) as games:
        while session.to_act == 0:
            session = games.act(session.id, session.choices()[0], session.version)
    assert session.to_act == 1
    at.run()
    assert alerts(at, "info") == ["Pass the screen to Bruno. The board shows Bruno's seat only once Bruno is at "
                                  "the screen."]
