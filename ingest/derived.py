"""Tables derived from the stored games: the Explorer's ``openings`` (``ingest.openings``), written
with each batch of an import, the players' skill ratings (``ingest.ratings``), recomputed at the
end of an import that added games, and where each game's rows sit (``ingest.locate``).

The ratings are computed from what is stored, so a killed import leaves them for the next import to
complete and an import that adds nothing leaves them untouched. The file is held for writing only
briefly: the games are read on a read-only connection, rated with no connection open, and the result
written in one short transaction.
"""

from __future__ import annotations

import multiprocessing as mp
import tempfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import duckdb

from ingest.db import QUIET, DatabaseError, reader, writer
from ingest.locate import locate
from ingest.openings import fill_openings
from ingest.ratings import GAMES_IN_ORDER, rate_file, ratings_stale, write_ratings
from ingest.ratings import basis as ratings_basis
from replay import pools

#: Settings of the connection that reads the games to rate: ordering every stored game may take more
#: memory than the importer may use, so DuckDB spills to a temporary folder past this.
READ_CONFIG = {"memory_limit": "512MB"}

#: From this many stored games on, an import runs ``refresh_derived`` in a process of its own
#: (``refresh_derived_apart``): at a million games the step needs about 600-660 MiB, which on top of what
#: the importer's process holds after writing its batches (450-600 MiB) went past 1 GiB
#: (docs/benchmarks.md, "A million games"). Below it the step is small and a new process (about 0.3 s)
#: would be most of its time.
APART_FROM_GAMES = 100_000


def refresh_derived(db: str | Path) -> None:
    """Fill the openings of games stored without one (games an older version stored: an import writes
    a batch's openings in the batch's transaction), record the row ranges of the games stored since
    the last import (``ingest.locate``) and recompute the ratings when games were added
    since they were computed. Raises ``ingest.db.DatabaseError`` when the database cannot be read or
    written."""
    with writer(db) as con:
        _in_transaction(con, lambda: (fill_openings(con), locate(con)))
    with tempfile.TemporaryDirectory(prefix="governor-ratings-") as tmp:
        games_file, history_file = Path(tmp) / "games.parquet", Path(tmp) / "history.parquet"
        # The games go through a file, in rating order, so that neither they nor the history are ever
        # all in memory (a list of them grew by about 1 KB a game), and the database is not held open
        # while the games are rated.
        with reader(db, config=READ_CONFIG | {"temp_directory": tmp}) as con:
            con.execute(QUIET)
            if not ratings_stale(con):
                return
            basis = ratings_basis(con)
            quoted = str(games_file).replace("'", "''")
            con.execute(f"COPY ({GAMES_IN_ORDER}) TO '{quoted}' (FORMAT parquet)")
        ratings = rate_file(games_file, history_file)
        with writer(db) as con:

            def write() -> None:
                # Another import may have added games meanwhile: its own refresh rates them, so only the
                # ratings of the games stored now may be written.
                current = con.execute("SELECT count(*) FROM games").fetchall()[0][0]
                if basis.startswith(f"{current} games;"):
                    write_ratings(con, ratings, history_file, basis)

            _in_transaction(con, write)


def refresh_derived_apart(db: str | Path, step: Callable[[str], None] = refresh_derived) -> None:
    """``refresh_derived`` (``step``, a module-level function) in a new Python process (spawned, so it
    holds none of the caller's memory), waiting for it. Its ``DatabaseError`` is raised here as it was there; a process that dies (killed,
    out of memory) raises ``DatabaseError`` too: the ratings are then left for the next import."""
    try:
        with ProcessPoolExecutor(1, mp_context=mp.get_context("spawn")) as pool:
            pools.result(pool.submit(step, str(db)))
    except BrokenProcessPool as err:
        raise DatabaseError(
            f"{db}: the step that rates the players ended before it finished ({err}); "
            "the games are stored, and the next import rates them"
        ) from err


def _in_transaction(con: duckdb.DuckDBPyConnection, work: Callable[[], Any]) -> None:
    con.execute("BEGIN TRANSACTION")
    try:
        work()
        con.execute("COMMIT")
    except BaseException:
        try:
            con.execute("ROLLBACK")
        except duckdb.Error:
            pass  # the failed statement already ended the transaction; report its error
        raise

