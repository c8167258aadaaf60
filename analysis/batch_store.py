"""Where a run over the stored games (``analysis.batch``) keeps each game analysed: a database file, one
transaction per game (``analysis.store.store_game``), or a lake, as Parquet files committed like the
lake's other batches (``ingest.lake``: written under a temporary name, renamed, then named by a
manifest, so never half-visible).

A lake's analysis batch holds whole games. A game analysed again (under other settings, or a part
analysed before) replaces the batches that held it: the new batch carries their other games' rows over
and its manifest names them in ``replaces``, which hides them at once (``Lake.manifests``); their files
are removed after the commit.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from analysis.batch import GameOutcome
from analysis.store import store_game
from ingest.schema import ANALYSIS

#: A lake's analysis is committed once this many games wait, or this many seconds after the first
#: waiting one (and at the end): a stopped run loses at most that much, and a lake of many games does
#: not become a file per game.
LAKE_GAMES = 64
LAKE_SECONDS = 30.0


def store_in_db(db: str, outcome: GameOutcome, stored: Callable[[], None]) -> None:
    """Store one game analysed in the database file ``db``, replacing whatever was stored of it;
    ``stored`` is called once it is committed. Raises ``ingest.db.DatabaseError``."""
    assert outcome.rows is not None
    store_game(db, outcome.game_id, outcome.rows, stored)


class LakeAnalysis:
    """The games analysed of a run on a lake, committed in batches (``LAKE_GAMES``, ``LAKE_SECONDS``)."""

    def __init__(self, root: str, games: int = LAKE_GAMES, seconds: float = LAKE_SECONDS) -> None:
        from ingest.lake import Lake

        self.lake = Lake(root)
        self.games, self.seconds = games, seconds
        self.pending: list[pa.Table] = []
        self.ids: list[str] = []
        self.first = 0.0
        self.checked = False

    @property
    def pending_games(self) -> int:
        """Games analysed and not committed yet."""
        return len(self.ids)

    def check(self) -> None:
        """Raise ``ingest.lake_files.LakeError`` unless the lake can be read (before any work)."""
        self.lake.check()

    def add(self, outcome: GameOutcome, taken: Callable[[], None]) -> None:
        """One game analysed (``taken`` is called once it waits for the commit); the batch is committed
        when due. Raises ``LakeError``."""
        assert outcome.rows is not None
        taken()
        if not self.pending:
            self.first = time.monotonic()
        self.pending.append(outcome.rows)
        self.ids.append(outcome.game_id)
        if len(self.ids) >= self.games or time.monotonic() - self.first >= self.seconds:
            self.flush()

    def flush(self) -> None:
        """Commit the games waiting (nothing when none), under the lake's lock: one importer or analysis
        writes at a time. Raises ``LakeError``."""
        if not self.ids:
            return
        from ingest.lake_repair import refuse_links
        from ingest.lake_write import writing

        with writing(self.lake):
            if not self.checked:
                refuse_links(self.lake)  # a link where the lake keeps its files: nothing is written
                self.checked = True
            self._commit(pa.concat_tables(self.pending).cast(ANALYSIS), set(self.ids))
        self.pending, self.ids = [], []

    def _commit(self, rows: pa.Table, ids: set[str]) -> None:
        lake = self.lake
        replaced = [m for m in lake.manifests()
                    if "analysis" in m["files"] and ids & set(m.get("analysis_game_ids", ()))]
        parts = [rows]
        for earlier_batch in replaced:
            for rel in earlier_batch["files"]["analysis"]:
                earlier = pq.read_table(lake.path(rel), filesystem=lake.fs).cast(ANALYSIS)
                keep = pc.invert(pc.is_in(earlier.column("game_id"), value_set=pa.array(sorted(ids), pa.string())))
                parts.append(earlier.filter(keep))
        # By game only (a stable sort): a game's rows keep the order the analysis gave them, which orders
        # the decisions of a step (``analysis.store.LOAD_SQL``).
        table = pa.concat_tables(parts).sort_by([("game_id", "ascending")])
        batch = f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(4)}-analysis"
        rel = f"analysis/part-{batch}.parquet"
        lake.write_parquet(rel, table)
        manifest: dict[str, Any] = {
            "batch": batch, "files": {"analysis": [rel]}, "rows": {"analysis": table.num_rows},
            "game_ids": [], "rejection_ids": [], "rejection_messages": [],
            "analysis_game_ids": sorted(set(table.column("game_id").to_pylist())),
            "replaces": [m["batch"] for m in replaced],
        }
        lake.commit(manifest)
        # Hidden already (``replaces``): removing them only frees the space, and a stop here leaves
        # nothing visible twice.
        for earlier in replaced:
            lake.remove(f"_manifest/{earlier['batch']}.json")
            for old in earlier["files"]["analysis"]:
                lake.remove(old)
