"""The games' boards as the pages draw them, and one step of a board drawn outside the Replay page (the
Games page's comparison) with the very JavaScript that draws it there.

A game declares its board (``GameDeclaration.board`` and ``board_style``): a script defining
``draw(game, step)`` and its stylesheet, shipped as package data of the game and read through the
registry. ``boards_js`` puts every game's drawing in the pages' ``BOARD_TABLE`` under the game's name,
``boards_css`` every game's style after the Replay component's own; ``static_board`` draws one step
with the component's helpers and stylesheet in a document of its own (an iframe, so that the board's
class names and colours stay inside it). There is one drawing of each board."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from replay import registry

COMPONENT = Path(__file__).resolve().parent / "replay_component"
#: The Replay component's helpers a board's ``draw`` calls (replay_component/replay.js).
HELPERS = ("esc", "nameHtml", "rowAt", "list", "num", "pairs", "badges", "panelHead", "panelClass", "chip", "seatName")


class BoardDrawingError(Exception):
    """The Replay component's script lacks a helper a board draws with (a renamed function)."""


def _function(source: str, name: str) -> str:
    """The text of the top-level ``function name(...)`` of ``source``: up to its closing brace, which is
    on its own line at the start of a line, or the end of the line when the body opens and closes on it.
    Raises ``BoardDrawingError`` when ``source`` has no such function."""
    found = re.search(rf"(?m)^function {re.escape(name)}\(.*$", source)
    if found is None:
        raise BoardDrawingError(f"replay_component/replay.js has no function {name}(), which the boards call")
    first = found.group(0)
    if first.rstrip().endswith("}") and first.count("{") == first.count("}"):
        return first
    end = source.find("\n}", found.end())
    if end < 0:
        raise BoardDrawingError(f"replay_component/replay.js: function {name}() does not end")
    return source[found.start():end + 2]


def helpers_js() -> str:
    """The component's helpers every board's ``draw`` calls, taken from the component's own script.
    Raises ``BoardDrawingError`` for a helper it no longer has."""
    return functions_js(HELPERS)


def functions_js(names: Sequence[str]) -> str:
    """The top-level functions ``names`` of the Replay component's script, for another page that draws
    its boards (the Play page). Raises ``BoardDrawingError`` for a function it no longer has."""
    source = (COMPONENT / "replay.js").read_text(encoding="utf-8")
    return "\n".join(_function(source, name) for name in names)


def board_js(game: str) -> str | None:
    """``draw(game, step)`` of ``game``'s board (the script its declaration names), or None for a game
    without one (or a name no game declares). Raises ``GameDeclarationError`` when the declared script
    cannot be read."""
    return registry.board_script(game)


def boards_js() -> str:
    """``BOARD_TABLE``: each game's board drawing (``board_js``) under the game's name, each in a scope
    of its own (two boards may name their helpers alike). Raises ``GameDeclarationError`` as
    ``board_js``."""
    parts = ["const BOARD_TABLE = {};"]
    for game in sorted(registry.game_names()):
        js = board_js(game)
        if js is not None:  # a game without a board shows its moves and changes only
            parts.append(f"BOARD_TABLE[{json.dumps(game)}] = (function () {{\n{js}\nreturn draw;\n}})();")
    return "\n".join(parts) + "\n"


def boards_css() -> str:
    """The Replay component's stylesheet followed by every game's board style, in the registry's order
    (a board's rules come after the page's, as one stylesheet). Raises ``GameDeclarationError`` when a
    declared style cannot be read."""
    parts = [(COMPONENT / "replay.css").read_text(encoding="utf-8")]
    parts += [registry.board_style(game) for game in registry.game_names()]
    return "\n".join(part for part in parts if part)


def _plain(value: Any) -> Any:
    # Stored rows arrive from pandas: numpy scalars and arrays, NaN for NULL, dates.
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return None if value != value else value
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "ndim", 1) == 0:
        return _plain(item())
    if isinstance(value, (list, tuple)) or hasattr(value, "tolist"):
        return [_plain(v) for v in (value.tolist() if hasattr(value, "tolist") else value)]
    return str(value)


def step_data(game: str, table_row: dict[str, Any], seat_rows: Sequence[dict[str, Any]], names: Sequence[str],
              winners: Sequence[int]) -> dict[str, Any]:
    """The ``game`` object ``draw`` reads for a single step (step 0 of a window of one step): the stored
    table row and seat rows (as the ``everything`` view sends them), the names, the winners and the
    game's catalogue. Plain JSON."""
    seats = sorted(seat_rows, key=lambda row: int(row["seat"]))
    return {
        "lo": 0,
        "names": [str(n) for n in names],
        "table": {k: [_plain(v)] for k, v in table_row.items() if k not in ("game_id", "step")},
        "seats": [{k: [_plain(v)] for k, v in row.items() if k not in ("game_id", "step", "seat")} for row in seats],
        "data": {"catalogue": _plain(registry.view_for(game).board_catalogue()), "winners": [int(w) for w in winners]},
    }


def _script_json(value: Any) -> str:
    # JSON inside a <script>: "<" written as \u003c, so no name can close the script or open a tag.
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def static_board(game: str, table_row: dict[str, Any], seat_rows: Sequence[dict[str, Any]], names: Sequence[str],
                 winners: Sequence[int] = (), *, dark: bool = False) -> str | None:
    """A whole HTML document that draws ``game``'s board after one step (its stored rows) with the
    Replay page's drawing, or None for a game without a board. Every text from a log reaches the page
    through the drawing's own escaping. Raises ``BoardDrawingError`` (see ``helpers_js``)."""
    draw = board_js(game)
    if draw is None:
        return None
    css = boards_css()
    data = _script_json(step_data(game, table_row, seat_rows, names, winners))
    root = "gv-root dark" if dark else "gv-root"
    return (
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>body{margin:0}" + css + "</style></head>"
        f'<body><div class="{root}"><div class="board"></div></div><script>\n"use strict";\n'
        + helpers_js() + "\n" + draw + "\n"
        + f"const GAME = {data};\n"
        + "const parts = draw(GAME, 0);\n"
        + 'document.querySelector(".board").innerHTML = `<div class="barbox">${parts.bar}</div>`\n'
        + '  + `<div class="${esc(parts.cls)}">` + parts.panels.map((p) => `<div class="slot">${p}</div>`).join("") + "</div>";\n'
        + "</script></body></html>"
    )
