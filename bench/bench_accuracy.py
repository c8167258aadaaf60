"""Does accuracy mean something? The mean accuracy (``analysis.accuracy``) of the random, heuristic
and expert bots over arena games they played against each other, in both games.

    nice python bench/bench_accuracy.py [--games 24] [--rollouts 40] [--players 3] [--game G] [--rollout-bot KIND]
                                        [--sampling adaptive|fixed] [--first N [--tables] [--cached]] [--out FILE]

For each game, ``governor arena``'s round robin of the three bots, one of each at a 3-player table
(seat-balanced: every bot sits in every seat equally often), then each game analysed whole
(``analysis.decisions.analyse``, one process, the game's declared rollout bot or ``--rollout-bot``,
at most ``--rollouts`` per candidate, adaptive sampling unless ``--sampling fixed``) and each seat's
accuracy over it (``analysis.accuracy.seat_summaries``). Per game and bot: the mean accuracy over its
games with a 95 % interval (normal, from the games' spread), the games, the decisions counted and left
out (nothing at stake), the mean counts of tags per game and the mean win chance lost per decision.

What the other tables are for (docs/analysis.md, "Accuracy"): the accuracy of the win chances alone
(the rule before the score share: decisions with nothing at stake left out, or all counted as
lichess does), by game phase (decisions counted and left out, the loss); other valuations of a
rollout measured on the same rollouts (each rollout's final scores are kept: the seat's win, its
share of opponents beaten, its share of the scores, points by place with the second place worth
0.25, 0.75 or 1, and the mean of the opponents beaten and the score share), each with its exchange
rate to win chance (the least-squares slope of the difference of two candidates' win chances on the
difference of their values, in contested positions); the two means a seat's accuracy blends and the
share of large losses; per kind of decision (the kind of the move played, or a part of another
seat's move) each bot's losses and its accuracy over those decisions alone; and, at the same
positions (the decisions whose candidates are all the seat's choices), the loss and move accuracy of
each bot's choice, from the same estimates, also per kind of decision with how often the heuristic
and the expert bot choose the same move. Not a test; one process, run it under ``nice``.

Each game's log and analysis are kept under ``bench/out/accuracy-...`` (a JSON file per game, with
each candidate's rollouts' final scores) and reused by a later run with the same options, so that the
tables can be computed again (after a change of ``analysis.accuracy``) without playing the rollouts
again; ``--first N`` analyses only the first N games (a long run in parts), and with ``--tables``
writes the tables over them (with ``--cached``, over those of them already analysed). Writes ``--out`` (JSON: the machine, the options, the seconds, the
exchange rate used and measured over both games, the tables and each seat of each game) and prints
the tables as markdown.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import analysis.accuracy as accuracy_module  # noqa: E402
import analysis.decisions as decisions_module  # noqa: E402
from analysis.accuracy import (  # noqa: E402
    ScoredMove,
    at_stake,
    counted_loss,
    move_accuracy,
    move_loss,
    scored,
    summarise,
    volatility_weights,
)
from analysis.decisions import (  # noqa: E402
    SAMPLINGS,
    Candidate,
    Decision,
    Options,
    analyse,
    decision_points,
    rollout_kind,
)
from analysis.rollouts import (  # noqa: E402
    RolloutResult,
    RolloutTask,
    run_task_watched,
)
from bench.accuracy_values import (  # noqa: E402
    PLACES,
    VALUATIONS,
    Valuation,
    blend_value,
    decision_of,
    exchange_rate,
    mean_interval,
    move_key,
    move_kind,
    places_value,
    share_value,
)
from bench.common import OUT, machine, reference_work_ms  # noqa: E402
from governor.arena.round_robin import run_arena  # noqa: E402
from ingest.accuracy_sql import SHARE_TO_WIN  # noqa: E402
from replay import native  # noqa: E402
from replay.logfile import parse_game  # noqa: E402
from replay.outputs import write_bytes  # noqa: E402
from replay.registry import engine_for, game_names  # noqa: E402
from replay.simulate import make_bot  # noqa: E402

BOTS = ("random", "heuristic", "expert")
Z95 = 1.959963984540054
#: The thirds of a game (by move number) the diagnosis is split by.
PHASES = ("early", "middle", "late")

#: Each rollout's final scores, recorded by ``_recording_run_task``: (seed, step, seat, candidate text,
#: rollout number) -> each seat's [total, tie-break] and the winners.
SCORES: dict[tuple[int, int, int, str, int], list[Any]] = {}


def _recording_run_task(task: RolloutTask) -> RolloutResult:
    """``analysis.rollouts.run_task``, the same rollouts and results, also keeping each rollout's final
    scores in ``SCORES`` (so that other valuations of a rollout can be measured on the same rollouts)."""
    def keep(number: int, index: int, engine: Any, final: Any) -> None:
        SCORES[(task.seed, task.step, task.seat, task.candidates[index].text(), number)] = [
            [[s.total, s.tiebreak] for s in engine.scores(final)], engine.winners(final)]
    return run_task_watched(task, keep)


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


def analysed_games(game: str, players: int, games: int, options: Options, folder: Path,
                   engines: set[str], first: int | None = None, cached: bool = False) -> list[dict[str, Any]]:
    """Each arena game's record (``players``, ``kinds``: the seats' bots, ``decisions``: their JSON with
    each candidate's rollouts' ``finals``, ``seconds`` of analysis, ``log``), from ``folder`` when an
    earlier run left it there, else played, analysed and kept there (``cached``: only the games kept
    there, up to the first missing one). Adds to ``engines`` the engines (compiled or not) each game
    was analysed with."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    logs = None
    arena_file = folder / "arena.json"
    for index in range(games if first is None else min(first, games)):
        path = folder / f"{game}-{index:03d}.json"
        if not path.exists() and cached:
            break
        if not path.exists():
            if logs is None and arena_file.exists():
                logs = json.loads(arena_file.read_text())
            if logs is None:
                logs = arena_logs(game, players, games, options.seed)
                write_bytes(arena_file, json.dumps(logs).encode())
            raw, kinds = logs[index]
            log = parse_game(raw, file="arena")
            start = time.monotonic()
            SCORES.clear()
            decisions_module.run_task = _recording_run_task  # type: ignore[assignment]
            decisions = [d.to_json() for d in analyse(log, options)]
            for decision in decisions:
                for candidate in decision["candidates"]:
                    # Rollout numbers 0 to the cap: each one's final scores, or None (not played by a
                    # race that let the candidate go, or not ended).
                    candidate["finals"] = [SCORES.get((options.seed, decision["step"], decision["seat"],
                                                       candidate["text"], k)) for k in range(options.rollouts)]
            record = {"kinds": kinds, "players": log.players, "seconds": round(time.monotonic() - start, 2),
                      "engines": native.status, "decisions": decisions, "log": raw}
            write_bytes(path, json.dumps(record).encode())
        record = json.loads(path.read_text())
        out.append(record)
        engines.add(record.get("engines", "unknown"))
        print(f"{game} game {index + 1}: {len(record['decisions'])} decisions ({record['seconds']} s)", flush=True)
    return out


def same_positions(game: str, analysed: list[dict[str, Any]], tally: dict[str, list[tuple[float, float, float]]],
                   by_kind: dict[tuple[str, str], list[float]] | None = None,
                   agree: dict[str, list[bool]] | None = None) -> None:
    """At the same positions, the loss (modelled from the score share, as the accuracy counts it, and
    of win chance alone) and move accuracy of each bot's choice, read from the analysed candidates
    (no new rollouts): every decision of the seat to act whose candidates are all its choices and that
    has something at stake; the random bot's as the mean over the choices (it picks one uniformly),
    the heuristic's and the expert's as their move there. Adds to ``tally`` under each kind, and under
    ``played by KIND`` the move the seat's bot played; and to ``by_kind`` each loss under the kind of
    the decision (``move_kind``) and the choice, and to ``agree`` under the kind whether the heuristic
    and the expert bot chose the same candidate there."""
    engine = engine_for(game)
    bots = {kind: make_bot(game, kind, 7) for kind in ("heuristic", "expert")}

    def losses(decision: Decision, candidate: Candidate) -> tuple[float, float, float]:
        loss = move_loss(decision.candidates, decision.best, candidate)
        return loss, move_accuracy(loss), counted_loss(decision.best, candidate)

    for record in analysed:
        kinds = record["kinds"]
        log = parse_game(record["log"], file="arena")
        by_key = {(d.step, d.seat): d for d in map(decision_of, record["decisions"])}
        by_key_json = {(d["step"], d["seat"]): d for d in record["decisions"]}
        for point, _count in decision_points(log):
            decision = by_key.get((point.step, point.seat))
            if (decision is None or point.seat != point.mover or len(decision.candidates) != decision.legal
                    or not at_stake(decision.candidates)):
                continue
            by_move = {move_key(engine, engine.parse_move(c.move, "move")): c for c in decision.candidates}
            each = [losses(decision, c) for c in decision.candidates]
            found = {"random": (statistics.fmean(x[0] for x in each), statistics.fmean(x[1] for x in each),
                                statistics.fmean(x[2] for x in each))}
            chosen_by: dict[str, Candidate | None] = {}
            for kind, bot in bots.items():
                chosen = engine.with_others_from(point.state, bot.choose(point.state), point.seat, point.played)
                candidate = chosen_by[kind] = by_move.get(move_key(engine, chosen))
                if candidate is not None:
                    found[kind] = losses(decision, candidate)
            found[f"played by {kinds[point.seat]}"] = losses(decision, decision.played)
            kind = move_kind(by_key_json[(point.step, point.seat)])
            for choice, value in found.items():
                tally.setdefault(choice, []).append(value)
                if by_kind is not None:
                    by_kind.setdefault((kind, choice), []).append(value[0])
            if agree is not None and chosen_by["heuristic"] is not None and chosen_by["expert"] is not None:
                agree.setdefault(kind, []).append(chosen_by["heuristic"] is chosen_by["expert"])


#: A large loss (points of win chance, as a share): a blunder's threshold, a move accuracy of 14.9.
BIG = 0.2


def _means(moves: list[ScoredMove]) -> tuple[float | None, float | None]:
    """The two means a seat's game accuracy is the mean of (``analysis.accuracy.game_accuracy``):
    the volatility-weighted and the harmonic mean of its moves' accuracies (None without moves)."""
    if not moves:
        return None, None
    accuracies = [m.accuracy for m in moves]
    weights = volatility_weights([100 * moves[0].before] + [100 * m.after for m in moves], len(moves))
    return (sum(a * w for a, w in zip(accuracies, weights, strict=True)) / sum(weights),
            len(accuracies) / sum(1 / max(1.0, a) for a in accuracies))


def seat_rows(game: str, analysed: list[dict[str, Any]], value: Valuation | None,
              count_all: bool = False) -> list[dict[str, Any]]:
    """Each seat of each game with its accuracy (``value`` as the candidates' share; None: the win
    chances alone; ``count_all``: every decision counted, those with nothing at stake as perfect)."""
    rows = []
    for index, record in enumerate(analysed):
        decisions = [decision_of(d, value) for d in record["decisions"]]
        moves = [scored(d) for d in decisions if d.legal >= 2]
        if count_all:
            moves = [dataclasses.replace(m, at_stake=True) for m in moves]
        for summary, kind in zip(summarise(moves, record["players"]), record["kinds"], strict=True):
            own = sum(1 for m in moves if m.seat == summary.seat)
            weighted, harmonic = _means([m for m in moves if m.seat == summary.seat and m.at_stake])
            rows.append({"game": game, "index": index, "bot": kind, "seat": summary.seat,
                         "accuracy": summary.accuracy, "weighted": weighted, "harmonic": harmonic,
                         "big_losses": sum(1 for m in moves if m.seat == summary.seat and m.at_stake and m.loss >= BIG),
                         "moves": summary.moves, "left_out": own - summary.moves,
                         "inaccuracies": summary.inaccuracies, "mistakes": summary.mistakes,
                         "blunders": summary.blunders, "avg_loss": summary.avg_loss, "seconds": record["seconds"]})
    return rows


def bot_table(game: str, rows: list[dict[str, Any]], rollout_bot: str) -> list[dict[str, Any]]:
    """Per bot: the mean accuracy over its games with its interval, the decisions and the tags."""
    table = []
    for bot in BOTS:
        mine = [s for s in rows if s["bot"] == bot and s["accuracy"] is not None]
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
            "avg_loss_points": round(100 * sum(s["avg_loss"] * s["moves"] for s in mine) / max(1, moves), 2),
            "weighted_mean": round(statistics.fmean(s["weighted"] for s in mine), 1),
            "harmonic_mean": round(statistics.fmean(s["harmonic"] for s in mine), 1),
            "big_loss_share": round(sum(s["big_losses"] for s in mine) / max(1, moves), 4),
            "rollout_bot": rollout_bot,
        })
    return table


def phases(game: str, analysed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per bot and third of the game: the decisions with something at stake in win chance (counted by
    the win chances alone) and without (left out), the mean win chance lost over those counted, and
    the mean loss modelled from the score share over all of them."""
    tally: dict[tuple[str, str], list[float]] = {}
    for record in analysed:
        last = max(1, len(record["log"]["moves"]))
        for obj in record["decisions"]:
            if obj["legal_moves"] < 2:
                continue
            old, new = decision_of(obj, None), decision_of(obj)
            key = (record["kinds"][obj["seat"]], PHASES[min(2, 3 * (obj["step"] - 1) // last)])
            cell = tally.setdefault(key, [0, 0, 0.0, 0.0])
            if at_stake(old.candidates):
                cell[0] += 1
                cell[2] += counted_loss(old.best, old.played)
            else:
                cell[1] += 1
            cell[3] += move_loss(new.candidates, new.best, new.played)
    out = []
    for bot in BOTS:
        for phase in PHASES:
            counted, left, loss, modelled = tally.get((bot, phase), [0, 0, 0.0, 0.0])
            out.append({"game": game, "bot": bot, "phase": phase, "counted": counted, "left_out": left,
                        "win_loss_points": round(100 * loss / max(1, counted), 2),
                        "modelled_loss_points": round(100 * modelled / max(1, counted + left), 2)})
    return out


def by_kind(game: str, analysed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per kind of decision (``move_kind``) and bot, over the decisions counted (score share, as the
    rule): the decisions, the mean loss, the share of large losses (``BIG``) and the bot's mean
    accuracy over those decisions alone (each seat's game accuracy of its decisions of that kind)."""
    moves: dict[tuple[str, str], list[tuple[int, ScoredMove]]] = {}
    for index, record in enumerate(analysed):
        for obj in record["decisions"]:
            if obj["legal_moves"] < 2:
                continue
            move = scored(decision_of(obj))
            if move.at_stake:
                moves.setdefault((move_kind(obj), record["kinds"][obj["seat"]]), []).append((index, move))
    out = []
    for kind in sorted({k for k, _ in moves}):
        for bot in BOTS:
            mine = moves.get((kind, bot), [])
            if not mine:
                continue
            seats: dict[tuple[int, int], list[ScoredMove]] = {}
            for index, move in mine:
                seats.setdefault((index, move.seat), []).append(move)
            accuracies = [summarise(ms, [""] * (seat + 1))[seat].accuracy for (_, seat), ms in seats.items()]
            mean, low, high = mean_interval([a for a in accuracies if a is not None])
            # One seat has no interval (JSON has no NaN).
            bounds = (round(low, 1), round(high, 1)) if len(accuracies) > 1 else (None, None)
            out.append({"game": game, "kind": kind, "bot": bot, "decisions": len(mine),
                        "avg_loss_points": round(100 * statistics.fmean(m.loss for _, m in mine), 2),
                        "big_loss_share": round(sum(1 for _, m in mine if m.loss >= BIG) / len(mine), 4),
                        "accuracy": round(mean, 1), "low": bounds[0], "high": bounds[1], "seats": len(accuracies)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=24, help="arena games per game (default 24)")
    parser.add_argument("--players", type=int, default=3, help="seats (default 3: one of each bot)")
    parser.add_argument("--rollouts", type=int, default=40, help="rollouts per candidate (default 40)")
    parser.add_argument("--top", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", choices=game_names(), action="append", help="only this game (repeatable)")
    parser.add_argument("--rollout-bot", default=None, help="the bot that plays the rollouts (default: the game's)")
    parser.add_argument("--first", type=int, default=None,
                        help="only the first N of the --games (the rest analysed by a later run): analysed, no tables")
    parser.add_argument("--tables", action="store_true", help="with --first: the tables over the first N games")
    parser.add_argument("--cached", action="store_true",
                        help="only the games already analysed (up to the first missing one): no new analysis")
    parser.add_argument("--sampling", choices=SAMPLINGS, default="adaptive", help="how rollouts are spent (default adaptive)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results_accuracy.json"))
    args = parser.parse_args()
    reference_before = reference_work_ms()
    started = time.monotonic()
    seats: list[dict[str, Any]] = []
    table: list[dict[str, Any]] = []
    old_rule: list[dict[str, Any]] = []
    by_phase: list[dict[str, Any]] = []
    valuations: list[dict[str, Any]] = []
    same: list[dict[str, Any]] = []
    kinds_table: list[dict[str, Any]] = []
    same_kinds: list[dict[str, Any]] = []
    engines: set[str] = set()
    everything: list[dict[str, Any]] = []
    for game in args.game or game_names():
        options = Options(rollouts=args.rollouts, seed=args.seed, top=args.top, workers=1, rollout_bot=args.rollout_bot,
                          sampling=args.sampling)
        bot_part = f"-{args.rollout_bot}" if args.rollout_bot else ""
        folder = OUT / f"accuracy-{game}-{args.players}p-{args.games}-r{args.rollouts}-t{args.top}-s{args.seed}{bot_part}-{args.sampling}"
        analysed = analysed_games(game, args.players, args.games, options, folder, engines, args.first, args.cached)
        if args.first is not None and not args.tables:
            continue  # a part of a long run: the games are analysed and kept, the tables come at the end
        everything += analysed
        rollout_bot = rollout_kind(game, Options(rollout_bot=args.rollout_bot))
        rows = seat_rows(game, analysed, share_value)
        seats += rows
        table += bot_table(game, rows, rollout_bot)
        for name, count_all in (("win chance, nothing at stake left out", False), ("win chance, every decision", True)):
            for row in bot_table(game, seat_rows(game, analysed, None, count_all), rollout_bot):
                old_rule.append({"rule": name, **row})
        by_phase += phases(game, analysed)
        rates = {name: exchange_rate(analysed, value)[0] for name, value in VALUATIONS.items()}
        measured = {**VALUATIONS, **{f"places, second {x}": places_value(x) for x in PLACES},
                    "mean of opponents beaten and score share": blend_value(rates["opponents beaten"], rates["score share"])}
        for name, value in measured.items():
            rate, pairs = exchange_rate(analysed, value)
            accuracy_module.SHARE_TO_WIN = rate  # type: ignore[misc]
            for row in bot_table(game, seat_rows(game, analysed, value), rollout_bot):
                valuations.append({"valuation": name, "points_of_win_chance_per_point": round(rate, 2),
                                   "pairs": pairs, **row})
        accuracy_module.SHARE_TO_WIN = SHARE_TO_WIN  # type: ignore[misc]
        kinds_table += by_kind(game, analysed)
        tally: dict[str, list[tuple[float, float, float]]] = {}
        same_by_kind: dict[tuple[str, str], list[float]] = {}
        agree: dict[str, list[bool]] = {}
        same_positions(game, analysed, tally, same_by_kind, agree)
        for (kind, choice), kind_losses in sorted(same_by_kind.items()):
            same_kinds.append({"game": game, "kind": kind, "choice": choice, "decisions": len(kind_losses),
                               "avg_loss_points": round(100 * statistics.fmean(kind_losses), 2),
                               "heuristic_is_expert": round(statistics.fmean(agree.get(kind) or [False]), 4)})
        for kind, values in sorted(tally.items()):
            same.append({"game": game, "choice": kind, "decisions": len(values),
                         "avg_loss_points": round(100 * statistics.fmean(v[0] for v in values), 2),
                         "move_accuracy": round(statistics.fmean(v[1] for v in values), 1),
                         "avg_win_loss_points": round(100 * statistics.fmean(v[2] for v in values), 2)})
    if args.first is not None and not args.tables:
        return
    info = machine()
    info["reference_work_ms"] = [reference_before, reference_work_ms()]
    result = {"machine": info, "seconds": round(time.monotonic() - started, 1),
              "analysis_seconds": round(sum(s["seconds"] for s in seats if s["seat"] == 0), 1),
              "analysis_engines": sorted(engines), "share_to_win": SHARE_TO_WIN,
              "share_to_win_measured": dict(zip(("rate", "pairs"), exchange_rate(everything, share_value), strict=True)),
              "options": {"games": args.games, "players": args.players, "rollouts": args.rollouts,
                          "top": args.top, "seed": args.seed, "rollout_bot": args.rollout_bot,
                          "sampling": args.sampling, "first": args.first, "cached": args.cached},
              "games_analysed": {game: sum(1 for s in seats if s["game"] == game and s["seat"] == 0)
                                 for game in args.game or game_names()},
              "table": table, "win_chance_rule": old_rule, "phases": by_phase, "valuations": valuations,
              "same_positions": same, "by_kind": kinds_table, "same_positions_by_kind": same_kinds,
              "seats": seats}
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"\nscore share -> win chance: {SHARE_TO_WIN} used, measured {result['share_to_win_measured']}")
    print(f"\n{result['seconds']} s (analyses: {result['analysis_seconds']} s, {', '.join(sorted(engines))}); "
          f"reference work before and after: {info['reference_work_ms']} ms; engines: {info['engines']}")
    print("\n| Game | Bot | Mean accuracy [95 %] | Games | Decisions (left out) | Inaccuracies / game | "
          "Mistakes / game | Blunders / game | Win chance lost / decision |\n"
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in table:
        print(f"| {r['game']} | {r['bot']} | {r['accuracy']} [{r['low']}, {r['high']}] | {r['games']} | "
              f"{r['decisions']} ({r['left_out']}) | {r['inaccuracies']} | {r['mistakes']} | {r['blunders']} | "
              f"{r['avg_loss_points']} points |")
    print("\n| Game | Bot | Volatility-weighted mean | Harmonic mean | Losses of 20 points or more |\n"
          "| --- | --- | --- | --- | --- |")
    for r in table:
        print(f"| {r['game']} | {r['bot']} | {r['weighted_mean']} | {r['harmonic_mean']} | "
              f"{round(100 * r['big_loss_share'], 1)} % |")
    print("\n| Game | Kind of decision | Bot | Decisions | Loss / decision | Losses of 20 points or more | "
          "Accuracy over these alone [95 %] |\n| --- | --- | --- | --- | --- | --- | --- |")
    for r in kinds_table:
        print(f"| {r['game']} | {r['kind']} | {r['bot']} | {r['decisions']} | {r['avg_loss_points']} points | "
              f"{round(100 * r['big_loss_share'], 1)} % | {r['accuracy']} [{r['low']}, {r['high']}] |")
    print("\n| Game | Kind of decision | Choice at the same positions | Decisions | Loss / decision | "
          "Heuristic's move is the expert's |\n| --- | --- | --- | --- | --- | --- |")
    for r in same_kinds:
        print(f"| {r['game']} | {r['kind']} | {r['choice']} | {r['decisions']} | {r['avg_loss_points']} points | "
              f"{round(100 * r['heuristic_is_expert'], 1)} % |")
    print("\n| Game | Rule | Bot | Mean accuracy [95 %] | Decisions (left out) | Win chance lost / decision |\n"
          "| --- | --- | --- | --- | --- | --- |")
    for r in old_rule:
        print(f"| {r['game']} | {r['rule']} | {r['bot']} | {r['accuracy']} [{r['low']}, {r['high']}] | "
              f"{r['decisions']} ({r['left_out']}) | {r['avg_loss_points']} points |")
    print("\n| Game | Bot | Phase | Counted | Left out | Win chance lost / counted | Modelled loss / decision |\n"
          "| --- | --- | --- | --- | --- | --- | --- |")
    for r in by_phase:
        print(f"| {r['game']} | {r['bot']} | {r['phase']} | {r['counted']} | {r['left_out']} | "
              f"{r['win_loss_points']} | {r['modelled_loss_points']} |")
    print("\n| Game | Valuation | Win chance per point | Bot | Mean accuracy [95 %] | Decisions (left out) |\n"
          "| --- | --- | --- | --- | --- | --- |")
    for r in valuations:
        print(f"| {r['game']} | {r['valuation']} | {r['points_of_win_chance_per_point']} ({r['pairs']} pairs) | "
              f"{r['bot']} | {r['accuracy']} [{r['low']}, {r['high']}] | {r['decisions']} ({r['left_out']}) |")
    print("\n| Game | Choice at the same positions | Decisions | Loss / decision (win chance alone) | Move accuracy |\n"
          "| --- | --- | --- | --- | --- |")
    for r in same:
        print(f"| {r['game']} | {r['choice']} | {r['decisions']} | {r['avg_loss_points']} points "
              f"({r['avg_win_loss_points']}) | {r['move_accuracy']} |")


if __name__ == "__main__":
    main()
