"""``governor analyse --all`` and ``--where "SQL"``: every stored game of a database or a lake without an
analysis under the settings asked, analysed in parallel and stored game by game (``analysis.batch``).
The games are chosen by a condition over the ``games`` table that runs read-only and bounded as
``governor query`` runs its statement."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from typing import Any

import duckdb

from analysis.batch import GameOutcome, Tally, run_games
from analysis.decisions import Options
from replay import exits
from replay.errors import printable
from replay.exits import UsageError

#: Options of the analysis of one game that a run over many does not take.
ONE_GAME_ONLY = (("steps", "--steps"), ("summary", "--summary"), ("json", "--json"))


class WhereError(Exception):
    """``--where`` is not a condition over the games, or it failed: one line, exit status 2."""


def where_problem(text: str) -> str | None:
    """Why ``text`` is refused as ``--where``, or None: it must be one SQL expression (a condition over
    the ``games`` table, subqueries allowed), and the statement it makes one that only reads, as
    DuckDB's own parser sees them."""
    from ingest.query import check_read_only

    try:
        duckdb.SQLExpression(text)
    except duckdb.Error as err:
        return f"expects one SQL condition over the games table (such as \"player_count = 2\"): {_first(err)}"
    return check_read_only(games_sql(text))


def games_sql(where: str | None) -> str:
    """The statement that lists the games to consider, in a fixed order (the same work on any number of
    workers). The condition stands on lines of its own: a trailing ``--`` comment ends with its line."""
    condition = f" WHERE (\n{where}\n)\n" if where is not None else " "
    return f"SELECT game_id, game FROM games{condition}ORDER BY game_id"


def _first(err: BaseException) -> str:
    text = str(err).strip()
    return printable(text.splitlines()[0] if text else type(err).__name__)


def select_games(db: str, where: str | None) -> list[tuple[str, str]]:
    """The ``(game_id, game)`` of the games of ``db`` (a file or a lake) that ``where`` keeps (every game
    when None). ``where`` runs on a read-only connection without file access, with ``governor query``'s
    memory and spill bounds, in a thread that Ctrl-C interrupts. Raises ``WhereError`` when it is
    refused or fails, ``ingest.db.DatabaseError`` and ``KeyboardInterrupt``."""
    from ingest.db import reader
    from ingest.lake import is_lake
    from ingest.query_bounds import (
        QUERY_PROCESS_MEMORY,
        SPILL_PREFIX,
        clean_stale_spill,
        in_thread,
        lock_down,
        memory_bound,
        query_config,
    )

    sql = games_sql(where)
    if where is None:
        with reader(db) as con:
            return [(str(a), str(b)) for a, b in con.execute(sql).fetchall()]
    problem = where_problem(where)
    if problem is not None:
        raise WhereError(problem)
    lake = is_lake(db)
    clean_stale_spill()
    spill = tempfile.mkdtemp(prefix=f"{SPILL_PREFIX}{os.getpid()}-")
    try:
        with reader(db, config=query_config(lake)) as con:
            if not lake:
                lock_down(con, spill)
            try:
                with memory_bound(QUERY_PROCESS_MEMORY):
                    rows = in_thread(lambda: con.execute(sql).fetchall(), con.interrupt)
            except duckdb.InterruptException:
                raise KeyboardInterrupt from None
            except (duckdb.Error, MemoryError) as err:
                exits.raise_if_signalled()
                raise WhereError(_first(err)) from None
    finally:
        shutil.rmtree(spill, ignore_errors=True)
    return [(str(a), str(b)) for a, b in rows]


def check_args(args: argparse.Namespace) -> None:
    """Raise ``UsageError`` for options that do not go with a run over the stored games."""
    if args.log is not None:
        raise UsageError("--all and --where analyse the stored games: give them without a LOG, or a LOG alone")
    for name, option in ONE_GAME_ONLY:
        if getattr(args, name):
            raise UsageError(f"{option} is for one LOG: --all and --where analyse whole games")
    if args.game != 1:
        raise UsageError("--game is for one LOG: --all and --where analyse every stored game")
    if args.lake and args.db:
        raise UsageError("--db and --lake name where the games are: give one of them")
    if args.cluster is not None and not args.lake:
        raise UsageError("--cluster analyses the games of a lake: give --lake DIR too")
    if args.cluster is not None and args.cluster != "local" and not args.cluster.startswith(("dask://", "ray://")):
        raise UsageError(f"--cluster expects local, dask://ADDR or ray://ADDR, not {printable(repr(args.cluster))}")


def run_batch(args: argparse.Namespace, default_db: Any) -> int:
    """``governor analyse --all`` / ``--where``: exit 0 when every game chosen is analysed (now or
    before), 1 when some could not be (each is a line), 2 on a usage error, a refused or failing
    ``--where`` or a database that cannot be read or written, 3 when a game met a bug in governor.
    Raises ``UsageError``; ``KeyboardInterrupt`` when interrupted, once the summary is said (every game
    stored so far stays)."""
    check_args(args)
    from analysis.batch_store import LakeAnalysis, store_in_db
    from ingest.db import DatabaseError
    from ingest.executors import ExecutorError
    from ingest.lake_files import LakeError

    db = args.lake or args.db or default_db()
    options = Options(rollouts=args.rollouts, seed=args.seed, top=args.top, workers=1,
                      rollout_bot=args.rollout_bot, sampling=args.sampling)
    workers = args.workers or os.cpu_count() or 1
    show = args.progress == "always" or (args.progress == "auto" and sys.stderr.isatty())
    where_shown = printable(db)
    tally = Tally()
    lake_store = LakeAnalysis(db) if args.lake else None

    def store(outcome: GameOutcome, stored: Callable[[], None]) -> None:
        if lake_store is not None:
            lake_store.add(outcome, stored)
        else:
            store_in_db(db, outcome, stored)

    try:
        if lake_store is not None:
            lake_store.check()
        games = select_games(db, args.where)
        run_games(db, games, options, store, workers=workers, cluster=args.cluster, progress=show, tally=tally)
        if lake_store is not None:
            lake_store.flush()
    except WhereError as err:
        print(f"governor analyse: --where: {err}", file=sys.stderr)
        return exits.ENVIRONMENT
    except (DatabaseError, LakeError, ExecutorError) as err:
        print(f"governor analyse: {printable(str(err))}", file=sys.stderr)
        return exits.ENVIRONMENT
    except KeyboardInterrupt:
        # Said before the interruption's own line: what is stored stays, a run again does the rest.
        kept = tally.analysed - (lake_store.pending_games if lake_store is not None else 0)
        print(f"{where_shown}: stopped: {kept} game{'s' * (kept != 1)} analysed and stored, {tally.skipped} "
              f"skipped (analysed already), {tally.failed + tally.bugs} failed, "
              f"{tally.total - tally.done} not done; run it again to do the rest", file=sys.stderr)
        raise
    print(f"{where_shown}: {tally.line()}", file=sys.stderr)
    if tally.bugs:
        print(exits.report_request(f"{tally.bugs} game(s) met a bug in governor"), file=sys.stderr)
    return exits.status(rejected=bool(tally.failed), bug=bool(tally.bugs))
