"""Adaptive sampling against fixed sampling, side by side: time and the same answers.

    python bench/bench_analysis_speed.py [--seeds 1 2 ...] [--rollouts 100] [--game NAME ...]
                                         [--out bench/results_analysis_speed.json]

Analyses a whole 4-player San Juan and 5-player Puerto Rico sample game with one worker, each run in
a process of its own (as ``governor analyse`` runs), both ways: ``--sampling fixed`` (every candidate
gets ``--rollouts`` rollouts: the analysis before adaptive sampling) and the default adaptive
sampling (at most ``--rollouts`` per candidate). The runs alternate, fixed then adaptive for each
seed in turn (old, new, old, new...), so that both see the same load on a shared machine; each run
notes its wall-clock and CPU seconds and the load average before and after. Then, per game and
sampling, every pair of seeds' runs is compared decision by decision (by move number and deciding
seat):

- ``agree``: the share of decisions whose best move is the same in both runs;
- ``blunders_kept``: of the moves one run tags a blunder, how many the other tags blunder or mistake
  (each run's blunders against the other, both ways).

For fixed sampling the agreement is also given as it would be if the move played were named best
whenever no candidate is significantly better (``agree_played_when_tied``), the rule adaptive sampling
follows, to tell the rule's share of the gain from the sampling's. Every number comes from this run:
no figure is typed in. Never a timed test: the tests check the machinery, this measures it.

``--game "San Juan, 4 players"`` measures that game again and keeps the other games of ``--out`` as
they were (after a change that touches one game only, e.g. its rollout bot); each game keeps the
machine and date it was measured on.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from unittest.mock import patch

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from analysis import decisions  # noqa: E402
from analysis.decisions import Candidate, Options, analyse, rollout_kind, significant  # noqa: E402
from analysis.rollouts import RolloutResult, RolloutTask, run_task  # noqa: E402
from bench.common import machine, reference_work_ms  # noqa: E402
from replay import native  # noqa: E402
from replay.log_reader import read_records  # noqa: E402
from replay.logfile import GameLog  # noqa: E402

GAMES = {
    "San Juan, 4 players": ROOT / "sample_logs" / "san_juan" / "san_juan-4p-seed2026-0002.json",
    "Puerto Rico, 5 players": ROOT / "sample_logs" / "puerto_rico" / "puerto_rico-5p-seed2026-0002.json",
}
SAMPLINGS = ("fixed", "adaptive")


def _log(path: Path) -> GameLog:
    record = next(iter(read_records(path)))
    assert record.log is not None, path
    return record.log


def run(log: GameLog, options: Options) -> dict[str, Any]:
    """One whole analysis in this process: its decisions (as JSON), wall-clock and CPU seconds, the
    rollouts played (pre-ranking included, counted as ``run_task`` is asked for them) and the load
    average before and after."""
    played = 0

    def counting(task: RolloutTask) -> RolloutResult:
        nonlocal played
        played += task.count * len(task.candidates)
        return run_task(task)

    load_before = os.getloadavg()
    wall, cpu = time.perf_counter(), time.process_time()
    with patch.object(decisions, "run_task", counting):
        made = [d.to_json() for d in analyse(log, options)]
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"decisions": made, "seconds": round(wall, 1), "cpu_seconds": round(cpu, 1), "rollouts": played,
            "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in os.getloadavg()]}


def run_apart(game: str, sampling: str, seed: int, rollouts: int) -> dict[str, Any]:
    """``run`` in a process of its own, as a user's ``governor analyse`` runs: no run inherits another's
    heap. Raises ``RuntimeError`` with its standard error when it fails."""
    done = subprocess.run([sys.executable, __file__, "--one", game, sampling, str(seed), "--rollouts", str(rollouts)],
                          capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _candidate(row: dict[str, Any]) -> Candidate:
    return Candidate(None, row["text"], row["words"], row["played"], row["wins"], row["rollouts"])


def _played_when_tied(decision: dict[str, Any]) -> str:
    """The best move if the move played were named whenever nothing is significantly better."""
    best, played = _candidate(decision["best"]), _candidate(decision["played"])
    return best.text if significant(best, played) else played.text


def compare(one: Sequence[dict[str, Any]], two: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Two runs of one game, decision by decision: the best move's agreement and the blunders kept.
    Raises ``ValueError`` when they analysed different decisions."""
    other = {(d["step"], d["seat"]): d for d in two}
    pairs = [(d, other[(d["step"], d["seat"])]) for d in one if (d["step"], d["seat"]) in other]
    if len(pairs) != len(one) or len(pairs) != len(two):
        raise ValueError("the two runs analysed different decisions")
    agree = sum(a["best"]["text"] == b["best"]["text"] for a, b in pairs)
    tied = sum(_played_when_tied(a) == _played_when_tied(b) for a, b in pairs)
    blunders = kept = 0
    for a, b in (*pairs, *((b, a) for a, b in pairs)):
        if a["tag"] == "blunder":
            blunders += 1
            kept += b["tag"] in ("blunder", "mistake")
    return {"decisions": len(pairs), "agree": round(agree / len(pairs), 3),
            "agree_played_when_tied": round(tied / len(pairs), 3), "blunders": blunders, "blunders_kept": kept}


def _tags(made: Sequence[dict[str, Any]]) -> dict[str, int]:
    return {tag: sum(1 for d in made if d["tag"] == tag) for tag in ("inaccuracy", "mistake", "blunder")}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2], metavar="SEED",
                        help="two seeds or more: every pair of them is compared (default 1 2)")
    parser.add_argument("--rollouts", type=int, default=100)
    parser.add_argument("--out", type=Path, default=HERE / "results_analysis_speed.json")
    parser.add_argument("--game", action="append", choices=list(GAMES), metavar="NAME",
                        help="measure only this game (repeatable), keeping the others of --out as they were")
    parser.add_argument("--one", nargs=3, metavar=("GAME", "SAMPLING", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if len(set(args.seeds)) < 2:
        parser.error("--seeds needs two different seeds or more")
    if args.one:
        name, sampling, seed = args.one
        options = Options(rollouts=args.rollouts, seed=int(seed), workers=1, sampling=sampling)
        print(json.dumps(run(_log(GAMES[name]), options)))
        return {}
    result: dict[str, Any] = {"machine": machine(), "engines": native.status, "workers": 1,
                              "rollouts": args.rollouts, "seeds": args.seeds,
                              "reference_work_ms_before": reference_work_ms(), "games": {}}
    if args.game:
        kept = _kept_games(args.out, args.rollouts, args.seeds, set(GAMES) - set(args.game))
        result["games"] = {name: kept[name] for name in GAMES if name in kept}
    for name, path in GAMES.items():
        if args.game and name not in args.game:
            continue
        runs: dict[str, list[dict[str, Any]]] = {sampling: [] for sampling in SAMPLINGS}
        for seed in args.seeds:
            for sampling in SAMPLINGS:  # old, new, old, new: both see the same load
                measured = run_apart(name, sampling, seed, args.rollouts)
                runs[sampling].append(measured)
                print(f"{name}, {sampling}, seed {seed}: {measured['seconds']} s ({measured['cpu_seconds']} s CPU), "
                      f"{measured['rollouts']:,} rollouts, load {measured['load_before'][0]} -> "
                      f"{measured['load_after'][0]}", file=sys.stderr, flush=True)
        game: dict[str, Any] = {"file": str(path.relative_to(ROOT)),
                                "rollout_bot": rollout_kind(_log(path).game, Options()),
                                "machine": result["machine"]}
        for sampling in SAMPLINGS:
            made = runs[sampling]
            game[sampling] = {
                "runs": [{key: value for key, value in m.items() if key != "decisions"} | {"tags": _tags(m["decisions"])}
                         for m in made],
                "seconds": round(sum(m["seconds"] for m in made), 1),
                "cpu_seconds": round(sum(m["cpu_seconds"] for m in made), 1),
                "rollouts": sum(m["rollouts"] for m in made),
                "pairs": [{"seeds": [args.seeds[i], args.seeds[j]]} | compare(made[i]["decisions"], made[j]["decisions"])
                          for i in range(len(made)) for j in range(i + 1, len(made))],
            }
        game["time_ratio"] = round(game["adaptive"]["seconds"] / game["fixed"]["seconds"], 3)
        game["cpu_ratio"] = round(game["adaptive"]["cpu_seconds"] / game["fixed"]["cpu_seconds"], 3)
        result["games"][name] = game
    result["games"] = {name: result["games"][name] for name in GAMES if name in result["games"]}
    result["reference_work_ms_after"] = reference_work_ms()
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(table(result))
    return result


def _kept_games(out: Path, rollouts: int, seeds: Sequence[int], names: set[str]) -> dict[str, Any]:
    """The games ``names`` of an earlier result in ``out``, each with the machine it was measured on.
    Raises ``SystemExit`` when there is none, or it was measured with other rollouts or seeds."""
    try:
        earlier = json.loads(out.read_text())
    except (OSError, ValueError) as err:
        raise SystemExit(f"bench_analysis_speed: cannot keep the other games of {out}: {err}") from None
    if earlier.get("rollouts") != rollouts or earlier.get("seeds") != list(seeds):
        raise SystemExit(f"bench_analysis_speed: {out} was measured with --rollouts {earlier.get('rollouts')} "
                         f"--seeds {' '.join(map(str, earlier.get('seeds') or []))}: give the same to keep its other games")
    return {name: {"machine": earlier.get("machine")} | game
            for name, game in earlier.get("games", {}).items() if name in names}


def table(result: dict[str, Any]) -> str:
    """The docs' tables of a result: time, then each pair of seeds' answers."""
    runs = len(result["seeds"])
    lines = [
        f"| Game | sampling | seconds ({runs} runs) | CPU seconds | rollouts | inaccuracies, mistakes, blunders a run |",
        "| --- | --- | ---: | ---: | ---: | --- |",
    ]
    for name, game in result["games"].items():
        for sampling in SAMPLINGS:
            row = game[sampling]
            tags = "; ".join(f"{r['tags']['inaccuracy']}, {r['tags']['mistake']}, {r['tags']['blunder']}" for r in row["runs"])
            lines.append(f"| {name} | {sampling} | {row['seconds']:.1f} | {row['cpu_seconds']:.1f} | "
                         f"{row['rollouts']:,} | {tags} |")
        lines.append(f"| {name} | adaptive / fixed | **{game['time_ratio']:.3f}** | {game['cpu_ratio']:.3f} | | |")
    lines += ["", "| Game | seeds | best move agrees: fixed (naming the move played when tied) | adaptive | "
              "blunders kept: fixed | adaptive |", "| --- | --- | --- | --- | --- | --- |"]
    for name, game in result["games"].items():
        for old, new in zip(game["fixed"]["pairs"], game["adaptive"]["pairs"], strict=True):
            seeds = " and ".join(str(seed) for seed in old["seeds"])
            lines.append(f"| {name} | {seeds} | {100 * old['agree']:.1f} % ({100 * old['agree_played_when_tied']:.1f} %) "
                         f"| {100 * new['agree']:.1f} % | {old['blunders_kept']}/{old['blunders']} "
                         f"| {new['blunders_kept']}/{new['blunders']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
