"""The arena's outputs: checked before the first game, written under a new name of their own and renamed
only when complete, never through a planted link, never replacing another arena's log; and a schedule
that is computed, not stored, however many agents there are."""

from __future__ import annotations

import itertools
import json
import os
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import governor.arena.cli as arena_cli
from governor.arena.round_robin import run_arena, schedule
from governor.cli import main

NAME = "arena-san_juan-2p-seed4.jsonl"


def arena(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["arena", "--game", "san_juan", "--players", "2", "--games", "2", "--seed", "4", *argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def no_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """Playing any game fails the test: a refused output must be refused before the first."""
    def played(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a game was played")

    monkeypatch.setattr(arena_cli, "run_arena", played)


def test_a_planted_link_at_any_name_is_never_written_through(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    # The name the arena used to write to first, and a few of its kind.
    for name in (f".{NAME}.partial", f".{NAME}.tmp", f"{NAME}.partial"):
        (out / name).symlink_to(victim)
    status, _, err = arena(capsys, "--agents", "random", "heuristic", "--out", str(out))
    assert (status, err) == (0, f"governor arena: 2 games written to {out / NAME}\n")
    assert victim.read_text() == "keep me\n"
    assert sorted(p.name for p in out.iterdir()) == sorted([f".{NAME}.partial", f".{NAME}.tmp", f"{NAME}.partial", NAME])
    assert all((out / n).is_symlink() for n in (f".{NAME}.partial", f".{NAME}.tmp", f"{NAME}.partial"))
    assert len((out / NAME).read_text().splitlines()) == 2


def test_another_arenas_log_is_not_replaced_and_the_same_arenas_is(capsys: pytest.CaptureFixture[str],
                                                                   tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert arena(capsys, "--agents", "random", "heuristic", "--out", str(out))[0] == 0
    first = (out / NAME).read_bytes()
    # Other agents, the same seed, the same folder: refused before any game, the first log kept.
    status, stdout, err = arena(capsys, "--agents", "random", "expert", "--out", str(out))
    assert (status, stdout) == (2, "")
    assert err == (f"governor arena: {out / NAME} holds the games of another arena (other agents): not replaced "
                   "(move it away, or give another --out or --seed)\n")
    assert (out / NAME).read_bytes() == first and [p.name for p in out.iterdir()] == [NAME]
    # The same arena again: the same games, and it says it replaced its own earlier log.
    status, _, err = arena(capsys, "--agents", "random", "heuristic", "--out", str(out))
    assert (status, err) == (0, f"governor arena: 2 games written to {out / NAME} (replacing this same arena's "
                                "earlier log)\n")
    assert (out / NAME).read_bytes() == first


@pytest.mark.parametrize("content", [b"my notes\n", b"", b'{"meta": {"generator": "mine"}}\n'])
def test_a_file_of_the_logs_name_that_is_no_arena_log_is_not_replaced(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes, no_game: None) -> None:
    (tmp_path / NAME).write_bytes(content)
    status, _, err = arena(capsys, "--agents", "random", "heuristic", "--out", str(tmp_path))
    assert (status, err) == (2, f"governor arena: {tmp_path / NAME} is not this arena's log: not replaced "
                                "(move it away, or give another --out or --seed)\n")
    assert (tmp_path / NAME).read_bytes() == content


def test_a_link_or_a_pipe_at_the_logs_name_is_refused_and_left_alone(capsys: pytest.CaptureFixture[str],
                                                                     tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert arena(capsys, "--agents", "random", "heuristic", "--out", str(out))[0] == 0
    # This same arena's log, moved away and linked back: the link is neither read nor written through.
    kept = tmp_path / "kept.jsonl"
    (out / NAME).rename(kept)
    first = kept.read_bytes()
    (out / NAME).symlink_to(kept)
    status, stdout, err = arena(capsys, "--agents", "random", "heuristic", "--out", str(out))
    assert (status, stdout, err) == (2, "", f"governor arena: {out / NAME} is a symbolic link: not replaced (move it "
                                            "away, or give another --out or --seed)\n")
    assert kept.read_bytes() == first and (out / NAME).is_symlink()
    (out / NAME).unlink()
    os.mkfifo(out / NAME)  # opened for reading, it would wait for ever
    status, stdout, err = arena(capsys, "--agents", "random", "heuristic", "--out", str(out))
    assert (status, stdout, err) == (2, "", f"governor arena: {out / NAME} is not a regular file: not replaced (move "
                                            "it away, or give another --out or --seed)\n")
    # An arena's log written before arenas had an id: not known to be this arena's.
    (out / NAME).unlink()
    games = [json.loads(line) for line in first.decode().splitlines()]
    for game in games:
        del game["meta"]["arena"]
    (out / NAME).write_text("".join(json.dumps(game) + "\n" for game in games))
    status, stdout, err = arena(capsys, "--agents", "random", "heuristic", "--out", str(out))
    assert (status, stdout, err) == (2, "", f"governor arena: {out / NAME} holds the games of an earlier arena: not "
                                            "replaced (move it away, or give another --out or --seed)\n")


def test_a_database_that_cannot_take_the_games_is_refused_before_any_game(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, no_game: None) -> None:
    text = tmp_path / "notadb"
    text.write_text("hello\n")
    status, out, err = arena(capsys, "--agents", "random", "random", "--db", str(text))
    assert (status, out) == (2, "")
    assert err.startswith(f"governor arena: {text}: cannot open for writing: ") and err.count("\n") == 1
    assert "not a valid DuckDB database file" in err
    assert text.read_text() == "hello\n"
    missing = tmp_path / "nowhere" / "x.duckdb"
    assert arena(capsys, "--agents", "random", "random", "--db", str(missing)) == (
        2, "", f"governor arena: --db {missing}: its folder does not exist\n")
    assert arena(capsys, "--agents", "random", "random", "--db", str(tmp_path)) == (
        2, "", f"governor arena: --db {tmp_path}: is a folder\n")
    assert not missing.parent.exists()


def test_an_unwritable_out_folder_is_refused_before_any_game(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                            no_game: None) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    status, out, err = arena(capsys, "--agents", "random", "random", "--out", str(blocker / "sub"))
    assert (status, out) == (2, "") and err == f"governor arena: {blocker / 'sub'}: Not a directory\n"


def test_an_interrupted_arena_leaves_no_file(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    real = arena_cli.run_arena

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        on_game = args[7]

        def then_stop(index: int, record: Any) -> None:
            on_game(index, record)
            raise KeyboardInterrupt

        return real(*args[:7], then_stop, *args[8:], **kwargs)

    monkeypatch.setattr(arena_cli, "run_arena", interrupted)
    status, out, err = arena(capsys, "--agents", "random", "random", "--out", str(tmp_path))
    assert (status, out, err) == (130, "", "governor arena: interrupted\n")
    assert list(tmp_path.iterdir()) == []


def test_the_schedule_is_computed_for_each_game_not_stored() -> None:
    for agents, players in [(5, 3), (6, 2), (7, 5), (4, 4)]:
        stored = [group[shift:] + group[:shift] for group in itertools.combinations(range(agents), players)
                  for shift in range(players)]
        assert list(schedule(agents, players)) == stored
    # 60 agents in 5 seats: 27 million seatings, none of them stored.
    tracemalloc.start()
    try:
        big = schedule(120, 5)
        assert len(big) == 190_578_024 * 5
        assert big[0] == (0, 1, 2, 3, 4) and big[1] == (1, 2, 3, 4, 0)
        assert big[len(big) - 1] == (119, 115, 116, 117, 118)
        assert big[-5] == (115, 116, 117, 118, 119)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000


def test_an_arena_of_many_agents_starts_at_once() -> None:
    tracemalloc.start()
    try:
        entries, board = run_arena("puerto_rico", 5, ["random"] * 120, games=2, seed=1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(entries) == 120 and entries[-1].name == "random#120"
    assert sum(row["games"] for row in board.to_json()) == 10
    assert peak < 50_000_000


def test_the_logs_carry_the_arenas_id(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from governor.arena.round_robin import arena_id

    assert arena(capsys, "--agents", "random", "heuristic", "--out", str(tmp_path))[0] == 0
    games = [json.loads(line) for line in (tmp_path / NAME).read_text().splitlines()]
    assert {g["meta"]["arena"] for g in games} == {arena_id("san_juan", 2, 4, ["random", "heuristic"])}
    assert arena_id("san_juan", 2, 4, ["random", "heuristic"]) != arena_id("san_juan", 2, 4, ["random", "expert"])
    assert [a["spec"] for a in games[0]["meta"]["agents"]] == ["random", "heuristic"]
    assert os.access(tmp_path / NAME, os.R_OK)
