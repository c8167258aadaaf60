"""``governor analyse --lake DIR --all``: the games of a lake analysed into it, as Parquet files that a
manifest commits (never half-visible), the same rows as in a database; a game analysed again replaces
its earlier rows, never sits beside them; and a database of schema version 10 gains ``analysis.sampling``."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from governor.cli import main
from ingest.db import reader, writer
from ingest.importer import import_paths
from ingest.lake import Lake
from tests.analysis.conftest import GAMES
from tests.analysis.test_batch import CONTENT, DECISIONS, FAST, ROWS, rows, summary


@pytest.fixture
def lake(tmp_path: Path) -> Path:
    folder = tmp_path / "lake"
    assert import_paths(GAMES, folder, lake=True, workers=1).rejected == 0
    return folder


def lake_rows(lake: Path, sql: str) -> list[tuple]:
    with reader(lake) as con:
        return con.execute(sql).fetchall()


def test_a_lake_is_analysed_into_itself_as_a_database_is(lake: Path, db: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    base = ["analyse", "--all", *FAST, "--workers", "1", "--progress", "never"]
    assert main([*base, "--lake", str(lake)]) == 0
    assert capsys.readouterr().err.startswith(summary(lake, 3, DECISIONS, 0))
    assert main([*base, "--db", str(db)]) == 0
    capsys.readouterr()
    assert lake_rows(lake, CONTENT) == rows(db, CONTENT)
    files = sorted(p.name for p in (lake / "analysis").iterdir())
    assert len(files) == 1 and files[0].startswith("part-") and files[0].endswith("-analysis.parquet")
    # Run again: nothing to do, nothing written.
    assert main([*base, "--lake", str(lake)]) == 0
    assert capsys.readouterr().err.startswith(summary(lake, 0, 0, 3))
    assert sorted(p.name for p in (lake / "analysis").iterdir()) == files
    # One game with another seed: a new batch replaces the one that held it, carrying the others over.
    first = lake_rows(lake, "SELECT min(game_id) FROM games")[0][0]
    assert main([*base, "--lake", str(lake), "--seed", "3", "--where", f"game_id = '{first}'"]) == 0
    assert capsys.readouterr().err.startswith(summary(lake, 1, 123, 0, of=1))
    assert lake_rows(lake, "SELECT seed, count(DISTINCT game_id), count(*) FROM analysis GROUP BY seed ORDER BY seed") == [
        (0, 2, ROWS - 777), (3, 1, 777)]
    assert [p.name for p in (lake / "analysis").iterdir()] != files and len(list((lake / "analysis").iterdir())) == 1
    manifests = [json.loads(p.read_text()) for p in (lake / "_manifest").iterdir()]
    assert [m["replaces"] for m in manifests if "replaces" in m] == [[files[0][len("part-"):-len(".parquet")]]]


def test_a_replaced_batch_whose_files_a_stop_left_is_hidden(lake: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A stop between the commit of a batch and the removal of those it replaces shows nothing twice."""
    base = ["analyse", "--all", *FAST, "--workers", "1", "--progress", "never", "--lake", str(lake)]
    first = lake_rows(lake, "SELECT min(game_id) FROM games")[0][0]
    assert main([*base, "--where", f"game_id = '{first}'"]) == 0
    earlier = next(m for m in Lake(str(lake)).manifests() if "analysis" in m["files"])
    kept = {p.name: p.read_bytes() for p in (lake / "_manifest").iterdir()} | {
        p.name: p.read_bytes() for p in (lake / "analysis").iterdir()}
    assert main([*base, "--seed", "3", "--where", f"game_id = '{first}'"]) == 0
    capsys.readouterr()
    # Put the replaced batch back, as a stop before its removal would have left it.
    (lake / "_manifest" / f"{earlier['batch']}.json").write_bytes(kept[f"{earlier['batch']}.json"])
    (lake / earlier["files"]["analysis"][0]).write_bytes(kept[earlier["files"]["analysis"][0].split("/")[1]])
    assert lake_rows(lake, "SELECT DISTINCT seed, count(*) FROM analysis GROUP BY seed") == [(3, 777)]


def test_an_older_database_gains_the_sampling_column_and_its_games_are_analysed_again(
        db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["analyse", "--db", str(db), "--all", *FAST, "--workers", "1", "--progress", "never"]
    assert main(base) == 0
    capsys.readouterr()
    con = duckdb.connect(str(db))
    con.execute("ALTER TABLE analysis DROP COLUMN sampling")
    con.execute("ALTER TABLE analysis DROP COLUMN rollout_bot_version")
    con.execute("UPDATE governor_meta SET value = '10' WHERE key = 'schema_version'")
    con.close()
    with writer(db):
        pass
    assert rows(db, "SELECT value FROM governor_meta WHERE key = 'schema_version'") == [("12",)]
    assert rows(db, "SELECT count(*), count(sampling) FROM analysis") == [(ROWS, 0)]
    # Rows that do not say how their rollouts were spent are no analysis under the settings asked.
    assert main(base) == 0
    assert capsys.readouterr().err.startswith(summary(db, 3, DECISIONS, 0))
    assert rows(db, "SELECT count(*), count(sampling) FROM analysis") == [(ROWS, ROWS)]


def test_a_lake_is_analysed_on_a_local_cluster_as_on_this_machine(lake: Path, db: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("distributed", reason="missing optional dependency: the cluster extra (distributed)")
    first = lake_rows(lake, "SELECT min(game_id) FROM games")[0][0]
    one = ["--where", f"game_id = '{first}'", *FAST, "--progress", "never"]
    assert main(["analyse", "--lake", str(lake), "--cluster", "local", "--workers", "2", *one]) == 0
    assert capsys.readouterr().err.splitlines()[-1].startswith(summary(lake, 1, 123, 0, of=1))
    assert main(["analyse", "--db", str(db), "--workers", "1", *one]) == 0
    capsys.readouterr()
    assert lake_rows(lake, CONTENT) == rows(db, CONTENT)


def test_an_analysis_by_another_version_of_the_rollout_bot_is_made_again(
        db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The rows say which version of the rollout bot played (``1`` for the heuristic bots); a game
    whose rows name another version (a bot whose play changed since), or none (stored before schema
    version 12, which the migration leaves NULL), is analysed again, the others are skipped."""
    base = ["analyse", "--db", str(db), "--all", *FAST, "--workers", "1", "--progress", "never"]
    assert main(base) == 0
    capsys.readouterr()
    assert rows(db, "SELECT DISTINCT rollout_bot, rollout_bot_version FROM analysis") == [("heuristic", "1")]
    first, second = (r[0] for r in rows(db, "SELECT DISTINCT game_id FROM analysis ORDER BY 1 LIMIT 2"))
    decisions = dict(rows(db, "SELECT game_id, count(DISTINCT (step, seat)) FROM analysis GROUP BY 1"))
    before = rows(db, CONTENT)
    con = duckdb.connect(str(db))
    con.execute("UPDATE analysis SET rollout_bot_version = '0' WHERE game_id = ?", [first])
    con.execute("UPDATE analysis SET rollout_bot_version = NULL WHERE game_id = ?", [second])
    con.close()
    assert main(base) == 0
    assert capsys.readouterr().err.startswith(summary(db, 2, decisions[first] + decisions[second], 1))
    assert rows(db, CONTENT) == before
