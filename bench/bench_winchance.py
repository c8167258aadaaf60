"""Is the learned win chance good enough to trust? Measured on held-out self-play games.

    nice python bench/bench_winchance.py [--games 200] [--seed 2026] [--rollout-positions 30]
                                         [--rollouts 1000] [--only GAME-PLAYERS ...]
                                         [--out bench/results_winchance.json]

For each shipped model (``analysis/winchance/models``): ``--games`` games of the game's strongest bot
against itself, from seeds the models never learned from, every position still in play of each. Per
quarter of the game (a position's step over its game's steps), the log loss (of the seats' shares of
the win: ``-sum y log p``) and the Brier score (``sum (p - y)^2`` over the seats) of

- the model's whole view (every card) and its seat view (what the seat to act may see),
- the baseline a statistician fits first: a logistic regression of "this seat wins" on its score lead
  (its score less the best other's) and the game's progress (and their product), fitted on as many
  other games, normalised over the seats as the model is; once on the scores themselves (the whole
  view's knowledge) and once on the scores as the seat to act sees them (the seat view's: Puerto
  Rico's face-down VP chips of the others left out), each view measured against the baseline that
  knows what it knows;

the expected calibration error of each view (10 equal bins of the chances of every seat); a
reliability table (and plot, ``docs/winchance_reliability.svg``); and, at ``--rollout-positions``
positions per model drawn at random, the mean absolute difference between the seat view's chances and
a ``--rollouts``-rollout estimate (each rollout from a determinisation of what the seat to act cannot
see, played to the end by the game's strongest bot, as ``analysis.rollouts`` plays them). Then the
speed of ``governor winchance``'s work (replay, features, trees) in games per second. Not a test;
one process, run it under ``nice``. Writes ``--out`` and prints the tables as markdown.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analysis.rollouts import play_out, win_share, world_rng  # noqa: E402
from analysis.winchance.fill import Models, game_chances  # noqa: E402
from analysis.winchance.model import load, normalised  # noqa: E402
from analysis.winchance.predict import result_shares  # noqa: E402
from analysis.winchance.train import self_play, strongest_bot  # noqa: E402
from bench.common import machine  # noqa: E402
from replay.logfile import dumps_game  # noqa: E402
from replay.outputs import write_bytes  # noqa: E402
from replay.protocol import Viewer  # noqa: E402
from replay.registry import engine_for, game_names, view_for  # noqa: E402
from replay.replayer import iter_replay  # noqa: E402
from replay.simulate import simulate_game  # noqa: E402

EPS = 1e-6
QUARTERS = ("0-25%", "25-50%", "50-75%", "75-100%")


def _positions(game: str, players: int, games: int, seed: int) -> list[dict[str, Any]]:
    """Every position in play of ``games`` self-play games: state, step, progress, shares, acting seat."""
    engine = engine_for(game)
    found = []
    for number, log in enumerate(self_play(game, players, games, seed, strongest_bot(game))):
        states = [state for state, _ in iter_replay(log, describe=False, steps=False)]
        shares = result_shares(engine, states[-1])
        total = len(states) - 1
        for step, state in enumerate(states):
            if engine.is_over(state):
                continue
            found.append({"state": state, "game": number, "step": step, "progress": step / total,
                          "shares": shares, "acting": engine.current_seat(state)})
    return found


def _baseline_x(engine: Any, position: dict[str, Any], players: int, seen: bool = False) -> np.ndarray:
    """The baseline's inputs for each seat of a position: its score lead, the progress, their product.
    With ``seen``, the scores as the seat to act sees them (its view's ``scores``), else the scores."""
    if seen:
        scores = view_for(engine.game).view_state(position["state"], Viewer.of_seat(position["acting"]))["scores"]
    else:
        scores = [score.total for score in engine.scores(position["state"])]
    rows = []
    for seat in range(players):
        lead = scores[seat] - max(s for k, s in enumerate(scores) if k != seat)
        rows.append([1.0, lead, position["progress"], lead * position["progress"]])
    return np.asarray(rows)


def _logistic(x: np.ndarray, y: np.ndarray, steps: int = 50) -> np.ndarray:
    """Weights of a logistic regression (Newton's method, a little ridge for stability)."""
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-x @ w))
        grad = x.T @ (p - y) + 1e-4 * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + 1e-4 * np.eye(x.shape[1])
        w -= np.linalg.solve(hess, grad)
    return w


def _metrics(p: np.ndarray, y: np.ndarray) -> dict[str, float]:
    logloss = float(np.mean(-(y * np.log(np.clip(p, EPS, 1))).sum(axis=1)))
    brier = float(np.mean(((p - y) ** 2).sum(axis=1)))
    return {"log_loss": round(logloss, 4), "brier": round(brier, 4), "positions": int(len(p))}


def _reliability(p: np.ndarray, y: np.ndarray, bins: int = 10) -> tuple[float, list[dict[str, float]]]:
    flat_p, flat_y = p.ravel(), y.ravel()
    which = np.minimum((flat_p * bins).astype(int), bins - 1)
    table, ece = [], 0.0
    for b in range(bins):
        mask = which == b
        if not mask.any():
            continue
        mean_p, mean_y = float(flat_p[mask].mean()), float(flat_y[mask].mean())
        ece += mask.mean() * abs(mean_p - mean_y)
        table.append({"bin": b, "chance": round(mean_p, 4), "won": round(mean_y, 4), "count": int(mask.sum())})
    return round(float(ece), 4), table


def _rollouts(game: str, players: int, positions: list[dict[str, Any]], count: int, rollouts: int,
              seed: int) -> list[dict[str, Any]]:
    """The rollout check at ``count`` positions drawn at random: each seat's share of the win over
    ``rollouts`` rollouts (each from a redeal of what the seat to act cannot see, played to the end by
    the bot the models learn from: their own games' bot, so both estimate the same thing), the
    estimate's own standard error, and the model's two views."""
    engine, view, bot = engine_for(game), view_for(game), strongest_bot(game)
    model = load(game, players)
    rng = random.Random(f"bench-winchance:{seed}:{game}:{players}")
    chosen = rng.sample(positions, min(count, len(positions)))
    out = []
    for number, position in enumerate(chosen):
        state, seat = position["state"], position["acting"]
        wins = [0.0] * players
        done = 0
        for r in range(rollouts):
            world = world_rng(seed, number, r)
            work = engine.working(view.determinise(state, seat, world))
            winners = play_out(engine, work, players, world, bot)
            if winners is None:
                continue
            done += 1
            for k in range(players):
                wins[k] += win_share(winners, k)
        estimate = np.asarray([w / max(done, 1) for w in wins])
        seat_view = model.views["seat"].chances(model.features.seat(state, seat), players, [seat])[0]
        everything = model.views["everything"].chances(model.features.everything(state), players)[0]
        out.append({"step": position["step"], "progress": round(position["progress"], 3), "seat": seat,
                    "rollouts": done, "estimate": [round(float(v), 4) for v in estimate],
                    "standard_error": round(float(np.mean(np.sqrt(estimate * (1 - estimate) / max(done, 1)))), 4),
                    "result": position["shares"],
                    "seat_view": [round(float(v), 4) for v in seat_view],
                    "everything": [round(float(v), 4) for v in everything],
                    "seat_view_mad": round(float(np.mean(np.abs(seat_view - estimate))), 4),
                    "everything_mad": round(float(np.mean(np.abs(everything - estimate))), 4)})
    return out


def _check_summary(checks: list[dict[str, Any]], rollouts: int, seconds: float) -> dict[str, Any]:
    """The rollout check's means: the two views' mean absolute difference to the rollouts, the
    rollouts' own noise, and how well the rollouts and each view foretell the games' results."""
    def mean(key: str) -> float:
        return round(float(np.mean([c[key] for c in checks])), 4)

    y = np.asarray([c["result"] for c in checks])
    foretell = {key: _metrics(np.asarray([c[key] for c in checks]), y)
                for key in ("estimate", "seat_view", "everything")}
    return {"rollouts": rollouts, "positions": len(checks), "seconds": round(seconds),
            "seat_view_mad": mean("seat_view_mad"), "everything_mad": mean("everything_mad"),
            "standard_error": mean("standard_error"), "against_results": foretell, "checks": checks}


def _speed(game: str, players: int, games: int, seed: int) -> dict[str, float]:
    """Games per second of ``governor winchance``'s work on stored logs (replay, features, trees)."""
    texts = [dumps_game(simulate_game(game, players, seed * 7 + k, strongest_bot(game))) for k in range(games)]
    models = Models(None, print)
    models.get(game, players)
    start = time.process_time()
    for text in texts:
        game_chances(models, text)
    seconds = time.process_time() - start
    return {"games": games, "cpu_seconds": round(seconds, 2), "games_per_second": round(games / seconds, 1)}


def _svg(curves: dict[str, list[dict[str, float]]]) -> str:
    """A reliability plot: each model's mean chance against how often it won, per bin."""
    size, pad = 360, 40
    colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]

    def at(v: float, flip: bool = False) -> float:
        return pad + (1 - v if flip else v) * (size - 2 * pad)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size + 160}" height="{size}" font-size="11" '
             'font-family="sans-serif">', f'<rect x="{pad}" y="{pad}" width="{size - 2 * pad}" '
             f'height="{size - 2 * pad}" fill="none" stroke="#999"/>',
             f'<line x1="{at(0)}" y1="{at(0, True)}" x2="{at(1)}" y2="{at(1, True)}" stroke="#bbb" '
             'stroke-dasharray="4"/>',
             f'<text x="{size / 2 - 50}" y="{size - 8}">chance given (whole view)</text>',
             f'<text x="8" y="{pad - 12}">how often won</text>']
    for i, (name, table) in enumerate(curves.items()):
        colour = colours[i % len(colours)]
        points = " ".join(f"{at(row['chance']):.1f},{at(row['won'], True):.1f}" for row in table)
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="1.5"/>')
        parts.append(f'<text x="{size - pad + 50}" y="{pad + 14 * i}" fill="{colour}">{name}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def measure(game: str, players: int, args: argparse.Namespace) -> dict[str, Any]:
    engine = engine_for(game)
    model = load(game, players)
    held = _positions(game, players, args.games, args.seed)
    fit = _positions(game, players, args.games, args.seed + 1)
    y = np.asarray([p["shares"] for p in held])
    quarters = np.minimum((np.asarray([p["progress"] for p in held]) * 4).astype(int), 3)
    y_fit = np.asarray([p["shares"] for p in fit]).ravel()
    found: dict[str, np.ndarray] = {}
    for key, seen in (("baseline", False), ("baseline_seat", True)):
        w = _logistic(np.concatenate([_baseline_x(engine, p, players, seen) for p in fit]), y_fit)
        x_held = np.stack([_baseline_x(engine, p, players, seen) for p in held])
        found[key] = normalised(1 / (1 + np.exp(-(x_held @ w))))
    for view in ("everything", "seat"):
        parts = []
        # In chunks: the whole view of every position of 200 five-seat games would be gigabytes.
        for start in range(0, len(held), 2000):
            chunk = held[start:start + 2000]
            rows = np.concatenate([model.features.rows(p["state"], view, p["acting"]) for p in chunk])
            viewers = [p["acting"] for p in chunk] if view == "seat" else None
            parts.append(model.views[view].chances(rows, players, viewers))
        found[view] = np.concatenate(parts)
    result: dict[str, Any] = {"game": game, "players": players, "held_out_games": args.games,
                              "positions": len(held), "quarters": {}, "calibration": {}}
    for q, name in enumerate(QUARTERS):
        mask = quarters == q
        result["quarters"][name] = {key: _metrics(value[mask], y[mask]) for key, value in found.items()}
    result["all"] = {key: _metrics(value, y) for key, value in found.items()}
    for key, value in found.items():
        ece, table = _reliability(value, y)
        result["calibration"][key] = {"ece": ece, "table": table}
    if args.rollout_positions:
        start = time.time()
        checks = _rollouts(game, players, held, args.rollout_positions, args.rollouts, args.seed)
        result["rollouts"] = _check_summary(checks, args.rollouts, time.time() - start)
    result["speed"] = _speed(game, players, args.speed_games, args.seed + 2)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--rollout-positions", type=int, default=30)
    parser.add_argument("--rollouts", type=int, default=1000)
    parser.add_argument("--speed-games", type=int, default=50)
    parser.add_argument("--only", nargs="*", default=None, help="GAME-PLAYERS, e.g. san_juan-3")
    parser.add_argument("--checks-only", action="store_true",
                        help="only the rollout check (give its own --out: bench/results_winchance_rollouts.json)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results_winchance.json"))
    parser.add_argument("--plot", default=str(ROOT / "docs" / "winchance_reliability.svg"))
    args = parser.parse_args()
    results: dict[str, Any] = {"machine": machine(), "options": {k: v for k, v in vars(args).items()}, "models": {}}
    out = Path(args.out)
    if out.exists():  # a run of some models keeps the others' results
        results["models"] = json.loads(out.read_text()).get("models", {})
    for game in game_names():
        engine = engine_for(game)
        for players in range(engine.min_players, engine.max_players + 1):
            name = f"{game}-{players}"
            if args.only and name not in args.only:
                continue
            start = time.time()
            if args.checks_only:
                # Positions of the same held-out games (the first 60 are enough to draw from).
                held = _positions(game, players, min(args.games, 60), args.seed)
                checks = _rollouts(game, players, held, args.rollout_positions, args.rollouts, args.seed)
                results["models"].setdefault(name, {})["rollouts"] = _check_summary(checks, args.rollouts,
                                                                                  time.time() - start)
                write_bytes(out, (json.dumps(results, indent=1) + "\n").encode("utf-8"))
                print(f"{name}: rollout check done in {round(time.time() - start)} s", file=sys.stderr)
                continue
            before = results["models"].get(name, {}).get("rollouts")
            results["models"][name] = measure(game, players, args)
            if "rollouts" not in results["models"][name] and before:  # --rollout-positions 0 keeps the last check
                results["models"][name]["rollouts"] = before
            results["models"][name]["seconds"] = round(time.time() - start)
            write_bytes(out, (json.dumps(results, indent=1) + "\n").encode("utf-8"))
            print(f"{name}: done in {results['models'][name]['seconds']} s", file=sys.stderr)
    if args.checks_only:
        return 0
    write_bytes(Path(args.plot), _svg({name: r["calibration"]["everything"]["table"]
                                       for name, r in sorted(results["models"].items())}).encode("utf-8"))
    print(tables(results))
    return 0


def tables(results: dict[str, Any]) -> str:
    """The results as markdown tables."""
    lines = ["| model | quarter | log loss: whole / seat / baseline / baseline on the seat's scores | "
             "Brier: whole / seat / baseline / baseline on the seat's scores |",
             "| --- | --- | --- | --- |"]
    for name, r in sorted(results["models"].items()):
        for quarter, m in [*r["quarters"].items(), ("all", r["all"])]:
            cells = []
            for metric in ("log_loss", "brier"):
                cells.append(" / ".join(str(m[key][metric]) if key in m else "-"
                                        for key in ("everything", "seat", "baseline", "baseline_seat")))
            lines.append(f"| {name} | {quarter} | {cells[0]} | {cells[1]} |")
    lines += ["", "| model | ECE whole / seat / baseline | rollout check: positions x rollouts | mean abs. difference "
              "to the rollouts: seat / whole (the rollouts' own noise) | games/s (one core) |",
              "| --- | --- | --- | --- | --- |"]
    for name, r in sorted(results["models"].items()):
        c = r["calibration"]
        roll = r.get("rollouts")
        size = f"{roll['positions']} x {roll['rollouts']}" if roll else "-"
        check = (f"{roll['seat_view_mad']} / {roll['everything_mad']} ({roll.get('standard_error', '-')})"
                 if roll else "-")
        lines.append(f"| {name} | {c['everything']['ece']} / {c['seat']['ece']} / {c['baseline']['ece']} | {size} | "
                     f"{check} | {r['speed']['games_per_second']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
