"""The table ``win_chance`` of a lake (``governor winchance --lake``): the rows of each batch of games
written as one Parquet file under ``win_chance/`` and committed like the lake's other batches
(``ingest.lake``: written under a temporary name, renamed, then named by a manifest, so never
half-visible), under the lake's lock (one writer at a time). A manifest names the games its file holds
(``win_chance_game_ids``): a game filled meanwhile by another run keeps its rows, and a run stopped
anywhere is continued by running it again (only the games without rows are filled)."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from analysis.winchance.fill import PENDING_SQL, stored_logs
from ingest.schema import WIN_CHANCE

#: The manifest's key naming the games of a batch's ``win_chance`` file.
GAME_IDS = "win_chance_game_ids"


class LakeStore:
    """A lake as ``analysis.winchance.fill.Store``: read through the lake's views, written batch by
    batch. Raises ``ingest.lake_files.LakeError`` when it cannot be read or written."""

    def __init__(self, root: str) -> None:
        from ingest.lake import Lake

        self.root = root
        self.lake = Lake(root)
        self.checked = False

    def check(self) -> None:
        """Raise ``LakeError`` unless the lake can be read (before any work)."""
        self.lake.check()

    def pending(self) -> list[str]:
        """The ids of the lake's games without rows, in order."""
        from ingest.db import reader

        self.check()
        with reader(self.root) as con:
            return [str(row[0]) for row in con.execute(PENDING_SQL).fetchall()]

    def logs(self, ids: Sequence[str]) -> list[tuple[str, str]]:
        """The stored logs of ``ids``."""
        return stored_logs(self.root, ids)

    def add(self, rows: pa.Table, ids: Sequence[str]) -> tuple[int, int]:
        """Commit the rows of ``ids`` as one batch (but those of games another run filled meanwhile)."""
        from ingest.lake_repair import refuse_links
        from ingest.lake_write import writing

        if not ids:
            return 0, 0
        lake = self.lake
        with writing(lake):
            if not self.checked:
                refuse_links(lake)  # a link where the lake keeps its files: nothing is written
                self.checked = True
            taken = {game_id for m in lake.manifests() for game_id in m.get(GAME_IDS, ())} & set(ids)
            if taken:
                rows = rows.filter(pc.invert(pc.is_in(rows.column("game_id"),
                                                      value_set=pa.array(sorted(taken), pa.string()))))
            kept = sorted(set(ids) - taken)
            if not kept:
                return 0, 0
            batch = f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(4)}-winchance"
            rel = f"win_chance/part-{batch}.parquet"
            lake.write_parquet(rel, rows.cast(WIN_CHANCE).sort_by([("game_id", "ascending"), ("step", "ascending"),
                                                                   ("seat", "ascending")]))
            manifest: dict[str, Any] = {
                "batch": batch, "files": {"win_chance": [rel]}, "rows": {"win_chance": rows.num_rows},
                "game_ids": [], "rejection_ids": [], "rejection_messages": [], GAME_IDS: kept,
            }
            lake.commit(manifest)
        return len(kept), rows.num_rows
