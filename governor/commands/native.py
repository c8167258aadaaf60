"""``governor native``: whether the rules engines run compiled (mypyc), or build them."""

from __future__ import annotations

import argparse

from governor.commands.common import Subcommands
from replay import exits


def add_parser(commands: Subcommands) -> None:
    """Add ``native`` to the subcommands."""
    p = commands.add_parser("native", help="the compiled engines: which are used, or build them", description=(
        "Say whether the rules engines run compiled (mypyc) or as pure Python, and why; with 'build', compile "
        "them (setup does). They are used automatically while they match the sources; GOVERNOR_PURE=1 turns "
        "them off."))
    p.add_argument("action", nargs="?", choices=["status", "build"], default="status")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Say which engines run, or build them: 0 (a machine that cannot compile runs the pure-Python
    engines: not an error)."""
    from replay import native

    if args.action == "build":
        native.build()  # a machine that cannot compile runs the pure-Python engines: not an error
        return exits.OK
    print(f"engines: {native.status}")
    return exits.OK
