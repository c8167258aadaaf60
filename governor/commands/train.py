"""``governor train``: rebuild the win-chance model of a game and player count (docs/winchance.md),
from self-play games of the game's strongest bot, or from a database's games (``--db``)."""

from __future__ import annotations

import argparse
import sys

from governor.commands.common import Subcommands, listed, shown
from replay import exits
from replay.errors import printable
from replay.exits import UsageError, bounded_int
from replay.game import declarations

#: The most self-play games one model learns from (memory grows with them).
MAX_GAMES = 100_000
#: The most rollouts of one position the seat view learns from (time grows with them).
MAX_ROLLOUTS = 1000


def add_parser(commands: Subcommands) -> None:
    """Add ``train`` to the subcommands."""
    from replay.simulate import MAX_SEED

    p = commands.add_parser("train", help="rebuild a win-chance model", description=(
        "Learn the win-chance model of a game and player count from self-play games of the game's strongest "
        "bot (reproducible from --seed: the same arguments write the same file), or from a database's games "
        "(--db), and write it where the package's shipped model is (or --out)."))
    p.add_argument("--game", required=True, help=listed(declarations()))
    p.add_argument("--players", required=True, type=bounded_int("--players", 1, 99), help="the player count")
    p.add_argument("--games", type=bounded_int("--games", 10, MAX_GAMES), default=None,
                   help="how many self-play games to learn from (default 1,000)")
    p.add_argument("--rollouts", type=bounded_int("--rollouts", 0, MAX_ROLLOUTS), default=None,
                   help="rollouts of each position the seat view learns from in self-play (default 16; 0: it "
                        "learns the games' results, as the whole view does)")
    p.add_argument("--seed", type=bounded_int("--seed", 0, MAX_SEED), default=1,
                   help=f"random seed, 0 to {MAX_SEED:,} (default 1)")
    p.add_argument("--db", help="learn from this database's games of the game and player count instead")
    p.add_argument("--out", help="the model file to write (default: the shipped model in the package)")
    p.set_defaults(func=run)


def _check(args: argparse.Namespace) -> None:
    """Raise ``UsageError`` for a game without an observation vector or a player count it does not have."""
    from replay.registry import engine_for, game_names, games_with_spaces

    if args.game not in game_names():
        raise UsageError(f"unknown game {printable(repr(args.game))} (known: {', '.join(game_names())})")
    if args.game not in games_with_spaces():
        raise UsageError(f"{args.game} declares no observation vector (spaces), which the win chance learns from")
    engine = engine_for(args.game)
    if not engine.min_players <= args.players <= engine.max_players:
        raise UsageError(f"{args.game} is for {engine.min_players} to {engine.max_players} players, not {args.players}")
    if args.db is not None and args.games is not None:
        raise UsageError("--games is the number of self-play games; with --db the database's games are used")
    if args.db is not None and args.rollouts:
        raise UsageError("--rollouts are played by the bot of the self-play; a database's games are learnt "
                         "from their results")


def run(args: argparse.Namespace) -> int:
    """Train and write the model: 0 when written, 1 when the games cannot be learnt from (too few, a bad
    stored log), 2 for a usage error or an output that cannot be written, 130 or 143 when interrupted
    (the existing model is then untouched)."""
    from analysis.winchance.model import shipped_path
    from analysis.winchance.train import (
        DEFAULT_GAMES,
        ROLLOUT_POSITIONS,
        ROLLOUTS,
        Rollouts,
        database_logs,
        self_play,
        strongest_bot,
        train,
    )
    from ingest.db import DatabaseError
    from ingest.progress import Progress
    from replay.errors import GovernorError
    from replay.outputs import check_writable, write_bytes
    from replay.simulate import SimulationError

    _check(args)
    out = args.out or str(shipped_path(args.game, args.players))
    problem = check_writable(out)
    if problem is not None:
        raise UsageError(f"--out {shown(out)}: {problem}")
    rollouts = None
    try:
        if args.db is not None:
            logs = database_logs(args.db, args.game, args.players)
            if not logs:
                raise ValueError(f"{args.db}: no game of {args.game} with {args.players} players to learn from")
            source: dict[str, object] = {"source": "database", "games": len(logs)}
            total = len(logs)
        else:
            total = args.games or DEFAULT_GAMES
            bot = strongest_bot(args.game)
            logs = self_play(args.game, args.players, total, args.seed, bot)  # type: ignore[assignment]
            source = {"source": "self-play", "bot": bot, "games": total}
            count = ROLLOUTS if args.rollouts is None else args.rollouts
            rollouts = Rollouts(count, ROLLOUT_POSITIONS, bot) if count else None
        bar = Progress(total, sys.stderr.isatty())
        done = [0]

        def advance(count: int) -> None:
            done[0] += count
            bar.update(done[0], 0, 0)

        try:
            data = train(args.game, args.players, logs, seed=args.seed, source=source, progress=advance,
                         rollouts=rollouts)
        finally:
            bar.close()
    except (DatabaseError, GovernorError, SimulationError, ValueError) as err:
        print(f"governor train: {printable(str(err))}", file=sys.stderr)
        return exits.REJECTED
    except KeyboardInterrupt as err:
        word, code = exits.interruption(err)
        print(f"governor train: {word}; {shown(out)} is untouched", file=sys.stderr)
        return code
    write_bytes(out, data)
    print(f"wrote the win-chance model of {args.game} with {args.players} players ({total} games, "
          f"{len(data):,} bytes) to {shown(out)}", file=sys.stderr)
    return exits.OK
