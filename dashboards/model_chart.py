"""The Replay page's "Win chance (model)" graph: each seat's learned win chance at every step of the
game opened, as the view shown may know it (``analysis.winchance.series``: the whole view for the
view that sees everything, the seat's own view for a seat, nothing for the table).

The whole view is read from the table ``win_chance`` when ``governor winchance --db`` filled it; else
it is computed once for the game and view, and cached (the model is loaded once per process).

On the graph, the game's luckiest and unluckiest moments (``analysis.winchance.luck``: the moves whose
chance part helped or hurt a seat most; of the viewed seat in a seat's view, of every seat in the
whole view), with a caption in words each: read from the table ``luck`` when ``governor winchance
--luck`` filled it, else computed for this one game when the user asks (``luck_button``), never while
the page opens. Luck needs every card: a seat's view is shown it only once the game is over, the
table's view has no graph."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import streamlit as st

from analysis.winchance.series import shown_to
from dashboards import data, ui
from replay.errors import GovernorError, printable
from replay.protocol import Viewer

#: How many games' graphs the page keeps, per view.
CACHED_GAMES = 64
#: The session's games (ids) whose luck this tab asked to be computed (``luck_button``).
LUCK_ASKED = "model_luck_asked"
#: What the moments' captions say of chance's part of a move (a card drawn, a tile or plantation turned up).
FROM_CHANCE = "from the draw"


@st.cache_resource(show_spinner=False)
def _model(game: str, players: int) -> Any:
    """The shipped model of ``game`` with ``players`` seats, or None when there is none."""
    from analysis.winchance.model import ModelError, load

    try:
        return load(game, players)
    except (ModelError, KeyError):
        return None


def _stored(game_id: str, players: int) -> list[list[float]] | None:
    """The whole view's chances stored for ``game_id``, one list per seat, or None when not stored."""
    if "win_chance" not in data.tables():
        return None
    rows = data.frame("SELECT step, seat, win_chance FROM win_chance WHERE game_id = ? ORDER BY step, seat", (game_id,))
    if rows.empty:
        return None
    steps = int(rows["step"].max()) + 1
    if len(rows) != steps * players:
        return None
    values = rows["win_chance"].to_numpy().reshape(steps, players)
    return [[round(float(v), 4) for v in values[:, seat]] for seat in range(players)]


@st.cache_data(max_entries=CACHED_GAMES, show_spinner=False)
def _computed(game_id: str, view: str, log_text: str) -> tuple[list[list[float]] | None, str]:
    """The chances ``view`` may be shown of the stored log ``log_text``, one list per seat (None when
    it may be shown none, or the game has no model), and what they mean."""
    from analysis.winchance.series import meaning, viewer_series
    from replay.logfile import parse_game
    from replay.registry import engine_for
    from replay.replayer import iter_replay

    log = parse_game(json.loads(log_text))
    model = _model(log.game, len(log.players))
    if model is None:
        return None, ""
    viewer = Viewer.parse(view, len(log.players))
    states = [state for state, _ in iter_replay(log, require_complete=False, describe=False, steps=False)]
    found = viewer_series(model, engine_for(log.game), states, viewer)
    if found is None:
        return None, meaning(model)
    return [[round(float(v), 4) for v in found[:, seat]] for seat in range(found.shape[1])], meaning(model)


def shown(viewer: Viewer) -> bool:
    """Whether ``viewer`` may be shown a win-chance graph (every view but the table's)."""
    return shown_to(viewer) is not None


def model_payload(game_row: dict[str, Any], log_text: str, viewer: Viewer) -> dict[str, Any] | None:
    """What the viewer draws as the "Win chance (model)" graph of the game ``game_row`` (``chances``:
    one list per seat, a value per step from 0), or None when ``viewer`` may be shown none (the
    table's view) or the game cannot be given one (no model of its game and player count, a log that
    does not replay)."""
    if shown_to(viewer) is None:
        return None
    game_id, players = str(game_row["game_id"]), int(game_row["player_count"])
    chances: list[list[float]] | None
    try:
        stored = _stored(game_id, players) if viewer.sees_everything else None
        if stored is not None:
            chances, meaning = stored, _meaning(str(game_row["game"]), players)
        else:
            chances, meaning = _computed(game_id, viewer.name, log_text)
    except (GovernorError, ValueError):
        return None
    if chances is None:
        return None
    payload: dict[str, Any] = {"game_id": game_id, "view": viewer.name, "chances": chances, "meaning": meaning}
    luck = known_luck(game_row, log_text, viewer, len(chances[0]) - 1)
    if luck is not None:
        payload["moments"] = moments(luck, [str(name) for name in game_row["players"]], viewer)
        payload["luck_note"] = LUCK_NOTE
    return payload


#: What the moments on the graph are, said under it.
LUCK_NOTE = ("Luckiest and unluckiest moments: the moves whose chance part (what they drew, against other deals "
             "of what their seat could not see) moved a seat's win chance most, every card seen.")


def _finished(game_row: dict[str, Any]) -> bool:
    """Whether the game ``game_row`` is over (it has its winners)."""
    winners = game_row.get("winners")
    return winners is not None and len(winners) > 0


def luck_allowed(game_row: dict[str, Any], viewer: Viewer) -> bool:
    """Whether ``viewer`` may be shown the luck of the game ``game_row``: luck needs every card, so the
    view that sees everything, or a seat's view of a game that is over (its cards are then no secret,
    as after the game); never the table's view (no graph) nor a seat's view of a game in play."""
    if shown_to(viewer) is None:
        return False
    return viewer.sees_everything or _finished(game_row)


def _stored_luck(game_id: str, players: int, moves: int) -> np.ndarray | None:
    """The chance part of each move for each seat (moves, players) stored for ``game_id`` in the table
    ``luck``, or None when it is not (all) stored."""
    if "luck" not in data.tables():
        return None
    rows = data.frame("SELECT step, seat, luck FROM luck WHERE game_id = ? ORDER BY step, seat", (game_id,))
    if rows.empty or len(rows) != moves * players:
        return None
    return np.asarray(rows["luck"].to_numpy(dtype=float)).reshape(moves, players)


@st.cache_data(max_entries=CACHED_GAMES, show_spinner=False)
def _computed_luck(game_id: str, log_text: str) -> list[list[float]] | None:
    """The chance part of each move for each seat of the stored log ``log_text`` (a list per move), or
    None when its game has no model. Raises ``GovernorError`` or ``ValueError`` for a log that does not
    replay."""
    from analysis.winchance.luck import game_split
    from replay.logfile import parse_game

    log = parse_game(json.loads(log_text))
    model = _model(log.game, len(log.players))
    if model is None:
        return None
    return [[float(v) for v in row] for row in game_split(model, log).luck]


def _asked(game_id: str) -> bool:
    """Whether this tab asked for the luck of ``game_id`` (``luck_button``)."""
    return game_id in st.session_state.get(LUCK_ASKED, ())


def known_luck(game_row: dict[str, Any], log_text: str, viewer: Viewer, moves: int) -> np.ndarray | None:
    """The chance part of each of the ``moves`` moves for each seat (moves, players) of the game
    ``game_row`` that ``viewer`` may be shown: stored, or computed once this tab asked for it; None
    otherwise (not allowed, not known yet, no model, a log that does not replay)."""
    if not luck_allowed(game_row, viewer):
        return None
    game_id, players = str(game_row["game_id"]), int(game_row["player_count"])
    try:
        stored = _stored_luck(game_id, players, moves)
        if stored is not None:
            return stored
        computed = _computed_luck(game_id, log_text) if _asked(game_id) else None
    except (GovernorError, ValueError):
        return None
    return np.array(computed, dtype=float).reshape(-1, players) if computed else None


def moments(luck: np.ndarray, names: list[str], viewer: Viewer) -> list[dict[str, Any]]:
    """The luckiest and unluckiest moments of ``luck`` (moves, players: each move's chance part) for
    the seat ``viewer`` follows, or for every seat in a view of them all: ``step`` (the move), ``seat``,
    ``luck`` (in games, to the hundredth), ``kind`` (``luckiest``, ``unluckiest``) and ``text``, the
    caption ("Luckiest: move 34, Ana +0.21 from the draw"; a name is isolated, plain text)."""
    from analysis.winchance.luck import extremes

    seats = [viewer.seat] if viewer.kind == Viewer.SEAT and viewer.seat is not None else range(luck.shape[1])
    found: list[dict[str, Any]] = []
    for seat in seats:
        best, worst = extremes(luck, seat)
        for kind, step in (("luckiest", best), ("unluckiest", worst)):
            if step is None:
                continue
            value = round(float(luck[step - 1, seat]), 2)
            name = names[seat] if seat < len(names) else f"seat {seat}"
            found.append({"step": step, "seat": seat, "luck": value, "kind": kind,
                          "text": f"{kind.capitalize()}: move {step}, \u2068{name}\u2069 {value:+.2f} {FROM_CHANCE}"})
    return found


def luck_button(game_row: dict[str, Any], log_text: str, viewer: Viewer, model: dict[str, Any] | None) -> None:
    """Under the viewer, when its graph (``model``, ``model_payload``: None when none was sent) may show
    the game's luck and has no moments yet (neither stored nor computed): a button that computes them
    for this one game (a second or two), then shows the page again with the moments on the graph."""
    game_id = str(game_row["game_id"])
    if model is None or "moments" in model or not luck_allowed(game_row, viewer) or _asked(game_id):
        return
    if _model(str(game_row["game"]), int(game_row["player_count"])) is None:
        return
    if not st.button("Find the luckiest and unluckiest moments", key="model_luck",
                     help="Splits every move's change of the win chance into what chance drew and what the decision "
                          "did, for this game (a second or two); governor winchance --luck stores it for every game"):
        return
    try:
        with st.spinner("Splitting every move's change of the win chance..."):
            found = _computed_luck(game_id, log_text)
    except (GovernorError, ValueError) as err:
        ui.alert("warning", f"The luck of this game cannot be computed: {printable(str(err))}")
        return
    if found is None:
        return
    st.session_state[LUCK_ASKED] = {*st.session_state.get(LUCK_ASKED, ()), game_id}
    st.rerun()


def _meaning(game: str, players: int) -> str:
    """What the shipped model of ``game`` with ``players`` seats means ("" without one)."""
    from analysis.winchance.series import meaning

    model = _model(game, players)
    return meaning(model) if model is not None else ""
