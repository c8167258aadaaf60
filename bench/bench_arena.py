"""Agents' speed: games a second through the PettingZoo environments (the observation vector and the
action mask computed at every step, as a learning loop reads them) and through the arena with the
built-in bots, per game and player count, on one core.

Not a test. ``random`` picks uniformly among the actions the mask allows; ``heuristic`` asks the
heuristic bot for its move on the environment's state and plays that move's action. Each line is the
best of ``--repeat`` runs of ``--games`` games (other work on the machine only slows a run down).
The arena lines play ``governor arena``'s round robin with one worker and the built-in agents.
Which engines ran (compiled or pure Python) is recorded with the machine.

Writes ``bench/results_arena.json`` and prints a markdown table::

    python bench/bench_arena.py --games 40
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import machine  # noqa: E402
from governor.arena.round_robin import run_arena  # noqa: E402
from replay.simulate import make_bot  # noqa: E402

COUNTS = {"san_juan": (2, 3, 4), "puerto_rico": (3, 4, 5)}


def env_games(game: str, players: int, games: int, agent: str, seed: int) -> tuple[float, int]:
    """Seconds to play ``games`` episodes through ``<game>_v0.env`` and the steps taken."""
    import numpy as np

    from governor.envs import puerto_rico_v0, san_juan_v0

    module = san_juan_v0 if game == "san_juan" else puerto_rico_v0
    env = module.env(players=players)
    raw = env.unwrapped
    rng = random.Random(seed)
    steps = 0
    start = time.perf_counter()
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
    return time.perf_counter() - start, steps


def arena_games(game: str, players: int, games: int, agent: str, seed: int) -> float:
    """Seconds for an arena of ``games`` games of ``players`` copies of ``agent`` (one worker)."""
    start = time.perf_counter()
    run_arena(game, players, [agent] * players, games, seed, workers=1)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results_arena.json"))
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    for game, counts in COUNTS.items():
        for players in counts:
            for agent in ("random", "heuristic"):
                best, steps = min(env_games(game, players, args.games, agent, args.seed) for _ in range(args.repeat))
                rows.append({"what": "env", "game": game, "players": players, "agent": agent,
                             "games": args.games, "seconds": round(best, 3),
                             "games_per_s": round(args.games / best, 1), "steps_per_s": round(steps / best)})
                print(rows[-1], flush=True)
            for agent in ("random", "heuristic", "expert"):
                best = min(arena_games(game, players, args.games, agent, args.seed) for _ in range(args.repeat))
                rows.append({"what": "arena", "game": game, "players": players, "agent": agent,
                             "games": args.games, "seconds": round(best, 3),
                             "games_per_s": round(args.games / best, 1)})
                print(rows[-1], flush=True)
    Path(args.out).write_text(json.dumps({"machine": machine(), "rows": rows}, indent=1) + "\n")
    print("\n| What | Game | Players | Agents | Games/s |\n| --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['what']} | {r['game']} | {r['players']} | {r['agent']} | {r['games_per_s']} |")


if __name__ == "__main__":
    main()
