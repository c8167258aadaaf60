"""The lake: the same tables as a DuckDB import, row for row, on one process and on a local cluster;
idempotent reruns; a killed run's files invisible and cleaned; queries, export and views unchanged."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ingest.db import reader
from ingest.importer import import_paths
from ingest.lake import LAKE_MARK, Lake
from ingest.lake_files import LakeError
from ingest.schema import VIEWS, table_schemas

ROOT = Path(__file__).resolve().parents[2]
BAD = ROOT / "tests" / "replay" / "bad_logs" / "logs"
#: Columns that say when a row was written, not what it holds.
WHEN = {"imported_at", "rejected_at"}


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both games' sample logs, six bad logs and one game twice (a copy under another name)."""
    folder = tmp_path_factory.mktemp("lake_logs")
    shutil.copytree(ROOT / "sample_logs", folder / "sample_logs")
    for name in sorted(p.name for p in BAD.glob("*.json"))[:6]:
        shutil.copy(BAD / name, folder / name)
    first = sorted((folder / "sample_logs" / "san_juan").glob("*.json"))[0]
    shutil.copy(first, folder / "zz-copy-of-a-game.json")
    return folder


def contents(target: Path | str) -> dict[str, list[tuple]]:
    """Every table's rows (without the write-time columns), sorted, and every view's."""
    out = {}
    with reader(target) as con:
        for name, schema in table_schemas().items():
            if name == "analysis":
                continue
            columns = ", ".join(f'"{c}"' for c in schema.names if c not in WHEN)
            out[name] = sorted(con.execute(f'SELECT {columns} FROM "{name}"').fetchall(), key=repr)
        for name in VIEWS:
            out[name] = sorted(con.execute(f"SELECT * FROM {name}").fetchall(), key=repr)
    return out


@pytest.fixture(scope="module")
def duckdb_answer(logs: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple]]:
    db = tmp_path_factory.mktemp("lake_db") / "g.duckdb"
    summary = import_paths([logs], db, workers=1)
    assert summary.imported == 60 and summary.rejected == 6 and summary.duplicates == 1
    return contents(db)


def test_lake_on_one_process_equals_the_database(logs: Path, tmp_path: Path, duckdb_answer: dict) -> None:
    lake = tmp_path / "lake"
    summary = import_paths([logs], str(lake), lake=True, workers=1, batch_games=16)
    assert (summary.imported, summary.rejected, summary.duplicates) == (60, 6, 1)
    got = contents(lake)
    assert got.keys() == duckdb_answer.keys()
    for name in got:
        assert got[name] == duckdb_answer[name], name
    assert len(got["moves"]) > 5000 and len(got["rejections"]) == 6


def test_lake_on_a_local_cluster_equals_the_database(logs: Path, tmp_path: Path, duckdb_answer: dict) -> None:
    pytest.importorskip("distributed")
    lake = tmp_path / "lake"
    summary = import_paths([logs], str(lake), lake=True, workers=2, cluster="local", batch_games=16)
    assert (summary.imported, summary.rejected, summary.duplicates) == (60, 6, 1)
    got = contents(lake)
    for name in got:
        assert got[name] == duckdb_answer[name], name


def test_rerun_adds_nothing_and_the_layout_is_partitioned(logs: Path, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    import_paths([logs], str(lake), lake=True, workers=1)
    before = contents(lake)
    manifests = sorted(p.name for p in (lake / "_manifest").iterdir())
    again = import_paths([logs], str(lake), lake=True, workers=1)
    assert (again.imported, again.duplicates, again.rejected) == (0, 61, 6)
    assert contents(lake) == before
    assert sorted(p.name for p in (lake / "_manifest").iterdir()) == manifests
    assert sorted(p.name for p in (lake / "games").iterdir()) == ["game=puerto_rico", "game=san_juan"]
    table = pq.read_table(next((lake / "moves" / "game=san_juan").glob("*.parquet")))
    ids = table.column("game_id").to_pylist()
    assert ids == sorted(ids)


def test_a_killed_run_leaves_nothing_visible_and_is_cleaned(logs: Path, tmp_path: Path) -> None:
    lake_dir = tmp_path / "lake"
    import_paths([logs / "sample_logs" / "san_juan"], str(lake_dir), lake=True, workers=1)
    lake = Lake(str(lake_dir))
    # What a run killed after writing a batch's files but before its manifest leaves behind.
    from ingest.lake_write import write_batch
    from ingest.rows import process
    from replay.log_reader import read_records

    records = [r for p in sorted((logs / "sample_logs" / "puerto_rico").glob("*.json")) for r in read_records(p)]
    orphan = write_batch(lake, "killed-000000", process(records).to_arrow())
    (lake_dir / "games" / "game=puerto_rico" / "part-x.parquet.tmp-123").write_bytes(b"half a file")
    with reader(lake_dir) as con:
        assert con.execute("SELECT count(*) FROM games").fetchone() == (30,)
    summary = import_paths([logs / "sample_logs"], str(lake_dir), lake=True, workers=1)
    assert summary.imported == 30
    for rels in orphan["files"].values():
        for rel in rels:
            assert not (lake_dir / rel).exists()
    assert not (lake_dir / "games" / "game=puerto_rico" / "part-x.parquet.tmp-123").exists()
    with reader(lake_dir) as con:
        assert con.execute("SELECT count(*), count(DISTINCT game_id) FROM games").fetchone() == (60, 60)


def test_cli_query_export_and_errors(logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The commands run in this process (a started interpreter costs about a second of CPU): their
    # statuses, output and files are what is checked.
    from governor.cli import main

    lake = tmp_path / "lake"
    assert main(["import", str(logs / "sample_logs"), "--lake", str(lake), "--workers", "1"]) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert main(["query", "--lake", str(lake), "--format", "json",
                 "SELECT game, count(*) AS n FROM games GROUP BY game ORDER BY game"]) == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out) == [{"game": "puerto_rico", "n": 30}, {"game": "san_juan", "n": 30}]
    out = tmp_path / "export"
    assert main(["export", "--lake", str(lake), "--parquet", str(out)]) == 0, capsys.readouterr().err
    assert pq.read_table(out / "games.parquet").num_rows == 60
    # The lake's readers cannot read other files.
    with reader(lake) as con:
        with pytest.raises(Exception, match="disabled by configuration|Permission"):
            con.execute("SELECT * FROM read_csv('/etc/passwd')").fetchall()
    not_a_lake = tmp_path / "other"
    not_a_lake.mkdir()
    (not_a_lake / "x.txt").write_text("hello")
    with pytest.raises(LakeError, match="the folder is not empty and is not a Governor lake"):
        import_paths([logs / "sample_logs"], str(not_a_lake), lake=True, workers=1)
    assert (lake / LAKE_MARK).is_file()


def test_a_file_url_lake(logs: Path, tmp_path: Path) -> None:
    url = f"file://{tmp_path / 'lake'}"
    summary = import_paths([logs / "sample_logs" / "san_juan"], url, lake=True, workers=1)
    assert summary.imported == 30
    with reader(url) as con:
        assert con.execute("SELECT count(*) FROM players").fetchone() == (90,)
        assert con.execute("SELECT count(*) FROM win_rate_by_seat").fetchone() == (9,)
        with pytest.raises(Exception, match="disabled by configuration|Permission"):
            con.execute("SELECT * FROM read_csv('/etc/passwd')").fetchall()
