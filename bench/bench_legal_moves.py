"""``legal_moves`` speed: microseconds per call over every state of simulated games, both games.

Not a test. For each game and player count, ``--games`` games are simulated by the heuristic bots
(the same seeds every run) and replayed once to collect every state the players decided in; then
``engine.legal_moves(state)`` is called on each of them and ``len()`` taken of the answer (Puerto
Rico's mayor answers with a lazy sequence: its length, not its items, is what the call must provide).
Each timing is the best of ``--repeat`` runs over all the states (other work on the machine only ever
slows a run down); the first run is also given on its own, since an engine may keep tables of what it
worked out (sub-multisets of a hand...) that later runs over the same states find ready. Before the
first pass the engine answers every state of ``--warmup`` other games (another seed), as a bot or an
analysis has done by the time it meets a new position: so the first pass is a pass over states never
seen, without the process's one-time start (imports, tables built on first use).

A digest of every answer (each move's text form; for a lazy sequence its length and up to 64 evenly
spaced items) is written with the timings, so a faster ``legal_moves`` can be checked to answer
exactly as the old one on the same states: same seed and games, same digest.

Writes ``bench/results_legal_moves.json`` and prints a markdown table::

    python bench/bench_legal_moves.py --games 100
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import machine  # noqa: E402
from replay.logfile import parse_game  # noqa: E402
from replay.registry import all_engines  # noqa: E402
from replay.replayer import iter_replay  # noqa: E402
from replay.simulate import simulate_many  # noqa: E402

#: Items of a lazy answer (not a list) that go into the digest besides its length.
_SAMPLED = 64


def decision_states(game: str, players: int, games: int, seed: int) -> list[Any]:
    """Every state of ``games`` simulated games in which a seat must decide (finished states left out)."""
    engine = all_engines()[game]
    states = []
    for obj in simulate_many(game, [players], games, seed):
        log = parse_game(obj)
        for state, _ in iter_replay(log, describe=False, steps=False):
            if not engine.is_over(state):
                states.append(state)
    return states


def time_calls(engine: Any, states: Sequence[Any], repeat: int) -> tuple[float, float, int]:
    """The best wall time of ``repeat`` passes calling ``legal_moves`` on every state, the time of the
    first pass, and the number of legal moves found in one pass."""
    legal_moves = engine.legal_moves
    times = []
    found = 0
    for _ in range(repeat):
        start = time.perf_counter()
        found = 0
        for state in states:
            found += len(legal_moves(state))
        times.append(time.perf_counter() - start)
    return min(times), times[0], found


def digest(engine: Any, states: Sequence[Any]) -> str:
    """A hash of every answer of ``legal_moves`` on ``states``, in order."""
    h = hashlib.sha256()
    for state in states:
        moves = engine.legal_moves(state)
        if isinstance(moves, list):
            h.update("\n".join(m.text() for m in moves).encode())
        else:
            count = len(moves)
            picks = sorted({k * count // _SAMPLED for k in range(_SAMPLED)}) if count else []
            h.update(f"{count}:".encode() + "\n".join(moves[k].text() for k in picks).encode())
        h.update(b"\x00")
    return h.hexdigest()


def markdown(rows: Sequence[dict[str, Any]]) -> str:
    """The rows as a markdown table."""
    lines = [
        "| game | players | games | states | legal moves/state | µs per call | µs per call, first pass | calls/s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['game']} | {r['players']} | {r['games']} | {r['states']:,} | {r['moves_per_state']:.1f} | "
            f"{r['us_per_call']:.2f} | {r['us_per_call_first_pass']:.2f} | {r['calls_per_s']:,} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="simulated games per game and player count (default 100)")
    parser.add_argument("--seed", type=int, default=7, help="simulation seed (default 7)")
    parser.add_argument("--repeat", type=int, default=5, help="passes per timing, best kept (default 5)")
    parser.add_argument("--warmup", type=int, default=20,
                        help="games of another seed answered before the first pass (default 20; 0: none)")
    parser.add_argument("--game", action="append", help="only this game (repeatable; default: every game)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results_legal_moves.json"), help="results file")
    args = parser.parse_args(argv)

    engines = all_engines()
    rows: list[dict[str, Any]] = []
    for game in sorted(args.game or engines):
        engine = engines[game]
        for players in range(engine.min_players, engine.max_players + 1):
            states = decision_states(game, players, args.games, args.seed * 100 + players)
            if args.warmup:
                for state in decision_states(game, players, args.warmup, args.seed * 100 + 50 + players):
                    len(engine.legal_moves(state))
            seconds, first, found = time_calls(engine, states, args.repeat)
            rows.append(
                {
                    "game": game,
                    "players": players,
                    "games": args.games,
                    "states": len(states),
                    "legal_moves": found,
                    "moves_per_state": round(found / len(states), 2),
                    "seconds": round(seconds, 4),
                    "us_per_call": round(seconds / len(states) * 1e6, 2),
                    "us_per_call_first_pass": round(first / len(states) * 1e6, 2),
                    "calls_per_s": round(len(states) / seconds),
                    "digest": digest(engine, states),
                }
            )
    info = machine()
    result = {
        "machine": info,
        "params": {"games_per_player_count": args.games, "seed": args.seed, "repeat": args.repeat,
                   "warmup_games": args.warmup},
        "rows": rows,
    }
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"{info['cpu']}, {info['cores']} usable core(s), Python {info['python']}, load average {info['load_average']}")
    print()
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
