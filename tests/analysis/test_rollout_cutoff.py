"""Rollouts cut short by the win-chance model (``Options.cutoff``, ``governor analyse --cutoff N``): a
cut rollout's result is the model's chance of the position it reached, a rollout that ends first is a
finished game, the race still keeps the best move, no score share is kept, and the option's errors
are one line each."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from analysis import rollouts
from analysis.accuracy import modelled
from analysis.decisions import Options, analyse_state
from analysis.rollouts import RolloutTask, play_to_end, run_task, world_rng
from analysis.winchance import model as model_files
from analysis.winchance.model import load
from analysis.winchance.predict import chances
from governor.cli import main
from replay.registry import engine_for
from replay.san_juan.cards import Role
from replay.san_juan.moves import Build, Pass
from replay.san_juan.state import Stage
from tests.replay.san_juan.positions import IP, SM, TS, position, seat

ROOT = Path(__file__).resolve().parents[2]
SJ_LOG = ROOT / "sample_logs" / "san_juan" / "san_juan-2p-seed2026-0000.json"


def _builder(state: Any) -> Any:
    """``state`` in the builder phase that seat 0 chose, seat 0 to build."""
    return replace(state, role=Role.BUILDER, roles_taken=((Role.BUILDER, 0),))


def _early() -> Any:
    """Two seats with two or three buildings: no game ends within a few moves of this."""
    return _builder(position(
        [seat(hand=[IP, SM, "Statue"], buildings=[IP] * 3), seat(hand=[IP, TS, SM], buildings=[IP, SM])],
        draw=[IP, SM, TS, "Statue", "Chapel", IP, SM] * 4, stage=Stage.PHASE, role=None, chooser=0))


def _endgame() -> Any:
    """Building the Statue wins outright; passing or building an Indigo plant loses (the position of
    ``test_racing``'s race)."""
    return _builder(position(
        [seat(hand=["Statue", IP, IP], buildings=[IP] * 11), seat(hand=[IP, "Statue"], buildings=[IP] * 10 + [TS])],
        stage=Stage.PHASE, role=None, chooser=0))


def _reached(state: Any, move: Any, seed: int, step: int, number: int, moves: int) -> tuple[Any, bool]:
    """Rollout ``number``'s state ``moves`` moves after ``move`` (as ``run_task`` plays it: its redeal,
    its bots' seed) and whether the game is over there."""
    engine = engine_for("san_juan")
    rng = world_rng(seed, step, number)
    world = engine.determinise(state, 0, rng)
    game = engine.working(world)
    game.apply(move)
    play_to_end(engine, game, 2, random.Random(rng.randrange(2**62)), "expert", moves)
    return game.snapshot(), game.is_over()


def test_a_cut_rollout_is_worth_the_models_chance_of_the_position_it_reached() -> None:
    state, engine = _early(), engine_for("san_juan")
    done = run_task(RolloutTask("san_juan", 3, 0, state, (Pass(),), 7, 0, 4, "expert", cutoff=2))
    model = load("san_juan", 2)
    expected = []
    for number in range(4):
        reached, over = _reached(state, Pass(), 7, 3, number, 2)
        assert not over
        expected.append(float(chances(model, engine, [reached], "everything")[0, 0]))
    assert done.outcomes == (tuple(expected),)
    assert done.played == (4,) and done.wins == (sum(expected),)
    # Fractions, not wins: and no score share, for any rollout.
    assert all(0 < x < 1 for x in expected) and len(set(expected)) > 1
    assert done.shares == ((None,) * 4,)


def test_a_rollout_that_ends_before_the_cutoff_is_a_finished_game() -> None:
    state = _endgame()
    statue = Build("Statue", (IP, IP), ())
    whole = run_task(RolloutTask("san_juan", 5, 0, state, (statue, Pass()), 3, 0, 6, "expert"))
    cut = run_task(RolloutTask("san_juan", 5, 0, state, (statue, Pass()), 3, 0, 6, "expert", cutoff=30))
    # Every game ends within 30 moves: the same wins, shares and all, as played to the end.
    assert cut.outcomes == whole.outcomes and cut.wins == whole.wins and cut.played == whole.played
    assert cut.outcomes[0] == (1.0,) * 6 and set(cut.outcomes[1]) <= {0.0, 0.5, 1.0}
    assert all(x is not None for shares in whole.shares for x in shares)
    assert cut.shares == ((None,) * 6, (None,) * 6)


def _near_end() -> Any:
    """Seat 0 one building from the end; seat 1, with nothing to build, cannot end it first: passing,
    the game ends a few moves later, when seat 0 builds again."""
    return _builder(position([seat(hand=["Statue", IP, IP], buildings=[IP] * 11), seat(hand=[], buildings=[IP] * 5)],
                             draw=[IP, SM, TS, "Chapel"] * 6, stage=Stage.PHASE, role=None, chooser=0))


def test_a_rollout_that_ends_at_its_last_move_before_the_cut_is_finished_and_one_move_less_is_cut() -> None:
    state = _near_end()
    length = next(n for n in range(1, 60) if _reached(state, Pass(), 3, 5, 0, n)[1])
    assert length > 1

    def first(cutoff: int) -> float | None:
        return run_task(RolloutTask("san_juan", 5, 0, state, (Pass(),), 3, 0, 1, "expert", cutoff=cutoff)).outcomes[0][0]

    whole = run_task(RolloutTask("san_juan", 5, 0, state, (Pass(),), 3, 0, 1, "expert")).outcomes[0][0]
    assert first(length) == whole and whole in (0.0, 0.5, 1.0)
    reached, over = _reached(state, Pass(), 3, 5, 0, length - 1)
    assert not over
    assert first(length - 1) == float(chances(load("san_juan", 2), engine_for("san_juan"), [reached])[0, 0])


def test_the_race_keeps_the_winning_move_with_the_cut_on() -> None:
    decision = analyse_state("san_juan", _endgame(), ["Ana", "Bruno"], Pass(), Options(rollouts=200, seed=1, cutoff=2))
    best = decision.best
    assert best.move == Build("Statue", (IP, IP), ()) and best.estimate == 1.0
    assert decision.played.estimate < 0.2 and decision.tag == "blunder"
    # No final scores are kept: the accuracy judges the move on its win chance alone.
    assert all(c.share is None for c in decision.candidates) and not modelled(decision.candidates)


def test_a_cutoff_below_one_move_is_refused_before_any_rollout() -> None:
    with pytest.raises(ValueError, match="^a rollout is cut after 1 move or more, not 0$"):
        analyse_state("san_juan", _endgame(), ["Ana", "Bruno"], Pass(), Options(cutoff=0))


@pytest.mark.parametrize("given", ["0", "-3", "x"])
def test_the_command_refuses_a_cutoff_that_is_not_a_count_of_moves(given: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", str(SJ_LOG), f"--cutoff={given}", "--workers", "1"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"governor analyse: argument --cutoff: must be an integer from 1 to 5000, not {given!r} " \
                  "(see governor analyse --help)\n"


@pytest.mark.parametrize(("extra", "why"), [
    (["--summary"], "--summary: its accuracy reads the final scores a cut rollout never reaches"),
    (["--store"], "--store: a stored analysis would pass for one whose rollouts were played to the end"),
    (["--all"], "--all: a stored analysis would pass for one whose rollouts were played to the end"),
    (["--where", "player_count = 2"], "--where: a stored analysis would pass for one whose rollouts were played "
                                      "to the end"),
])
def test_the_command_refuses_a_cutoff_where_final_scores_or_settings_are_kept(
        extra: list[str], why: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = [] if extra[0] in ("--all", "--where") else [str(SJ_LOG)]
    assert main(["analyse", *log, "--cutoff", "10", *extra, "--db", str(tmp_path / "none.duckdb"), "--workers", "1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"governor analyse: --cutoff does not go with {why}\n"
    assert list(tmp_path.iterdir()) == []


def test_the_command_says_so_in_one_line_when_the_game_has_no_model(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "san_juan-2.json.gz"
    monkeypatch.setattr(model_files, "shipped_path", lambda game, players: missing)
    monkeypatch.setattr(rollouts, "_MODELS", {})
    assert main(["analyse", str(SJ_LOG), "--cutoff", "10", "--workers", "1"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (f"governor analyse: --cutoff: {missing}: no win-chance model of san_juan with 2 players "
                   "(build it with governor train --game san_juan --players 2)\n")


def test_a_cut_analysis_is_the_same_on_any_workers_and_says_it_was_cut() -> None:
    args = [sys.executable, "-m", "governor.cli", "analyse", str(SJ_LOG), "--rollouts", "40", "--steps", "1:4",
            "--seed", "11", "--json", "--cutoff", "10"]
    runs = [subprocess.run([*args, "--workers", workers], capture_output=True, text=True, timeout=300, cwd=ROOT)
            for workers in ("1", "2")]
    assert all(run.returncode == 0 for run in runs), [run.stderr for run in runs]
    assert runs[0].stdout == runs[1].stdout
    lines = [json.loads(x) for x in runs[0].stdout.splitlines()]
    assert [x["step"] for x in lines] == [1, 2, 3, 4]
    assert ("(at most 40 rollouts per candidate by the expert bot, cut 10 moves after the candidate, seed 11): "
            in runs[0].stderr)
    # The model's fractions, not only wins and ties.
    assert any(c["wins"] != round(c["wins"] * 2) / 2 for x in lines for c in x["candidates"])
