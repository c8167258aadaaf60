"""San Juan's board: ``JS`` draws it (``replay_component/board_san_juan.js``, defining ``draw(game, step)``), in
the Replay component under the registry's name ``GAME``, and in the Games page's comparison
(``dashboards.board_parts.static_board``): one drawing. Card colours, costs and VP come from the game's catalogue (``replay.san_juan.view.board_catalogue``)."""

from __future__ import annotations

from pathlib import Path

#: The registry's name of the game this board draws.
GAME = "san_juan"
#: The board's drawing (defines ``draw(game, step)``).
JS = (Path(__file__).resolve().parent / "replay_component" / "board_san_juan.js").read_text(encoding="utf-8")
