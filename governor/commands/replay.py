"""``governor replay``: the state of one game after a step, as its game writes it."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import deque
from typing import Any

from governor.commands.common import MAX_COUNT, Subcommands, shown
from replay import exits
from replay.errors import printable
from replay.exits import bounded_int


def add_parser(commands: Subcommands) -> None:
    """Add ``replay`` to the subcommands."""
    p = commands.add_parser("replay", help="show the state of a game after a step", description=(
        "Replay one game and show the state after step N (default: the end), in the game's own words: what "
        "each player holds and has scored so far, what is on the table, the round, and the last move."))
    p.add_argument("log", help="a log file (.json, .jsonl, .gz)")
    p.add_argument("--step", type=bounded_int("--step", -MAX_COUNT, MAX_COUNT), default=None,
                   help="moves to replay (0 = the start; negative counts from the end)")
    p.add_argument("--game", type=bounded_int("--game", 1, MAX_COUNT), default=1,
                   help="which game of a .jsonl file (1-based, default 1)")
    p.add_argument("--json", action="store_true", help="print the state as JSON, with the final scores")
    p.set_defaults(func=run)


def fold_to(log: Any, step: int | None) -> tuple[int, int, Any, Any, Any, Any]:
    """Replay ``log`` keeping only the states the step asked needs (a fold, not a list of every state):
    returns (total moves, the step (negative and None resolved; -1 when out of range), the state before
    it, the state at it, its move, the final state). Raises what ``iter_replay`` raises."""
    from replay.replayer import iter_replay

    # Every state from ``keep`` steps before the end, for a step counted from the end; else the two
    # states around the step asked.
    keep = (-step + 2) if step is not None and step < 0 else 2
    window: deque[tuple[Any, Any]] = deque(maxlen=keep)
    wanted: tuple[Any, Any, Any] | None = None
    previous: Any = None
    total = 0
    for state, item in iter_replay(log, describe=False):
        if item is not None:
            total = item.number
        move = item.move if item is not None else None
        if step is not None and step >= 0 and total == step and wanted is None:
            wanted = (previous, state, move)
        if step is None or step < 0:
            window.append((state, move))
        previous = state
    final = previous
    if step is None or step < 0:
        at = total if step is None else total + 1 + step
        if not 0 <= at <= total:
            return total, -1, None, None, None, final
        states = list(window)
        index = len(states) - 1 - (total - at)
        before = states[index - 1][0] if index > 0 else None
        return total, at, before, states[index][0], states[index][1], final
    if wanted is None:
        return total, -1, None, None, None, final
    return total, step, wanted[0], wanted[1], wanted[2], final


def run(args: argparse.Namespace) -> int:
    """Show the state of game ``args.game`` of ``args.log`` after ``args.step``: 0 when shown, 1 when
    the game is bad, 2 when the file cannot be read or the game or step is out of range."""
    from replay.errors import GovernorError
    from replay.log_reader import read_game
    from replay.registry import engine_for

    try:
        os.stat(args.log)
    except OSError as err:
        print(f"governor replay: {shown(args.log)}: {err.strerror or err}", file=sys.stderr)
        return exits.ENVIRONMENT
    record, count = read_game(args.log, args.game)
    if record is None and count == 0:
        print(f"governor replay: {shown(args.log)}: no game in the file", file=sys.stderr)
        return exits.REJECTED
    if record is None:
        print(f"governor replay: {shown(args.log)} holds {count} game(s); --game {args.game} is out of range",
              file=sys.stderr)
        return exits.ENVIRONMENT
    if record.error is not None:
        print(f"governor replay: {record.error.message}", file=sys.stderr)
        return exits.REJECTED
    assert record.log is not None
    log = record.log
    try:
        total, step, before, state, move, final = fold_to(log, args.step)
    except GovernorError as err:
        print(f"governor replay: {err.message}", file=sys.stderr)
        return exits.REJECTED
    if step < 0:
        print(f"governor replay: --step must be from 0 to {total}, not {args.step}", file=sys.stderr)
        return exits.ENVIRONMENT
    engine = engine_for(log.game)
    names = log.players
    last = engine.describe_move(before, move, names) if step else "(the start of the game)"
    # What the rules did by themselves after that move, no seat choosing it.
    events = engine.automatic_events(before, move, state, names) if step else []
    if args.json:
        view = engine.to_view(state, names)
        view["moves"] = total
        view["last_move"] = last
        view["last_move_events"] = events
        view["final_scores"] = [s.total for s in engine.scores(final)]
        view["final_winners"] = engine.winners(final)
        print(json.dumps(view, indent=1, ensure_ascii=False))
    else:
        print("\n".join(printable(line) for line in engine.render(state, names).split("\n")))
        print(f"\nLast move ({step}/{total}): {printable(last)}")
        for event in events:
            print(f"  then: {printable(str(event))}")
    return exits.OK
