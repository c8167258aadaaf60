"""Play: a game against the bots (or several people at one screen) in the browser.

Without ``id`` in the address: the setup form (filled from the address, ``dashboards.play_setup``) and
the games in progress. With ``id``: that game, resumed where it stands (``play.store.Store``: every
move is on disk before the page shows it). The bots move on the server, each move on disk; the page
then shows them one by one (``dashboards.play_component``). The player's legal moves are buttons and
the board's pieces shortcuts to them; every move is checked by the engine on the server, and a move
made on a position that has moved on (another tab) is refused, never applied twice. Once the game is
over it is stored in the database (``dashboards.play_store``), and its log can be downloaded.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import streamlit as st

from dashboards import data, play_setup, ui
from dashboards.play_board import play_data
from dashboards.play_component import play_board
from dashboards.play_store import NotStored, store, store_finished
from play.errors import NotAMove, NotYourTurn, PlayError, SessionNotFound, StaleVersion, TakebackRefused
from play.session import Session, game_log, log_of
from replay.errors import IllegalMoveError
from replay.game import declarations

#: Bot moves made in one run of the page at most (a game has fewer; a runaway never holds the page).
MAX_BOT_STEPS = 2000


def _say(kind: str, text: str) -> None:
    """A message shown on the next run (after ``st.rerun``)."""
    st.session_state["play_message"] = (kind, text)


@st.cache_resource(max_entries=32, show_spinner=False)
def _data(game_id: str, version: int, seat: int, _session: Session) -> dict[str, Any]:
    return play_data(_session, seat)


def _bots_move(session: Session) -> Session:
    """Let the bots move until a person decides or the game ends, each move on disk."""
    games = store()
    steps = 0
    while not session.over and not session.human_to_act and steps < MAX_BOT_STEPS:
        who = session.setup.names[session.to_act] if session.to_act is not None else "a bot"
        try:
            with st.spinner(f"{who} is thinking…"):
                made = games.bot_step(session.id, session.version)
        except StaleVersion:
            made = None  # another tab moved it: read it again
        session = made if made is not None else games.load(session.id)
        steps += 1
    return session


def _shown_seat(session: Session) -> int | None:
    """The seat whose view this screen shows: the one person's; in hot-seat, the person to act once the
    screen has been passed to them (None until then)."""
    humans = session.setup.humans
    if len(humans) == 1:
        return humans[0]
    revealed = st.session_state.get("play_revealed")
    seat = session.to_act if session.to_act in humans else None
    if seat is None:
        # A bot to act or the game over: the seat shown last stays.
        return revealed[1] if isinstance(revealed, tuple) and revealed[0] == session.id else humans[0]
    if revealed == (session.id, seat):
        return seat
    name = session.setup.names[seat]
    ui.alert("info", f"Pass the screen to {name}. The board shows {name}'s seat only once {name} is at the screen.")
    if st.button(f"I am {name}: show my seat", key=f"play_reveal_{seat}", type="primary"):
        st.session_state["play_revealed"] = (session.id, seat)
        st.rerun()
    return None


def _act(session: Session, asked: dict[str, Any]) -> None:
    """The move the browser sent, made (or refused, saying why); the page is run again."""
    games = store()
    try:
        made = games.act(session.id, asked["move"], asked["version"])
        st.session_state.setdefault("play_shown", {})[(session.id, asked.get("seat"))] = len(made.moves)
    except StaleVersion:
        _say("warning", "The game moved on (in another tab or window) before this move arrived: nothing was "
                        "changed. Here it is as it stands now.")
    except IllegalMoveError as err:
        _say("error", f"Not allowed: {err.reason} (rule {err.rule}). Nothing was changed.")
    except (NotAMove, NotYourTurn) as err:
        _say("error", f"{err.message}. Nothing was changed.")
    except PlayError as err:
        _say("error", err.message)
    # The browser takes moves again on the next run, whatever the answer.
    st.session_state["play_answered"] = st.session_state.get("play_answered", 0) + 1
    st.rerun()


def _game_over(session: Session) -> None:
    """The result with the tie-break, the game stored in the database, and its log."""
    engine = session.engine
    names = session.setup.names
    scores = engine.scores(session.state)
    winners = list(engine.winners(session.state))
    st.subheader("Result")
    order = sorted(range(len(names)), key=lambda s: (-scores[s].total, -scores[s].tiebreak, s))
    ui.text(("Winner: " + " and ".join(names[w] for w in winners)) if winners else "No winner")
    declared = declarations().get(session.setup.game)
    unit = declared.score_unit if declared is not None else "points"
    ui.text(" · ".join(f"{names[s]} {scores[s].total} {unit} (tie-break {scores[s].tiebreak})" for s in order))
    stored_id = game_log(session).game_id
    stored = st.session_state.get("play_stored", {}).get(session.id)
    if stored is None and data.db_exists() and "games" in data.tables() and data.game_row(stored_id) is not None:
        stored = stored_id
    if stored is None:
        try:
            with st.spinner("Storing the game in the database…"):
                stored = store_finished(session.id)
        except NotStored as err:
            ui.alert("warning", f"The game is over but not stored in the database yet: {err}")
            if st.button("Try again to store it", key="play_store_again"):
                st.rerun()
    if stored is not None:
        st.session_state.setdefault("play_stored", {})[session.id] = stored
        ui.caption("The game is stored in the database: it is on the Games and Statistics pages.")
        # At its Review (the heading's anchor): the Replay page opens in a tab of its own, this one stays.
        st.markdown(f"[Review it on the Replay page](replay?game={quote(stored, safe='')}&view=all#review)")
    if session.takebacks:
        ui.caption(f"Take-backs: {session.takebacks}. The game is marked with them and left out of the ratings.")
    text = json.dumps(log_of(session), ensure_ascii=False, indent=1)
    st.download_button("Download the game's log (JSON)", data=lambda: text.encode("utf-8"),
                       file_name=f"governor-play-{session.id}.json", mime="application/json", on_click="ignore",
                       key="play_download")


def _controls(session: Session) -> None:
    """Take back, and the way to another game."""
    # One row, from the left (Take back is gone once the game is over).
    row = st.container(horizontal=True)
    if len(session.setup.humans) == 1 and not session.over:
        if row.button("Take back", key="play_takeback", disabled=not session.can_take_back,
                          help="Undo your last move (and the bots' moves after it). The game is then marked as having "
                               "take-backs and left out of the ratings."):
            try:
                store().takeback(session.id, session.version)
                _say("info", "Your last move was taken back.")
            except StaleVersion:
                _say("warning", "The game moved on (in another tab or window): nothing was taken back.")
            except TakebackRefused as err:
                _say("warning", err.message)
            except PlayError as err:
                _say("error", err.message)
            st.rerun()
    if row.button("New game", key="play_new"):
        st.query_params.clear()
        st.rerun()
    if session.takebacks and not session.over:
        ui.caption(f"Take-backs so far: {session.takebacks} (the game will be left out of the ratings).")


def _game(game_id: str) -> bool:
    """The game ``game_id``; False when there is no such game (the setup is shown instead)."""
    games = store()
    try:
        session = games.load(game_id)
    except SessionNotFound:
        ui.alert("warning", f"No game {game_id} is in progress here (finished and stored, abandoned, or played on "
                            "another database). Start a new one below.")
        return False
    except PlayError as err:
        ui.alert("error", err.message)
        return False
    for note in session.notes:
        ui.caption(note)
    try:
        session = _bots_move(session)
    except PlayError as err:
        ui.alert("error", err.message)
    seat = _shown_seat(session)
    if seat is not None:
        shown = st.session_state.setdefault("play_shown", {})
        total = len(session.moves)
        start = shown.get((session.id, seat), total)
        shown[(session.id, seat)] = total
        payload = {**_data(session.id, session.version, seat, session), "from": min(start, total),
                   "answered": st.session_state.get("play_answered", 0)}
        reply = play_board(payload)
        if reply.act is not None and reply.act["id"] == session.id:
            _act(session, {**reply.act, "seat": seat})
    if session.over:
        _game_over(session)
    _controls(session)
    return True


ui.inject_css()
st.title("Play")
message = st.session_state.pop("play_message", None)
if message:
    ui.alert(*message)
wanted = (st.query_params.get("id") or "").strip()
if wanted and _game(wanted):
    play_setup.in_progress(wanted)
else:
    started = play_setup.setup_form(st.query_params.to_dict())
    if started is not None:
        st.query_params.clear()
        st.query_params["id"] = started
        st.rerun()
    play_setup.in_progress()
