"""The engine line of a decision: the continuation the rollouts' bots (the game's declared rollout bot
unless another is asked for) played most after a candidate (``analysis.rollouts.engine_line``)."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

from analysis import variation as V
from analysis.rollouts import engine_line, state_players, world_rng
from replay.logfile import parse_game
from replay.registry import engine_for, rollout_bot
from replay.simulate import make_bot

GAME_FILE = Path(__file__).resolve().parents[2] / "sample_logs" / "san_juan" / "san_juan-2p-seed2026-0000.json"


def _position(branch: int) -> V.Variation:
    return V.start(parse_game(json.loads(GAME_FILE.read_text()), file=str(GAME_FILE)), branch)


def _rollout(start: V.Variation, move, number: int, length: int, bot: str | None = None) -> list[str]:
    """Rollout ``number``'s first ``length`` moves after ``move`` played by ``bot`` (default: the
    declared rollout bot), made here step by step."""
    engine = engine_for("san_juan")
    rng = world_rng(3, 5, number)
    world = engine.determinise(start.state, start.seat, rng)
    play = random.Random(rng.randrange(2**62))
    working = engine.working(world)
    working.apply(move)
    kind = rollout_bot("san_juan") if bot is None else bot
    bots = [make_bot("san_juan", kind, play.randrange(2**31)) for _ in range(state_players(world))]
    out = []
    for _ in range(length):
        if working.is_over():
            break
        chosen = bots[working.current_seat()].choose_working(working)
        working.apply(chosen)
        out.append(chosen.text())
    return out


def test_one_rollout_gives_that_rollouts_own_moves() -> None:
    start = _position(4)
    move = V.choices(start)[0].move
    line = engine_line("san_juan", start.state, start.seat, move, seed=3, step=5, rollouts=1, length=5)
    assert [m.text() for m in line] == _rollout(start, move, 0, 5)


def test_the_line_is_played_by_the_bot_asked_for() -> None:
    start = _position(4)
    move = V.choices(start)[0].move
    declared = engine_line("san_juan", start.state, start.seat, move, seed=3, step=5, rollouts=1, length=5)
    heuristic = engine_line("san_juan", start.state, start.seat, move, seed=3, step=5, rollouts=1, length=5,
                            bot="heuristic")
    assert rollout_bot("san_juan") == "expert"
    assert [m.text() for m in heuristic] == _rollout(start, move, 0, 5, "heuristic")
    # The expert chooses its roles otherwise: the lines part at the first role choice.
    assert [m.text() for m in heuristic] != [m.text() for m in declared]


def test_the_line_follows_the_most_played_moves_the_same_every_time() -> None:
    start = _position(4)
    move = V.choices(start)[1].move
    line = [m.text() for m in engine_line("san_juan", start.state, start.seat, move, seed=3, step=5)]
    assert 1 <= len(line) <= 8
    assert line == [m.text() for m in engine_line("san_juan", start.state, start.seat, move, 3, 5)]
    rollouts = [_rollout(start, move, k, 8) for k in range(24)]
    # Move by move: the most frequent next move among the rollouts that played the line so far.
    for depth, played in enumerate(line):
        following = [r[depth] for r in rollouts if r[:depth] == line[:depth] and len(r) > depth]
        counts = Counter(following)
        assert counts[played] == max(counts.values()), (depth, counts)


def test_a_move_illegal_in_every_world_has_no_line() -> None:
    start = _position(4)
    other = _position(10)  # a move of another position, not legal here
    here = {c.move.text() for c in V.choices(start)}
    foreign = next(c.move for c in V.choices(other) if c.move.text() not in here)
    assert engine_line("san_juan", start.state, start.seat, foreign, seed=3, step=5) == []
