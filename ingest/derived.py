"""Tables derived from the stored games, brought up to date at the end of every import: the
Explorer's ``openings`` (``ingest.openings``) and the players' skill ratings (``ingest.ratings``).

They are computed from what is stored, not from the batches being written, so a killed import leaves
them for the next import to complete, and an import that adds nothing leaves them untouched.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from ingest.db import writer
from ingest.openings import fill_openings
from ingest.ratings import ratings_stale, recompute_ratings


def refresh_derived(db: str | Path) -> None:
    """Add the openings of new games and recompute the ratings when games were added since, in one
    transaction. Raises ``ingest.db.DatabaseError`` when the database cannot be written."""
    with writer(db) as con:
        con.execute("BEGIN TRANSACTION")
        try:
            fill_openings(con)
            if ratings_stale(con):
                recompute_ratings(con)
            con.execute("COMMIT")
        except BaseException:
            try:
                con.execute("ROLLBACK")
            except duckdb.Error:
                pass  # the failed statement already ended the transaction; report its error
            raise
