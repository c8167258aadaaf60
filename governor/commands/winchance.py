"""``governor winchance``: fill the table ``win_chance`` of a database or a lake with every seat's
learned win chance at every step of every game that has none yet (docs/winchance.md); ``fill_games``
is what ``governor import --win-chance`` runs after its import too."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from governor.commands.common import Subcommands, check_lake, default_db, shown
from replay import exits
from replay.errors import printable
from replay.exits import UsageError

if TYPE_CHECKING:
    from analysis.winchance.fill import FillSummary

_CLUSTERS = ("dask://", "ray://")


def add_parser(commands: Subcommands) -> None:
    """Add ``winchance`` to the subcommands."""
    p = commands.add_parser("winchance", help="fill the win chance of every step of a database's games", description=(
        "Fill the table win_chance (game_id, step, seat, win_chance) of a database or a lake for every step of "
        "every game without rows yet, from the shipped win-chance models (the whole view: every card, as a "
        "post-game analysis). An interrupted run continues where it stopped."))
    p.add_argument("--db", default=None, help="the database file (default: $GOVERNOR_DB or governor.duckdb)")
    p.add_argument("--lake", metavar="DIR", default=None, help="the games of this lake, their rows written into it")
    p.add_argument("--cluster", metavar="ENGINE", default=None, help=(
        "with --lake: run on a cluster: local (a local Dask cluster of --workers processes), dask://ADDR or "
        "ray://ADDR (needs pip install 'governor[cluster]')"))
    p.add_argument("--workers", type=commands.workers, default=None,
                   help="worker processes (default: the number of cores)")
    p.add_argument("--models", help="a folder of model files (GAME-PLAYERS.json.gz) to use instead of the shipped ones")
    p.add_argument("--luck", action="store_true", help=(
        "fill the table luck (game_id, step, seat, luck, skill) of a database file instead, on --workers "
        "processes: each move's change of every seat's win chance split into what chance drew and what the "
        "decision did (about half a second a game)"))
    p.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                   help="progress line on standard error (auto: when it is a terminal)")
    p.set_defaults(func=run)


def check_cluster(cluster: str | None, lake: str | None) -> None:
    """Raise ``UsageError`` for a ``--cluster`` without ``--lake`` or of an unknown kind."""
    if cluster is None:
        return
    if not lake:
        raise UsageError("--cluster fills the games of a lake: give --lake DIR too")
    if cluster != "local" and not cluster.startswith(_CLUSTERS):
        raise UsageError(f"--cluster expects local, dask://ADDR or ray://ADDR, not {printable(repr(cluster))}")


def run(args: argparse.Namespace) -> int:
    """Fill the table: ``fill_games``' exit status. Raises ``UsageError`` for options that do not go
    together, a database file that does not exist, a folder that is not a lake, ``--models`` that is
    not a folder."""
    if args.db and args.lake:
        raise UsageError("--db and --lake name where the games are: give one of them")
    if args.luck and (args.lake or args.cluster):
        raise UsageError(f"--luck fills the table luck of a database file (--db FILE, on --workers processes): "
                         f"not with {'--lake' if args.lake else '--cluster'}")
    check_cluster(args.cluster, args.lake)
    if args.lake:
        check_lake(args.lake)
    db = args.lake or args.db or default_db()
    if not args.lake and not os.path.isfile(db):
        raise UsageError(f"--db {shown(db)}: no such database file (import some logs first: governor import PATH)")
    if args.models is not None and not os.path.isdir(args.models):
        raise UsageError(f"--models {shown(args.models)}: not a folder")
    if args.luck:
        return fill_luck(db, args.models, args.progress, workers=args.workers)
    return fill_games(db, lake=bool(args.lake), workers=args.workers, cluster=args.cluster, models=args.models,
                      progress=args.progress, command="governor winchance")


def fill_luck(db: str, models: str | None, progress: str = "auto", workers: int | None = None) -> int:
    """``governor winchance --luck``: fill the table luck of the database file ``db`` on ``workers``
    processes (None: every core), with a progress line (``progress``: auto, always, never); the exit
    statuses of ``fill_games``."""
    from analysis.winchance.luck_fill import fill_luck as fill
    from ingest.db import DatabaseError

    summary, failed = _under_progress("governor winchance", progress, (DatabaseError,), lambda say, advance: fill(
        db, models_folder=models, say=say, progress=advance, workers=workers or os.cpu_count() or 1))
    if summary is None:
        return failed
    return _summary_line("luck", summary, db)


def fill_games(target: str, *, lake: bool, workers: int | None, cluster: str | None = None, models: str | None = None,
               progress: str = "auto", command: str = "governor winchance") -> int:
    """Fill ``win_chance`` for every game of ``target`` (a database file, or a lake with ``lake``)
    without rows, on ``workers`` processes (None: every core) or ``cluster``, with a progress line of its
    own (``progress``: auto, always, never) and a summary line: 0 when every game has its rows, 1 when
    some game was left out (each said in one line, after ``command``), 2 for a database or lake that
    cannot be used or a cluster that cannot start, 3 when a game met a bug in governor, 130 or 143
    when interrupted (the batches committed keep their rows; a new run fills the rest)."""
    from analysis.winchance.fill import fill
    from analysis.winchance.lake import LakeStore
    from ingest.db import DatabaseError
    from ingest.executors import ExecutorError
    from ingest.lake_files import LakeError

    summary, failed = _under_progress(command, progress, (DatabaseError, LakeError, ExecutorError), lambda say, advance: fill(
        LakeStore(target) if lake else target, models_folder=models, say=say, progress=advance,
        workers=workers or os.cpu_count() or 1, cluster=cluster))
    if summary is None:
        return failed
    return _summary_line("win chance", summary, target)


def _summary_line(what: str, summary: FillSummary, target: str) -> int:
    """Say what a fill of ``what`` did in ``target`` (and ask for a report of the bugs it met): its exit
    status, 1 when a game was left out, 3 when one met a bug."""
    print(f"filled the {what} of {summary.games} game(s) ({summary.rows:,} rows) in {shown(target)}"
          + (f"; {summary.failed + summary.bugs} game(s) left out" if summary.failed + summary.bugs else ""),
          file=sys.stderr)
    if summary.bugs:
        print(exits.report_request(f"{summary.bugs} game(s) met a bug in governor"), file=sys.stderr)
    return exits.status(rejected=bool(summary.failed), bug=bool(summary.bugs))


Filled = TypeVar("Filled")


def _under_progress(command: str, progress: str, errors: tuple[type[Exception], ...],
                    work: Callable[[Callable[[str], None], Callable[[int, int], None]], Filled]
                    ) -> tuple[Filled, int] | tuple[None, int]:
    """``work(say, advance)`` under a progress line of its own (``progress``: auto, always, never):
    ``(its result, 0)``; or ``(None, exit status)`` when it raised one of ``errors`` (2, said in one
    line after ``command``) or was interrupted (130 or 143: the games filled keep their rows)."""
    from ingest.progress import Progress

    bar = Progress(None, sys.stderr.isatty() if progress == "auto" else progress == "always")

    def advance(done: int, total: int) -> None:
        bar.set_total(total)
        bar.update(done, 0, 0)

    def say(line: str) -> None:
        print(f"{command}: {line}", file=sys.stderr, flush=True)

    try:
        try:
            return work(bar.printer(say) or say, advance), exits.OK
        finally:
            bar.close()
    except errors as err:
        print(f"{command}: {printable(str(err))}", file=sys.stderr)
        return None, exits.ENVIRONMENT
    except KeyboardInterrupt as err:
        word, code = exits.interruption(err)
        print(f"{command}: {word}; the games filled keep their rows (run it again for the rest)", file=sys.stderr)
        return None, code
