"""``governor winchance --lake``: a lake's table ``win_chance`` holds the rows a database's holds, each
batch committed as the lake's other batches are (a file named by a manifest); a run stopped between two
batches is continued by the next; a run again fills nothing."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from governor.cli import main


@pytest.fixture()
def stores(tmp_path: Path) -> tuple[Path, Path]:
    """The same 12 games (6 of each built-in game at its smallest player count) in a database and a lake."""
    db, lake = tmp_path / "g.duckdb", tmp_path / "lake"
    for game, players in (("san_juan", 2), ("puerto_rico", 3)):
        logs = tmp_path / game
        assert main(["simulate", "--game", game, "--players", str(players), "--games", "6", "--seed", "9",
                     "--out", str(logs)]) == 0
        assert main(["import", str(logs), "--db", str(db)]) == 0
        assert main(["import", str(logs), "--lake", str(lake)]) == 0
    return db, lake


def _db_rows(db: Path) -> list[tuple[object, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("SELECT * FROM win_chance ORDER BY ALL").fetchall()


def _lake_rows(lake: Path) -> list[tuple[object, ...]]:
    from ingest.db import reader

    with reader(str(lake)) as con:
        return con.execute("SELECT * FROM win_chance ORDER BY ALL").fetchall()


def _manifests(lake: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in sorted((lake / "_manifest").glob("*.json"))]


def test_a_lake_gets_the_rows_a_database_gets(stores: tuple[Path, Path], models: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    db, lake = stores
    assert main(["winchance", "--db", str(db), "--models", str(models), "--workers", "1"]) == 0
    capsys.readouterr()
    assert main(["winchance", "--lake", str(lake), "--models", str(models), "--workers", "2"]) == 0
    rows = _lake_rows(lake)
    assert capsys.readouterr().err == f"filled the win chance of 12 game(s) ({len(rows):,} rows) in {lake}\n"
    assert rows == _db_rows(db)
    with duckdb.connect(str(db), read_only=True) as con:
        assert len(rows) == con.execute("SELECT sum((moves + 1) * player_count) FROM games").fetchone()[0]  # type: ignore[index]
    batches = [m for m in _manifests(lake) if "win_chance" in m["files"]]  # type: ignore[operator]
    assert len(batches) == 1 and len(batches[0]["win_chance_game_ids"]) == 12  # type: ignore[arg-type]
    assert sorted(p.name for p in (lake / "win_chance").iterdir()) == [
        Path(batches[0]["files"]["win_chance"][0]).name]  # type: ignore[index]
    assert main(["winchance", "--lake", str(lake), "--models", str(models)]) == 0
    assert capsys.readouterr().err == f"filled the win chance of 0 game(s) (0 rows) in {lake}\n"
    assert _lake_rows(lake) == rows


def test_a_lake_run_stopped_between_two_batches_is_continued_by_the_next(
        stores: tuple[Path, Path], models: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from analysis.winchance import fill
    from analysis.winchance.lake import LakeStore

    db, lake = stores
    assert main(["winchance", "--db", str(db), "--models", str(models), "--workers", "1"]) == 0
    monkeypatch.setattr(fill, "BATCH_GAMES", 5)
    monkeypatch.setattr(fill, "TASK_GAMES", 1)
    add = LakeStore.add
    calls = []

    def stopping(self: LakeStore, rows: object, ids: list[str]) -> tuple[int, int]:
        calls.append(len(ids))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return add(self, rows, ids)  # type: ignore[arg-type]

    monkeypatch.setattr(LakeStore, "add", stopping)
    assert main(["winchance", "--lake", str(lake), "--models", str(models), "--workers", "1"]) == 130
    assert len({row[0] for row in _lake_rows(lake)}) == 5
    monkeypatch.setattr(LakeStore, "add", add)
    capsys.readouterr()
    assert main(["winchance", "--lake", str(lake), "--models", str(models), "--workers", "1"]) == 0
    assert "filled the win chance of 7 game(s)" in capsys.readouterr().err
    assert _lake_rows(lake) == _db_rows(db)
    # The stopped run's first batch of 5, then the next run's 5 and 2: three files.
    assert len(list((lake / "win_chance").iterdir())) == 3


def test_cluster_needs_a_lake(stores: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    db, _ = stores
    assert main(["winchance", "--db", str(db), "--cluster", "local"]) == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(
        "--cluster fills the games of a lake: give --lake DIR too")


def test_a_lake_is_filled_on_a_local_cluster_as_on_this_machine(stores: tuple[Path, Path], models: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("distributed", reason="missing optional dependency: the cluster extra (distributed)")
    db, lake = stores
    assert main(["winchance", "--db", str(db), "--models", str(models), "--workers", "1"]) == 0
    capsys.readouterr()
    assert main(["winchance", "--lake", str(lake), "--models", str(models), "--cluster", "local", "--workers", "2",
                 "--progress", "never"]) == 0
    rows = _lake_rows(lake)
    assert capsys.readouterr().err.splitlines()[-1] == f"filled the win chance of 12 game(s) ({len(rows):,} rows) in {lake}"
    assert rows == _db_rows(db)
