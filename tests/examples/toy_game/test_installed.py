"""The toy game installed for real: pip builds and installs ``examples/toy_game`` (offline, into a
folder of the test's own, never into the environment the suite runs in), and then, in processes whose
path holds that install and no copy of the game from the checkout, ``governor simulate --game toy``,
``validate``, ``import``, ``query``, ``replay`` and ``arena`` work with no change to Governor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.examples.conftest import ROOT, TOY


def _tree(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``folder`` with its size and modification time, Python's caches aside."""
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(folder.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder pip installed the toy game into (``pip install --target``), from the checkout's
    ``examples/toy_game``: with no network (``--no-index``), no build environment of its own (the
    package's backend is the standard library) and no pip configuration of the machine."""
    target = tmp_path_factory.mktemp("toy-site")
    before = _tree(TOY)
    run = subprocess.run([sys.executable, "-m", "pip", "--isolated", "install", "--no-deps", "--no-index",
                          "--no-build-isolation", "--no-cache-dir", "--no-compile", "--disable-pip-version-check",
                          "--quiet", "--target", str(target), str(TOY)],
                         capture_output=True, text=True, timeout=300)
    assert (run.returncode, run.stderr) == (0, ""), run.stdout
    # Building the package wrote nothing into the checkout (no build/ or *.egg-info folder).
    assert _tree(TOY) == before
    return target


def _environment(site: Path) -> dict[str, str]:
    """The environment of a process whose path holds the install, and the checkout's own packages
    (the current folder, for ``python -m governor.cli``) but not ``examples/toy_game``."""
    return {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONPATH": str(site)}


def _governor(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "governor.cli", *args], cwd=ROOT, env=_environment(site),
                          capture_output=True, text=True, timeout=300)


def test_pip_installs_the_package_with_its_entry_point(site: Path) -> None:
    info = site / "governor_toy_game-0.1.0.dist-info"
    assert sorted(p.name for p in site.iterdir()) == [info.name, "toy_game"]
    assert (info / "entry_points.txt").read_text(encoding="utf-8") == "[governor.games]\ntoy = toy_game:GAME\n\n"
    assert sorted(p.name for p in (site / "toy_game").iterdir()) == sorted(
        p.name for p in TOY.joinpath("toy_game").iterdir() if p.name != "__pycache__")
    found = subprocess.run(
        [sys.executable, "-c", "import sys, toy_game\nfrom replay.registry import game_names\n"
         "print(toy_game.__file__)\nprint(' '.join(game_names()))\n"
         f"print(any(p.startswith({str(TOY)!r}) for p in sys.path))"],
        cwd=ROOT, env=_environment(site), capture_output=True, text=True, timeout=120)
    assert (found.returncode, found.stderr) == (0, "")
    assert found.stdout.splitlines() == [str(site / "toy_game" / "__init__.py"), "san_juan puerto_rico toy", "False"]


def test_the_command_simulates_validates_imports_queries_replays_and_runs_the_arena(site: Path,
                                                                                  tmp_path: Path) -> None:
    logs, db, arena = tmp_path / "logs", tmp_path / "toy.duckdb", tmp_path / "arena"
    run = _governor(site, "simulate", "--game", "toy", "--players", "2", "3", "4", "--games", "6", "--seed", "3",
                    "--bot", "mixed", "--out", str(logs))
    assert (run.returncode, run.stdout, run.stderr) == (0, "", f"wrote 6 game(s) to 6 file(s) in {logs}\n")
    written = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(logs.iterdir())]
    assert sorted(len(log["players"]) for log in written) == [2, 2, 3, 3, 4, 4]

    run = _governor(site, "validate", str(logs))
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "6 good, 0 bad game(s) in 6 file(s)\n")

    run = _governor(site, "import", str(logs), "--db", str(db))
    assert run.returncode == 0, run.stderr
    assert run.stderr.startswith(f"{db}: 6 imported, 0 duplicates skipped, 0 rejected (6 games in 6 files, ")

    # Every move is a row of ``moves``; the table and each seat have a row per step, step 0 included.
    moves = sum(len(log["moves"]) for log in written)
    seat_steps = sum((len(log["moves"]) + 1) * len(log["players"]) for log in written)
    run = _governor(site, "query", "--db", str(db), "--format", "json",
                    "select (select count(*) from games where game = 'toy') as games, "
                    "(select count(*) from moves) as moves, (select count(*) from toy_states) as states, "
                    "(select count(*) from toy_player_states) as seats")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [{"games": 6, "moves": moves, "states": moves + 6, "seats": seat_steps}]

    first = sorted(logs.iterdir())[0]
    winners = ", ".join(written[0]["players"][seat]["name"] for seat in written[0]["result"]["winners"])
    run = _governor(site, "replay", str(first))
    assert (run.returncode, run.stderr) == (0, "")
    assert f"Game over; winner(s): {winners}" in run.stdout.splitlines()
    assert run.stdout.splitlines()[-1] == "  then: the game ends; hands are shown"

    run = _governor(site, "arena", "--game", "toy", "--players", "2", "--agents", "random", "heuristic",
                    "--games", "2", "--seed", "1", "--out", str(arena))
    log = arena / "arena-toy-2p-seed1.jsonl"
    assert (run.returncode, run.stderr) == (0, f"governor arena: 2 games written to {log}\n")
    assert [line.split()[:2] for line in run.stdout.splitlines()[2:]] == [["heuristic", "2"], ["random", "2"]]
    run = _governor(site, "validate", str(log))
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "2 good, 0 bad game(s) in 1 file(s)\n")
