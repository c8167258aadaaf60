"""``governor winchance --db``: the table ``win_chance`` holds every seat at every step of every game,
summing to 1, the result at a finished game's end; a run continues where another stopped; a game
without a model or that does not replay is one line and the others go on."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from governor.cli import main


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    """A database of 6 games of each built-in game at its smallest player count."""
    path = tmp_path / "g.duckdb"
    for game, players in (("san_juan", 2), ("puerto_rico", 3)):
        logs = tmp_path / game
        assert main(["simulate", "--game", game, "--players", str(players), "--games", "6", "--seed", "9",
                     "--out", str(logs)]) == 0
        assert main(["import", str(logs), "--db", str(path)]) == 0
    return path


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_every_step_of_every_game_gets_every_seats_chance(db: Path, models: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["winchance", "--db", str(db), "--models", str(models)]) == 0
    counted = _rows(db, "SELECT count(*) FROM win_chance")[0][0]
    # One row per seat at each step: the initial state and one per move of the log.
    expected = _rows(db, "SELECT sum((moves + 1) * player_count) FROM games")[0][0]
    assert counted == expected
    assert capsys.readouterr().err.endswith(f"filled the win chance of 12 game(s) ({counted:,} rows) in {db}\n")
    sums = _rows(db, "SELECT min(s), max(s) FROM (SELECT sum(win_chance) AS s FROM win_chance GROUP BY game_id, step)")
    assert sums[0][0] == pytest.approx(1.0) and sums[0][1] == pytest.approx(1.0)
    # Each game's last step: 1 for its sole winner (a tie: shared), 0 for the others.
    last = _rows(db, """
        SELECT w.game_id, w.seat, w.win_chance, p.won, len(g.winners) FROM win_chance w
        JOIN games g USING (game_id) JOIN players p ON p.game_id = w.game_id AND p.seat = w.seat
        WHERE w.step = g.moves""")
    assert len(last) == 6 * 2 + 6 * 3
    for _, _, chance, won, winners in last:
        assert chance == (1.0 / winners if won else 0.0)


def test_a_second_run_fills_only_the_games_without_rows(db: Path, models: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["winchance", "--db", str(db), "--models", str(models)]) == 0
    before = _rows(db, "SELECT * FROM win_chance ORDER BY ALL")
    with duckdb.connect(str(db)) as con:
        gone = con.execute("SELECT min(game_id) FROM games").fetchone()[0]  # type: ignore[index]
        con.execute("DELETE FROM win_chance WHERE game_id = ?", [gone])
    capsys.readouterr()
    assert main(["winchance", "--db", str(db), "--models", str(models)]) == 0
    assert "filled the win chance of 1 game(s)" in capsys.readouterr().err
    assert _rows(db, "SELECT * FROM win_chance ORDER BY ALL") == before


def test_a_bad_game_or_a_missing_model_is_one_line_and_the_rest_goes_on(db: Path, models: Path, tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    only = tmp_path / "only"
    only.mkdir()
    (only / "san_juan-2.json.gz").write_bytes((models / "san_juan-2.json.gz").read_bytes())
    with duckdb.connect(str(db)) as con:
        bad = con.execute("SELECT min(game_id) FROM games WHERE game = 'san_juan'").fetchone()[0]  # type: ignore[index]
        con.execute("UPDATE games SET log = '{\"format\": 1}' WHERE game_id = ?", [bad])
    assert main(["winchance", "--db", str(db), "--models", str(only)]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert sorted(lines[:2]) == [
        f"governor winchance: {only / 'puerto_rico-3.json.gz'}: no win-chance model of puerto_rico with 3 players "
        "(build it with governor train --game puerto_rico --players 3): its games are left without win chances",
        f"governor winchance: game {bad}: format: expected the string 'governor-log', got int; "
        "left without win chances",
    ]
    assert lines[2:] == [
        f"filled the win chance of 5 game(s) ({_rows(db, 'SELECT count(*) FROM win_chance')[0][0]:,} rows) in {db}; "
        "7 game(s) left out",
    ]


def test_a_missing_database_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["winchance", "--db", str(tmp_path / "none.duckdb")]) == 2
    assert capsys.readouterr().err == (f"governor winchance: --db {tmp_path / 'none.duckdb'}: no such database file "
                                       "(import some logs first: governor import PATH)\n")


def test_workers_give_the_rows_of_one_worker(db: Path, models: Path, tmp_path: Path) -> None:
    other = tmp_path / "copy.duckdb"
    other.write_bytes(db.read_bytes())
    assert main(["winchance", "--db", str(db), "--models", str(models), "--workers", "1"]) == 0
    assert main(["winchance", "--db", str(other), "--models", str(models), "--workers", "2"]) == 0
    one = _rows(db, "SELECT * FROM win_chance ORDER BY ALL")
    assert len(one) == _rows(db, "SELECT sum((moves + 1) * player_count) FROM games")[0][0]
    assert _rows(other, "SELECT * FROM win_chance ORDER BY ALL") == one


def test_the_rows_are_each_games_own_chances_whatever_the_games_asked_with_it(db: Path, models: Path) -> None:
    # A task asks the trees for the positions of several games at once: each game's rows are still
    # exactly those of the game alone.
    from analysis.winchance.fill import Models, game_chances

    assert main(["winchance", "--db", str(db), "--models", str(models), "--workers", "1"]) == 0
    found = Models(models)
    for game_id, text in _rows(db, "SELECT game_id, log FROM games ORDER BY game_id"):
        alone = game_chances(found, str(text))
        assert alone is not None and alone[0] == game_id
        stored = _rows(db, f"SELECT win_chance FROM win_chance WHERE game_id = '{game_id}' ORDER BY step, seat")
        assert [row[0] for row in stored] == alone[1].ravel().tolist()


def test_a_run_stopped_between_two_batches_is_continued_by_the_next(db: Path, models: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from analysis.winchance import fill

    clean = tmp_path / "clean.duckdb"
    clean.write_bytes(db.read_bytes())
    assert main(["winchance", "--db", str(clean), "--models", str(models), "--workers", "1"]) == 0
    monkeypatch.setattr(fill, "BATCH_GAMES", 5)
    monkeypatch.setattr(fill, "TASK_GAMES", 1)
    add = fill.DatabaseStore.add
    calls = []

    def stopping(self: fill.DatabaseStore, rows: object, ids: list[str]) -> tuple[int, int]:
        calls.append(len(ids))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return add(self, rows, ids)  # type: ignore[arg-type]

    monkeypatch.setattr(fill.DatabaseStore, "add", stopping)
    capsys.readouterr()
    assert main(["winchance", "--db", str(db), "--models", str(models), "--workers", "1"]) == 130
    assert capsys.readouterr().err.splitlines()[-1] == (
        "governor winchance: interrupted; the games filled keep their rows (run it again for the rest)")
    assert _rows(db, "SELECT count(DISTINCT game_id) FROM win_chance")[0][0] == 5
    monkeypatch.setattr(fill.DatabaseStore, "add", add)
    assert main(["winchance", "--db", str(db), "--models", str(models), "--workers", "1"]) == 0
    assert "filled the win chance of 7 game(s)" in capsys.readouterr().err
    assert _rows(db, "SELECT * FROM win_chance ORDER BY ALL") == _rows(clean, "SELECT * FROM win_chance ORDER BY ALL")


def test_games_done_are_committed_after_a_while_however_few(db: Path, models: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # A stopped run loses at most BATCH_SECONDS of work: here none, every task's games are committed.
    from analysis.winchance import fill

    monkeypatch.setattr(fill, "BATCH_SECONDS", 0.0)
    monkeypatch.setattr(fill, "TASK_GAMES", 4)
    add = fill.DatabaseStore.add
    batches: list[int] = []

    def counted(self: fill.DatabaseStore, rows: object, ids: list[str]) -> tuple[int, int]:
        batches.append(len(ids))
        return add(self, rows, ids)  # type: ignore[arg-type]

    monkeypatch.setattr(fill.DatabaseStore, "add", counted)
    assert main(["winchance", "--db", str(db), "--models", str(models), "--workers", "1"]) == 0
    assert batches == [4, 4, 4]
    assert _rows(db, "SELECT count(DISTINCT game_id) FROM win_chance")[0][0] == 12


def test_a_bug_met_by_the_trees_is_one_line_per_game_and_exit_status_3(db: Path, models: Path,
                                                                        monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    from analysis.winchance import fill
    from analysis.winchance.model import ViewModel

    chances = ViewModel.chances

    def failing(self: ViewModel, rows: object, players: int, viewers: object = None) -> object:
        if players == 3:
            raise RuntimeError("trees broken")
        return chances(self, rows, players, viewers)  # type: ignore[arg-type]

    monkeypatch.setattr(ViewModel, "chances", failing)
    monkeypatch.setattr(fill, "TASK_GAMES", 6)
    assert main(["winchance", "--db", str(db), "--models", str(models), "--workers", "1"]) == 3
    lines = capsys.readouterr().err.splitlines()
    ids = [row[0] for row in _rows(db, "SELECT game_id FROM games WHERE player_count = 3 ORDER BY game_id")]
    assert [line.split(": internal: ")[0] for line in lines[:6]] == [f"governor winchance: game {i}" for i in ids]
    assert all(line.startswith("governor winchance: game ") and "RuntimeError: trees broken" in line for line in lines[:6])
    assert lines[6].startswith("filled the win chance of 6 game(s) (")
    assert lines[6].endswith("; 6 game(s) left out")
    assert "this is a bug in governor" in lines[7]
    assert _rows(db, "SELECT count(DISTINCT game_id) FROM win_chance")[0][0] == 6
