"""``governor play``: a game against the bots at a terminal (here, input from a pipe, a line at a time),
kept after quit and Ctrl-C, resumed, listed, abandoned, stored when over; every bad input one line."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from governor.cli import main
from ingest.importer import import_paths
from play.store import Store, play_folder
from tests.hostile import ROOT


def play(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], typed: str,
         *argv: str) -> tuple[int, str, str]:
    """``governor play ARGV`` in this process with ``typed`` as its standard input (not a terminal)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(typed))
    status = main(["play", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def game_id(out: str) -> str:
    return out.split("\n")[1].split()[1].rstrip(":")


@pytest.mark.parametrize(("game", "players", "names"), [
    ("san_juan", "2", "Tester (seat 0), random (seat 1, bot random)"),
    ("puerto_rico", "3", "Tester (seat 0), random (seat 1, bot random), random#2 (seat 2, bot random)")])
def test_a_whole_game_with_piped_input_ends_stored_with_its_bots_marked(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, game: str, players: str,
        names: str) -> None:
    db = tmp_path / "games.duckdb"
    status, out, err = play(monkeypatch, capsys, "1\n" * 3000, "--game", game, "--players", players, "--bots",
                            "random", "--seed", "7", "--name", "Tester", "--db", str(db))
    assert (status, err) == (0, "")
    ident = game_id(out)
    lines = out.split("\n")
    title = "San Juan" if game == "san_juan" else "Puerto Rico"
    assert lines[:3] == [f"{title}, {players} players: {names}; seed 7",
                         f"Game {ident}: resume it any time with governor play --resume {ident} --db {db}", ""]
    assert "\nYour move, Tester:\n  1. role " in out
    with duckdb.connect(str(db), read_only=True) as con:
        (stored,) = con.execute("SELECT game_id FROM games").fetchone()  # type: ignore[misc]
        scores = con.execute("SELECT name, score, tiebreak, won FROM players ORDER BY seat").fetchall()
        bots = con.execute("SELECT bot FROM players ORDER BY seat").fetchall()
    shown = ["Tester"] + ["random", "random#2"][: int(players) - 1]
    tail = ["", "Game over"] + [f"  {shown[s]}: {score} VP (tie-break {tiebreak})" + (", winner" if won else "")
                                for s, (_, score, tiebreak, won) in enumerate(scores)] + \
        [f"Stored in {db} as game {stored}.", ""]
    assert lines[-len(tail):] == tail
    assert bots == [(False,)] + [(True,)] * (int(players) - 1)
    assert Store(play_folder(db)).in_progress() == []
    # An import of the database's folder reads no game's journal as a log.
    found = import_paths([tmp_path], tmp_path / "other.duckdb", workers=1)
    assert (found.files, found.rejected, found.problems) == (0, 0, [])


def test_quit_keeps_the_game_and_resume_plays_it_to_the_same_end(monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str],
                                                                  tmp_path: Path) -> None:
    once, twice = tmp_path / "once.duckdb", tmp_path / "twice.duckdb"
    setup = ["--game", "san_juan", "--bots", "heuristic", "--seed", "3", "--name", "Tester"]
    assert play(monkeypatch, capsys, "2\n" * 3000, *setup, "--db", str(once))[0] == 0
    status, out, err = play(monkeypatch, capsys, "2\n2\nquit\n", *setup, "--db", str(twice))
    ident = game_id(out)
    assert (status, err) == (0, f"governor play: the game is kept: resume it with governor play --resume {ident} "
                                f"--db {twice}\n")
    status, out, err = play(monkeypatch, capsys, "2\n" * 3000, "--resume", ident, "--db", str(twice))
    assert (status, err) == (0, "")
    assert out.split("\n")[1] == f"Game {ident}: resume it any time with governor play --resume {ident} --db {twice}"
    assert "\n1. Tester " in out  # the moves made before are shown again
    ids = [duckdb.connect(str(db), read_only=True).execute("SELECT game_id FROM games").fetchall() for db in (once, twice)]
    assert ids[0] == ids[1] and len(ids[0]) == 1  # the same game, move for move


def test_every_bad_input_is_one_line_and_the_game_goes_on(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    typed = "0\n99\nfoo\n\nundo\n" + '{"kind": "build", "building": "Palace", "pay": []}\n' + "1\n" \
        + '{"kind": "build", "building": "City hall", "pay": []}\n' + "undo\nquit\n"
    status, out, err = play(monkeypatch, capsys, typed, "--game", "san_juan", "--seed", "7", "--name", "Tester",
                            "--bots", "random", "--db", str(db))
    ident = game_id(out)
    assert status == 0
    assert err.split("\n") == [
        "governor play: no move 0: type a number from 1 to 8, a move as listed or quit",
        "governor play: no move 99: type a number from 1 to 8, a move as listed or quit",
        "governor play: 'foo' is not a move you can make now (your 8 moves are listed by their text forms)",
        "governor play: type a number from 1 to 8, a move as listed or quit",
        "governor play: no take-back: there is no move of yours to take back",
        "governor play: illegal: move 1, seat 0 (Tester), 'build Palace pay []': seat 0 must choose a role, not "
        "'build Palace pay []' [rule turn.kind]",
        "governor play: illegal: move 2, seat 0 (Tester), 'build City hall pay []': City hall costs 5 after "
        "discounts, but 0 were paid [rule builder.cost]",
        f"governor play: the game is kept: resume it with governor play --resume {ident} --db {db}", ""]
    assert "\n1. Tester chooses the builder\n" in out and "\nTaken back: Tester to move.\n" in out
    session = Store(play_folder(db)).load(ident)
    assert (len(session.moves), session.takebacks) == (0, 1)


def test_several_people_pass_the_screen(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    status, out, err = play(monkeypatch, capsys, "1\n" * 400, "--game", "san_juan", "--players", "3", "--human",
                            "0:Ana", "--human", "2:Bruno", "--bots", "heuristic", "--seed", "4", "--db",
                            str(tmp_path / "g.duckdb"))
    assert out.split("\n")[0] == "San Juan, 3 players: Ana (seat 0), heuristic (seat 1, bot heuristic), Bruno (seat 2); seed 4"
    assert out.split("\n")[2:4] == ["", "Pass the screen to Ana, then press Enter."]
    assert "\nPass the screen to Bruno, then press Enter.\n" in out and "\nYour move, Bruno:\n" in out
    assert "undo" not in err


def test_list_and_abandon(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = str(tmp_path / "g.duckdb")
    status, out, _ = play(monkeypatch, capsys, "1\nquit\n", "--game", "san_juan", "--seed", "7", "--name", "Ana",
                          "--db", db)
    first = game_id(out)
    status, out, _ = play(monkeypatch, capsys, "", "--game", "puerto_rico", "--seed", "7", "--name", "Bo", "--db", db)
    second = game_id(out)
    status, out, err = play(monkeypatch, capsys, "", "--list", "--db", db)
    listed = out.split("\n")
    assert (status, err, len(listed)) == (0, "", 3)
    assert listed[0].startswith(f"{second}  Puerto Rico, 3 players: Bo, heuristic (bot), heuristic#2 (bot); 0 moves; "
                                "Bo to play; last played ")
    assert listed[1].startswith(f"{first}  San Juan, 2 players: Ana, heuristic (bot); 1 moves; Ana to play; last played ")
    assert play(monkeypatch, capsys, "", "--abandon", first, "--db", db) == (0, "", f"governor play: game {first} abandoned\n")
    assert play(monkeypatch, capsys, "", "--abandon", first, "--db", db) == (
        2, "", f"governor play: no game {first} in {db}.play\n")
    assert play(monkeypatch, capsys, "", "--list", "--db", db)[1].split("  ")[0] == second
    assert play(monkeypatch, capsys, "", "--list", "--db", str(tmp_path / "none.duckdb")) == (
        0, f"no game in progress in {tmp_path / 'none.duckdb'}.play\n", "")


@pytest.mark.parametrize(("argv", "message"), [
    (["--game", "chess"], "governor play: --game: unknown game 'chess' (games: san_juan, puerto_rico)"),
    ([], "governor play: --game is needed to start a game (or --resume ID, --list, --abandon ID)"),
    (["--game", "san_juan", "--players", "5"], "governor play: --players: San Juan is played by 2 to 4 players, not 5"),
    (["--game", "san_juan", "--seat", "2"], "governor play: --seat: must be a seat from 0 to 1 (several separated by "
                                            "commas, for hot-seat), or random, not '2'"),
    (["--game", "san_juan", "--human", "0:Ana", "--seat", "1"],
     "governor play: --human gives each person's seat and name: not with --seat or --name"),
    (["--game", "san_juan", "--players", "3", "--human", "0:Ana", "--human", "1:Ana"],
     "governor play: --human: 'Ana' is already the name of seat 0: choose another"),
    (["--game", "san_juan", "--bots", "best"], "governor play: --bots: unknown agent 'best' (built-in: random, "
                                               "heuristic, expert, search, search:R; or module:Class, or a .py file)"),
    (["--game", "san_juan", "--name", "heuristic"],
     "governor play: --name: 'heuristic' is already the name of the bot in seat 1: choose another"),
    (["--game", "san_juan", "--option", "fast"],
     "governor play: --option: San Juan has no option 'fast' (options: draft_start)"),
    (["--resume", "abc", "--game", "san_juan"],
     "governor play: --game sets up a new game: not with --resume (a game keeps its setup)"),
    (["--resume", "a" * 24], "governor play: no game is kept in {db}.play: no such folder"),
    (["--list", "--abandon", "x"], "governor play: argument --abandon: not allowed with argument --list "
                                   "(see governor play --help)"),
    (["--game", "san_juan", "--seed", "-3"], "governor play: argument --seed: must be an integer from 0 to "
                                             "1000000000000, not '-3' (see governor play --help)"),
])
def test_a_usage_error_is_one_line_and_status_2(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path, argv: list[str], message: str) -> None:
    db = str(tmp_path / "g.duckdb")
    assert play(monkeypatch, capsys, "", *argv, "--db", db) == (2, "", message.format(db=db) + "\n")
    assert not os.path.exists(db + ".play") or not os.listdir(db + ".play")


def test_a_database_that_cannot_take_the_game_is_refused_before_it_starts(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = tmp_path / "missing" / "g.duckdb"
    assert play(monkeypatch, capsys, "", "--game", "san_juan", "--db", str(db)) == (
        2, "", f"governor play: the finished game could not be stored: --db {db}: its folder does not exist\n")


def test_a_damaged_game_is_one_line_and_status_1(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    db = str(tmp_path / "g.duckdb")
    ident = game_id(play(monkeypatch, capsys, "1\n1\nquit\n", "--game", "san_juan", "--seed", "7", "--db", db)[1])
    path = Path(f"{db}.play") / f"{ident}.journal"
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join([lines[0], b"[]", *lines[2:]]))
    assert play(monkeypatch, capsys, "", "--resume", ident, "--db", db) == (
        1, "", f"governor play: {path}: line 2: not a JSON object\n")


def test_the_help_says_how_to_play(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--help"]) == 0
    out = capsys.readouterr().out
    for words in ("--resume ID", "--human K[:NAME]", "undo", "exit status: 0 all good"):
        assert words in " ".join(out.split())


@pytest.mark.parametrize(("sig", "status", "word"), [(signal.SIGINT, 130, "interrupted"),
                                                      (signal.SIGTERM, 143, "terminated")])
def test_ctrl_c_or_sigterm_keeps_the_game(tmp_path: Path, sig: int, status: int, word: str) -> None:
    db = tmp_path / "g.duckdb"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-m", "governor.cli", "play", "--game", "san_juan", "--seed", "7",
                              "--name", "Tester", "--db", str(db)], cwd=ROOT, env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write("1\n")
    child.stdin.flush()
    seen = []
    while not (seen and seen[-1].startswith("1. Tester chooses")):
        seen.append(child.stdout.readline().rstrip("\n"))
    while seen[-1] != "Your move, Tester:":
        seen.append(child.stdout.readline().rstrip("\n"))
    # It waits for the next move: the signal comes.
    child.send_signal(sig)
    out, err = child.communicate(timeout=30)
    ident = seen[1].split()[1].rstrip(":")
    assert (child.returncode, err) == (status, f"governor play: {word}; the game is kept: resume it with governor "
                                               f"play --resume {ident} --db {db}\n")
    session = Store(play_folder(db)).load(ident)
    assert [p.move.text() for p in session.moves] == ["role builder"]
    assert json.loads((Path(f"{db}.play") / f"{ident}.journal").read_text().split("\n")[1])["kind"] == "move"
