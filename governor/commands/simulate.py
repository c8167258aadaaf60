"""``governor simulate``: complete, reproducible games played by bots.

Its ``--game`` lists the registered games, and each game option a game declares with a ``flag``
(``replay.game.GameOption``) is a flag of its own, turning that option on for the game simulated."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from governor.commands.common import Subcommands, listed, shown
from replay import exits
from replay.errors import printable
from replay.exits import UsageError, bounded_int
from replay.game import GameDeclarationError, GameOption, declarations


def add_parser(commands: Subcommands) -> None:
    """Add ``simulate`` to the subcommands. Raises ``GameDeclarationError`` when a game declares an
    option flag that is one of ``simulate``'s own options."""
    from replay.simulate import MAX_GAMES, MAX_SEED

    games = declarations()
    p = commands.add_parser("simulate", help="generate complete games with bots", description=(
        "Write complete, reproducible games played by bots: the same seed gives the same bytes. Each game "
        "is written as soon as it is played."))
    p.add_argument("--game", required=True, help=listed(games))
    p.add_argument("--players", type=bounded_int("--players", 1, 99), nargs="+",
                   help="player count(s), cycled (default: every count)")
    p.add_argument("--games", type=bounded_int("--games", 1, MAX_GAMES), default=10,
                   help=f"how many games (default 10, at most {MAX_GAMES:,})")
    p.add_argument("--seed", type=bounded_int("--seed", 0, MAX_SEED), default=1,
                   help=f"random seed, 0 to {MAX_SEED:,} (default 1)")
    p.add_argument("--bot", choices=["heuristic", "random", "mixed"], default="heuristic", help="who plays (default heuristic)")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--jsonl", action="store_true", help="write one .jsonl file instead of one .json per game")
    p.add_argument("--gzip", action="store_true", help="gzip the output")
    for flag, declared in _flags().items():
        try:
            p.add_argument(f"--{flag}", action="store_true", dest=_dest(flag), help="; ".join(
                f"{games[game].title}: use {option.summary}" for game, option in declared))
        except argparse.ArgumentError:
            game, option = declared[0]
            raise GameDeclarationError(f"game {game}: the flag --{flag} of its option {option.name} is one of "
                                       "governor simulate's own options") from None
    p.set_defaults(func=run)


def _flags() -> dict[str, list[tuple[str, GameOption]]]:
    """The options games declare a flag for, by flag: (game, option) in the games' order."""
    flags: dict[str, list[tuple[str, GameOption]]] = {}
    for name, game in declarations().items():
        for option in game.options:
            if option.flag:
                flags.setdefault(option.flag, []).append((name, option))
    return flags


def _dest(flag: str) -> str:
    # Apart from the options' own names, so that no flag takes the place of one of simulate's.
    return "game_option_" + flag.replace("-", "_")


def options_of(args: argparse.Namespace) -> dict[str, object]:
    """The game options the flags given turn on, for ``args.game``. Raises ``UsageError`` for a flag
    of another game's option."""
    options: dict[str, object] = {}
    for flag, declared in _flags().items():
        if not getattr(args, _dest(flag), False):
            continue
        mine = [option for game, option in declared if game == args.game]
        if not mine:
            owners = listed((declarations()[game].title for game, _ in declared), "and")
            raise UsageError(f"--{flag} is an option of {owners}, not of {declarations()[args.game].title}")
        options.update((option.name, True) for option in mine)
    return options


def run(args: argparse.Namespace) -> int:
    """Simulate ``args.games`` games into ``args.out``: 0 when written, 1 when the simulation failed
    (a game that would not end), 2 for a usage error, 130 or 143 when interrupted (what was written
    is complete)."""
    from replay.registry import engine_for, game_names
    from replay.simulate import SimulationError, stream_simulated

    # Only the game simulated is loaded: another installed game's engine is none of its business.
    if args.game not in game_names():
        raise UsageError(f"unknown game {printable(repr(args.game))} (known: {', '.join(game_names())})")
    engine = engine_for(args.game)
    counts = args.players or list(range(engine.min_players, engine.max_players + 1))
    for count in counts:
        if not engine.min_players <= count <= engine.max_players:
            raise UsageError(f"{args.game} is for {engine.min_players} to {engine.max_players} players, not {count}")
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise UsageError(f"--out {shown(args.out)} is a file, not a folder: an output never overwrites an input")
    options = options_of(args)
    files = 0
    try:
        for _ in stream_simulated(Path(args.out), args.game, counts, args.games, args.seed, args.bot,
                                  jsonl=args.jsonl, gzip=args.gzip, options=options):
            files += 1
    except SimulationError as err:
        print(f"governor simulate: {printable(str(err))}", file=sys.stderr)
        return exits.REJECTED
    except KeyboardInterrupt as err:
        word, code = exits.interruption(err)
        kept = "" if args.jsonl else f"; the {files} file(s) written are complete"
        print(f"governor simulate: {word}{kept}", file=sys.stderr)
        return code
    print(f"wrote {args.games} game(s) to {files} file(s) in {shown(args.out)}", file=sys.stderr)
    return exits.OK
