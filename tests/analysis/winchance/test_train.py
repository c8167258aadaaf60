"""``governor train``: the same arguments write the same file, byte for byte; bad arguments are one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.winchance.model import load
from governor.cli import main


def test_train_is_reproducible_from_its_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second, other = tmp_path / "a.json.gz", tmp_path / "b.json.gz", tmp_path / "c.json.gz"
    for out, seed in ((first, 5), (second, 5), (other, 6)):
        assert main(["train", "--game", "san_juan", "--players", "2", "--games", "10", "--seed", str(seed),
                     "--rollouts", "2", "--out", str(out)]) == 0
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes() != other.read_bytes()
    err = capsys.readouterr().err
    assert f"wrote the win-chance model of san_juan with 2 players (10 games, {first.stat().st_size:,} bytes) to {first}" in err
    header = load("san_juan", 2, first).header
    assert (header["seed"], header["games"], header["source"], header["bot"]) == (5, 10, "self-play", "expert")
    # The seat view learnt the bot's rollouts of its positions, the whole view the games' results.
    assert header["targets"] == {"everything": "results", "seat": "2 rollouts by expert from 4 positions a game"}


@pytest.mark.parametrize(("args", "message"), [
    (["--game", "san_juan", "--players", "5"], "san_juan is for 2 to 4 players, not 5"),
    (["--game", "chess", "--players", "2"], "unknown game 'chess' (known: san_juan, puerto_rico"),
    (["--game", "san_juan", "--players", "2", "--db", "x.duckdb", "--games", "10"],
     "--games is the number of self-play games; with --db the database's games are used"),
    (["--game", "san_juan", "--players", "2", "--db", "x.duckdb", "--rollouts", "8"],
     "--rollouts are played by the bot of the self-play; a database's games are learnt from their results"),
    (["--game", "san_juan", "--players", "2", "--rollouts", "1001"],
     "argument --rollouts: must be an integer from 0 to 1000, not '1001'"),
])
def test_bad_arguments_are_one_line(args: list[str], message: str, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", *args, "--out", str(tmp_path / "m.json.gz")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"governor train: {message}") and err.count("\n") == 1
    assert not (tmp_path / "m.json.gz").exists()


def test_an_output_that_cannot_be_written_is_said_before_any_work(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "missing" / "m.json.gz"
    assert main(["train", "--game", "san_juan", "--players", "2", "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"governor train: --out {out}: its folder does not exist\n"


def test_train_on_a_database_learns_from_its_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "g.duckdb"
    logs = tmp_path / "logs"
    assert main(["simulate", "--game", "san_juan", "--players", "2", "--games", "12", "--seed", "4",
                 "--out", str(logs)]) == 0
    assert main(["import", str(logs), "--db", str(db)]) == 0
    out = tmp_path / "m.json.gz"
    assert main(["train", "--game", "san_juan", "--players", "2", "--db", str(db), "--out", str(out)]) == 0
    header = load("san_juan", 2, out).header
    assert (header["source"], header["games"]) == ("database", 12)
    assert header["targets"] == {"everything": "results", "seat": "results"}
    # No game of that count in the database: nothing to learn from, one line, nothing written.
    assert main(["train", "--game", "san_juan", "--players", "3", "--db", str(db), "--out", str(out) + "3"]) == 1
    assert capsys.readouterr().err.endswith(
        f"governor train: {db}: no game of san_juan with 3 players to learn from\n")
    assert not Path(str(out) + "3").exists()
