"""``governor winchance``: fill the table ``win_chance`` of a database with every seat's learned win
chance at every step of every game that has none yet (docs/winchance.md)."""

from __future__ import annotations

import argparse
import os
import sys

from governor.commands.common import Subcommands, default_db, shown
from replay import exits
from replay.errors import printable
from replay.exits import UsageError


def add_parser(commands: Subcommands) -> None:
    """Add ``winchance`` to the subcommands."""
    p = commands.add_parser("winchance", help="fill the win chance of every step of a database's games", description=(
        "Fill the table win_chance (game_id, step, seat, win_chance) of a database for every step of every "
        "game without rows yet, from the shipped win-chance models (the whole view: every card, as a post-game "
        "analysis). An interrupted run continues where it stopped."))
    p.add_argument("--db", default=None, help="the database file (default: $GOVERNOR_DB or governor.duckdb)")
    p.add_argument("--models", help="a folder of model files (GAME-PLAYERS.json.gz) to use instead of the shipped ones")
    p.add_argument("--luck", action="store_true", help=(
        "fill the table luck (game_id, step, seat, luck, skill) instead: each move's change of every seat's win "
        "chance split into what chance drew and what the decision did (about half a second a game)"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Fill the table: 0 when every game has its rows, 1 when some game was left out (each said in one
    line), 2 for a database that cannot be used, 130 or 143 when interrupted (the batches committed
    keep their rows; a new run fills the rest)."""
    from analysis.winchance.fill import fill
    from analysis.winchance.luck_fill import fill_luck
    from ingest.db import DatabaseError
    from ingest.progress import Progress

    db = args.db or default_db()
    if not os.path.isfile(db):
        raise UsageError(f"--db {shown(db)}: no such database file (import some logs first: governor import PATH)")
    if args.models is not None and not os.path.isdir(args.models):
        raise UsageError(f"--models {shown(args.models)}: not a folder")
    bar = Progress(None, sys.stderr.isatty())

    def progress(done: int, total: int) -> None:
        bar.set_total(total)
        bar.update(done, 0, 0)

    def say(line: str) -> None:
        print(f"governor winchance: {line}", file=sys.stderr)

    try:
        try:
            summary = (fill_luck if args.luck else fill)(db, models_folder=args.models, say=bar.printer(say) or say,
                                                         progress=progress)
        finally:
            bar.close()
    except DatabaseError as err:
        print(f"governor winchance: {printable(str(err))}", file=sys.stderr)
        return exits.ENVIRONMENT
    except KeyboardInterrupt as err:
        word, code = exits.interruption(err)
        print(f"governor winchance: {word}; the games filled keep their rows (run it again for the rest)",
              file=sys.stderr)
        return code
    what = "luck" if args.luck else "win chance"
    print(f"filled the {what} of {summary.games} game(s) ({summary.rows:,} rows) in {shown(db)}"
          + (f"; {summary.failed} game(s) left out" if summary.failed else ""), file=sys.stderr)
    return exits.REJECTED if summary.failed else exits.OK
