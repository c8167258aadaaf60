"""The summary tables the importer keeps for the Statistics page (``ingest/summaries.py``)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from ingest import summaries
from ingest.db import writer
from ingest.importer import import_paths
from ingest.schema import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "sample_logs"

SEAT = "m.game_id, g.game, g.player_count, m.seat, p.name, p.won, len(g.winners)"
JOINS = "FROM moves m JOIN games g USING (game_id) JOIN players p ON p.game_id = m.game_id AND p.seat = m.seat"
BUILDS_FROM_MOVES = (f"SELECT {SEAT}, json_extract_string(m.details, '$.building'), min(m.round) {JOINS} "
                     "WHERE m.kind = 'build' GROUP BY ALL ORDER BY ALL")
ROLES_FROM_MOVES = f"SELECT {SEAT}, m.round, json_extract_string(m.details, '$.role') {JOINS} WHERE m.kind = 'role' ORDER BY ALL"
OWNED_FROM_PLAYERS = ("SELECT p.game_id, g.game, g.player_count, p.seat, p.name, p.won, len(g.winners), b FROM players p "
                      "JOIN games g USING (game_id), unnest(list_distinct(p.final_buildings)) AS u(b) ORDER BY ALL")


def test_import_fills_the_summaries_batch_by_batch(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    sj = sorted((LOGS / "san_juan").glob("*.json"))
    import_paths(sj[:7], db, workers=1)
    import_paths([LOGS / "san_juan", LOGS / "puerto_rico"], db, workers=1)  # 7 duplicates, 53 new games
    with duckdb.connect(str(db), read_only=True) as con:
        builds = summaries.rows(con, "player_builds")
        roles = summaries.rows(con, "player_roles")
        assert builds == con.execute(BUILDS_FROM_MOVES).fetchall()
        assert roles == con.execute(ROLES_FROM_MOVES).fetchall()
        assert summaries.rows(con, "player_owned") == con.execute(OWNED_FROM_PLAYERS).fetchall()
        # Every game of both types is summarised exactly once.
        assert con.execute("SELECT count(DISTINCT game_id) FROM player_roles").fetchall() == [(60,)]
        (first_round,) = con.execute(
            "SELECT count(*) FROM player_roles r JOIN games g USING (game_id) WHERE r.round = 1 AND g.player_count = 2"
        ).fetchall()[0]
        assert first_round == 30  # 10 two-player games, 3 role choices in the first round each
        assert len(builds) > 0 and all(b[7] for b in builds)  # every build names its building
        assert {r[1] for r in roles} == {"san_juan", "puerto_rico"}


@pytest.mark.parametrize("version", ["3", "4"])
def test_an_older_database_gets_its_summaries_on_migration(tmp_path: Path, version: str) -> None:
    db = tmp_path / "old.duckdb"
    import_paths([LOGS / "san_juan"], db, workers=1)
    with duckdb.connect(str(db)) as con:  # version 3 had no summary tables; version 4 narrower ones
        for name in summaries.SUMMARY_TABLES:
            con.execute(f"DROP TABLE {name}")
        if version == "4":
            con.execute("CREATE TABLE player_builds (game_id VARCHAR, seat TINYINT, building VARCHAR, round SMALLINT)")
            con.execute("CREATE TABLE player_roles (game_id VARCHAR, seat TINYINT, round SMALLINT, role VARCHAR)")
            con.execute("INSERT INTO player_roles VALUES ('x', 0, 1, 'Builder')")
        con.execute("UPDATE governor_meta SET value = ? WHERE key = 'schema_version'", [version])
    with writer(db):  # what the next import does first
        pass
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT value FROM governor_meta WHERE key = 'schema_version'").fetchall() == [
            (str(SCHEMA_VERSION),)]
        assert summaries.rows(con, "player_builds") == con.execute(BUILDS_FROM_MOVES).fetchall()
        assert summaries.rows(con, "player_roles") == con.execute(ROLES_FROM_MOVES).fetchall()
        assert summaries.rows(con, "player_owned") == con.execute(OWNED_FROM_PLAYERS).fetchall()
        assert len(summaries.rows(con, "player_roles")) > 300
