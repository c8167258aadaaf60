"""Are the analysis' winning chances calibrated? The estimated winning chance of the move played
against the game's result, over positions of games between bots, per game and population of bots.

    nice python bench/bench_calibration.py [--positions 2000] [--other-positions 600] [--per-game 5]
                                           [--rollouts 100] [--seed 1] [--game G]

For each game, games are simulated from the seed (player counts cycling through the game's range)
by a population of bots: ``own`` (every seat the game's rollout bot, ``replay.registry.rollout_bot``:
the analysis' own policy), ``mixed`` (each seat the heuristic or the expert bot, drawn per seat) and
``random`` (every seat the random bot). Of each game, ``--per-game`` decisions
(``analysis.decisions.decision_points``) spread over the game: the decisions are cut in that many
equal stretches and one is drawn in each. At each, the move played is rolled out ``--rollouts``
times by the game's rollout bot from redeals of what the deciding seat could not see
(``analysis.rollouts.run_task``, the seed the game's own): exactly the played move's estimate of
``governor analyse --sampling fixed --rollouts N --seed S`` at that step. The outcome is the seat's
share of the game's real result (1 a sole win, 1/k a k-way tie, 0 otherwise). Then
``analysis.calibration.calibrate`` per game and population (and per player count, per third of the
game, per seat's bot for ``mixed``).

Each population's positions are kept under ``bench/out/calibration-...json`` and reused by a later run
with the same options. Writes ``--out`` (the machine, the options, the seconds, every table and the
bins), the bins each game's package ships (``calibration.json`` in it, read by the dashboard's
help: ``analysis.calibration.stored_results``), the diagram as plotly HTML (``--html``), and prints the docs' tables. Not a test;
one process, run it under ``nice``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analysis.calibration import calibrate, chance_ece, stored_figure, stored_path  # noqa: E402
from analysis.decisions import decision_points  # noqa: E402
from analysis.rollouts import RolloutTask, run_task, win_share  # noqa: E402
from bench.common import OUT, machine, reference_work_ms  # noqa: E402
from replay import native  # noqa: E402
from replay.logfile import parse_game  # noqa: E402
from replay.outputs import write_bytes  # noqa: E402
from replay.registry import engine_for, game_names, game_of, game_title, make_bot, rollout_bot  # noqa: E402
from replay.simulate import MAX_ATTEMPTS, NAMES, play_out  # noqa: E402

POPULATIONS = ("own", "mixed", "random")
#: What the results file holds of a population and the package's copy leaves out.
SUMMARY_ONLY = ("by", "seconds", "engines", "games", "ece_by_chance", "mean_forecast")


def seat_kinds(game: str, population: str, players: int, rng: random.Random) -> list[str]:
    """The bot of each seat of a game of ``population``."""
    if population == "own":
        return [rollout_bot(game)] * players
    if population == "random":
        return ["random"] * players
    return [rng.choice(("heuristic", "expert")) for _ in range(players)]


def _chooser(bots: list[Any], play: Any) -> Callable[[int], Any]:
    """The move of a seat's bot in the working game ``play``."""
    return lambda seat: bots[seat].choose_working(play)


def play_game(game: str, kinds: list[str], seed: int) -> tuple[dict[str, Any], list[int]]:
    """A game of one bot of ``kinds`` per seat, from ``seed`` (as ``governor simulate`` plays one: a
    game that does not end is played again from the next attempt's seed): its log and its winners.
    Raises ``RuntimeError`` when no attempt ends."""
    engine = engine_for(game)
    for attempt in range(MAX_ATTEMPTS):
        attempt_seed = seed + attempt * 1_000_000_007
        log = engine.new_random_game(NAMES[: len(kinds)], attempt_seed, {})
        play = engine.working(engine.simulation_state(log, attempt_seed))
        rng = random.Random(f"bots:{attempt_seed}")
        bots = [make_bot(game, kind, rng.randrange(2**31)) for kind in kinds]
        moves: list[dict[str, Any]] = []
        if play_out(play, _chooser(bots, play), moves):
            final = play.snapshot()
            return engine.finish_log(log, final, moves), list(engine.winners(final))
    raise RuntimeError(f"{game}, seed {seed}: no attempt ended")


def positions_of(game: str, population: str, wanted: int, per_game: int, rollouts: int, seed: int) -> list[dict[str, Any]]:
    """``wanted`` positions of ``population``'s games (``per_game`` from each), each the played move's
    estimate and the seat's real outcome."""
    bot = rollout_bot(game)
    counts = list(range(game_of(game).min_players, game_of(game).max_players + 1))
    out: list[dict[str, Any]] = []
    number = 0
    started = time.monotonic()
    while len(out) < wanted:
        game_seed = seed * 1_000_003 + POPULATIONS.index(population) * 100_000 + number
        players = counts[number % len(counts)]
        rng = random.Random(f"calibration:{game_seed}")
        kinds = seat_kinds(game, population, players, rng)
        raw, winners = play_game(game, kinds, game_seed)
        points = list(decision_points(parse_game(raw, file="calibration")))
        number += 1
        if not points:
            continue
        moves = len(raw["moves"])
        stretch = len(points) / per_game
        chosen = sorted({int(k * stretch) + rng.randrange(max(1, int(stretch))) for k in range(per_game)})
        for index in chosen[: wanted - len(out)]:
            point = points[min(index, len(points) - 1)][0]
            result = run_task(RolloutTask(game, point.step, point.seat, point.state, (point.played,), game_seed, 0,
                                          rollouts, bot))
            if result.played[0] == 0:
                continue
            out.append({"game": number - 1, "players": players, "step": point.step, "moves": moves, "seat": point.seat,
                        "kind": kinds[point.seat], "forecast": result.wins[0] / result.played[0],
                        "rollouts": result.played[0], "outcome": win_share(winners, point.seat)})
        if number % 50 == 0:
            print(f"  {game} {population}: {number} games, {len(out)} positions, "
                  f"{time.monotonic() - started:.0f} s", flush=True)
    return out


def cached_positions(game: str, population: str, wanted: int, per_game: int, rollouts: int,
                     seed: int) -> tuple[list[dict[str, Any]], float, str]:
    """``positions_of``, from ``bench/out`` when an earlier run with the same options left them there,
    else measured and kept there; the seconds it took to measure them and the engines that ran
    (``replay.native.status``)."""
    path = OUT / f"calibration-{game}-{population}-{wanted}-g{per_game}-r{rollouts}-s{seed}.json"
    if not path.exists():
        started = time.monotonic()
        measured = positions_of(game, population, wanted, per_game, rollouts, seed)
        record = {"seconds": round(time.monotonic() - started, 1), "engines": native.status, "positions": measured}
        OUT.mkdir(parents=True, exist_ok=True)
        write_bytes(path, json.dumps(record).encode())
    record = json.loads(path.read_text())
    return record["positions"], record["seconds"], record.get("engines", "unknown")


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The calibration of ``rows``' forecasts (``Calibration.to_json``), the calibration error chance
    alone would give forecasts exactly right with the same bins (``chance_ece``) and the mean forecast
    (beside the base rate, the mean outcome: a population whose seats win more or less than estimated)."""
    made = calibrate([r["forecast"] for r in rows], [r["outcome"] for r in rows])
    return {**made.to_json(), "ece_by_chance": round(chance_ece(made.bins), 6),
            "mean_forecast": round(sum(r["forecast"] for r in rows) / len(rows), 6)}


def breakdowns(rows: list[dict[str, Any]], population: str) -> dict[str, dict[str, Any]]:
    """ECE, Brier and base-rate Brier (no bins) per player count, per third of the game and, for
    ``mixed``, per seat's bot."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(f"{r['players']} players", []).append(r)
        third = ("first", "second", "last")[min(2, 3 * (r["step"] - 1) // max(1, r["moves"]))]
        groups.setdefault(f"{third} third", []).append(r)
        if population == "mixed":
            groups.setdefault(f"seat played by {r['kind']}", []).append(r)
    out = {}
    for name in sorted(groups):
        made = summary(groups[name])
        made.pop("bins")
        out[name] = made
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=2000, help="positions of the rollout bot's own games")
    parser.add_argument("--other-positions", type=int, default=600, help="positions of each other population")
    parser.add_argument("--per-game", type=int, default=5, help="positions drawn from each game (default 5)")
    parser.add_argument("--rollouts", type=int, default=100, help="rollouts of each move played (default 100)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", choices=game_names(), action="append", help="only this game (repeatable)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results_calibration.json"))
    parser.add_argument("--stored-dir", default=None,
                        help="write each game's bins here as GAME.json (default: into the game's package)")
    parser.add_argument("--html", default=str(ROOT / "docs" / "calibration.html"), help="the diagram as plotly HTML")
    args = parser.parse_args()
    reference_before = reference_work_ms()
    started = time.monotonic()
    games: dict[str, Any] = {}
    for game in args.game or game_names():
        populations: dict[str, Any] = {}
        for population in POPULATIONS:
            wanted = args.positions if population == "own" else args.other_positions
            rows, seconds, engines = cached_positions(game, population, wanted, args.per_game, args.rollouts, args.seed)
            print(f"{game} {population}: {len(rows)} positions ({seconds} s)", flush=True)
            populations[population] = {**summary(rows), "seconds": seconds, "engines": engines,
                                       "games": len({r["game"] for r in rows}), "by": breakdowns(rows, population)}
        games[game] = {"title": game_title(game), "rollout_bot": rollout_bot(game), "populations": populations}
    info = machine()
    info["reference_work_ms"] = [reference_before, reference_work_ms()]
    options = {"positions": args.positions, "other_positions": args.other_positions, "per_game": args.per_game,
               "rollouts": args.rollouts, "seed": args.seed}
    # The rollouts' seconds, as measured when each population was (a run from bench/out only reads them).
    measured = round(sum(made["seconds"] for found in games.values() for made in found["populations"].values()), 1)
    result = {"machine": info, "seconds": round(time.monotonic() - started, 1), "measured_seconds": measured,
              "options": options, "games": games}
    write_bytes(Path(args.out), (json.dumps(result, indent=1) + "\n").encode())
    # Each game's package ships its bins, as the dashboard's help draws them.
    html: list[str] = []
    for game, found in games.items():
        shipped = {"rollouts": args.rollouts, "rollout_bot": found["rollout_bot"], "populations": {
            label(population, found["rollout_bot"]): {k: v for k, v in made.items() if k not in SUMMARY_ONLY}
            for population, made in found["populations"].items()}}
        target = Path(args.stored_dir) / f"{game}.json" if args.stored_dir else stored_path(game)
        write_bytes(target, (json.dumps(shipped, indent=1) + "\n").encode())
        figure = stored_figure(shipped)
        figure.update_layout(title=f"{found['title']}: estimated winning chance against the result",
                             margin={"t": 40})
        html.append(figure.to_html(full_html=False, include_plotlyjs="cdn" if not html else False))
    write_bytes(Path(args.html), ("<!doctype html><meta charset='utf-8'><title>Calibration of the analysis</title>\n"
                                  + "\n".join(html) + "\n").encode())
    ran = sorted({made["engines"] for found in games.values() for made in found["populations"].values()})
    print(f"\n{result['seconds']} s (the positions' rollouts: {measured} s, engines {', '.join(ran)}); reference work before and after: {info['reference_work_ms']} ms; "
          f"engines: {info['engines']}; load average {info['load_average']}")
    print("\n| Game | Games between | Positions | ECE | ECE by chance alone | Brier | Base-rate Brier | Base rate |\n"
          "| --- | --- | --- | --- | --- | --- | --- | --- |")
    for found in games.values():
        for population, made in found["populations"].items():
            print(f"| {found['title']} | {label(population, found['rollout_bot'])} | {made['positions']:,} | "
                  f"{made['ece']:.3f} | {made['ece_by_chance']:.3f} | {made['brier']:.3f} | {made['base_brier']:.3f} | "
                  f"{made['base_rate']:.3f} |")
    print("\n| Game | Games between | Part | Positions | ECE | ECE by chance alone | Brier | Base-rate Brier |\n"
          "| --- | --- | --- | --- | --- | --- | --- | --- |")
    for found in games.values():
        for population, made in found["populations"].items():
            for part, numbers in made["by"].items():
                print(f"| {found['title']} | {label(population, found['rollout_bot'])} | {part} | "
                      f"{numbers['positions']:,} | {numbers['ece']:.3f} | {numbers['ece_by_chance']:.3f} | "
                      f"{numbers['brier']:.3f} | "
                      f"{numbers['base_brier']:.3f} |")


def label(population: str, bot: str) -> str:
    """A population's name in the docs and the dashboard."""
    return {"own": f"{bot} bots (the rollout bot)", "mixed": "heuristic and expert bots",
            "random": "random bots"}[population]


if __name__ == "__main__":
    main()
