"""The Play page's setup form and its list of games in progress.

The form is filled from the address (``/play?game=<game>&players=2&seat=1&bots=heuristic&seed=7&name=Tester``,
``play.setup.Setup.from_query``'s parameters; seats numbered as the Replay page's ``view=seatN``), and
"Start game" starts the game through the same ``Setup.from_query``, so the page and the address accept
the same setups and refuse the others with the same message. Names typed by users are shown as plain
text only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from dashboards import ui
from dashboards.play_store import store
from play.errors import PlayError, SetupError
from play.setup import Setup, seats_of
from replay.game import declarations

#: The bots offered in the form's lists; any other agent spec the arena accepts may be typed.
BOTS = ("heuristic", "random", "expert", "search", "search:8", "search:32")
RANDOM = "random"
#: The setup parameters of the address (and each game option, by its name).
PARAMS = ("game", "players", "seat", "bots", "seed", "name")


def _seat_words(seat: int) -> str:
    return f"seat {seat}" + (" (first governor)" if seat == 0 else "")


def _prefill(params: Mapping[str, str]) -> None:
    """Set the form's widgets from the address once per address (afterwards they keep what the user
    chose). Values the address gets wrong are left at their defaults: "Start game" names the fault."""
    signature = repr(sorted((k, params.get(k)) for k in params))
    if st.session_state.get("play_form_from") == signature:
        return
    st.session_state["play_form_from"] = signature
    games = declarations()
    asked = params.get("game") or ""
    game = asked if asked in games else next(iter(games))
    found = games[game]
    st.session_state["play_game"] = game
    try:
        players = int(params.get("players") or found.min_players)
    except ValueError:
        players = found.min_players
    players = min(max(players, found.min_players), found.max_players)
    st.session_state["play_players"] = players
    try:
        seats = seats_of(params.get("seat"), players) if (params.get("seat") or "").strip().lower() != RANDOM else None
    except SetupError:
        seats = [0]
    st.session_state["play_seat"] = RANDOM if seats is None else str(seats[0])
    st.session_state["play_more"] = [str(s) for s in (seats or [])[1:]]
    names = (params.get("name") or "")
    given = [n.strip() for n in names.split(",")] if seats and len(seats) > 1 else [names.strip()]
    st.session_state["play_name"] = given[0]
    for seat, name in zip((seats or [])[1:], given[1:]):
        st.session_state[f"play_name_{seat}"] = name
    bots = [b.strip() for b in (params.get("bots") or "heuristic").split(",") if b.strip()] or ["heuristic"]
    for i in range(found.max_players):
        st.session_state[f"play_bot_{i}"] = bots[i] if len(bots) > 1 and i < len(bots) else bots[0]
    st.session_state["play_seed"] = (params.get("seed") or "").strip()
    for option in found.options:
        st.session_state[f"play_opt_{game}_{option.name}"] = (params.get(option.name) or "").strip().lower() in (
            "1", "true", "yes", "on")


def setup_form(params: Mapping[str, str]) -> str | None:
    """The setup form; when "Start game" is pressed and the setup is good, the new game's id (the game
    is started and on disk). A refused setup is said in one line naming its field."""
    _prefill(params)
    games = declarations()
    st.subheader("New game")
    cols = st.columns(2)
    game = cols[0].selectbox("Game", list(games), format_func=lambda g: games[g].title, key="play_game")
    found = games[game]
    counts = list(range(found.min_players, found.max_players + 1))
    if st.session_state.get("play_players") not in counts:
        st.session_state["play_players"] = counts[0]
    players = cols[1].selectbox("Players", counts, key="play_players")
    seat_choices = [RANDOM] + [str(s) for s in range(players)]
    if st.session_state.get("play_seat") not in seat_choices:
        st.session_state["play_seat"] = "0"
    cols = st.columns(2)
    seat = cols[0].selectbox("Your seat", seat_choices, key="play_seat",
                             format_func=lambda v: "random" if v == RANDOM else _seat_words(int(v)),
                             help="Seats are numbered as on the Replay page (view seat0, seat1...): 0 is the "
                                  "first governor.")
    name = cols[1].text_input("Your name", key="play_name", placeholder="Player", max_chars=64)
    others = [str(s) for s in range(players) if str(s) != seat]
    if seat == RANDOM:
        more: list[str] = []
    else:
        kept = [s for s in st.session_state.get("play_more", []) if s in others]
        st.session_state["play_more"] = kept
        more = st.multiselect("More people at this screen (hot-seat)", others, key="play_more",
                              format_func=lambda v: _seat_words(int(v)),
                              help="Each of these seats is played by a person too; the screen asks to be passed "
                                   "to each before it shows that seat.")
    names = [name]
    for other in more:
        names.append(st.text_input(f"Name at {_seat_words(int(other))}", key=f"play_name_{other}", max_chars=64,
                                   placeholder=f"Player {len(names) + 1}"))
    bots_needed = players - 1 - len(more)
    bot_seats = [s for s in range(players) if str(s) != seat and str(s) not in more] if seat != RANDOM else []
    bots = []
    if bots_needed:
        ui.caption("Bots: random, heuristic, expert, search:N (N rollouts a move), or any agent the arena accepts "
                   "(module:Class, path/to/file.py:Class).")
    bot_cols = st.columns(min(bots_needed, 4) or 1)
    for i in range(bots_needed):
        label = f"Bot at {_seat_words(bot_seats[i])}" if bot_seats else f"Bot {i + 1}"
        key = f"play_bot_{i}"
        current = str(st.session_state.get(key) or "heuristic")
        options = list(BOTS) if current in BOTS else [current, *BOTS]
        bots.append(bot_cols[i % len(bot_cols)].selectbox(label, options, key=key, accept_new_options=True) or "heuristic")
    cols = st.columns(2)
    seed = cols[0].text_input("Seed (blank: a random one)", key="play_seed", max_chars=12,
                              help="The seed decides the deal and every bot's moves: the same seed and moves "
                                   "give the same game.")
    flags = {}
    for option in found.options:
        flags[option.name] = cols[1].checkbox(option.name.replace("_", " "), key=f"play_opt_{game}_{option.name}",
                                              help=option.description)
    if not st.button("Start game", type="primary", key="play_start"):
        return None
    query: dict[str, Any] = {"game": game, "players": str(players), "bots": ",".join(str(b).strip() for b in bots),
                             "seed": seed, "seat": ",".join([seat, *more]),
                             "name": ",".join(n.strip() for n in names) if more else name}
    query.update({k: "1" for k, on in flags.items() if on})
    try:
        with st.spinner("Starting the game…"):
            setup = Setup.from_query(query)
            return store().start(setup).id
    except PlayError as err:
        ui.alert("error", f"The game cannot start: {err.message}")
        return None


def in_progress(current: str | None = None) -> None:
    """The games in progress on this database, the one played last first: each with Resume and
    Abandon (asked twice: an abandoned game is gone for good)."""
    problems: list[str] = []
    games = store().in_progress(problems)
    st.subheader("Games in progress")
    for problem in problems:
        ui.alert("warning", problem)
    if not games:
        ui.caption("No game in progress. Games you start are kept here until they end, even after a reload or a "
                   "restart of the dashboard.")
        return
    asked = st.session_state.get("play_abandon")
    for game in games:
        people = ", ".join(game.names[s] for s in game.humans)
        bots = ", ".join(n for s, n in enumerate(game.names) if s not in game.humans)
        turn = game.names[game.to_act] if game.to_act is not None else "nobody"
        ui.text(f"{game.title}, {game.players} players: {people} against {bots or 'nobody'} · "
                f"{game.moves} moves · {turn} to act · last move {game.updated:%Y-%m-%d %H:%M} UTC")
        # The buttons in a row of their own, under the game: in narrow columns beside it their labels
        # were cut ("Res…") at 1000 px.
        row = st.container(horizontal=True)
        if row.button("Resume", key=f"play_resume_{game.id}", disabled=game.id == current):
            st.session_state.pop("play_abandon", None)
            st.query_params.clear()
            st.query_params["id"] = game.id
            st.rerun()
        if row.button("Abandon", key=f"play_abandon_{game.id}"):
            st.session_state["play_abandon"] = game.id
            st.rerun()
        if asked == game.id:
            ui.alert("warning", f"Abandon this game of {game.title} for good? It is removed and cannot be resumed.")
            yes, no = st.columns(2)
            if yes.button("Yes, abandon it", key=f"play_abandon_yes_{game.id}"):
                try:
                    store().abandon(game.id)
                except PlayError as err:
                    ui.alert("error", err.message)
                st.session_state.pop("play_abandon", None)
                if st.query_params.get("id") == game.id:
                    st.query_params.clear()
                st.rerun()
            if no.button("Keep it", key=f"play_abandon_no_{game.id}"):
                st.session_state.pop("play_abandon", None)
                st.rerun()
