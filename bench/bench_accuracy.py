"""Does accuracy mean something? The mean accuracy (``analysis.accuracy``) of the random, heuristic
and expert bots over arena games they played against each other, in both games.

    nice python bench/bench_accuracy.py [--games 24] [--rollouts 40] [--players 3] [--game G] [--rollout-bot KIND]
                                        [--out bench/results_accuracy.json]

For each game, ``governor arena``'s round robin of the three bots, one of each at a 3-player table
(seat-balanced: every bot sits in every seat equally often), then each game analysed whole
(``analysis.decisions.analyse``, one process, the game's declared rollout bot or ``--rollout-bot``,
``--rollouts`` per candidate) and each seat's accuracy over it (``analysis.accuracy.seat_summaries``).
Per game and bot: the mean accuracy over its games with a 95 % interval (normal, from the games'
spread), the games, the decisions counted and left out (nothing at stake), the mean counts of
inaccuracies, mistakes and blunders per game and the mean win chance lost per decision. Then, at the
same positions (the decisions whose candidates are all the seat's choices), the loss and move
accuracy of each bot's choice, from the same estimates: what the measure tells apart when the
positions are the same. Not a test; one process, run it under ``nice``.

Each game's log and analysis are kept under ``bench/out/accuracy-...`` (a JSON file per game) and
reused by a later run with the same options, so that the tables can be computed again (after a change
of ``analysis.accuracy``) without playing the rollouts again. Writes ``--out`` (JSON: the machine, the
options, the seconds, the tables and each seat of each game) and prints the tables as markdown.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analysis.accuracy import at_stake, counted_loss, move_accuracy, seat_summaries  # noqa: E402
from analysis.decisions import Candidate, Decision, Options, analyse, decision_points, rollout_kind  # noqa: E402
from bench.common import OUT, machine, reference_work_ms  # noqa: E402
from governor.arena.round_robin import run_arena  # noqa: E402
from replay import native  # noqa: E402
from replay.logfile import parse_game  # noqa: E402
from replay.outputs import write_bytes  # noqa: E402
from replay.registry import engine_for, game_names  # noqa: E402
from replay.simulate import make_bot  # noqa: E402

BOTS = ("random", "heuristic", "expert")
Z95 = 1.959963984540054


def arena_logs(game: str, players: int, games: int, seed: int) -> list[tuple[dict[str, Any], list[str]]]:
    """``games`` finished arena games of the three bots (one worker): each log and the bot kind of
    each seat."""
    logs: list[tuple[dict[str, Any], list[str]]] = []

    def keep(index: int, record: Any) -> None:
        kinds = [agent["spec"] for agent in record.log["meta"]["agents"]]
        logs.append((record.log, kinds))

    specs = list(BOTS) + ["heuristic"] * max(0, players - len(BOTS))
    run_arena(game, players, specs, games, seed, workers=1, on_game=keep)
    return logs


def _decision(obj: dict[str, Any]) -> Decision:
    """A decision from its JSON (``Decision.to_json``): what accuracy reads of it, each candidate's
    move kept as its JSON."""
    candidates = tuple(Candidate(c["move"], c["text"], c["words"], c["played"], c["wins"], c["rollouts"])
                       for c in obj["candidates"])
    mover = obj["mover"] if obj["mover"] != obj["seat"] else None
    return Decision(obj["step"], obj["seat"], obj["player"], obj["legal_moves"], candidates, mover,
                    obj["mover_player"] if mover is not None else None, obj["rollout_bot"])


def analysed_games(game: str, players: int, games: int, options: Options, folder: Path,
                   engines: set[str]) -> list[tuple[list[str], list[str], list[Decision], float, dict[str, Any]]]:
    """Each arena game's players, seats' bot kinds, analysed decisions, seconds of analysis and log,
    from ``folder`` when an earlier run left them there, else played, analysed and kept there. Adds to
    ``engines`` the engines (compiled or not) each game was analysed with."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    logs = None
    for index in range(games):
        path = folder / f"{game}-{index:03d}.json"
        if not path.exists():
            if logs is None:
                logs = arena_logs(game, players, games, options.seed)
            raw, kinds = logs[index]
            log = parse_game(raw, file="arena")
            start = time.monotonic()
            decisions = [d.to_json() for d in analyse(log, options)]
            record = {"kinds": kinds, "players": log.players, "seconds": round(time.monotonic() - start, 2),
                      "engines": native.status, "decisions": decisions, "log": raw}
            write_bytes(path, json.dumps(record).encode())
        record = json.loads(path.read_text())
        out.append((record["players"], record["kinds"], [_decision(d) for d in record["decisions"]],
                    record["seconds"], record["log"]))
        engines.add(record.get("engines", "unknown"))
        print(f"{game} game {index + 1}: {len(record['decisions'])} decisions ({record['seconds']} s)", flush=True)
    return out


def _key(engine: Any, move: Any) -> str:
    """What tells two moves apart (as in ``analysis.decisions``): the JSON of the canonical form."""
    return json.dumps(engine.canonical_move(move).to_json(), sort_keys=True)


def same_positions(game: str, analysed: list[tuple[list[str], list[str], list[Decision], float, dict[str, Any]]],
                   tally: dict[str, list[tuple[float, float]]]) -> None:
    """At the same positions, the counted loss and move accuracy of each bot's choice, read from the
    analysed candidates (no new rollouts): every decision of the seat to act whose candidates are all
    its choices and that has something at stake; the random bot's as the mean over the choices (it
    picks one uniformly), the heuristic's and the expert's as their move there. Adds to ``tally``
    under each kind, and under ``played by KIND`` the move the seat's bot played."""
    engine = engine_for(game)
    bots = {kind: make_bot(game, kind, 7) for kind in ("heuristic", "expert")}
    for _, kinds, decisions, _, raw in analysed:
        log = parse_game(raw, file="arena")
        by_key = {(d.step, d.seat): d for d in decisions}
        for point, _count in decision_points(log):
            decision = by_key.get((point.step, point.seat))
            if (decision is None or point.seat != point.mover or len(decision.candidates) != decision.legal
                    or not at_stake(decision.candidates)):
                continue
            by_move = {_key(engine, engine.parse_move(c.move, "move")): c for c in decision.candidates}
            losses = [counted_loss(decision.best, c) for c in decision.candidates]
            tally.setdefault("random", []).append(
                (statistics.fmean(losses), statistics.fmean(move_accuracy(x) for x in losses)))
            for kind, bot in bots.items():
                chosen = engine.with_others_from(point.state, bot.choose(point.state), point.seat, point.played)
                candidate = by_move.get(_key(engine, chosen))
                if candidate is not None:
                    loss = counted_loss(decision.best, candidate)
                    tally.setdefault(kind, []).append((loss, move_accuracy(loss)))
            loss = counted_loss(decision.best, decision.played)
            tally.setdefault(f"played by {kinds[point.seat]}", []).append((loss, move_accuracy(loss)))


def mean_interval(values: list[float]) -> tuple[float, float, float]:
    """The mean and its normal 95 % interval."""
    mean = statistics.fmean(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("nan")
    return mean, mean - half, mean + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=24, help="arena games per game (default 24)")
    parser.add_argument("--players", type=int, default=3, help="seats (default 3: one of each bot)")
    parser.add_argument("--rollouts", type=int, default=40, help="rollouts per candidate (default 40)")
    parser.add_argument("--top", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", choices=game_names(), action="append", help="only this game (repeatable)")
    parser.add_argument("--rollout-bot", default=None, help="the bot that plays the rollouts (default: the game's)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results_accuracy.json"))
    args = parser.parse_args()
    reference_before = reference_work_ms()
    started = time.monotonic()
    seats: list[dict[str, Any]] = []
    same: list[dict[str, Any]] = []
    engines: set[str] = set()
    for game in args.game or game_names():
        options = Options(rollouts=args.rollouts, seed=args.seed, top=args.top, workers=1, rollout_bot=args.rollout_bot)
        bot_part = f"-{args.rollout_bot}" if args.rollout_bot else ""
        folder = OUT / f"accuracy-{game}-{args.players}p-{args.games}-r{args.rollouts}-t{args.top}-s{args.seed}{bot_part}"
        analysed = analysed_games(game, args.players, args.games, options, folder, engines)
        for index, (players, kinds, decisions, seconds, _) in enumerate(analysed):
            for summary, kind in zip(seat_summaries(decisions, players), kinds, strict=True):
                own = [d for d in decisions if d.seat == summary.seat and d.legal >= 2]
                seats.append({"game": game, "index": index, "bot": kind, "seat": summary.seat,
                              "accuracy": summary.accuracy, "moves": summary.moves,
                              "left_out": len(own) - summary.moves,
                              "inaccuracies": summary.inaccuracies, "mistakes": summary.mistakes,
                              "blunders": summary.blunders, "avg_loss": summary.avg_loss, "seconds": seconds})
        tally: dict[str, list[tuple[float, float]]] = {}
        same_positions(game, analysed, tally)
        for kind, values in sorted(tally.items()):
            same.append({"game": game, "choice": kind, "decisions": len(values),
                         "avg_loss_points": round(100 * statistics.fmean(v[0] for v in values), 2),
                         "move_accuracy": round(statistics.fmean(v[1] for v in values), 1)})
    table = []
    for game in args.game or game_names():
        for bot in BOTS:
            mine = [s for s in seats if s["game"] == game and s["bot"] == bot and s["accuracy"] is not None]
            if not mine:
                continue
            mean, low, high = mean_interval([s["accuracy"] for s in mine])
            moves = sum(s["moves"] for s in mine)
            table.append({
                "game": game, "bot": bot, "accuracy": round(mean, 1), "low": round(low, 1), "high": round(high, 1),
                "games": len(mine), "decisions": moves, "left_out": sum(s["left_out"] for s in mine),
                "inaccuracies": round(statistics.fmean(s["inaccuracies"] for s in mine), 2),
                "mistakes": round(statistics.fmean(s["mistakes"] for s in mine), 2),
                "blunders": round(statistics.fmean(s["blunders"] for s in mine), 2),
                "avg_loss_points": round(100 * sum(s["avg_loss"] * s["moves"] for s in mine) / moves, 2),
                "rollout_bot": rollout_kind(game, Options(rollout_bot=args.rollout_bot)),
            })
    info = machine()
    info["reference_work_ms"] = [reference_before, reference_work_ms()]
    result = {"machine": info, "seconds": round(time.monotonic() - started, 1),
              "analysis_seconds": round(sum(s["seconds"] for s in seats if s["seat"] == 0), 1),
              "analysis_engines": sorted(engines),
              "options": {"games": args.games, "players": args.players, "rollouts": args.rollouts,
                          "top": args.top, "seed": args.seed, "rollout_bot": args.rollout_bot},
              "table": table, "same_positions": same, "seats": seats}
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"\n{result['seconds']} s (analyses: {result['analysis_seconds']} s, {', '.join(sorted(engines))}); reference work before and after: {info['reference_work_ms']} ms; "
          f"engines: {info['engines']}")
    print("\n| Game | Bot | Mean accuracy [95 %] | Games | Decisions (left out) | Inaccuracies / game | "
          "Mistakes / game | Blunders / game | Win chance lost / decision |\n"
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in table:
        print(f"| {r['game']} | {r['bot']} | {r['accuracy']} [{r['low']}, {r['high']}] | {r['games']} | "
              f"{r['decisions']} ({r['left_out']}) | {r['inaccuracies']} | {r['mistakes']} | {r['blunders']} | "
              f"{r['avg_loss_points']} points |")
    print("\n| Game | Choice at the same positions | Decisions | Win chance lost / decision | Move accuracy |\n"
          "| --- | --- | --- | --- | --- |")
    for r in same:
        print(f"| {r['game']} | {r['choice']} | {r['decisions']} | {r['avg_loss_points']} points | {r['move_accuracy']} |")


if __name__ == "__main__":
    main()
