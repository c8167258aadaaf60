"""Rollouts cut short by the win-chance model against rollouts played to the end: time and answers.

    python bench/bench_rollout_cutoff.py [--seeds 1 2 3] [--cutoffs 10 20 40] [--rollouts 100]
                                         [--out bench/results_rollout_cutoff.json] [--keep DIR]
    python bench/bench_rollout_cutoff.py --again DIR [--out ...]

Analyses the two games of ``bench_analysis_speed.py`` (a 4-player San Juan and a 5-player Puerto Rico
sample game) with one worker, each run in a process of its own, with the default analysis (every
rollout played to the end) and with each ``--cutoff`` (a rollout still in play that many moves after
the candidate is valued by the game's win-chance model). For each seed in turn the runs alternate,
the default first, then each cutoff (old, new, new, new, old...), so that all see the same load on a
shared machine; CPU seconds are what is compared. Then, per game and setting, every pair of seeds'
runs is compared decision by decision (``bench_analysis_speed.compare``) on the bars the analysis is
held to:

- ``agree``: the share of decisions whose best move is the same in both runs (bar: 90 %);
- ``blunders_kept``: of the moves one run tags a blunder, how many the other tags blunder or mistake
  (bar: every one);

with each run's share of decisions whose best move is the move played (``best_is_played``: two runs
that name nothing better agree). And every run is compared with the default runs (``versus``), of
the same seed and of the other seeds (for the default itself: seed against seed, what the rollouts'
noise alone changes): the best move's and the tag's agreement, each run's blunders kept by the
other, and each run's *better moves* (a best move that is not the move played) named best by the
other too. A setting ``keeps_bars`` when every pair of its seeds meets both bars. Every number comes
from the runs: no figure is typed in (``--keep DIR`` writes each run's decisions, and ``--again DIR``
compares the runs of ``--out`` again from them without running anything). Never a timed test: the
tests check the machinery, this measures it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from analysis.decisions import Options, rollout_kind  # noqa: E402
from bench.bench_analysis_speed import GAMES, _log, compare, run, run_apart  # noqa: E402
from bench.common import machine, reference_work_ms  # noqa: E402
from replay import native  # noqa: E402

#: The bars of the analysis' stability (docs/analysis.md, Speed).
AGREE_BAR = 0.9
DEFAULT = "default"


def run_cut_apart(game: str, cutoff: int, seed: int, rollouts: int) -> dict[str, Any]:
    """``bench_analysis_speed.run`` of one cut analysis in a process of its own (as ``run_apart`` runs
    the default one). Raises ``RuntimeError`` with its standard error when it fails."""
    done = subprocess.run([sys.executable, __file__, "--one", game, str(cutoff), str(seed), "--rollouts", str(rollouts)],
                          capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def versus(default: Sequence[dict[str, Any]], other: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Run ``other`` against a ``default`` run, as counts: decisions, the same best move, the same
    tag (none counts as a tag), each run's blunders and how many of them the other tags blunder or
    mistake, and each run's *better moves* (decisions whose best move is not the move played) and
    how many of them the other names best too. Raises ``ValueError`` when they analysed different
    decisions."""
    compare(default, other)
    found = {(d["step"], d["seat"]): d for d in other}
    pairs = [(d, found[(d["step"], d["seat"])]) for d in default]
    out = {"decisions": len(pairs), "agree": sum(a["best"]["text"] == b["best"]["text"] for a, b in pairs),
           "tag_agree": sum(a["tag"] == b["tag"] for a, b in pairs)}
    for name, ordered in (("default", pairs), ("other", [(b, a) for a, b in pairs])):
        blunders = [b for a, b in ordered if a["tag"] == "blunder"]
        out[f"{name}_blunders"] = len(blunders)
        out[f"{name}_blunders_kept"] = sum(b["tag"] in ("blunder", "mistake") for b in blunders)
        better = [(a, b) for a, b in ordered if not a["best"]["played"]]
        out[f"{name}_better"] = len(better)
        out[f"{name}_better_named"] = sum(a["best"]["text"] == b["best"]["text"] for a, b in better)
    return out


def summed(found: Sequence[dict[str, int]]) -> dict[str, Any]:
    """``versus``'s counts added up over runs, with the agreements as shares of the decisions."""
    total = {key: sum(f[key] for f in found) for key in found[0]}
    return total | {"agree": round(total["agree"] / total["decisions"], 3),
                    "tag_agree": round(total["tag_agree"] / total["decisions"], 3)}


def _tags(made: Sequence[dict[str, Any]]) -> dict[str, int]:
    return {tag: sum(1 for d in made if d["tag"] == tag) for tag in ("inaccuracy", "mistake", "blunder")}


def _best_is_played(made: Sequence[dict[str, Any]]) -> float:
    """The share of decisions whose best move is the move played (nothing significantly better)."""
    return round(sum(d["best"]["played"] for d in made) / len(made), 3)


def _setting(made: Sequence[dict[str, Any]], seeds: Sequence[int]) -> dict[str, Any]:
    """One setting's runs of one game: their time, tags and every pair of seeds compared."""
    pairs = [{"seeds": [seeds[i], seeds[j]]} | compare(made[i]["decisions"], made[j]["decisions"])
             for i in range(len(made)) for j in range(i + 1, len(made))]
    for pair in pairs:
        del pair["agree_played_when_tied"]
    return {
        "runs": [{key: value for key, value in m.items() if key != "decisions"}
                 | {"tags": _tags(m["decisions"]), "best_is_played": _best_is_played(m["decisions"])} for m in made],
        "cpu_seconds": round(sum(m["cpu_seconds"] for m in made), 1),
        "seconds": round(sum(m["seconds"] for m in made), 1),
        "rollouts": sum(m["rollouts"] for m in made),
        "pairs": pairs,
        "keeps_bars": all(p["agree"] >= AGREE_BAR and p["blunders_kept"] == p["blunders"] for p in pairs),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3], metavar="SEED",
                        help="two seeds or more: every pair of them is compared (default 1 2 3)")
    parser.add_argument("--cutoffs", type=int, nargs="+", default=[10, 20, 40], metavar="N",
                        help="the cutoffs measured, in moves (default 10 20 40)")
    parser.add_argument("--rollouts", type=int, default=100)
    parser.add_argument("--out", type=Path, default=HERE / "results_rollout_cutoff.json")
    parser.add_argument("--keep", type=Path, default=None, metavar="DIR",
                        help="also write each run's decisions to DIR (one JSON file a run), to look into later")
    parser.add_argument("--again", type=Path, default=None, metavar="DIR",
                        help="run nothing: compare again the runs of --out from their decisions kept in DIR by "
                             "--keep (after a new measure of the answers is added)")
    parser.add_argument("--one", nargs=3, metavar=("GAME", "CUTOFF", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if len(set(args.seeds)) < 2:
        parser.error("--seeds needs two different seeds or more")
    if any(n < 1 for n in args.cutoffs):
        parser.error("--cutoffs are 1 move or more")
    if args.one:
        name, cutoff, seed = args.one
        options = Options(rollouts=args.rollouts, seed=int(seed), workers=1, cutoff=int(cutoff))
        print(json.dumps(run(_log(GAMES[name]), options)))
        return {}
    if args.again is not None:
        return _again(args.out, args.again)
    settings = [DEFAULT, *(f"cutoff {n}" for n in args.cutoffs)]
    result: dict[str, Any] = {"machine": machine(), "engines": native.status, "workers": 1,
                              "rollouts": args.rollouts, "seeds": args.seeds, "cutoffs": args.cutoffs,
                              "reference_work_ms_before": reference_work_ms(), "games": {}}
    for name in GAMES:
        runs: dict[str, list[dict[str, Any]]] = {setting: [] for setting in settings}
        for seed in args.seeds:
            for setting, cutoff in zip(settings, [None, *args.cutoffs], strict=True):
                measured = (run_apart(name, "adaptive", seed, args.rollouts) if cutoff is None
                            else run_cut_apart(name, cutoff, seed, args.rollouts))
                runs[setting].append(measured)
                if args.keep is not None:
                    args.keep.mkdir(parents=True, exist_ok=True)
                    (args.keep / _kept_name(name, setting, seed)).write_text(json.dumps(measured["decisions"]))
                print(f"{name}, {setting}, seed {seed}: {measured['seconds']} s ({measured['cpu_seconds']} s CPU), "
                      f"{measured['rollouts']:,} rollouts, load {measured['load_before'][0]} -> "
                      f"{measured['load_after'][0]}", file=sys.stderr, flush=True)
        result["games"][name] = _game(name, runs, args.seeds)
    result["reference_work_ms_after"] = reference_work_ms()
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(table(result))
    return result


def _kept_name(game: str, setting: str, seed: int) -> str:
    """The file of ``--keep`` that holds one run's decisions."""
    return f"{game.split(',')[0].replace(' ', '_').lower()}-{setting.replace(' ', '')}-seed{seed}.json"


def _again(out: Path, kept: Path) -> dict[str, Any]:
    """The result in ``out`` compared again from its runs' decisions in ``kept``: each run's own
    figures (time, rollouts, load) as they were measured, every comparison made anew."""
    result: dict[str, Any] = json.loads(out.read_text())
    for name, game in result["games"].items():
        runs = {setting: [{key: value for key, value in measured.items() if key not in ("tags", "best_is_played")}
                          | {"decisions": json.loads((kept / _kept_name(name, setting, seed)).read_text())}
                          for seed, measured in zip(result["seeds"], row["runs"], strict=True)]
                for setting, row in game.items() if isinstance(row, dict)}
        result["games"][name] = _game(name, runs, result["seeds"])
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(table(result))
    return result


def _game(name: str, runs: dict[str, list[dict[str, Any]]], seeds_given: Sequence[int]) -> dict[str, Any]:
    """One game's result: each setting's runs, and each compared with the default."""
    path = GAMES[name]
    game: dict[str, Any] = {"file": str(path.relative_to(ROOT)), "rollout_bot": rollout_kind(_log(path).game, Options())}
    for setting in runs:
        game[setting] = _setting(runs[setting], seeds_given)
        # Against the default: with the same seed (the same worlds and bot seeds, as far as the cut),
        # and with every other seed (the default's own pairs, both ways, for the default itself).
        old, new = runs[DEFAULT], runs[setting]
        seeds = range(len(seeds_given))
        if setting != DEFAULT:
            game[setting]["cpu_ratio"] = round(game[setting]["cpu_seconds"] / game[DEFAULT]["cpu_seconds"], 3)
            game[setting]["against_default_same_seed"] = summed(
                [versus(old[i]["decisions"], new[i]["decisions"]) for i in seeds])
        game[setting]["against_default_other_seeds"] = summed(
            [versus(old[i]["decisions"], new[j]["decisions"]) for i in seeds for j in seeds if i != j])
    return game


def table(result: dict[str, Any]) -> str:
    """The docs' tables of a result: CPU time and the stability bars, then the agreement with the
    default analysis."""
    lines = ["| Game | rollouts | CPU seconds (3 runs) | CPU / default | best move agrees between seeds | "
             "blunders kept | best is the move played | inaccuracies, mistakes, blunders a run |",
             "| --- | --- | ---: | ---: | --- | --- | --- | --- |"]
    for name, game in result["games"].items():
        for setting, row in game.items():
            if not isinstance(row, dict):
                continue
            ratio = f"{row['cpu_ratio']:.3f}" if "cpu_ratio" in row else ""
            agree = ", ".join(f"{100 * p['agree']:.1f} %" for p in row["pairs"])
            kept = ", ".join(f"{p['blunders_kept']}/{p['blunders']}" for p in row["pairs"])
            played = ", ".join(f"{100 * r['best_is_played']:.1f} %" for r in row["runs"])
            tags = "; ".join(f"{r['tags']['inaccuracy']}, {r['tags']['mistake']}, {r['tags']['blunder']}"
                             for r in row["runs"])
            lines.append(f"| {name} | {_named(setting)} | {row['cpu_seconds']:.1f} | {ratio} | {agree} | {kept} | "
                         f"{played} | {tags} |")
    lines += ["", "| Game | rollouts | against the default of | best move agrees | same tag | default's blunders "
              "kept | its blunders kept by the default | default's better moves named | its better moves named "
              "by the default |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, game in result["games"].items():
        for setting, row in game.items():
            if not isinstance(row, dict):
                continue
            for which, key in (("the same seed", "against_default_same_seed"), ("other seeds", "against_default_other_seeds")):
                if key not in row:
                    continue
                a = row[key]
                lines.append(f"| {name} | {_named(setting)} | {which} | {100 * a['agree']:.1f} % | "
                             f"{100 * a['tag_agree']:.1f} % | {a['default_blunders_kept']}/{a['default_blunders']} | "
                             f"{a['other_blunders_kept']}/{a['other_blunders']} | "
                             f"{a['default_better_named']}/{a['default_better']} | "
                             f"{a['other_better_named']}/{a['other_better']} |")
    return "\n".join(lines)


def _named(setting: str) -> str:
    return "to the end" if setting == DEFAULT else setting.replace("cutoff ", "cut after ") + " moves"


if __name__ == "__main__":
    main()
