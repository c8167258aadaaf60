"""``governor analyse LOG``: each decision's estimated winning chance, printed as it is computed."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from analysis.decisions import THRESHOLDS, Decision, Options


def add_parser(sub: Any, default_db: Any) -> None:
    """Add the ``analyse`` subcommand to ``governor``'s subparsers."""
    thresholds = ", ".join(f"{name} >= {round(value * 100)} points" for name, value in reversed(THRESHOLDS))
    p = sub.add_parser("analyse", aliases=["analyze"], help="estimate each decision's winning chance by rollouts",
                       description=(
        "For each decision of a game (a state where the acting seat had more than one legal move), estimate "
        "the acting seat's winning chance after each candidate move: the share of N rollouts it wins, each "
        "rollout played to the end by the heuristic bots from a determinisation of the position (what that "
        "seat cannot see is dealt again at random). Prints the move played, its estimate with a 95%% "
        f"interval, the best move and the loss; tags moves ({thresholds} of winning chance, when significant). "
        "Exits 0, 1 when the log is bad, 2 on a usage error. See docs/analysis.md."))
    p.add_argument("log", help="a log file (.json, .jsonl, .gz)")
    p.add_argument("--game", type=int, default=1, help="which game of a .jsonl file (1-based, default 1)")
    p.add_argument("--rollouts", type=int, default=100, help="rollouts per candidate move (default 100)")
    p.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0): same seed, same output")
    p.add_argument("--top", type=int, default=6, help="at most this many candidates per decision (default 6)")
    p.add_argument("--steps", default=None, metavar="A:B", help="only the moves numbered A to B (1-based, inclusive)")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: every core)")
    p.add_argument("--json", action="store_true", help="print one JSON object per decision (JSON lines)")
    p.add_argument("--store", action="store_true", help="also store the analysis in the database (table analysis)")
    p.add_argument("--db", default=None, help="the database for --store (default: $GOVERNOR_DB or governor.duckdb)")
    p.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                   help="progress line on standard error (auto: when it is a terminal)")
    p.set_defaults(func=lambda args: run(args, default_db))


def _steps(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    first, _, last = text.partition(":")
    try:
        a = int(first) if first else 1
        b = int(last) if last else 10**9
    except ValueError:
        raise SystemExit(f"governor analyse: --steps expects A:B (move numbers), not {text!r}") from None
    return a, b


def _percent(x: float) -> str:
    return f"{100 * x:.0f}%"


def _count(n: int, name: str) -> str:
    plural = name[:-1] + "ies" if name.endswith("y") else name + "s"
    return f"{n} {name if n == 1 else plural}"


def line(decision: Decision) -> str:
    """One decision as a line of text."""
    played, best = decision.played, decision.best
    text = (
        f"move {decision.step:>3}  {decision.player}: {played.text}  "
        f"{_percent(played.estimate)} [{_percent(played.low)}-{_percent(played.high)}]"
    )
    if best is not played:
        text += f"  best: {best.text} {_percent(best.estimate)}  loss {100 * decision.loss:.0f}"
    if decision.tag:
        text += f"  {decision.tag.upper()}"
    return text


def run(args: argparse.Namespace, default_db: Any) -> int:
    """Run ``governor analyse``; returns the exit status."""
    from analysis.decisions import analyse
    from analysis.store import store
    from ingest.db import DatabaseError
    from replay.errors import GovernorError
    from replay.logfile import read_records
    from replay.registry import engine_for

    if args.rollouts < 1 or args.top < 1:
        print("governor analyse: --rollouts and --top must be at least 1", file=sys.stderr)
        return 2
    records = [r for r in read_records(args.log)]
    if not 1 <= args.game <= len(records):
        print(f"governor analyse: {args.log} holds {len(records)} game(s), no game {args.game}", file=sys.stderr)
        return 2
    record = records[args.game - 1]
    if record.error is not None or record.log is None:
        print(f"bad: {record.error.message if record.error else args.log}")
        return 1
    log = record.log
    options = Options(rollouts=args.rollouts, seed=args.seed, top=args.top,
                      workers=args.workers or os.cpu_count() or 1, steps=_steps(args.steps))
    show_progress = args.progress == "always" or (args.progress == "auto" and sys.stderr.isatty())
    decisions: list[Decision] = []
    start = time.monotonic()
    try:
        for decision in analyse(log, options):
            decisions.append(decision)
            if args.json:
                print(json.dumps(decision.to_json()), flush=True)
            else:
                print(line(decision), flush=True)
            if show_progress:
                sys.stderr.write(f"\r{len(decisions)} decisions, {time.monotonic() - start:.0f} s ")
                sys.stderr.flush()
    except GovernorError as err:
        print(f"bad: {err.message}")
        return 1
    if show_progress:
        sys.stderr.write("\n")
    tags = {name: sum(1 for d in decisions if d.tag == name) for name, _ in THRESHOLDS}
    print(
        f"{len(decisions)} decisions analysed in {time.monotonic() - start:.1f} s "
        f"({options.rollouts} rollouts per candidate, seed {options.seed}): "
        + ", ".join(_count(n, name) for name, n in tags.items()),
        file=sys.stderr,
    )
    if args.store:
        db = args.db or default_db()
        try:
            rows = store(db, log.game_id, engine_for(log.game).version, decisions, options)
        except DatabaseError as err:
            print(f"governor analyse: {err}", file=sys.stderr)
            return 2
        print(f"stored {rows} rows for game {log.game_id} in {db}", file=sys.stderr)
    return 0
