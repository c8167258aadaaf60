"""``governor export``: every table of the database (or a lake) as Parquet files."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from governor.commands.common import (
    DEFAULT_DB,
    Subcommands,
    check_lake,
    database_inputs,
    refuse_overwrite,
    shown,
    target,
)
from replay.exits import UsageError


def add_parser(commands: Subcommands) -> None:
    """Add ``export`` to the subcommands."""
    p = commands.add_parser("export", help="export every table as Parquet", description=(
        "Write every table of the database as a Parquet file in DIR (and, with --games, the original "
        "logs as one .jsonl file)."))
    p.add_argument("--parquet", required=True, metavar="DIR", help="output folder (neither the lake nor one holding the database)")
    p.add_argument("--db", help=f"database file (default: $GOVERNOR_DB or {DEFAULT_DB})")
    p.add_argument("--games", action="store_true", help="also write the original logs to DIR/games.jsonl")
    p.add_argument("--lake", metavar="DIR", help="a lake folder or URL (Parquet files, docs/scaling.md) instead of the database file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Export into ``args.parquet`` (``ingest.export.run_export``, whose exit status it is). Raises
    ``UsageError`` for a lake that is not one, or an output that is a file or holds an input."""
    from ingest.export import run_export

    where = target(args)
    if args.lake:
        check_lake(where)
    files, folders = database_inputs(where, bool(args.lake))
    refuse_overwrite("--parquet", args.parquet, files=files, folders=folders, contained=files)
    if os.path.lexists(args.parquet) and not os.path.isdir(args.parquet):
        raise UsageError(f"--parquet {shown(args.parquet)} is a file, not a folder")
    return run_export(where, Path(args.parquet), games=args.games)
