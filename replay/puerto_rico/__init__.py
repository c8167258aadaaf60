"""Puerto Rico (3 to 5 players): catalogue, moves, state, rules, scoring, engine, view and bots.

This file declares the game and imports nothing else: reading the declaration costs no engine."""

from replay.game import GameDeclaration, MovePart, OpeningMove

GAME = GameDeclaration(
    name="puerto_rico",
    title="Puerto Rico",
    min_players=3,
    max_players=5,
    engine="replay.puerto_rico.engine:ENGINE",
    view="replay.puerto_rico.view",
    catalogue="replay.puerto_rico.catalogue",
    bots=(("heuristic", "replay.puerto_rico.engine:heuristic_bot"), ("random", "replay.engine_base:RandomPlayer"),
          ("expert", "replay.puerto_rico.expert:expert_bot")),
    log_schema="pr_",
    log_schema_file="replay.puerto_rico:log.schema.json",
    # Stored with each move (step_info): the governor's seat and the role being played.
    step_columns=(("governor", "int8"), ("role", "string")),
    # What the statistics count: the role chosen, the building built; the Explorer's first decisions.
    choice=MovePart("role", "role"),
    build=MovePart("build", "building"),
    openings=(OpeningMove("role", key="role"), OpeningMove("build", phase="builder", words="build", key="building"),
              OpeningMove("pass", phase="builder"),
              OpeningMove("settle", phase="settler", words="settle", key="plantation"),
              OpeningMove("hacienda", phase="settler", words="hacienda draw"), OpeningMove("pass", phase="settler")),
    opening_words="role choices and builds, plantations and quarries taken",
    # How the legal moves are grouped for a person choosing one (the other kinds are groups of their own).
    move_groups=(("role", "Roles"), ("build", "Builds"), ("settle", "Plantations"), ("hacienda", "Plantations"),
                 ("load", "Ship goods"), ("store", "Store goods"), ("extra_good", "Craftsman's extra good")),
    # The board the pages draw: its script (``draw(game, step)``) and its style, package data of the game.
    board="replay.puerto_rico:board.js",
    board_style="replay.puerto_rico:board.css",
    # The score is victory points, as the pages write it.
    score_unit="VP",
    score_name="Victory points",
    order=1,
    spaces="replay.puerto_rico.spaces",
    # The strongest bot that keeps a whole game's analysis under a minute (docs/analysis.md): the
    # expert is stronger, but its rollouts cost 2.3 times the heuristic bot's even compiled (about 100 s
    # a 5-player game).
    rollout_bot="heuristic",
    # Compiled by ``governor native build`` (replay.native), in dependency order; not ``engine`` (an
    # interpreted subclass of ``Engine``, which a compiled base would forbid).
    compiled=tuple(f"replay.puerto_rico.{m}" for m in (
        "catalogue", "moves", "state", "arrangements", "rules", "scoring", "bots", "expert", "rows", "view",
        "spaces")),
)
