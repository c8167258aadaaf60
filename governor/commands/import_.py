"""``governor import``: replay logs and store their games, in a DuckDB file or a Parquet lake (the
module is ``import_``: ``import`` is a word of Python's own)."""

from __future__ import annotations

import argparse
import sys

from governor.commands.common import DEFAULT_DB, MAX_WORKERS, Subcommands, target
from replay import exits
from replay.errors import printable
from replay.exits import UsageError

_CLUSTERS = ("local", "dask://", "ray://")


def add_parser(commands: Subcommands) -> None:
    """Add ``import`` to the subcommands."""
    p = commands.add_parser("import", help="import logs into the DuckDB database", description=(
        "Replay and store games from files, folders (recursively) and globs (.json, .jsonl, .gz). Games "
        "already present are skipped; bad games are recorded in the rejections table. Exits 1 if any "
        "game was rejected."))
    p.add_argument("paths", nargs="+", help="files, folders or globs")
    p.add_argument("--db", help=f"database file (default: $GOVERNOR_DB or {DEFAULT_DB})")
    p.add_argument("--workers", type=commands.workers, default=None,
                   help=f"replay processes, 1 to {MAX_WORKERS} (default: the number of cores)")
    p.add_argument("--progress", choices=["auto", "always", "never"], default="auto",
                   help="progress bar (default: when writing to a terminal)")
    p.add_argument("--lake", metavar="DIR", help="write Parquet files into a lake folder or URL instead of a database file")
    p.add_argument("--cluster", metavar="ENGINE", help=(
        "with --lake: run on a cluster: local (a local Dask cluster of --workers processes), dask://ADDR or "
        "ray://ADDR (an existing cluster; needs pip install 'governor[cluster]')"))
    p.add_argument("--win-chance", action="store_true", help=(
        "then fill the table win_chance for the games without it, those imported included (as governor "
        "winchance does), with its own progress line"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Import ``args.paths`` (``ingest.cli.run_import``, whose exit status it is). Raises ``UsageError``
    for a ``--cluster`` without ``--lake`` or of an unknown kind, or both ``--db`` and ``--lake``."""
    from ingest.cli import run_import

    if args.cluster is not None:
        if not args.lake:
            raise UsageError("--cluster writes a lake: give --lake DIR too")
        if args.cluster != "local" and not args.cluster.startswith(_CLUSTERS[1:]):
            raise UsageError(f"--cluster expects local, dask://ADDR or ray://ADDR, not {printable(repr(args.cluster))}")
    status = run_import(args.paths, target(args), workers=args.workers, progress=args.progress,
                        lake=bool(args.lake), cluster=args.cluster)
    if not args.win_chance:
        return status
    if status == exits.ENVIRONMENT:
        # The problem is said above; the games stored are filled by the next run (or governor winchance).
        print("governor import: --win-chance: the win chances are not filled after that problem (run governor "
              "winchance once it is solved)", file=sys.stderr)
        return status
    from governor.commands.winchance import fill_games

    filled = fill_games(target(args), lake=bool(args.lake), workers=args.workers, cluster=args.cluster,
                        progress=args.progress, command="governor import")
    # Interrupted while filling: that status; else the worse of the import's and the fill's.
    return filled if filled > exits.BUG else max(status, filled)
