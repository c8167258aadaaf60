"""``governor query``: one SQL statement that reads, against the database or a lake."""

from __future__ import annotations

import argparse
import os

from governor.commands.common import (
    DEFAULT_DB,
    Subcommands,
    check_lake,
    database_inputs,
    refuse_overwrite,
    shown,
    target,
)
from replay import exits
from replay.exits import UsageError


def add_parser(commands: Subcommands) -> None:
    """Add ``query`` to the subcommands."""
    p = commands.add_parser("query", help="run SQL against the database", description=(
        "Run one SQL statement that reads (SELECT, WITH, FROM, DESCRIBE, SHOW, SUMMARIZE) and print the "
        "result, or write it to a file. Anything else (COPY, EXPORT, ATTACH, SET, several statements) is "
        "refused; the connection is read-only and cannot reach files. Memory and spill space are bounded "
        "(README, Reading limits)."))
    p.add_argument("sql", help="one SQL statement that reads")
    p.add_argument("--db", help=f"database file (default: $GOVERNOR_DB or {DEFAULT_DB})")
    p.add_argument("--format", choices=["table", "csv", "json", "parquet"], default="table", help=(
        "output format; JSON writes NaN and infinities as null and BLOBs as base64 strings"))
    p.add_argument("--out", help="write to this file instead of standard output (required for parquet); never an input")
    p.add_argument("--lake", metavar="DIR", help="a lake folder or URL (Parquet files, docs/scaling.md) instead of the database file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``args.sql`` (``ingest.query.run_query``, whose exit status it is). Raises ``UsageError`` for
    a lake that is not one, or an output that is an input or a folder."""
    # Ctrl-C and SIGTERM wait while DuckDB's module loads (exits.signals_deferred says why).
    with exits.signals_deferred():
        from ingest.query import run_query

    where = target(args)
    if args.lake:
        check_lake(where)
    if args.out is not None:
        files, folders = database_inputs(where, bool(args.lake))
        refuse_overwrite("--out", args.out, files=files, folders=folders)
        if os.path.isdir(args.out):
            raise UsageError(f"--out {shown(args.out)} is a folder: name a file")
    return run_query(args.sql, where, args.format, args.out)
