"""Seconds to analyse a whole game: a 4-player San Juan and a 5-player Puerto Rico sample game.

    python bench/bench_analysis.py [--rollouts 100] [--top 6] [--workers 2] [--out bench/results_analysis.json]
                                   [--no-moves] [--rollout-bot KIND]

Measures wall time (run it on an otherwise idle machine), decisions analysed, candidates and rollouts
played, and rollouts per second, with the rollouts played by the games' declared rollout bot (the
expert) or the kind ``--rollout-bot`` names. Then, in this process on one core, the CPU time per rollout move
(``rollout_move``): rollouts from a fixed sample of each game's decisions (every decision's first
candidates), timed as ``run_task`` runs them, and split into the bots' choices, the rules
(``Working.apply``) and the rest (determinisation, setting up each rollout, the winners).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from analysis.decisions import Options, analyse, decision_points, rollout_kind  # noqa: E402
from analysis.rollouts import RolloutTask, run_task, state_players, world_rng  # noqa: E402
from bench.common import machine  # noqa: E402
from replay.errors import FieldError, RuleViolation  # noqa: E402
from replay.log_reader import read_records  # noqa: E402
from replay.registry import engine_for  # noqa: E402
from replay.simulate import MAX_MOVES, make_bot  # noqa: E402

#: The sample of ``rollout_move``: this many decisions spread over the game, the first candidates of
#: each, rollouts per candidate.
SAMPLE_DECISIONS, SAMPLE_CANDIDATES, SAMPLE_ROLLOUTS = 12, 4, 4

GAMES = {
    "san_juan 4p": ROOT / "sample_logs" / "san_juan" / "san_juan-4p-seed2026-0002.json",
    "puerto_rico 5p": ROOT / "sample_logs" / "puerto_rico" / "puerto_rico-5p-seed2026-0002.json",
}


def bench_game(path: Path, options: Options) -> dict[str, Any]:
    record = next(iter(read_records(path)))
    assert record.log is not None
    wall = time.perf_counter()
    decisions = list(analyse(record.log, options))
    wall = time.perf_counter() - wall
    candidates = sum(len(d.candidates) for d in decisions)
    rollouts = sum(c.rollouts for d in decisions for c in d.candidates)
    return {
        "file": str(path.relative_to(ROOT)), "moves": len(record.log.moves), "decisions": len(decisions),
        "candidates": candidates, "rollouts": rollouts, "seconds": round(wall, 1),
        "rollouts_per_second": round(rollouts / wall, 1),
        "tags": {t: sum(1 for d in decisions if d.tag == t) for t in ("inaccuracy", "mistake", "blunder")},
    }


def _sample(path: Path, bot: str | None = None) -> list[RolloutTask]:
    """The rollout tasks of ``rollout_move``: fixed decisions, candidates and seeds."""
    record = next(iter(read_records(path)))
    assert record.log is not None
    engine = engine_for(record.log.game)
    kind = rollout_kind(record.log.game, Options(rollout_bot=bot))
    points = [p for p, _ in decision_points(record.log)]
    points = points[:: max(1, len(points) // SAMPLE_DECISIONS)][:SAMPLE_DECISIONS]
    return [
        RolloutTask(record.log.game, p.step, p.seat, p.state, tuple(list(engine.legal_moves(p.state))[:SAMPLE_CANDIDATES]),
                    1, 0, SAMPLE_ROLLOUTS, kind)
        for p in points
    ]


def _split(tasks: list[RolloutTask]) -> dict[str, float]:
    """The rollouts of ``tasks`` as ``run_task`` plays them, with the bots' choices and the rules'
    moves clocked separately: moves played, CPU seconds of each part and of the whole (``all``: with
    determinisation, each rollout's setup and the clock calls)."""
    clock = time.process_time
    spent = {"moves": 0.0, "bots": 0.0, "rules": 0.0, "all": -clock()}
    for task in tasks:
        engine = engine_for(task.game)
        for number in range(task.first, task.first + task.count):
            rng = world_rng(task.seed, task.step, number)
            world = engine.determinise(task.state, task.seat, rng)
            play_seed = rng.randrange(2**62)
            for move in task.candidates:
                game = engine.working(world)
                try:
                    game.apply(move)
                except (RuleViolation, FieldError):
                    continue
                bot_rng = random.Random(play_seed)
                bots = [make_bot(task.game, task.bot, bot_rng.randrange(2**31)) for _ in range(state_players(world))]
                for _ in range(MAX_MOVES):
                    if game.is_over():
                        break
                    start = clock()
                    chosen = bots[game.current_seat()].choose_working(game)  # type: ignore[index]
                    middle = clock()
                    game.apply(chosen)
                    spent["bots"] += middle - start
                    spent["rules"] += clock() - middle
                    spent["moves"] += 1
    spent["all"] += clock()
    return spent


def rollout_move(path: Path, repeat: int = 3, bot: str | None = None) -> dict[str, Any]:
    """CPU microseconds per rollout move (one core, best of ``repeat``) with ``bot`` playing (default:
    the declared rollout bot), and its split."""
    tasks = _sample(path, bot)
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for task in tasks:
            run_task(task)
        best = min(best, time.process_time() - start)
    split = _split(tasks)
    moves = split["moves"]
    total = best / moves * 1e6
    # The split's shares (its clock calls make it slower than ``run_task``) of the untimed total.
    share = {part: split[part] / split["all"] for part in ("bots", "rules")}
    return {
        "decisions": len(tasks), "rollouts": sum(len(t.candidates) * t.count for t in tasks), "moves": int(moves),
        "cpu_seconds": round(best, 3), "us_per_move": round(total, 1),
        "bots_us": round(total * share["bots"], 1), "rules_us": round(total * share["rules"], 1),
        "rest_us": round(total * (1 - share["bots"] - share["rules"]), 1),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rollouts", type=int, default=100)
    parser.add_argument("--top", type=int, default=6)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=HERE / "results_analysis.json")
    parser.add_argument("--no-moves", action="store_true", help="skip the CPU per rollout move (rollout_move)")
    parser.add_argument("--rollout-bot", default=None, metavar="KIND",
                        help="the bot that plays the rollouts (default: each game's declared one, the expert)")
    args = parser.parse_args(argv)
    options = Options(rollouts=args.rollouts, seed=1, top=args.top, workers=args.workers, rollout_bot=args.rollout_bot)
    load_before = os.getloadavg()
    rows = {name: bench_game(path, options) for name, path in GAMES.items()}
    moves = {} if args.no_moves else {name: rollout_move(path, bot=args.rollout_bot) for name, path in GAMES.items()}
    from replay import native

    result = {"machine": machine(), "rollouts": args.rollouts, "top": args.top, "workers": args.workers,
              "rollout_bot": {name: rollout_kind(path.name.split("-")[0], options) for name, path in GAMES.items()},
              "engines": native.status, "load_average_before": load_before,
              "load_average": os.getloadavg(), "games": rows, "rollout_move": moves}
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
