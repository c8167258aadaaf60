"""Agents that break every rule of the protocol, or the arena itself, each against the arena: every one
is that agent's fault (recorded in the log's ``meta.faults``, the game and the run going on) or, when
it cannot even be loaded, one line and exit status 2 before any game. Nothing an agent does reaches the
command's standard output or the written log, or stops the arena.

The agents are written into a file of the test's folder, as a user would write them."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from governor.cli import main

AGENTS = '''
import dataclasses, os, signal, sys, time
from governor.arena import Agent


class Boom(BaseException):
    pass


class ExitZero(Agent):
    name = "exit-zero"
    def act(self, observation, legal_moves):
        sys.exit(0)


class ExitText(Agent):
    name = "exit-text"
    def act(self, observation, legal_moves):
        sys.exit("bye")


class Interrupts(Agent):
    name = "interrupts"
    def act(self, observation, legal_moves):
        raise KeyboardInterrupt


class OwnBase(Agent):
    name = "own-base"
    def act(self, observation, legal_moves):
        raise Boom("boom")


class OsExit(Agent):
    name = "os-exit"
    def act(self, observation, legal_moves):
        os._exit(0)


class KillsItself(Agent):
    name = "kills-itself"
    def act(self, observation, legal_moves):
        os.kill(os.getpid(), signal.SIGKILL)


class StartExits(Agent):
    name = "start-exits"
    def on_game_start(self, game, seat, players, seed):
        raise SystemExit(3)
    def act(self, observation, legal_moves):
        return legal_moves[0]


class EndInterrupts(Agent):
    name = "end-interrupts"
    def on_game_end(self, observation, result):
        raise KeyboardInterrupt
    def act(self, observation, legal_moves):
        return legal_moves[0]


class BadRepr:
    def __repr__(self):
        raise SystemExit("no repr")


class ReprRaises(Agent):
    name = "repr-raises"
    def act(self, observation, legal_moves):
        return BadRepr()


class EqualsAll:
    def __eq__(self, other):
        return True
    def __hash__(self):
        return 0


class ReturnsEqualsAll(Agent):
    name = "equals-all"
    def act(self, observation, legal_moves):
        return EqualsAll()


class MoveSubclass(Agent):
    name = "move-subclass"
    def act(self, observation, legal_moves):
        base = type(legal_moves[0])
        fields = {f.name: getattr(legal_moves[0], f.name) for f in dataclasses.fields(base)}
        try:
            liar = type("Liar", (base,), {"__eq__": lambda self, other: True, "__hash__": lambda self: 0})
            return liar(**fields)
        except TypeError:  # compiled engines: their move classes cannot be subclassed at all
            return EqualsAll()


class AppendsIllegal(Agent):
    """Appends a move of an earlier decision that is not legal now (of a kind that is) to the list, and
    returns it."""
    name = "appends-illegal"
    def on_game_start(self, game, seat, players, seed):
        self.earlier = []
    def act(self, observation, legal_moves):
        kinds = {type(m) for m in legal_moves}
        stale = [m for m in self.earlier if m not in legal_moves and type(m) in kinds]
        self.earlier = list(legal_moves)
        if not stale:
            return legal_moves[0]
        legal_moves.append(stale[0])
        return legal_moves[-1]


class Prints(Agent):
    name = "prints"
    def on_game_start(self, game, seat, players, seed):
        print("printed at the start")
        os.write(1, b"written to file descriptor 1\\n")
    def act(self, observation, legal_moves):
        print("printed in act")
        return legal_moves[-1]


class Forks(Agent):
    name = "forks"
    def act(self, observation, legal_moves):
        os.fork()  # both copies go on and answer
        return legal_moves[0]


class Sleeps(Agent):
    """Sleeps past its budget on its first decision of each game: its host's alarm stops it."""
    name = "sleeps"
    def on_game_start(self, game, seat, players, seed):
        self.decisions = 0
    def act(self, observation, legal_moves):
        self.decisions += 1
        if self.decisions == 1:
            time.sleep(30)
        return legal_moves[0]


class SwallowsTimeout(Agent):
    """Swallows the alarm on its first decision of each game, and goes on sleeping."""
    name = "swallows"
    def on_game_start(self, game, seat, players, seed):
        self.decisions = 0
    def act(self, observation, legal_moves):
        self.decisions += 1
        while self.decisions == 1:
            try:
                time.sleep(30)
            except BaseException:
                pass
        return legal_moves[0]


class StuckInC(Agent):
    """Blocks the alarm (as C code that never returns to Python would) on its first decision."""
    name = "stuck-in-c"
    def on_game_start(self, game, seat, players, seed):
        self.decisions = 0
    def act(self, observation, legal_moves):
        self.decisions += 1
        if self.decisions == 1:
            signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])
            time.sleep(30)
        return legal_moves[0]


class BadName(Agent):
    @property
    def name(self):
        raise ValueError("no name today")
    def act(self, observation, legal_moves):
        return legal_moves[0]


class StrRaises:
    def __str__(self):
        raise ValueError("no version")


class BadVersion(Agent):
    name = "bad-version"
    version = StrRaises()
    def act(self, observation, legal_moves):
        return legal_moves[0]


class Invisible(Agent):
    name = "\\u200b\\u200b"
    def act(self, observation, legal_moves):
        return legal_moves[0]


class Reversed(Agent):
    name = "evil\\u202eredli"
    def act(self, observation, legal_moves):
        return legal_moves[0]


class KillsItsWorker(Agent):
    """Kills the arena's worker process that started its own (never the arena itself: with one worker
    its process's parent is the arena, here the test's process)."""
    name = "kills-its-worker"
    def act(self, observation, legal_moves):
        if os.getppid() != int(os.environ["ARENA_TEST_PID"]):
            os.kill(os.getppid(), signal.SIGKILL)
        return legal_moves[0]


class InitExits(Agent):
    def __init__(self):
        sys.exit(0)
    def act(self, observation, legal_moves):
        return legal_moves[0]
'''


@pytest.fixture(scope="module")
def agents(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("agents") / "hostile.py"
    path.write_text(AGENTS, encoding="utf-8")
    return path


def arena(capfd: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``governor arena ARGV`` in this process: its status, standard output and standard error (at the
    file descriptors: an agent host writes there)."""
    status = main(["arena", *argv])
    out, err = capfd.readouterr()
    return status, out, err


def logs(folder: Path) -> list[dict[str, Any]]:
    (log,) = folder.iterdir()
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def _seat(game: dict[str, Any], name: str) -> int:
    return next(a["seat"] for a in game["meta"]["agents"] if a["name"] == name)


def _play_two(capfd: pytest.CaptureFixture[str], tmp_path: Path, spec: str, *more: str) -> tuple[str, str, list[dict[str, Any]]]:
    """Two San Juan games of ``spec`` against ``random``: exit 0, the one closing line, the leaderboard
    of two agents of two games each, two games in the log; its output and the logs."""
    out_dir = tmp_path / "out"
    status, out, err = arena(capfd, "--game", "san_juan", "--players", "2", "--agents", "random", spec,
                             "--games", "2", "--seed", "1", "--out", str(out_dir), "--json", *more)
    assert status == 0, err
    written = f"governor arena: 2 games written to {out_dir / 'arena-san_juan-2p-seed1.jsonl'}\n"
    assert err.endswith(written) and "Traceback" not in err
    board = json.loads(out)
    assert [row["games"] for row in board] == [2, 2] and "random" in {row["agent"] for row in board}
    games = logs(out_dir)
    assert len(games) == 2
    return out, err, games


@pytest.mark.parametrize(("cls", "kind", "detail"), [
    ("ExitZero", "error", "SystemExit: 0"),
    ("ExitText", "error", "SystemExit: bye"),
    ("Interrupts", "error", "KeyboardInterrupt"),
    ("OwnBase", "error", "Boom: boom"),
    ("ReprRaises", "illegal", "not a legal move: <BadRepr object>"),
    ("ReturnsEqualsAll", "illegal", "not a legal move: <EqualsAll object>"),
])
def test_an_agent_that_misbehaves_at_every_decision_commits_a_fault_each_time(
        capfd: pytest.CaptureFixture[str], tmp_path: Path, agents: Path, cls: str, kind: str, detail: str) -> None:
    _, _, games = _play_two(capfd, tmp_path, f"{agents}:{cls}")
    name = {"ExitZero": "exit-zero", "ExitText": "exit-text", "Interrupts": "interrupts", "OwnBase": "own-base",
            "ReprRaises": "repr-raises", "ReturnsEqualsAll": "equals-all"}[cls]
    for game in games:
        seat = _seat(game, name)
        faults = game["meta"]["faults"]
        decisions = sum(1 for move in game["moves"] if move["seat"] == seat)
        assert faults and len(faults) <= decisions
        assert {(f["seat"], f["kind"], f["detail"]) for f in faults} == {(seat, kind, detail)}


def test_an_object_that_claims_to_equal_every_move_is_not_a_move(capfd: pytest.CaptureFixture[str], tmp_path: Path,
                                                                 agents: Path) -> None:
    _, _, games = _play_two(capfd, tmp_path, f"{agents}:MoveSubclass")
    for game in games:
        faults = game["meta"]["faults"]
        assert faults and {(f["seat"], f["kind"]) for f in faults} == {(_seat(game, "move-subclass"), "illegal")}
        assert all(f["detail"].startswith("not a legal move: ") for f in faults)


def test_a_move_appended_to_the_list_it_was_given_is_checked_against_the_arenas_own(
        capfd: pytest.CaptureFixture[str], tmp_path: Path, agents: Path) -> None:
    _, _, games = _play_two(capfd, tmp_path, f"{agents}:AppendsIllegal")
    for game in games:
        faults = game["meta"]["faults"]
        assert faults and {(f["seat"], f["kind"]) for f in faults} == {(_seat(game, "appends-illegal"), "illegal")}
        # The arena names the move it parsed from the answer: its short text, not a Python repr.
        assert all(f["detail"].startswith("not a legal move: ") and "(" not in f["detail"] for f in faults)


@pytest.mark.parametrize(("cls", "name", "detail"), [
    ("OsExit", "os-exit", "its process ended (exit status 0)"),
    ("KillsItself", "kills-itself", "its process was killed by SIGKILL"),
])
def test_an_agent_whose_process_ends_is_out_of_that_game_and_back_for_the_next(
        capfd: pytest.CaptureFixture[str], tmp_path: Path, agents: Path, cls: str, name: str, detail: str) -> None:
    _, _, games = _play_two(capfd, tmp_path, f"{agents}:{cls}")
    for game in games:
        seat = _seat(game, name)
        first = next(m for m, move in enumerate(game["moves"], 1) if move["seat"] == seat)
        # One fault a game, at its first decision: a new process plays its next game.
        assert game["meta"]["faults"] == [{"move": first, "seat": seat, "kind": "crash", "detail": detail}]


def test_an_agent_whose_hooks_raise_commits_a_fault_and_its_games_count(capfd: pytest.CaptureFixture[str],
                                                                        tmp_path: Path, agents: Path) -> None:
    _, _, games = _play_two(capfd, tmp_path, f"{agents}:StartExits")
    for game in games:
        assert game["meta"]["faults"] == [{"move": 0, "seat": _seat(game, "start-exits"), "kind": "error",
                                           "detail": "on_game_start raised SystemExit: 3"}]
    _, _, games = _play_two(capfd, tmp_path / "end", f"{agents}:EndInterrupts")
    for game in games:
        assert game["meta"]["faults"] == [{"move": len(game["moves"]), "seat": _seat(game, "end-interrupts"),
                                           "kind": "error", "detail": "on_game_end raised KeyboardInterrupt"}]


def test_what_an_agent_prints_goes_to_standard_error(capfd: pytest.CaptureFixture[str], tmp_path: Path,
                                                     agents: Path) -> None:
    module = tmp_path / "loud.py"
    module.write_text(f"import sys\nsys.path.insert(0, {str(agents.parent)!r})\nprint('printed at import')\n"
                      "from hostile import Prints\n", encoding="utf-8")
    out, err, games = _play_two(capfd, tmp_path, f"{module}:Prints")
    assert "printed" not in out and "written" not in out  # the leaderboard alone: it was read as JSON
    assert err.count("printed at import\n") == 1
    assert err.count("printed at the start\n") == err.count("written to file descriptor 1\n") == 2
    assert err.count("printed in act\n") == sum(1 for g in games for m in g["moves"] if m["seat"] == _seat(g, "prints"))
    assert all("faults" not in game["meta"] for game in games)


def test_a_copy_of_an_agent_made_by_fork_writes_nothing(capfd: pytest.CaptureFixture[str], tmp_path: Path,
                                                        agents: Path) -> None:
    _, _, games = _play_two(capfd, tmp_path, f"{agents}:Forks")
    assert [game["source_id"] for game in games] == ["arena-san_juan-2p-1-000000", "arena-san_juan-2p-1-000001"]
    assert all("faults" not in game["meta"] for game in games)


@pytest.mark.parametrize(("cls", "name", "detail"), [
    ("Sleeps", "sleeps", "no answer within 0.1 s"),
    ("SwallowsTimeout", "swallows", "no answer within 0.1 s: its process was stopped"),
    ("StuckInC", "stuck-in-c", "no answer within 0.1 s: its process was stopped"),
])
def test_an_agent_past_its_time_is_stopped_whatever_it_does(capfd: pytest.CaptureFixture[str], tmp_path: Path,
                                                            agents: Path, cls: str, name: str, detail: str) -> None:
    _, _, games = _play_two(capfd, tmp_path, f"{agents}:{cls}", "--budget", "0.1")
    for game in games:
        seat = _seat(game, name)
        first = next(m for m, move in enumerate(game["moves"], 1) if move["seat"] == seat)
        assert game["meta"]["faults"] == [{"move": first, "seat": seat, "kind": "timeout", "detail": detail}]


def test_with_workers_an_agent_whose_process_dies_is_its_fault_and_the_rest_goes_on(
        capfd: pytest.CaptureFixture[str], tmp_path: Path, agents: Path) -> None:
    out_dir = tmp_path / "out"
    status, out, err = arena(capfd, "--game", "san_juan", "--players", "2", "--agents", "random", "heuristic",
                             f"{agents}:KillsItself", f"{agents}:OsExit", "--games", "12", "--workers", "2",
                             "--out", str(out_dir), "--json")
    assert status == 0, err
    assert err == f"governor arena: 12 games written to {out_dir / 'arena-san_juan-2p-seed0.jsonl'}\n"
    rows = {row["agent"]: row for row in json.loads(out)}
    assert {name: row["games"] for name, row in rows.items()} == dict.fromkeys(
        ["random", "heuristic", "kills-itself", "os-exit"], 6)
    games = logs(out_dir)
    assert [g["source_id"][-2:] for g in games] == [f"{i:02d}" for i in range(12)]
    for game in games:
        crashed = {f["seat"] for f in game["meta"].get("faults", [])}
        hostile = {a["seat"] for a in game["meta"]["agents"] if a["name"] in ("kills-itself", "os-exit")}
        assert crashed == hostile
    assert rows["kills-itself"]["faults_by_kind"] == rows["os-exit"]["faults_by_kind"] == {"crash": 6}


def test_a_worker_killed_from_outside_stops_the_arena_with_one_line(
        capfd: pytest.CaptureFixture[str], tmp_path: Path, agents: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The arena's own process died, not an agent's: nothing to blame, nothing half-written kept, no hang.
    monkeypatch.setenv("ARENA_TEST_PID", str(os.getpid()))
    out_dir = tmp_path / "out"
    status, out, err = arena(capfd, "--game", "san_juan", "--players", "2", "--agents", "random",
                             f"{agents}:KillsItsWorker", "--games", "8", "--workers", "2", "--out", str(out_dir))
    assert (status, out, err) == (2, "", "governor arena: a worker process died (killed from outside?): the arena "
                                         "stopped, no log written\n")
    assert list(out_dir.iterdir()) == []


@pytest.mark.parametrize(("cls", "line"), [
    ("BadName", "{spec}: reading its name raised ValueError: no name today"),
    ("BadVersion", "{spec}: its version must be a string, not StrRaises"),
    ("Invisible", "{spec}: bad name: a player name may not be empty: '\\u200b\\u200b' shows only invisible characters"),
    ("Reversed", "{spec}: bad name: a player name may not hold control characters: 'evil\\u202eredli'"),
    ("InitExits", "{spec}: SystemExit: 0"),
])
def test_an_agent_that_cannot_be_loaded_stops_the_arena_before_any_game(
        capfd: pytest.CaptureFixture[str], tmp_path: Path, agents: Path, cls: str, line: str) -> None:
    spec = f"{agents}:{cls}"
    status, out, err = arena(capfd, "--game", "san_juan", "--players", "2", "--agents", "random", spec,
                             "--out", str(tmp_path / "out"))
    assert (status, out, err) == (2, "", f"governor arena: {line.format(spec=spec)}\n")
    assert list((tmp_path / "out").iterdir()) == []


@pytest.mark.parametrize(("code", "line"), [
    ("import sys\nsys.exit(0)\n", "{spec}: SystemExit while loading: 0"),
    ("import os\nos._exit(0)\n", "{spec}: its process ended (exit status 0) while loading"),
    ("raise KeyboardInterrupt\n", "{spec}: KeyboardInterrupt while loading"),
])
def test_an_agent_module_that_exits_at_import_stops_the_arena_before_any_game(
        capfd: pytest.CaptureFixture[str], tmp_path: Path, code: str, line: str) -> None:
    module = tmp_path / "leaves.py"
    module.write_text(code, encoding="utf-8")
    spec = f"{module}:Leaves"
    status, out, err = arena(capfd, "--game", "san_juan", "--players", "2", "--agents", "random", spec)
    assert (status, out, err) == (2, "", f"governor arena: {line.format(spec=spec)}\n")


def test_no_agent_host_is_left_running(capfd: pytest.CaptureFixture[str], tmp_path: Path, agents: Path) -> None:
    from play import hosted

    _play_two(capfd, tmp_path, f"{agents}:Forks")
    assert hosted._LIVE == set()
    children = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
    if children.exists():
        left = [pid for pid in children.read_text().split() if "play.host" in
                Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")]
        assert left == []
