"""``governor arena``: agents play each other on the engines, every game recorded, then ranked.

``add_arguments(parser)`` fills the subcommand's parser and ``run(args)`` runs it (exit status as in
``replay.exits``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import stat
import sys
import tempfile
from contextlib import nullcontext
from pathlib import Path
from typing import IO, Any, TextIO

from governor.arena.play import GameRecord
from governor.arena.round_robin import ArenaError, arena_id, run_arena, schedule
from governor.commands.common import listed
from replay import exits
from replay.errors import printable
from replay.game import declarations
from replay.logfile import dumps_game
from replay.outputs import check_writable, open_output
from replay.simulate import MAX_MOVES

#: The longest time budget of a decision, in seconds (a day: any longer is a mistake).
MAX_BUDGET = 86_400.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``governor arena``: the games and the seats they allow are the registered games'."""
    games = declarations()
    # From the fewest seats any game takes to the most (each game's own count is checked as it starts).
    fewest = min((game.min_players for game in games.values()), default=2)
    most = max((game.max_players for game in games.values()), default=fewest)
    parser.add_argument("--game", required=True, help=listed(games))
    parser.add_argument("--players", type=exits.bounded_int("--players", fewest, most), required=True,
                        help="seats per game")
    parser.add_argument("--agents", nargs="+", required=True, metavar="AGENT",
                        help="random, heuristic, expert, search (the analysis' own search), search:R (flat search, "
                             "R rollouts per candidate move), "
                             "module:Class or path/to/file.py[:Class]; a spec given twice sits twice")
    parser.add_argument("--games", type=exits.bounded_int("--games", 1, 100_000_000), default=100,
                        help="games to play (a whole number of schedule cycles seats everyone equally)")
    parser.add_argument("--seed", type=exits.bounded_int("--seed", 0, 2**31), default=0)
    parser.add_argument("--budget", type=float, default=1.0, metavar="SECONDS",
                        help="time per decision of a non-built-in agent (0: none); an overrun is a fault")
    parser.add_argument("--workers", type=exits.bounded_int("--workers", 1, 256), default=1)
    parser.add_argument("--out", metavar="DIR", help="write the games to DIR/arena-GAME-Np-seedS.jsonl")
    parser.add_argument("--db", metavar="FILE", help="import the games into this DuckDB file")
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--json", action="store_true", help="print the leaderboard as JSON")
    shown.add_argument("--csv", action="store_true", help="print the leaderboard as CSV")
    parser.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                        help="progress bar on stderr (auto: when stderr is a terminal)")


def import_logs(paths: list[str], db: str, progress: str) -> int:
    """Store arena logs in ``db`` through the product's one import (``ingest.cli.run_import``):
    ratings, the Players page and every table see the agents as players. Its exit status."""
    from ingest.cli import run_import

    return run_import(paths, db, workers=1, progress=progress)


def check_database(db: str) -> str | None:
    """Why ``--db`` could not take the arena's games, found before the first game is played (a
    folder that does not exist, a file that is not a DuckDB database, a read-only one), or None. An
    existing database gets the current schema, as the import would give it."""
    from ingest.db import DatabaseError, writer
    from ingest.lake import is_lake
    from ingest.stores import StoreError, open_store

    try:
        open_store(db, lake=False)
    except StoreError as err:
        return str(err)
    if is_lake(db):
        return None
    why = check_writable(db)
    if why is not None:
        return f"--db {db}: {why}"
    if os.path.lexists(db):
        try:
            with writer(db):
                pass
        except DatabaseError as err:
            return str(err)
    return None


def earlier_log(final: Path, arena: str) -> str | None:
    """Why the file already at ``final`` may not be replaced by this arena's log (it holds another
    arena's games, or is no arena log at all), or None (nothing there, or this same arena's log: the
    same game, seats, seed and agents, whose games it replaces)."""
    try:
        info = os.lstat(final)
    except FileNotFoundError:
        return None
    except OSError as err:
        return f"cannot be read ({err.strerror or err})"
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link"  # never written through, nor read: what it names is not the arena's
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    try:
        # Without following a link put there since, nor waiting on a pipe.
        fd = os.open(final, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        with open(fd, "rb") as handle:
            first = json.loads(handle.readline(1 << 22))
        meta = first["meta"]
        if meta.get("arena") == arena:
            return None
        if meta.get("generator") == "governor arena":
            # Without an id (written before arenas had one), it cannot be told from another arena's.
            return ("holds the games of another arena (other agents)" if "arena" in meta else
                    "holds the games of an earlier arena")
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        pass
    return "is not this arena's log"


class _Bar:
    """games done, games/s and faults so far, on one line of ``stream``."""

    def __init__(self, total: int, enabled: bool, stream: TextIO) -> None:
        import time

        self.total, self.enabled, self.stream = total, enabled, stream
        self.clock = time.monotonic
        self.start = self.last = self.clock()
        self.faults = 0

    def update(self, done: int, faults: int) -> None:
        self.faults += faults
        now = self.clock()
        if self.enabled and (now - self.last > 0.1 or done == self.total):
            self.last = now
            width = 30
            filled = int(width * done / self.total)
            rate = done / max(now - self.start, 1e-9)
            self.stream.write(f"\r[{'#' * filled}{'-' * (width - filled)}] {done}/{self.total} games  "
                              f"{rate:,.1f} games/s  faults {self.faults} ")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def run(args: argparse.Namespace) -> int:
    """Run ``governor arena``: 0 when every game was played (and imported), 2 for a usage or
    environment problem (unknown game, too few agents, an agent that cannot be built, an output that
    cannot be written, found before the first game), the import's own status otherwise
    (``replay.exits``)."""
    # The game named is looked up by its declaration: no other game's engine is loaded (a game package
    # that cannot load stops only an arena of that game).
    known = declarations()
    if args.game not in known:
        print(f"governor arena: unknown game {printable(repr(args.game))} (known: {', '.join(sorted(known))})",
              file=sys.stderr)
        return exits.ENVIRONMENT
    if not math.isfinite(args.budget) or not 0 <= args.budget <= MAX_BUDGET:
        print(f"governor arena: --budget must be from 0 to {MAX_BUDGET:g} seconds, not {args.budget:g}", file=sys.stderr)
        return exits.ENVIRONMENT
    try:
        cycle = len(schedule(len(args.agents), args.players))
    except ArenaError as err:
        print(f"governor arena: {printable(str(err))}", file=sys.stderr)
        return exits.ENVIRONMENT
    # Every output is checked before the first game: no arena is played to be thrown away.
    name = f"arena-{args.game}-{args.players}p-seed{args.seed}.jsonl"
    final: Path | None = None
    replacing = False
    if args.out:
        folder = Path(args.out)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            print(f"governor arena: {printable(str(folder))}: {printable(err.strerror or str(err))}", file=sys.stderr)
            return exits.ENVIRONMENT
        final = folder / name
        why = earlier_log(final, arena_id(args.game, args.players, args.seed, args.agents))
        if why is not None:
            print(f"governor arena: {printable(str(final))} {why}: not replaced (move it away, or give another "
                  "--out or --seed)", file=sys.stderr)
            return exits.ENVIRONMENT
        replacing = os.path.lexists(final)
        why = check_writable(final)
        if why is not None:
            print(f"governor arena: {printable(str(final))}: {printable(why)}", file=sys.stderr)
            return exits.ENVIRONMENT
    if args.db:
        why = check_database(args.db)
        if why is not None:
            print(f"governor arena: {printable(why)}", file=sys.stderr)
            return exits.ENVIRONMENT
    if args.games % cycle:
        print(f"governor arena: note: {args.games} games is not a multiple of the schedule's {cycle} seatings: "
              "seats are not exactly balanced", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="governor-arena-") as scratch:
        if final is None and args.db:
            final = Path(scratch) / name
        show = sys.stderr.isatty() if args.progress == "auto" else args.progress == "always"
        bar = _Bar(args.games, show, sys.stderr)
        try:
            # Written under a new name of its own (replay.outputs) and renamed once complete: an
            # interrupted or failed arena leaves nothing behind and the earlier log as it was.
            # A name the arena chose in its folder: whatever is there is replaced, never written through.
            output: Any = open_output(final, follow=False) if final is not None else nullcontext(None)
            with output as out:
                entries, board = _play(args, out, bar)
            bar.close()
        except ArenaError as err:
            bar.close()
            print(f"governor arena: {printable(str(err))}", file=sys.stderr)
            return exits.ENVIRONMENT
        except BaseException:
            bar.close()
            raise
        status = exits.OK
        if args.db:
            assert final is not None
            status = import_logs([str(final)], args.db, args.progress)
        if args.out:
            recorded = args.games - board.unfinished_total
            again = " (replacing this same arena's earlier log)" if replacing else ""
            print(f"governor arena: {recorded} games written to {printable(str(final))}{again}", file=sys.stderr)
    _print_board(board, args)
    return status


def _play(args: argparse.Namespace, out: IO[str] | None, bar: _Bar) -> tuple[Any, Any]:
    """Run the arena, each game's log written to ``out`` (when given) as it comes."""
    def on_game(index: int, record: GameRecord) -> None:
        if out is not None:
            out.write(dumps_game(record.log) + "\n")
        bar.update(index + 1, len(record.faults))

    def on_unfinished(index: int, seated: list[str]) -> None:
        names = ", ".join(printable(n) for n in seated)
        print(f"\rgovernor arena: game {index} ({names}) did not end within {MAX_MOVES} moves: "
              "not recorded", file=sys.stderr, flush=True)

    return run_arena(args.game, args.players, args.agents, args.games, args.seed, args.budget, args.workers,
                     on_game, on_unfinished)


def _print_board(board: Any, args: argparse.Namespace) -> None:
    if args.json:
        print(board.dumps())
    elif args.csv:
        sys.stdout.write(board.to_csv())
    else:
        print(board.table())
