"""``governor arena``: agents play each other, every game recorded, then ranked. Its arguments and run
live with the arena (``governor.arena.cli``); this module adds them to the subcommands."""

from __future__ import annotations

from governor.commands.common import Subcommands


def add_parser(commands: Subcommands) -> None:
    """Add ``arena`` to the subcommands."""
    from governor.arena.cli import add_arguments, run

    p = commands.add_parser("arena", help="agents play each other: every game recorded, then ranked", description=(
        "A seat-balanced round robin of agents (built-in or your own) on the engines; each game written as "
        "a log (and imported with --db), then a leaderboard. See docs/agents.md."))
    add_arguments(p)
    p.set_defaults(func=run)
