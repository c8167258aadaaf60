"""The Replay page's board, move list, chart and controls: one ``st.components.v2`` component.

Its JavaScript and CSS ship in this folder (``replay.js``, ``replay.css``) and are handed to Streamlit
as text: no build step, nothing fetched from elsewhere. Each game's board is drawn by the script and
styled by the stylesheet its declaration names (``dashboards.board_parts``: ``draw(game, step)`` in the
component's ``BOARD_TABLE`` under the game's name, the styles after the component's own). The component receives one view of a game, a window of its steps
(``dashboards.replay_data.window``), and steps through it in the browser; a step past the window or
another view is asked of the server (``Reply.want``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from dashboards.board_parts import boards_css, boards_js

HERE = Path(__file__).resolve().parent
CSS = boards_css()
JS = boards_js() + (HERE / "replay.js").read_text(encoding="utf-8") + (HERE / "review.js").read_text(encoding="utf-8")

_mount = st.components.v2.component("governor_replay", js=JS, css=CSS, isolate_styles=True)


@dataclass(frozen=True)
class Reply:
    """What the browser asked on this rerun (each None when it did not ask)."""

    #: The step "Try a move here" was pressed at.
    branch: int | None = None
    #: A step and a view to be sent (``{"step": int, "view": str}``): past the window or another view.
    want: dict[str, Any] | None = None
    #: A variation's move clicked in the move list: the variation's index and the step (index -1: back
    #: to the game, at that step).
    variation: tuple[int, int] | None = None
    #: The browser drew the board sent with ``await_shown`` (the request it drew).
    shown: str | None = None
    #: The browser was sent a board it was said to hold (``held``) and does not: the signature it
    #: asks the whole game for.
    full: str | None = None


def replay_viewer(game: dict[str, Any], step: int | None, view: str | None, request: str, key: str = "replay_viewer",
                  branch: bool = False, await_shown: bool = False, held: str | None = None,
                  reveal: str | None = None, review: dict[str, Any] | None = None,
                  model: dict[str, Any] | None = None) -> Reply:
    """Show ``game`` (one view's window, ``replay_data.window``) in the browser at ``step`` (None: where
    this browser tab left the game, else the start). ``view`` is the view the URL named (None: the
    browser may ask for the one it last showed). ``request`` changes when the page asks for a new
    position; a rerun with the same ``request`` leaves the viewer where the user has stepped it. With
    ``branch``, the controls offer "Try a move here". With ``await_shown``, the browser says when it
    has drawn the board (``Reply.shown``, on the rerun that causes). With ``held`` (the signature of
    ``game``, ``first_paint.signature``), the browser is sent only the signature: it takes the game
    from the board this tab drew first, or asks for it (``Reply.full``). A new ``reveal`` (any text
    that differs from the last one) brings the viewer into view: a row chosen in a table far under
    the board shows its move on the board, on the screen. ``review`` (``review_panel.beside``) is the
    Review's results, shown in the side column where it is beside the board; ``model``
    (``model_chart.model_payload``) the learned win chance's graph of the game and view shown."""
    if held is not None:
        game = {"held": held, "game_id": str(game.get("game_id", ""))}
    result = _mount(key=key, data={"game": game, "step": step, "view": view, "request": request, "branch": branch,
                                   "await_shown": await_shown, "reveal": reveal, "review": review,
                                   "model": model},
                    on_branch_change=lambda: None, on_want_change=lambda: None,
                    on_variation_change=lambda: None, on_shown_change=lambda: None, on_full_change=lambda: None)
    value = getattr(result, "branch", None)
    at = int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
    wanted = getattr(result, "want", None)
    want = None
    if isinstance(wanted, dict) and isinstance(wanted.get("step"), int | float) and isinstance(wanted.get("view"), str):
        want = {"step": int(wanted["step"]), "view": str(wanted["view"])[:16]}
    picked = getattr(result, "variation", None)
    variation = None
    if isinstance(picked, dict) and all(isinstance(picked.get(k), int | float) and not isinstance(picked.get(k), bool)
                                        for k in ("k", "step")):
        variation = (max(-1, min(64, int(picked["k"]))), max(-1, int(picked["step"])))
    drawn = getattr(result, "shown", None)
    shown = str(drawn)[:2000] if isinstance(drawn, str) else None
    asked = getattr(result, "full", None)
    full = str(asked)[:64] if isinstance(asked, str) else None
    return Reply(at, want, variation, shown, full)
