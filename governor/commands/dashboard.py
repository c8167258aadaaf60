"""``governor dashboard``: the Streamlit dashboard on the database or a lake."""

from __future__ import annotations

import argparse

from governor.commands.common import DEFAULT_DB, Subcommands, target
from replay.exits import bounded_int


def add_parser(commands: Subcommands) -> None:
    """Add ``dashboard`` to the subcommands."""
    p = commands.add_parser("dashboard", help="open the Streamlit dashboard", description=(
        "Start the dashboard on the database (default: $GOVERNOR_DB or governor.duckdb)."))
    p.add_argument("--db", help=f"database file (default: $GOVERNOR_DB or {DEFAULT_DB})")
    p.add_argument("--port", type=bounded_int("--port", 1, 65535), default=8501, help="port, 1 to 65535 (default 8501)")
    p.add_argument("--headless", action="store_true", help="do not open a browser")
    p.add_argument("--lake", metavar="DIR", help="a lake folder or URL (Parquet files, docs/scaling.md) instead of the database file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Start the dashboard (``dashboards.launch.launch``, whose exit status it is)."""
    from dashboards.launch import launch

    return launch(target(args), port=args.port, headless=args.headless)
