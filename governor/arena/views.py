"""What one seat may see, as the plain JSON dict every agent (and every observation vector) is built from.

There is one function that decides it, ``seat_view``: an agent never receives another seat's hidden
card, whatever it is (another hand, a face-down good, a pile's order, the next trading-house tile,
another seat's VP chips while the game goes on). The hidden parts are those the determinisation of
analysis redeals (``replay/<game>/hidden.py``) and those the Replay page's seat view hides.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from replay.registry import engine_for


def _san_juan(view: dict[str, Any], state: Any, seat: int) -> dict[str, Any]:
    # The cards a councillor or gold mine shows are the looking seat's only (hidden.determinise).
    own_look = view["stage"] == "phase" and bool(state.queue) and state.queue[0] == seat
    if not own_look:
        view["looking"] = []
    view["looking_count"] = len(state.looking)
    # The order of the tiles still to come is unseen; the one on the table (``tile``) is open.
    del view["next_tile"]
    for player in view["players"]:
        if player["seat"] != seat:
            player["hand"] = None
    return view


def _puerto_rico(view: dict[str, Any], state: Any, seat: int) -> dict[str, Any]:
    del state
    if view["over"]:  # the chips are turned up at the end
        return view
    # VP chips lie face down: a seat knows its own, and of others only what the buildings give.
    scores = list(view["scores"])
    for player in view["players"]:
        if player["seat"] != seat:
            chips = player["vp_parts"].get("chips", 0)
            player["vp_chips"] = None
            player["vp"] = player["vp"] - chips
            player["vp_parts"] = {**player["vp_parts"], "chips": None}
            scores[player["seat"]] = player["vp"]
    view["scores"] = scores
    return view


_REDACT: dict[str, Callable[[dict[str, Any], Any, int], dict[str, Any]]] = {
    "san_juan": _san_juan,
    "puerto_rico": _puerto_rico,
}


def seat_view(game: str, state: Any, seat: int, names: Sequence[str]) -> dict[str, Any]:
    """The state of ``game`` as ``seat`` sees it: the engine's JSON view (``Engine.to_view``) without
    anything that seat cannot see, plus ``"seat"`` (who is looking). A fresh dict each call.

    Raises ``KeyError`` for a game that has no seat view."""
    redact = _REDACT[game]
    view = engine_for(game).to_view(state, names)
    view = redact(view, state, seat)
    view["seat"] = seat
    return view
