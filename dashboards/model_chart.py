"""The Replay page's "Win chance (model)" graph: each seat's learned win chance at every step of the
game opened, as the view shown may know it (``analysis.winchance.series``: the whole view for the
view that sees everything, the seat's own view for a seat, nothing for the table).

The whole view is read from the table ``win_chance`` when ``governor winchance --db`` filled it; else
it is computed once for the game and view, and cached (the model is loaded once per process)."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from analysis.winchance.series import shown_to
from dashboards import data
from replay.errors import GovernorError
from replay.protocol import Viewer

#: How many games' graphs the page keeps, per view.
CACHED_GAMES = 64


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
    return {"game_id": game_id, "view": viewer.name, "chances": chances, "meaning": meaning}


def _meaning(game: str, players: int) -> str:
    """What the shipped model of ``game`` with ``players`` seats means ("" without one)."""
    from analysis.winchance.series import meaning

    model = _model(game, players)
    return meaning(model) if model is not None else ""
