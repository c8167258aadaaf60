"""The Replay page's board, move list, chart and controls: one ``st.components.v2`` component.

Its JavaScript and CSS ship in this folder (``replay.js``, ``replay.css``) and are handed to Streamlit
as text: no build step, nothing fetched from elsewhere. The component receives a whole game
(``dashboards.replay_data.game_payload``) and steps through it in the browser."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

HERE = Path(__file__).resolve().parent
JS = (HERE / "replay.js").read_text(encoding="utf-8")
CSS = (HERE / "replay.css").read_text(encoding="utf-8")

_mount = st.components.v2.component("governor_replay", js=JS, css=CSS, isolate_styles=True)


def replay_viewer(game: dict[str, Any], step: int | None, view: str | None, request: str, key: str = "replay_viewer",
                  branch: bool = False) -> int | None:
    """Show ``game`` in the browser at ``step`` in ``view`` (None: where this browser tab left the
    game, else the start, seen whole). ``request`` changes when the page asks for a new position; a
    rerun with the same ``request`` leaves the viewer where the user has stepped it. With ``branch``,
    the controls offer "Try a move here"; the step it was pressed at is returned on that rerun only
    (else None)."""
    result = _mount(key=key, data={"game": game, "step": step, "view": view, "request": request, "branch": branch},
                    on_branch_change=lambda: None)
    value = getattr(result, "branch", None)
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
