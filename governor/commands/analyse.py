"""``governor analyse`` (``analyze``): each decision's winning chance by rollouts. Its arguments and run
live with the analysis (``analysis.cli``); this module adds them to the subcommands."""

from __future__ import annotations

from governor.commands.common import Subcommands, default_db


def add_parser(commands: Subcommands) -> None:
    """Add ``analyse`` and its alias ``analyze`` to the subcommands."""
    from analysis.cli import add_parser as add_analyse

    add_analyse(commands, default_db, commands.workers)
