"""The ``events`` column of ``moves``: what the rules did by themselves after each move, filled at
import (exact rows), and added by the migration from schema version 2."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ingest.importer import import_paths
from ingest.schema import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[2]
PR_GAME = ROOT / "sample_logs" / "puerto_rico" / "puerto_rico-3p-seed2026-0006.json"
SJ_GAME = ROOT / "sample_logs" / "san_juan" / "san_juan-2p-seed2026-0000.json"


def _rows(db: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_a_captain_step_stores_its_forced_loads_storage_and_emptied_ship(tmp_path: Path) -> None:
    db = tmp_path / "pr.duckdb"
    assert import_paths([PR_GAME], db, workers=1).imported == 1
    assert _rows(db, "SELECT step, round, player, words, events FROM moves WHERE step IN (52, 53) ORDER BY step") == [
        (52, 6, "Ana", "Ana chooses the captain (+1 doubloon)", [
            "Ana loads 1 indigo on the 4-ship, the only possible load: 2 VP (1 for the captain's privilege)",
            "Bruno loads 1 sugar on the 6-ship, the only possible load: 1 VP",
        ]),
        (53, 6, "Carla", "Carla loads 1 corn on the 5-ship", [
            "Carla gets 1 VP",
            "Ana cannot load anything",
            "Bruno cannot load anything",
            "Carla loads 1 sugar on the 6-ship, the only possible load: 1 VP",
            "Carla cannot load anything",
            "Ana keeps 1 indigo and returns 2 indigo to the supply",
            "Bruno keeps 1 indigo",
            "The full 4-ship is emptied: 4 indigo go back to the supply",
        ]),
    ]
    # Every move has a list (empty when the rules did nothing by themselves), never NULL.
    assert _rows(db, "SELECT count(*) FILTER (WHERE events IS NULL), count(*) FILTER (WHERE len(events) > 0) "
                     "FROM moves")[0][0] == 0


def test_migration_from_version_2_adds_the_column_and_new_imports_fill_it(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    import_paths([SJ_GAME], db, workers=1)
    # Make it the version-2 file an older governor wrote: no events column.
    with duckdb.connect(str(db)) as con:
        con.execute("ALTER TABLE moves DROP COLUMN events")
        con.execute("UPDATE governor_meta SET value = '2' WHERE key = 'schema_version'")
    assert import_paths([PR_GAME], db, workers=1).imported == 1
    assert _rows(db, "SELECT value FROM governor_meta WHERE key = 'schema_version'") == [(str(SCHEMA_VERSION),)]
    counts = _rows(db, """
        SELECT g.game, count(*) FILTER (WHERE m.events IS NULL), count(*) FILTER (WHERE m.events IS NOT NULL)
        FROM moves m JOIN games g USING (game_id) GROUP BY g.game ORDER BY g.game""")
    sj_moves = _rows(db, "SELECT moves FROM games WHERE game = 'san_juan'")[0][0]
    pr_moves = _rows(db, "SELECT moves FROM games WHERE game = 'puerto_rico'")[0][0]
    assert counts == [("puerto_rico", 0, pr_moves), ("san_juan", sj_moves, 0)]
