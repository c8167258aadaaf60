"""``game_rows``: each game's row range in the tables the Replay page reads whole, recorded at import
and on migration; the page reads through it and gives the same game as a full scan, also when a range
is missing or wrong."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from dashboards import data
from ingest.db import writer
from ingest.importer import import_paths
from ingest.locate import located_tables
from ingest.schema import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "sample_logs"


def rows(db: Path, sql: str, params: list | None = None) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql, params or []).fetchall()


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both games' sample logs, imported in two runs (San Juan, then Puerto Rico)."""
    db = tmp_path_factory.mktemp("locate") / "g.duckdb"
    assert import_paths([LOGS / "san_juan"], db, workers=1).imported == 30
    assert import_paths([LOGS / "puerto_rico"], db, workers=2).imported == 30
    return db


def test_every_game_is_located_in_each_of_its_tables(both: Path) -> None:
    located = rows(both, "SELECT table_name, count(*), sum(row_count) FROM game_rows GROUP BY 1 ORDER BY 1")
    counts = {t: rows(both, f'SELECT count(*) FROM "{t}"')[0][0] for t in located_tables()}
    assert located == [
        ("moves", 60, counts["moves"]),
        ("puerto_rico_player_states", 30, counts["puerto_rico_player_states"]),
        ("puerto_rico_states", 30, counts["puerto_rico_states"]),
        ("san_juan_player_states", 30, counts["san_juan_player_states"]),
        ("san_juan_states", 30, counts["san_juan_states"]),
    ]
    # Each range holds its game's rows (and, for the per-seat tables, may hold other games' rows of
    # the same batch): reading the range filtered by id gives exactly the game's rows.
    for table, game_id, first, last, count in rows(both, "SELECT table_name, game_id, first_row, last_row, row_count FROM game_rows"):
        assert last - first + 1 >= count
        assert rows(both, f'SELECT count(*) FROM "{table}" WHERE rowid BETWEEN ? AND ? AND game_id = ?',
                    [first, last, game_id]) == [(count,)]
        assert rows(both, f'SELECT count(*) FROM "{table}" WHERE game_id = ?', [game_id]) == [(count,)]


def _payload(db: Path, game: str, game_id: str, monkeypatch: pytest.MonkeyPatch) -> dict:
    monkeypatch.setenv("GOVERNOR_DB", str(db))
    found = data._cached_game.__wrapped__(str(db), (0,), game_id, (game,), False)  # type: ignore[attr-defined]
    assert found is not None and found.row["game"] == game and found.payload is not None
    return found.payload


def test_the_replay_page_reads_the_same_game_through_a_range_a_wrong_range_or_none(
    both: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    game, game_id = rows(both, "SELECT game, game_id FROM games WHERE game = 'puerto_rico' ORDER BY game_id LIMIT 1")[0]
    through_range = _payload(both, game, game_id, monkeypatch)
    assert through_range["total"] == rows(both, "SELECT moves FROM games WHERE game_id = ?", [game_id])[0][0]
    broken = tmp_path / "broken.duckdb"
    shutil.copy(both, broken)
    with duckdb.connect(str(broken)) as con:  # a stale range (as after a compaction), then none at all
        con.execute("UPDATE game_rows SET first_row = first_row + 5 WHERE game_id = ? AND table_name = 'moves'", [game_id])
    assert _payload(broken, game, game_id, monkeypatch) == through_range
    with duckdb.connect(str(broken)) as con:
        con.execute("DROP TABLE game_rows")
    assert _payload(broken, game, game_id, monkeypatch) == through_range


def test_a_version_5_database_is_located_on_migration(sample_db_copy: Path) -> None:
    db = sample_db_copy  # the San Juan sample logs
    with duckdb.connect(str(db)) as con:
        con.execute("DROP TABLE game_rows")
        con.execute("UPDATE governor_meta SET value = '5' WHERE key = 'schema_version'")
    with writer(db):  # what the next import (or `governor migrate`) does first
        pass
    assert rows(db, "SELECT value FROM governor_meta WHERE key = 'schema_version'") == [(str(SCHEMA_VERSION),)]
    assert rows(db, "SELECT table_name, count(*) FROM game_rows GROUP BY 1 ORDER BY 1") == [
        ("moves", 30), ("san_juan_player_states", 30), ("san_juan_states", 30),
    ]
    # A later import locates only its own games.
    assert import_paths([LOGS / "puerto_rico"], db, workers=1).imported == 30
    assert rows(db, "SELECT count(*), count(DISTINCT (game_id, table_name)) FROM game_rows") == [(180, 180)]


def test_each_batch_locates_its_own_games_and_an_import_catches_up_on_unlocated_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ingest import duckdb_store as importer
    from ingest.locate import locate

    monkeypatch.setattr(importer, "WRITE_BATCH", 7)  # 30 games: five batches
    db = tmp_path / "batches.duckdb"
    assert import_paths([LOGS / "san_juan"], db, workers=1).imported == 30
    counts = {t: rows(db, f'SELECT count(*) FROM "{t}"')[0][0] for t in ("moves", "san_juan_states", "san_juan_player_states")}
    ranges = rows(db, "SELECT table_name, first_row, last_row, row_count FROM game_rows ORDER BY table_name, first_row")
    for table, total in counts.items():
        mine = [r for r in ranges if r[0] == table]
        # Every game once, every row counted once; the batches' ranges follow each other.
        assert len(mine) == 30 and sum(r[3] for r in mine) == total
        assert max(r[2] for r in mine) == total - 1 and min(r[1] for r in mine) == 0
    # Nothing was left for the end of the import to locate.
    with writer(db) as con:
        assert locate(con) == 0
    # A batch committed but not located (the import killed in between) is located by the next
    # import's start, whatever that import stores: here the last batch (games 29 and 30).
    with writer(db) as con:
        con.execute("DELETE FROM game_rows WHERE game_id IN "
                    "(SELECT game_id FROM game_rows WHERE table_name = 'moves' ORDER BY first_row DESC LIMIT 2)")
    assert rows(db, "SELECT count(*) FROM game_rows")[0][0] == 3 * 28
    again = import_paths([LOGS / "san_juan" / "san_juan-2p-seed2026-0000.json"], db, workers=1)
    assert (again.imported, again.duplicates) == (0, 1)
    assert rows(db, "SELECT table_name, first_row, last_row, row_count FROM game_rows ORDER BY table_name, first_row") == ranges


def test_the_located_tables_are_every_registered_games() -> None:
    """The tables are the registry's games' own, so that a game added by a package is located too."""
    from replay.registry import game_names

    assert located_tables() == ("moves", *(f"{g}_{k}" for g in game_names() for k in ("states", "player_states")))
    assert located_tables()[1:3] == tuple(f"{game_names()[0]}_{k}" for k in ("states", "player_states"))
