"""San Juan (2 to 4 players): catalogue, moves, state, rules, scoring, engine, view and bots.

This file declares the game and imports nothing else: reading the declaration costs no engine."""

from replay.game import GameDeclaration, GameOption, MovePart, OpeningMove

GAME = GameDeclaration(
    name="san_juan",
    title="San Juan",
    min_players=2,
    max_players=4,
    engine="replay.san_juan.engine:ENGINE",
    view="replay.san_juan.view",
    catalogue="replay.san_juan.cards",
    bots=(("heuristic", "replay.san_juan.engine:heuristic_bot"), ("random", "replay.engine_base:RandomPlayer"),
          ("expert", "replay.san_juan.expert:expert_bot")),
    log_schema="sj_",
    log_schema_file="replay.san_juan:log.schema.json",
    # Stored with each move (step_info): the governor's seat and the role being played.
    step_columns=(("governor", "int8"), ("role", "string")),
    # What the statistics count: the role chosen, the building built; the Explorer's first decisions.
    choice=MovePart("role", "role"),
    build=MovePart("build", "building"),
    openings=(OpeningMove("role", key="role"), OpeningMove("build", phase="builder", words="build", key="building"),
              OpeningMove("pass", phase="builder")),
    opening_words="role choices and builds",
    # How the legal moves are grouped for a person choosing one (the other kinds are groups of their own).
    move_groups=(("role", "Roles"), ("build", "Builds")),
    # The board the pages draw: its script (``draw(game, step)``) and its style, package data of the game.
    board="replay.san_juan:board.js",
    board_style="replay.san_juan:board.css",
    options=(GameOption("draft_start", "the draft-start variant: seats are dealt 5, 6, 7 and 8 cards and each "
                                       "keeps 4 with a draft move before the first round",
                        flag="draft", summary="the draft-start variant"),),
    # The score is victory points, as the pages write it.
    score_unit="VP",
    score_name="Victory points",
    order=0,
    spaces="replay.san_juan.spaces",
    # The strongest bot that keeps a whole game's analysis under a minute (docs/analysis.md).
    rollout_bot="expert",
    # Compiled by ``governor native build`` (replay.native), in dependency order. Not ``engine`` (the
    # engine's class is an interpreted subclass of ``Engine``, which a compiled base would forbid) nor
    # ``thawed`` (it subclasses ``list``, which compiled classes cannot).
    compiled=tuple(f"replay.san_juan.{m}" for m in (
        "cards", "moves", "state", "rules", "scoring", "bots", "expert", "rows", "view", "spaces")),
)
