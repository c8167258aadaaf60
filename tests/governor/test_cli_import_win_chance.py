"""``governor import --win-chance``: the import, then the table ``win_chance`` filled for the games
without it (the ones imported), in the same run, with a line of its own; in a database and in a lake."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from governor.cli import main


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two folders of 3 games each: San Juan with 2 players, Puerto Rico with 3."""
    root = tmp_path_factory.mktemp("logs")
    for game, players in (("san_juan", 2), ("puerto_rico", 3)):
        assert main(["simulate", "--game", game, "--players", str(players), "--games", "3", "--seed", "4",
                     "--out", str(root / game)]) == 0
    return root / "san_juan", root / "puerto_rico"


def _counts(con: duckdb.DuckDBPyConnection) -> tuple[int, int]:
    """Rows of ``win_chance``, and the rows its games should have (a seat at each step)."""
    got = con.execute("SELECT count(*) FROM win_chance").fetchone()
    expected = con.execute("SELECT coalesce(sum((moves + 1) * player_count), 0) FROM games").fetchone()
    assert got is not None and expected is not None
    return int(got[0]), int(expected[0])


def test_an_import_fills_the_win_chance_of_the_games_it_adds(logs: tuple[Path, Path], tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "g.duckdb"
    assert main(["import", str(logs[0]), "--db", str(db), "--win-chance", "--workers", "2"]) == 0
    with duckdb.connect(str(db), read_only=True) as con:
        first, expected = _counts(con)
    assert first == expected > 0
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"{db}: 3 imported, 0 duplicates skipped, 0 rejected")
    assert err[1:] == [f"filled the win chance of 3 game(s) ({first:,} rows) in {db}"]
    # The next import fills its own games (those without rows), not the others again.
    assert main(["import", str(logs[1]), "--db", str(db), "--win-chance", "--workers", "1"]) == 0
    with duckdb.connect(str(db), read_only=True) as con:
        total, expected = _counts(con)
    assert total == expected > first
    assert capsys.readouterr().err.splitlines()[1:] == [
        f"filled the win chance of 3 game(s) ({total - first:,} rows) in {db}"]


def test_a_lake_import_fills_the_win_chance_too(logs: tuple[Path, Path], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from ingest.db import reader

    lake = tmp_path / "lake"
    assert main(["import", str(logs[0]), str(logs[1]), "--lake", str(lake), "--win-chance"]) == 0
    with reader(str(lake)) as con:
        got, expected = _counts(con)
    assert got == expected > 0
    assert capsys.readouterr().err.splitlines()[1:] == [f"filled the win chance of 6 game(s) ({got:,} rows) in {lake}"]


def test_an_import_without_it_leaves_the_table_empty(logs: tuple[Path, Path], tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    assert main(["import", str(logs[0]), "--db", str(db)]) == 0
    with duckdb.connect(str(db), read_only=True) as con:
        assert _counts(con)[0] == 0


def test_a_rejected_game_is_said_and_the_others_are_filled(logs: tuple[Path, Path], tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "some"
    folder.mkdir()
    for path in sorted(logs[0].iterdir()):
        (folder / path.name).write_bytes(path.read_bytes())
    (folder / "bad.json").write_text('{"format": 1}')
    db = tmp_path / "g.duckdb"
    assert main(["import", str(folder), "--db", str(db), "--win-chance"]) == 1
    with duckdb.connect(str(db), read_only=True) as con:
        got, expected = _counts(con)
    assert got == expected > 0
    assert capsys.readouterr().err.splitlines()[-1] == f"filled the win chance of 3 game(s) ({got:,} rows) in {db}"
