"""``governor analyse LOG``: each decision's estimated winning chance, printed as it is computed."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from contextlib import closing
from typing import Any

from analysis.accuracy import SeatSummary, seat_summaries
from analysis.decisions import SAMPLINGS, THRESHOLDS, Decision, Options, check_cutoff, rollout_kind
from analysis.rollouts import MAX_ROLLOUTS
from replay import exits
from replay.errors import printable
from replay.exits import UsageError, bounded_int
from replay.simulate import MAX_MOVES

#: Candidates per decision: the ``analysis`` table's ``top`` and ``rank`` are 16-bit, and no position of
#: either game has this many legal moves worth a rollout each.
MAX_TOP = 1000
#: Move numbers of ``--steps`` (the table's ``step`` is 32-bit).
MAX_STEP = 2**31 - 1
#: ``--seed`` is stored in a 64-bit column.
SEED_RANGE = (-(2**63), 2**63 - 1)


def add_parser(sub: Any, default_db: Any, workers: Any = None) -> None:
    """Add the ``analyse`` subcommand to ``governor``'s subparsers; ``workers`` is the type of
    ``--workers`` (a bounded integer)."""
    thresholds = ", ".join(f"{name} >= {round(value * 100)} points" for name, value in reversed(THRESHOLDS))
    p = sub.add_parser("analyse", aliases=["analyze"], help="estimate each decision's winning chance by rollouts",
                       description=(
        "For each decision of a game (a state where the acting seat had more than one legal move), estimate "
        "the acting seat's winning chance after each candidate move: the share of its rollouts it wins (at most "
        "--rollouts each: the candidates are raced, see --sampling), each "
        f"rollout played to the end by the game's rollout bot ({_declared_bots()}; --rollout-bot picks another) "
        "from a determinisation of the position (what that seat cannot see is dealt again at random). Prints the move played, its estimate with a 95% "
        f"interval, the best move and the loss; tags moves ({thresholds} of winning chance, when significant). "
        "With --all (or --where) instead of a LOG: every game of the database (or --lake) without an analysis "
        "made with these settings, in parallel, each stored as soon as it is done; stopped and run again, only "
        "what is missing. Exits 0, 1 when the log is bad (--all: when a game could not be analysed), 2 on a usage "
        "error. See docs/analysis.md."))
    p.add_argument("log", nargs="?", default=None,
                   help="a log file (.json, .jsonl, .gz); or --all / --where for the stored games")
    p.add_argument("--game", type=bounded_int("--game", 1, MAX_STEP), default=1,
                   help="which game of a .jsonl file (1-based, default 1)")
    p.add_argument("--rollouts", type=bounded_int("--rollouts", 1, MAX_ROLLOUTS), default=100,
                   help=f"the most rollouts per candidate move (with --sampling fixed: exactly), 1 to "
                        f"{MAX_ROLLOUTS:,} (default 100)")
    p.add_argument("--sampling", choices=SAMPLINGS, default="adaptive",
                   help="adaptive (default): candidates are rolled out in rounds and leave once the rollouts have "
                        "decided about them; fixed: every candidate gets --rollouts rollouts (the analysis before "
                        "adaptive sampling)")
    p.add_argument("--cutoff", type=bounded_int("--cutoff", 1, MAX_MOVES), default=None, metavar="N",
                   help="cut each rollout short N moves after the candidate: a game still in play is valued by the "
                        "game's win-chance model (docs/winchance.md) instead of being played to the end; faster, but "
                        "it answers another question where the model learnt another bot's games (docs/analysis.md, "
                        "Speed). Not with --summary, --store, --all or --where (default: every rollout to the end)")
    p.add_argument("--seed", type=bounded_int("--seed", *SEED_RANGE), default=0,
                   help="seed of every random choice, a 64-bit integer (default 0): same seed, same output")
    p.add_argument("--top", type=bounded_int("--top", 1, MAX_TOP), default=6,
                   help=f"at most this many candidates per decision, 1 to {MAX_TOP} (default 6)")
    p.add_argument("--rollout-bot", default=None, metavar="KIND", type=_kind,
                   help="the bot that plays every rollout to the end: one of the game's bots (heuristic, random, "
                        f"expert; default: the one the game declares for rollouts, {_declared_bots()})")
    p.add_argument("--steps", type=_steps, default=None, metavar="A:B",
                   help="only the moves numbered A to B (1-based, inclusive; A: or :B leave one end open)")
    p.add_argument("--workers", type=workers or bounded_int("--workers", 1, 256), default=None,
                   help="worker processes (default: every core)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object per decision (JSON lines); with --summary, one per seat")
    p.add_argument("--summary", action="store_true",
                   help="print one line per seat instead of one per decision: the player, its accuracy (0-100), "
                        "inaccuracies, mistakes, blunders and average win chance lost (docs/analysis.md, Accuracy)")
    p.add_argument("--store", action="store_true", help="also store the analysis in the database (table analysis)")
    p.add_argument("--db", default=None, help="the database for --store, --all and --where (default: $GOVERNOR_DB or governor.duckdb)")
    p.add_argument("--all", action="store_true",
                   help="analyse every stored game of --db (or --lake) that has no analysis made with these settings "
                        "(engine version, rollout bot, --rollouts, --seed, --top, --sampling), storing each as it is done")
    p.add_argument("--where", metavar="SQL", default=None,
                   help="like --all, only the games this SQL condition over the games table keeps, e.g. "
                        "\"player_count = 2\" (run read-only, bounded like governor query)")
    p.add_argument("--lake", metavar="DIR", default=None,
                   help="with --all or --where: the games of this lake, their analysis written into it")
    p.add_argument("--cluster", metavar="ENGINE", default=None,
                   help="with --lake: analyse on a cluster: local (a local Dask cluster of --workers processes), "
                        "dask://ADDR or ray://ADDR (needs pip install 'governor[cluster]')")
    p.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                   help="progress line on standard error (auto: when it is a terminal)")
    p.set_defaults(func=lambda args: run(args, default_db))


def _declared_bots() -> str:
    """Each game's rollout bot, for the help (``<title>: <bot kind>`` for each game, in the registry's order)."""
    from replay.registry import game_names, game_title, rollout_bot

    return ", ".join(f"{game_title(name)}: {rollout_bot(name)}" for name in game_names())


def _kind(text: str) -> str:
    """``--rollout-bot KIND`` as typed, when it names a bot kind some game declares; raises
    ``argparse.ArgumentTypeError`` (a usage error, exit 2) naming the kinds there are. Whether the
    log's own game has it is checked once the log is read."""
    from replay.registry import game_names, game_of

    kinds = sorted({kind for name in game_names() for kind in game_of(name).bot_kinds})
    if text not in kinds:
        shown = text if len(text) <= 40 else text[:39] + "…"
        raise argparse.ArgumentTypeError(f"expects one of {', '.join(kinds)}, not {printable(repr(shown))}")
    return text


def _steps(text: str) -> tuple[int, int]:
    """``--steps A:B`` as (A, B); raises ``argparse.ArgumentTypeError`` (a usage error, exit 2)."""
    first, _, last = text.partition(":")
    try:
        a = int(first) if first.strip() else 1
        b = int(last) if last.strip() else MAX_STEP
    except ValueError:
        a = b = 0
    if not 1 <= a <= b <= MAX_STEP:
        shown = text if len(text) <= 40 else text[:39] + "…"
        raise argparse.ArgumentTypeError(
            f"expects A:B, move numbers with 1 <= A <= B <= {MAX_STEP}, not {shown!r}")
    return a, b


def _start_workers_deaf_to_ctrl_c() -> None:
    """Start the worker processes' fork server with Ctrl-C ignored, which every worker forked from it
    inherits: the terminal sends Ctrl-C to the whole process group, and a worker that died of it
    printed its own traceback. This process alone stops on it, with one line, and stops the pool."""
    import signal
    from multiprocessing import forkserver

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        forkserver.ensure_running()
    finally:
        signal.signal(signal.SIGINT, previous)


def _percent(x: float) -> str:
    return f"{100 * x:.0f}%"


def _count(n: int, name: str) -> str:
    plural = name[:-1] + "ies" if name.endswith("y") else name + "s"
    return f"{n} {name if n == 1 else plural}"


def line(decision: Decision) -> str:
    """One decision as a line of text."""
    played, best = decision.played, decision.best
    # A part of another seat's move (refraining from a draw the move offers) is marked as such.
    who = decision.player if decision.mover is None else f"{decision.player} (in {decision.mover_player}'s move)"
    text = (
        f"move {decision.step:>3}  {printable(who)}: {played.text}  "
        f"{_percent(played.estimate)} [{_percent(played.low)}-{_percent(played.high)}]"
    )
    if best is not played:
        text += f"  best: {best.text} {_percent(best.estimate)}  loss {100 * decision.loss:.0f}"
    if decision.tag:
        text += f"  {decision.tag.upper()}"
    return text


def summary_line(summary: SeatSummary) -> str:
    """One seat's accuracy over the game as a line of text."""
    accuracy = "-" if summary.accuracy is None else f"{summary.accuracy:.1f}"
    return (
        f"{printable(summary.player)}: accuracy {accuracy}, {_count(summary.inaccuracies, 'inaccuracy')}, "
        f"{_count(summary.mistakes, 'mistake')}, {_count(summary.blunders, 'blunder')}, "
        f"average win chance lost {100 * summary.avg_loss:.1f} points over {_count(summary.moves, 'move')}"
    )


def with_luck(summaries: list[SeatSummary], log: Any) -> list[SeatSummary]:
    """``summaries`` with each seat's luck and skill by the game's win-chance model
    (``analysis.winchance.luck``); as they are, after one line on stderr, when the game has no model."""
    from dataclasses import replace

    from analysis.winchance.luck import game_split
    from analysis.winchance.model import ModelError, load

    try:
        found = game_split(load(log.game, len(log.players)), log)
    except (ModelError, KeyError) as err:
        print(f"governor analyse: {printable(str(err).strip(chr(34)))}; luck and skill left out", file=sys.stderr)
        return summaries
    luck, skill = found.seat_luck(), found.seat_skill()
    return [replace(s, luck=luck[s.seat], skill=skill[s.seat]) if s.seat < len(luck) else s for s in summaries]


def _check_cutoff_alone(args: argparse.Namespace) -> None:
    """Refuse ``--cutoff`` with what needs what a cut rollout does not have. Raises ``UsageError``: the
    accuracy (``--summary``) reads the rollouts' final scores, which a cut rollout never reaches; a
    stored analysis (``--store``, ``--all``, ``--where``) is known by settings that do not include the
    cutoff, so it would pass for one played to the end."""
    for given, name, why in ((args.summary, "--summary", "its accuracy reads the final scores a cut rollout "
                              "never reaches"),
                             (args.store or args.all or args.where is not None,
                              "--store" if args.store else "--all" if args.all else "--where",
                              "a stored analysis would pass for one whose rollouts were played to the end")):
        if given:
            raise UsageError(f"--cutoff does not go with {name}: {why}")


def run(args: argparse.Namespace, default_db: Any) -> int:
    """Run ``governor analyse``; returns the exit status. Raises ``UsageError`` for options that do not
    go together."""
    if args.cutoff is not None:
        _check_cutoff_alone(args)
    if args.all or args.where is not None:
        from analysis.batch_cli import run_batch

        return run_batch(args, default_db)
    if args.log is None:
        raise UsageError("give a LOG to analyse, or --all (or --where SQL) for the games of a database")
    if args.lake or args.cluster:
        raise UsageError("--lake and --cluster go with --all or --where: a LOG is analysed alone")
    from analysis.decisions import analyse
    from analysis.store import store
    from analysis.winchance.model import ModelError
    from ingest.db import DatabaseError
    from replay.errors import GovernorError, printable
    from replay.log_reader import display_name, read_game
    from replay.registry import engine_for

    try:
        os.stat(args.log)
    except OSError as err:
        print(f"governor analyse: {display_name(args.log)}: {err.strerror or err}", file=sys.stderr)
        return exits.ENVIRONMENT
    record, count = read_game(args.log, args.game)
    if record is None:
        print(f"governor analyse: {display_name(args.log)} holds {count} game(s), no game {args.game}", file=sys.stderr)
        return exits.ENVIRONMENT
    if record.error is not None or record.log is None:
        print(f"bad: {record.error.message if record.error else display_name(args.log)}")
        return exits.REJECTED
    log = record.log
    options = Options(rollouts=args.rollouts, seed=args.seed, top=args.top,
                      workers=args.workers or os.cpu_count() or 1, steps=args.steps, rollout_bot=args.rollout_bot,
                      sampling=args.sampling, cutoff=args.cutoff)
    try:
        bot = rollout_kind(log.game, options)
    except ValueError as err:
        print(f"governor analyse: --rollout-bot: {printable(str(err))}", file=sys.stderr)
        return exits.ENVIRONMENT
    try:
        check_cutoff(log.game, len(log.players), options)
    except (ModelError, KeyError, ValueError) as err:
        print(f"governor analyse: --cutoff: {printable(str(err).strip(chr(34)))}", file=sys.stderr)
        return exits.ENVIRONMENT
    if options.workers > 1:
        _start_workers_deaf_to_ctrl_c()
    show_progress = args.progress == "always" or (args.progress == "auto" and sys.stderr.isatty())
    decisions: list[Decision] = []
    start = time.monotonic()
    try:
        # Closed here, however the loop ends: an interruption ends the workers before it goes on (left to
        # the collector, the pool outlived the command, which hung after saying "interrupted").
        with closing(analyse(log, options)) as found:
            for decision in found:
                decisions.append(decision)
                # With --summary the seats' lines come at the end, instead of a line per decision.
                if not args.summary:
                    print(json.dumps(decision.to_json()) if args.json else line(decision), flush=True)
                if show_progress:
                    sys.stderr.write(f"\r{len(decisions)} decisions, {time.monotonic() - start:.0f} s ")
                    sys.stderr.flush()
    except GovernorError as err:
        print(f"bad: {err.message}")
        return exits.REJECTED
    if show_progress:
        sys.stderr.write("\n")
    if args.summary:
        for summary in with_luck(seat_summaries(decisions, log.players), log):
            print(json.dumps(summary.to_json()) if args.json else summary_line(summary), flush=True)
    tags = {name: sum(1 for d in decisions if d.tag == name) for name, _ in THRESHOLDS}
    spent = f"{'at most ' if options.adaptive else ''}{options.rollouts} rollouts per candidate by the {bot} bot"
    if options.cutoff is not None:
        spent += f", cut {options.cutoff} moves after the candidate"
    print(
        f"{len(decisions)} decisions analysed in {time.monotonic() - start:.1f} s "
        f"({spent}, seed {options.seed}): "
        + ", ".join(_count(n, name) for name, n in tags.items()),
        file=sys.stderr,
    )
    if args.store:
        db = args.db or default_db()
        try:
            rows = store(db, log.game_id, engine_for(log.game).version, decisions, options)
        except DatabaseError as err:
            print(f"governor analyse: {printable(str(err))}", file=sys.stderr)
            return exits.ENVIRONMENT
        print(f"stored {rows} rows for game {log.game_id} in {display_name(db)}", file=sys.stderr)
    return exits.OK
