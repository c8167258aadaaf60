"""The fast path of rollouts and of the simulator (a working game changed in place, the bots reading
its table) plays exactly the games of the snapshot path (``apply`` move after move, the bots reading
each immutable snapshot): the same final state and winners from many positions of both games, the
same rollout results, and byte-identical simulated logs."""

from __future__ import annotations

import gc
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from analysis.rollouts import (
    RolloutResult,
    RolloutTask,
    play_to_end,
    run_task,
    score_share,
    win_share,
    world_rng,
)
from replay.errors import FieldError, RuleViolation
from replay.log_reader import read_records
from replay.logfile import GameLog, parse_game
from replay.registry import engine_for
from replay.replayer import iter_replay
from replay.simulate import MAX_MOVES, _play, make_bot

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = {
    "san_juan": [ROOT / "sample_logs" / "san_juan" / f"san_juan-{p}-seed2026-{k}.json"
                 for p, k in (("2p", "0000"), ("3p", "0001"), ("4p", "0002"), ("4p", "0005"))],
    "puerto_rico": [ROOT / "sample_logs" / "puerto_rico" / f"puerto_rico-{p}-seed2026-{k}.json"
                    for p, k in (("3p", "0000"), ("4p", "0001"), ("5p", "0002"), ("5p", "0005"))],
}
#: Every how many moves a position is taken, and the rollouts played from each.
EVERY = 9
ROLLOUTS = 2


def _log(path: Path) -> GameLog:
    record = next(iter(read_records(path)))
    assert record.log is not None
    return record.log


def _draft_game() -> GameLog:
    """A simulated San Juan game with the draft start (the sample logs have none)."""
    obj = _play("san_juan", 3, 41, "heuristic", {"draft_start": True})
    assert obj is not None
    return parse_game(json.loads(json.dumps(obj)))


def _positions(log: GameLog) -> list[Any]:
    """Every ``EVERY``-th state of a replayed game where a seat is to act (the first one included)."""
    engine = engine_for(log.game)
    states = [state for state, _ in iter_replay(log, describe=False) if not engine.is_over(state)]
    return states[::EVERY]


def _snapshot_play(engine: Any, state: Any, rng: random.Random) -> Any | None:
    """The snapshot path: ``apply`` move after move, each bot choosing from the snapshot (the final
    state, or None when the game does not end within the move limit)."""
    bots = [make_bot(engine.game, "heuristic", rng.randrange(2**31)) for _ in state.players]
    for _ in range(MAX_MOVES):
        if engine.is_over(state):
            return state
        state = engine.apply(state, bots[engine.current_seat(state)].choose(state))
    return None


def _fast_play(engine: Any, state: Any, rng: random.Random) -> Any | None:
    """The rollouts' path from the same state: the final snapshot of the working game."""
    game = engine.working(state)
    return game.snapshot() if play_to_end(engine, game, len(state.players), rng) else None


def _owned(state: Any) -> set[str]:
    """Every building some seat owns (San Juan ``buildings``, Puerto Rico ``city``)."""
    return {b for p in state.players for b in getattr(p, "buildings", None) or p.city}


@pytest.mark.parametrize("game", ["san_juan", "puerto_rico"])
def test_fast_play_out_reaches_the_snapshot_play_outs_end(game: str) -> None:
    engine = engine_for(game)
    logs = [_log(path) for path in SAMPLES[game]] + ([_draft_game()] if game == "san_juan" else [])
    compared = 0
    owned: set[str] = set()
    stages: set[str] = set()
    for number, log in enumerate(logs):
        for state in _positions(log):
            seat = engine.current_seat(state)
            stages.add(str(state.stage))
            for rollout in range(ROLLOUTS):
                rng = world_rng(number, state.step, rollout)
                world = engine.determinise(state, seat, rng)
                play_seed = rng.randrange(2**62)
                slow = _snapshot_play(engine, world, random.Random(play_seed))
                fast = _fast_play(engine, world, random.Random(play_seed))
                assert slow is not None, f"{log.source_id} step {state.step}: the bots' game did not end"
                assert fast == slow, f"{log.source_id} step {state.step} rollout {rollout}"
                assert engine.winners(fast) == engine.winners(slow)
                assert engine.scores(fast) == engine.scores(slow)
                owned |= _owned(slow)
                compared += 1
    # Many play-outs, started in every kind of decision, that went through the buildings whose
    # powers the bots and rules treat specially.
    assert compared >= 150
    if game == "san_juan":
        assert {"draft", "chapel", "role", "phase"} <= stages
        assert {"Library", "Crane", "Black market", "Archive", "Prefecture", "Gold mine", "Chapel",
                "Tower", "Carpenter", "Poor house", "Well", "Market stand", "Market hall"} <= owned
    else:
        assert {"role", "settler", "mayor", "builder", "craftsman", "trader", "captain", "storage"} <= stages
        assert {"Hacienda", "Wharf", "Harbor", "Small warehouse", "Large warehouse", "Office", "Hospice",
                "Construction hut", "Factory", "Small market", "Large market"} <= owned


@pytest.mark.parametrize("game", ["san_juan", "puerto_rico"])
def test_bots_read_the_working_table_and_leave_it_as_it_was(game: str) -> None:
    """At every position of two games, a bot choosing from the working game's table chooses what the
    same bot chooses from the snapshot, and the working game is left exactly as it was (the bot prices
    a build as the role's chooser, then puts the table back)."""
    engine = engine_for(game)
    checked = 0
    for path in SAMPLES[game][:2]:
        for state, _ in iter_replay(_log(path), describe=False):
            if engine.is_over(state):
                continue
            working = engine.working(state)
            before = working.snapshot()
            seed = state.step
            fast = make_bot(game, "heuristic", seed).choose_working(working)
            assert fast == make_bot(game, "heuristic", seed).choose(state), f"{path.name} step {state.step}"
            assert working.snapshot() == before, f"{path.name} step {state.step}: the bot changed the table"
            checked += 1
    assert checked > 300


def _snapshot_task(task: RolloutTask) -> RolloutResult:
    """``run_task`` over the snapshot path (candidate applied with ``apply``, ``_snapshot_play``)."""
    engine = engine_for(task.game)
    wins = [0.0] * len(task.candidates)
    played = [0] * len(task.candidates)
    outcomes: list[list[float | None]] = [[] for _ in task.candidates]
    shares: list[list[float | None]] = [[] for _ in task.candidates]
    for number in range(task.first, task.first + task.count):
        rng = world_rng(task.seed, task.step, number)
        world = engine.determinise(task.state, task.seat, rng)
        play_seed = rng.randrange(2**62)
        for index, move in enumerate(task.candidates):
            outcomes[index].append(None)
            shares[index].append(None)
            try:
                after = engine.apply(world, move)
            except (RuleViolation, FieldError):
                continue
            final = _snapshot_play(engine, after, random.Random(play_seed))
            if final is None:
                continue
            wins[index] += win_share(engine.winners(final), task.seat)
            played[index] += 1
            outcomes[index][-1] = win_share(engine.winners(final), task.seat)
            shares[index][-1] = score_share([s.total for s in engine.scores(final)], task.seat)
    return RolloutResult(task.step, tuple(wins), tuple(played), tuple(tuple(o) for o in outcomes),
                         tuple(tuple(s) for s in shares))


@pytest.mark.parametrize("path", [SAMPLES["san_juan"][1], SAMPLES["puerto_rico"][0]], ids=lambda p: p.stem)
def test_rollout_results_equal_the_snapshot_paths(path: Path) -> None:
    log = _log(path)
    engine = engine_for(log.game)
    checked = 0
    for state in _positions(log)[::3]:
        seat = engine.current_seat(state)
        candidates = tuple(list(engine.legal_moves(state))[:4])
        task = RolloutTask(log.game, state.step, seat, state, candidates, 7, 0, 3)
        assert run_task(task) == _snapshot_task(task), f"step {state.step}"
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("path", [SAMPLES["san_juan"][2], SAMPLES["puerto_rico"][2]], ids=lambda p: p.stem)
def test_rollouts_make_no_reference_cycles(path: Path) -> None:
    """``run_task`` pauses the cyclic collector, which is only sound while a rollout leaves no cycle
    behind (a compiled nested function called by a lambda once made one per bot move)."""
    # In a process of its own: the collector counts every thread's garbage, and another test's thread
    # (a server's, a pool's) may leave some while this one runs.
    script = f"""
import gc, sys
sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
from test_fast_playout import _log, _positions
from analysis.rollouts import RolloutTask, run_task
from replay.registry import engine_for
from pathlib import Path
log = _log(Path({str(path)!r}))
engine = engine_for(log.game)
tasks = [RolloutTask(log.game, state.step, engine.current_seat(state), state,
                     tuple(list(engine.legal_moves(state))[:4]), 3, 0, 2) for state in _positions(log)[::2]]
run_task(tasks[0])  # the first run may create lazily built objects once
gc.collect()
assert gc.isenabled()
played = sum(sum(run_task(task).played) for task in tasks)
assert gc.isenabled(), "run_task must turn the collector back on"
print(played, gc.collect())
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    played, cycles = (int(word) for word in done.stdout.split())
    assert played >= 40
    assert cycles == 0


def test_run_task_leaves_a_paused_collector_paused() -> None:
    log = _log(SAMPLES["san_juan"][0])
    engine = engine_for(log.game)
    state = _positions(log)[1]
    task = RolloutTask(log.game, state.step, engine.current_seat(state), state,
                       tuple(list(engine.legal_moves(state))[:2]), 3, 0, 1)
    gc.disable()
    try:
        run_task(task)
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize(
    ("game", "players", "bot", "options"),
    [
        ("san_juan", 2, "heuristic", {}), ("san_juan", 3, "mixed", {}), ("san_juan", 4, "random", {}),
        ("san_juan", 3, "heuristic", {"draft_start": True}), ("puerto_rico", 3, "random", {}),
        ("puerto_rico", 4, "mixed", {}), ("puerto_rico", 5, "heuristic", {}),
    ],
)
def test_simulated_logs_equal_the_snapshot_paths(game: str, players: int, bot: str, options: dict[str, Any]) -> None:
    for seed in range(3):
        assert json.dumps(_play(game, players, seed, bot, options)) == json.dumps(
            _snapshot_simulation(game, players, seed, bot, options))
    # A seed whose game stalls (random San Juan players tie up every card) stalls the same way.
    if (game, bot) == ("san_juan", "random"):
        assert _play("san_juan", 4, 3_000_048, "random", {}) is None
        assert _snapshot_simulation("san_juan", 4, 3_000_048, "random", {}) is None


def _snapshot_simulation(game: str, players: int, seed: int, bot: str, options: dict[str, Any]) -> dict[str, Any] | None:
    """``replay.simulate._play`` over the snapshot path: ``apply`` move after move."""
    from replay.simulate import NAMES

    engine = engine_for(game)
    log = engine.new_random_game(NAMES[:players], seed, options)
    state = engine.simulation_state(log, seed)
    rng = random.Random(f"bots:{seed}")
    kinds = [bot] * players
    if bot == "mixed":
        kinds = [rng.choice(("heuristic", "heuristic", "random")) for _ in range(players)]
    bots = [make_bot(game, kind, rng.randrange(2**31)) for kind in kinds]
    moves: list[dict[str, Any]] = []
    while not engine.is_over(state):
        seat = engine.current_seat(state)
        move = bots[seat].choose(state)
        default = engine.default_move(state)
        state = engine.apply(state, move)
        if default is None or move != default:
            moves.append({"seat": seat, **move.to_json()})
        if len(moves) > MAX_MOVES:
            return None
    obj = engine.finish_log(log, state, moves)
    obj["meta"] = {"generator": f"governor simulate ({bot})", "seed": seed, **obj.get("meta", {})}
    order = ["format", "version", "game", "source_id", "meta", "players", "options", "setup", "moves", "result"]
    return {k: obj[k] for k in order if k in obj}
