"""Puerto Rico's board: ``JS`` draws it (``replay_component/board_puerto_rico.js``, defining ``draw(game, step)``), in
the Replay component under the registry's name ``GAME``, and in the Games page's comparison
(``dashboards.board_parts.static_board``): one drawing. Buildings, goods and the island's and city's spaces come from the game's catalogue
(``replay.puerto_rico.view.board_catalogue``)."""

from __future__ import annotations

from pathlib import Path

#: The registry's name of the game this board draws.
GAME = "puerto_rico"
#: The board's drawing (defines ``draw(game, step)``).
JS = (Path(__file__).resolve().parent / "replay_component" / "board_puerto_rico.js").read_text(encoding="utf-8")
