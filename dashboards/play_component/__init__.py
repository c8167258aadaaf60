"""The Play page's board, move list and legal moves: one ``st.components.v2`` component.

It draws each game's board with the Replay page's own drawing (each game's declared board script and
style, the Replay component's helpers and stylesheet, as ``dashboards.board_parts`` does for the Games
page): one drawing of each board. Its own script (``play.js``) and styles (``play.css``) ship in this folder as
text. It receives one seat's view of the game (``dashboards.play_board.play_data``) and sends back the
move the player chose (``Reply.act``): the server checks and makes it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from dashboards.board_parts import boards_css, boards_js, functions_js

HERE = Path(__file__).resolve().parent
#: The Replay component's functions the Play component draws with.
REPLAY_FUNCTIONS = ("esc", "expand", "columns", "rowAt", "nameHtml", "iso", "plural", "list", "num", "pairs", "badges",
                    "panelHead", "panelClass", "chip", "seatName", "decode", "isDark", "scoringHtml")
#: The longest move a reply may carry (the largest arrangement of pieces in JSON is a few hundred
#: characters).
MAX_MOVE_CHARS = 4000


JS = functions_js(REPLAY_FUNCTIONS) + "\n" + boards_js() + (HERE / "play.js").read_text(encoding="utf-8")
CSS = boards_css() + (HERE / "play.css").read_text(encoding="utf-8")

_mount = st.components.v2.component("governor_play", js=JS, css=CSS, isolate_styles=True)


@dataclass(frozen=True)
class Reply:
    """What the browser asked on this rerun."""

    #: The move chosen: ``{"id", "version", "move"}`` (the move's text form, or its JSON as text for a
    #: move assembled part by part), or None.
    act: dict[str, Any] | None = None


def play_board(data: dict[str, Any], key: str = "play_board") -> Reply:
    """Show ``data`` (``play_board.play_data`` plus ``from``, the step the animation starts at) and
    return what the player chose. A reply that is not of the expected form is ignored (None)."""
    result = _mount(key=key, data=data, on_act_change=lambda: None)
    asked = getattr(result, "act", None)
    act = None
    if isinstance(asked, dict) and isinstance(asked.get("id"), str) and isinstance(asked.get("move"), str) \
            and type(asked.get("version")) in (int, float) and len(asked["move"]) <= MAX_MOVE_CHARS:
        act = {"id": asked["id"][:64], "version": int(asked["version"]), "move": asked["move"]}
    return Reply(act)
