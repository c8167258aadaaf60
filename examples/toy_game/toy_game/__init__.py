"""Climb (2 to 4 players): a small card game with hidden hands and a shuffled deck, registered with
Governor as the game ``toy`` through the entry point ``governor.games`` (``pyproject.toml``).

This file declares the game and imports nothing else: reading the declaration costs no engine."""

from replay.game import GameDeclaration

GAME = GameDeclaration(
    name="toy",
    title="Climb",
    min_players=2,
    max_players=4,
    engine="toy_game.engine:ENGINE",
    view="toy_game.view",
    catalogue="toy_game.cards",
    bots=(("heuristic", "toy_game.engine:heuristic_bot"), ("random", "replay.engine_base:RandomPlayer")),
    log_schema="toy_",
    log_schema_file="toy_game:log.schema.json",
    order=50,
    # A seat's score (its ladder minus its hand) is in the state rows' ``vp`` column; the pages call it points.
    score_column="vp",
    score_unit="points",
    score_name="Points",
    # Its observation vector and action space, for learning code: governor.envs.toy_v0 plays it.
    spaces="toy_game.spaces",
    # The board the pages draw: its script (``draw(game, step)``) and its style, package data of the game.
    board="toy_game:board.js",
    board_style="toy_game:board.css",
    # Compiled with mypyc by ``governor native build``, beside Governor's own engines (in dependency
    # order; not ``engine``: an interpreted subclass of Governor's engine base).
    compiled=("toy_game.cards", "toy_game.moves", "toy_game.state", "toy_game.rules", "toy_game.view", "toy_game.bots"),
)
