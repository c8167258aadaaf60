"""Agents' speed: games a second through the PettingZoo environments (the observation vector and the
action mask computed at every step, as a learning loop reads them) and through the arena with the
built-in bots, per game and player count, on one core.

Not a test. Each run is timed twice: wall-clock seconds and the process's CPU seconds
(``time.process_time``); on a machine other work shares, games per CPU second is the closer measure of
one core's speed (a busy machine still slows it: shared caches, frequency). ``random`` picks uniformly among the actions the mask allows; ``heuristic`` asks the
heuristic bot for its move on the environment's state and plays that move's action. Each line is the
best of ``--repeat`` runs of ``--games`` games (other work on the machine only slows a run down).
The arena lines play ``governor arena``'s round robin with one worker and the built-in agents.
Which engines ran (compiled or pure Python) is recorded with the machine, and the milliseconds of
a fixed piece of plain Python before and after the runs (``reference_work_ms``: how fast the shared
machine ran then).

Writes ``bench/results_arena.json`` and prints a markdown table::

    python bench/bench_arena.py --games 40
    python bench/bench_arena.py --only env --game puerto_rico --games 40 --repeat 3
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import machine, reference_work_ms  # noqa: E402
from governor.arena.round_robin import run_arena  # noqa: E402
from replay.simulate import make_bot  # noqa: E402

COUNTS = {"san_juan": (2, 3, 4), "puerto_rico": (3, 4, 5)}


def env_games(game: str, players: int, games: int, agent: str, seed: int) -> tuple[float, float, int]:
    """Wall and CPU seconds to play ``games`` episodes through ``<game>_v0.env``, and the steps taken."""
    import numpy as np

    from governor.envs import puerto_rico_v0, san_juan_v0

    module = san_juan_v0 if game == "san_juan" else puerto_rico_v0
    env = module.env(players=players)
    raw = env.unwrapped
    rng = random.Random(seed)
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    for episode in range(games):
        env.reset(seed=seed * 10_000 + episode)
        bots = [make_bot(game, "heuristic", seed + episode * 7 + s) for s in range(players)]
        for agent_name in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            if agent == "random":
                action = rng.choice(np.flatnonzero(observation["action_mask"]).tolist())
            else:
                seat = raw.possible_agents.index(agent_name)
                action = raw.codec.action_of(bots[seat].choose(raw._state))
            env.step(action)
            steps += 1
    return time.perf_counter() - start, time.process_time() - cpu, steps


def arena_games(game: str, players: int, games: int, agent: str, seed: int) -> tuple[float, float]:
    """Wall and CPU seconds for an arena of ``games`` games of ``players`` copies of ``agent`` (one
    worker)."""
    start, cpu = time.perf_counter(), time.process_time()
    run_arena(game, players, [agent] * players, games, seed, workers=1)
    return time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", choices=("env", "arena"), help="measure only the environments or only the arena")
    parser.add_argument("--game", choices=tuple(COUNTS), help="measure only this game")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results_arena.json"))
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    load_before = os.getloadavg()
    reference_before = reference_work_ms()

    def row(what: str, game: str, players: int, agent: str, wall: float, cpu: float, steps: int | None) -> None:
        rows.append({"what": what, "game": game, "players": players, "agent": agent, "games": args.games,
                     "seconds": round(wall, 3), "cpu_seconds": round(cpu, 3),
                     "games_per_s": round(args.games / wall, 1), "games_per_cpu_s": round(args.games / cpu, 1),
                     **({"steps_per_cpu_s": round(steps / cpu)} if steps is not None else {})})
        print(rows[-1], flush=True)

    for game, counts in COUNTS.items():
        if args.game and game != args.game:
            continue
        for players in counts:
            if args.only != "arena":
                for agent in ("random", "heuristic"):
                    runs = [env_games(game, players, args.games, agent, args.seed) for _ in range(args.repeat)]
                    row("env", game, players, agent, min(r[0] for r in runs), min(r[1] for r in runs), runs[0][2])
            if args.only != "env":
                for agent in ("random", "heuristic", "expert"):
                    timed = [arena_games(game, players, args.games, agent, args.seed) for _ in range(args.repeat)]
                    row("arena", game, players, agent, min(t[0] for t in timed), min(t[1] for t in timed), None)
    info = machine()
    info["load_average_before"] = load_before
    info["reference_work_ms"] = [reference_before, reference_work_ms()]
    Path(args.out).write_text(json.dumps({"machine": info, "rows": rows}, indent=1) + "\n")
    print(f"\nload average before {load_before}, after {info['load_average']}; engines: {info['engines']}; "
          f"reference work before and after: {info['reference_work_ms']} ms")
    print("\n| What | Game | Players | Agents | Games/s (wall) | Games/CPU s | Steps/CPU s |\n"
          "| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['what']} | {r['game']} | {r['players']} | {r['agent']} | {r['games_per_s']} | "
              f"{r['games_per_cpu_s']} | {r.get('steps_per_cpu_s', '')} |")


if __name__ == "__main__":
    main()
