"""The toy game installed for real: pip builds and installs ``examples/toy_game`` (offline, into a
folder of the test's own, never into the environment the suite runs in), and then, in processes whose
path holds that install and no copy of the game from the checkout, ``governor simulate --game toy``,
``validate``, ``import``, ``query``, ``replay`` and ``arena`` work with no change to Governor."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.examples.conftest import ROOT, TOY, environment_with, governor_on


@pytest.fixture(scope="module")
def site(pip_installed_toy: Path) -> Path:
    """The folder pip installed the toy game into (``conftest.pip_installed_toy``)."""
    return pip_installed_toy


def test_pip_installs_the_package_built_by_setuptools_with_its_data_and_entry_point(site: Path) -> None:
    info = site / "governor_toy_game-0.1.0.dist-info"
    assert sorted(p.name for p in site.iterdir()) == [info.name, "toy_game"]
    # The backend its pyproject.toml declares, as a real package's: no build code of the example's own.
    generator = [line for line in (info / "WHEEL").read_text(encoding="utf-8").splitlines()
                 if line.startswith("Generator: ")]
    assert [line.split(" (")[0] for line in generator] == ["Generator: setuptools"]
    assert (info / "entry_points.txt").read_text(encoding="utf-8") == "[governor.games]\ntoy = toy_game:GAME\n"
    assert sorted(p.name for p in (site / "toy_game").iterdir()) == sorted(
        p.name for p in TOY.joinpath("toy_game").iterdir() if p.name != "__pycache__")
    found = subprocess.run(
        [sys.executable, "-c", "import sys, toy_game\nfrom replay.registry import game_names\n"
         "print(toy_game.__file__)\nprint(' '.join(game_names()))\n"
         f"print(any(p.startswith({str(TOY)!r}) for p in sys.path))"],
        cwd=ROOT, env=environment_with(site), capture_output=True, text=True, timeout=120)
    assert (found.returncode, found.stderr) == (0, "")
    assert found.stdout.splitlines() == [str(site / "toy_game" / "__init__.py"), "san_juan puerto_rico toy", "False"]


def test_the_command_simulates_validates_imports_queries_replays_and_runs_the_arena(site: Path,
                                                                                  tmp_path: Path) -> None:
    logs, db, arena = tmp_path / "logs", tmp_path / "toy.duckdb", tmp_path / "arena"
    run = governor_on(site, "simulate", "--game", "toy", "--players", "2", "3", "4", "--games", "6", "--seed", "3",
                    "--bot", "mixed", "--out", str(logs))
    assert (run.returncode, run.stdout, run.stderr) == (0, "", f"wrote 6 game(s) to 6 file(s) in {logs}\n")
    written = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(logs.iterdir())]
    assert sorted(len(log["players"]) for log in written) == [2, 2, 3, 3, 4, 4]

    run = governor_on(site, "validate", str(logs))
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "6 good, 0 bad game(s) in 6 file(s)\n")

    run = governor_on(site, "import", str(logs), "--db", str(db))
    assert run.returncode == 0, run.stderr
    assert run.stderr.startswith(f"{db}: 6 imported, 0 duplicates skipped, 0 rejected (6 games in 6 files, ")

    # Every move is a row of ``moves``; the table and each seat have a row per step, step 0 included.
    moves = sum(len(log["moves"]) for log in written)
    seat_steps = sum((len(log["moves"]) + 1) * len(log["players"]) for log in written)
    run = governor_on(site, "query", "--db", str(db), "--format", "json",
                    "select (select count(*) from games where game = 'toy') as games, "
                    "(select count(*) from moves) as moves, (select count(*) from toy_states) as states, "
                    "(select count(*) from toy_player_states) as seats")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [{"games": 6, "moves": moves, "states": moves + 6, "seats": seat_steps}]

    first = sorted(logs.iterdir())[0]
    winners = ", ".join(written[0]["players"][seat]["name"] for seat in written[0]["result"]["winners"])
    run = governor_on(site, "replay", str(first))
    assert (run.returncode, run.stderr) == (0, "")
    assert f"Game over; winner(s): {winners}" in run.stdout.splitlines()
    assert run.stdout.splitlines()[-1] == "  then: the game ends; hands are shown"

    run = governor_on(site, "arena", "--game", "toy", "--players", "2", "--agents", "random", "heuristic",
                    "--games", "2", "--seed", "1", "--out", str(arena))
    log = arena / "arena-toy-2p-seed1.jsonl"
    assert (run.returncode, run.stderr) == (0, f"governor arena: 2 games written to {log}\n")
    assert [line.split()[:2] for line in run.stdout.splitlines()[2:]] == [["heuristic", "2"], ["random", "2"]]
    run = governor_on(site, "validate", str(log))
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "2 good, 0 bad game(s) in 1 file(s)\n")
