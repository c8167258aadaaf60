"""``governor play``: play a game against the bots in a terminal, on the code the Play page uses
(``play.store``).

The seat's view is shown as the game's own text (in that seat's view), its legal moves numbered with
their text forms; a move is typed as its number or its text; ``undo`` takes the last move back (a
game against bots only), ``quit`` leaves the game to be resumed (``--resume ID``), as does Ctrl-C
(status 130). Bots' moves are shown one by one, as the seat saw them. At the end: "Game over", the
scores with their tie-breaks, and the game stored in the database. Standard input need not be a
terminal: lines are read one by one (how the tests play).

``add_parser(commands)`` adds the subcommand and ``run(args)`` runs it.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import TextIO

from governor.commands.common import DEFAULT_DB, Subcommands, default_db, listed
from play.errors import NotAMove, PlayError, SessionDamaged, SessionNotFound, SetupError, StoreFailed, TakebackRefused
from play.session import Session
from play.setup import Setup, seats_of
from play.shown import moves_seen, seat_view
from play.store import Store, play_folder
from replay import exits
from replay.errors import IllegalMoveError, printable
from replay.game import declarations
from replay.protocol import Viewer
from replay.registry import view_for
from replay.simulate import MAX_SEED

#: The words a player types besides a move.
UNDO, QUIT = "undo", "quit"


def add_parser(commands: Subcommands) -> None:
    """Add ``play`` to the subcommands, its description naming the games there are."""
    titles = listed(game.title for game in declarations().values())
    parser = commands.add_parser("play", help="play a game against the bots in this terminal", description=(
        f"Play {titles} against bots (or several people at one screen: --human), one move at a time: the "
        "game's state as your seat sees it, your legal moves numbered; type a number or a move as listed, undo "
        "(take back your last move, against bots) or quit (the game is kept: --resume ID). Every move is on disk "
        "before it is shown; the finished game is stored in the database. Input may come from a pipe, a line at "
        "a time."))
    add_arguments(parser)
    parser.set_defaults(func=run)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``governor play``."""
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--resume", metavar="ID", help="go on with the game of this id (kept in DB.play/)")
    what.add_argument("--list", action="store_true", help="list the games in progress, the one played last first")
    what.add_argument("--abandon", metavar="ID", help="remove the game of this id for good")
    games = declarations()
    parser.add_argument("--game", help=listed(games))
    parser.add_argument("--players", type=exits.bounded_int("--players", 1, 99), help="seats (default: the fewest)")
    parser.add_argument("--seat", metavar="K", help="your seat, 0 (the first to play) to PLAYERS-1, or random "
                                                     "(default 0)")
    parser.add_argument("--name", help="your name (default: Player)")
    parser.add_argument("--human", action="append", metavar="K[:NAME]",
                        help="a seat a person plays, with its player's name: give it once for each (hot-seat); "
                             "not with --seat or --name")
    parser.add_argument("--bots", nargs="+", metavar="AGENT",
                        help="the agent of every bot seat, or one per bot seat in seat order: random, heuristic, "
                             "expert, search (the analysis' search), search:R, module:Class or path/to/file.py[:Class] "
                             "(default heuristic)")
    parser.add_argument("--seed", type=exits.bounded_int("--seed", 0, MAX_SEED),
                        help="the game's seed: the deal and every bot's moves (default: drawn at random)")
    options = "; ".join(f"{game.title}: {', '.join(o.name for o in game.options)}" for game in games.values()
                        if game.options)
    parser.add_argument("--option", action="append", default=[], metavar="NAME",
                        help=f"turn on one of the game's options ({options or 'none'})")
    parser.add_argument("--db", help=f"database file the finished game is stored in, its games in progress in "
                                      f"DB.play/ (default: $GOVERNOR_DB or {DEFAULT_DB})")


#: The option of ``governor play`` each setup parameter comes from.
_OPTIONS = {"game": "--game", "players": "--players", "seat": "--seat", "name": "--name", "bots": "--bots",
            "seed": "--seed"}


class _Quit(Exception):
    """The player typed ``quit``, or standard input ended."""


def run(args: argparse.Namespace) -> int:
    """Run ``governor play`` on the database of ``--db`` (default: ``$GOVERNOR_DB`` or
    ``governor.duckdb``). Its exit status (``replay.exits``): 0 when the game ended and was stored, or
    was left to be resumed (``quit``); 1 for a damaged game; 2 for a usage or environment problem (a
    bad option, no such game, a database that cannot take the game); 130 or 143 when interrupted (the
    game kept)."""
    db = str(args.db or default_db())
    store = Store(play_folder(db))
    try:
        if args.list:
            return _list(store)
        if args.abandon is not None:
            store.abandon(args.abandon)
            print(f"governor play: game {printable(args.abandon)} abandoned", file=sys.stderr)
            return exits.OK
        if args.resume is not None:
            _refuse_setup_options(args)
            session = store.load(args.resume)
            for note in session.notes:
                print(f"governor play: note: {note}", file=sys.stderr)
        else:
            session = _start(store, args, db)
        return _Game(store, session, db, args.db is not None, sys.stdin, sys.stdout).play()
    except exits.UsageError as err:
        print(f"governor play: {printable(str(err))}", file=sys.stderr)
        return exits.ENVIRONMENT
    except SessionDamaged as err:
        print(f"governor play: {err.message}", file=sys.stderr)
        return exits.REJECTED
    except (SessionNotFound, PlayError) as err:
        print(f"governor play: {err.message}", file=sys.stderr)
        return exits.ENVIRONMENT
    finally:
        with exits.signals_held():
            store.close()


def _refuse_setup_options(args: argparse.Namespace) -> None:
    given = [option for option, value in (("--game", args.game), ("--players", args.players), ("--seat", args.seat),
                                          ("--name", args.name), ("--human", args.human), ("--bots", args.bots),
                                          ("--seed", args.seed), ("--option", args.option)) if value]
    if given:
        raise exits.UsageError(f"{given[0]} sets up a new game: not with --resume (a game keeps its setup)")


def _start(store: Store, args: argparse.Namespace, db: str) -> Session:
    """A new game from the options. Raises ``UsageError`` for a setup that cannot be played."""
    from governor.arena.cli import check_database

    if args.game is None:
        raise exits.UsageError("--game is needed to start a game (or --resume ID, --list, --abandon ID)")
    games = declarations()
    if args.game not in games:
        raise exits.UsageError(f"--game: unknown game {args.game!r} (games: {', '.join(games)})")
    found = games[args.game]
    players = args.players if args.players is not None else found.min_players
    seats_option = "--seat"
    if args.human:
        if args.seat is not None or args.name is not None:
            raise exits.UsageError("--human gives each person's seat and name: not with --seat or --name")
        seats_option = "--human"
        humans, names = [], []
        for given in args.human:
            seat, _, name = given.partition(":")
            seat = seat.strip()
            if not (seat.isascii() and seat.isdigit()) or not 0 <= int(seat) < players:
                raise exits.UsageError(f"--human: a seat from 0 to {players - 1}, then :NAME, not {given!r}")
            humans.append(int(seat))
            names.append(name)
    else:
        try:
            humans = seats_of(args.seat, players)
        except SetupError as err:
            raise exits.UsageError(f"--seat: {err.reason}") from None
        names = [args.name or ""]
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(MAX_SEED + 1)
    unknown = [o for o in args.option if o not in {x.name for x in found.options}]
    if unknown:
        raise exits.UsageError(f"--option: {found.title} has no option {unknown[0]!r} (options: "
                               f"{', '.join(o.name for o in found.options) or 'none'})")
    try:
        setup = Setup.build(args.game, players, humans, names, args.bots or [], seed, dict.fromkeys(args.option, True))
    except SetupError as err:
        option = _OPTIONS.get(err.param, "--option")
        if err.param in ("seat", "name") and args.human:
            option = seats_option
        raise exits.UsageError(f"{option}: {err.reason}") from None
    why = check_database(db)
    if why is not None:
        raise exits.UsageError(f"the finished game could not be stored: {why}")
    return store.start(setup)


def _list(store: Store) -> int:
    problems: list[str] = []
    games = store.in_progress(problems)
    for problem in problems:
        print(f"governor play: {problem}", file=sys.stderr)
    if not games:
        print(f"no game in progress in {printable(str(store.folder))}")
    for game in games:
        people = ", ".join(printable(n) + ("" if s in game.humans else " (bot)") for s, n in enumerate(game.names))
        turn = f"; {printable(game.names[game.to_act])} to play" if game.to_act is not None else ""
        print(f"{game.id}  {game.title}, {game.players} players: {people}; {game.moves} moves{turn}; "
              f"last played {game.updated:%Y-%m-%d %H:%M} UTC")
    return exits.REJECTED if problems else exits.OK


class _Game:
    """One game played at the terminal: reads ``lines``, writes to ``out``."""

    def __init__(self, store: Store, session: Session, db: str, db_given: bool, lines: TextIO, out: TextIO) -> None:
        self.store = store
        self.session = session
        self.db = db
        self.db_given = db_given
        self.lines = lines
        self.out = out
        self.interactive = lines.isatty()
        #: The person whose view was shown last (hot-seat: the screen is passed between people).
        self.showing: int | None = None
        #: Moves already shown.
        self.shown = len(session.moves)

    def say(self, text: str = "") -> None:
        self.out.write("\n".join(printable(line) for line in text.split("\n")) + "\n")
        self.out.flush()

    def resume_hint(self) -> str:
        """The command that goes on with this game (naming the database when it was given)."""
        db = f" --db {printable(self.db)}" if self.db_given else ""
        return f"governor play --resume {self.session.id}{db}"

    def read(self, prompt: str) -> str:
        """The next line typed, stripped. Raises ``_Quit`` at the end of the input."""
        if self.interactive:
            self.out.write(prompt)
            self.out.flush()
        line = self.lines.readline()
        if not line:
            raise _Quit
        return line.strip()

    def play(self) -> int:
        setup = self.session.setup
        seats = ", ".join(f"{n} (seat {s}" + ("" if s in setup.humans else f", bot {setup.bots[s]}") + ")"
                          for s, n in enumerate(setup.names))
        self.say(f"{view_for(setup.game).TITLE}, {setup.players} players: {seats}; seed {setup.seed}")
        self.say(f"Game {self.session.id}: resume it any time with {self.resume_hint()}")
        self.show_moves(0)
        try:
            while not self.session.over:
                if self.session.human_to_act:
                    self.turn()
                else:
                    self.bot()
            return self.end()
        except _Quit:
            print(f"governor play: the game is kept: resume it with {self.resume_hint()}", file=sys.stderr)
            return exits.OK
        except KeyboardInterrupt as err:
            word, code = exits.interruption(err)
            print(f"governor play: {word}; the game is kept: resume it with {self.resume_hint()}", file=sys.stderr)
            return code

    def viewer(self) -> Viewer:
        """Who the moves are shown to: the one person, or the table (hot-seat: every person looks)."""
        humans = self.session.setup.humans
        return Viewer.of_seat(humans[0]) if len(humans) == 1 else Viewer.public()

    def show_moves(self, first: int | None = None) -> None:
        """The moves made since the last shown, as the viewer knew them."""
        for move in moves_seen(self.session, self.viewer(), self.shown if first is None else first):
            self.say(f"{move['number']}. {move['words']}")
            for event in move["events"]:
                self.say(f"   then: {event}")
        self.shown = len(self.session.moves)

    def bot(self) -> None:
        stepped = self.store.bot_step(self.session.id, self.session.version)
        assert stepped is not None, "a bot is to act"
        self.session = stepped
        self.show_moves()

    def turn(self) -> None:
        """Show the person to act its view and choices, and make the move it types."""
        session = self.session
        seat = session.to_act
        assert seat is not None
        names = session.setup.names
        if len(session.setup.humans) > 1 and self.showing != seat:
            self.say(f"\nPass the screen to {names[seat]}, then press Enter.")
            self.read("")
        self.showing = seat
        view = seat_view(session, seat)
        self.say("")
        self.say(view["text"])
        if view["asked"] is not None:
            self.say(f"\n{view['asked']['words']}: your part of it, {names[seat]}:")
        else:
            self.say(f"\nYour move, {names[seat]}:")
        legal = view["legal"]
        for choice in legal:
            self.say(f"  {choice['index'] + 1}. {choice['text']}")
        undo = f", {UNDO}" if view["can_take_back"] else ""
        allowed = f"type a number from 1 to {len(legal)}, a move as listed{undo} or {QUIT}"
        while True:
            typed = self.read("move> ")
            try:
                if typed.lower() == QUIT:
                    raise _Quit
                if typed.lower() == UNDO:
                    self.session = self.store.takeback(session.id, session.version)
                    self.shown = len(self.session.moves)
                    self.say(f"Taken back: {names[self.session.to_act or 0]} to move.")
                    return
                given: object = typed
                if not typed:
                    raise NotAMove(allowed)
                if typed.isascii() and typed.isdigit():
                    if not 1 <= int(typed) <= len(legal):
                        raise NotAMove(f"no move {typed}: {allowed}")
                    given = legal[int(typed) - 1]["move"]
                self.session = self.store.act(session.id, given, session.version)
            except IllegalMoveError as err:
                print(f"governor play: illegal: {err.message}", file=sys.stderr)
                continue
            except (NotAMove, TakebackRefused) as err:
                print(f"governor play: {err.message}", file=sys.stderr)
                continue
            self.show_moves()
            return

    def end(self) -> int:
        """Game over: the scores, and the game stored."""
        session = self.session
        engine = session.engine
        winners = engine.winners(session.state)
        declared = declarations().get(session.setup.game)
        unit = declared.score_unit if declared is not None else "points"
        self.say("\nGame over")
        for seat, score in enumerate(engine.scores(session.state)):
            won = ", winner" if seat in winners else ""
            self.say(f"  {session.setup.names[seat]}: {score.total} {unit} (tie-break {score.tiebreak}){won}")
        try:
            game_id = self.store.finish(session.id, self.db)
        except StoreFailed as err:
            print(f"governor play: {err.message}; it is kept: store it with {self.resume_hint()}", file=sys.stderr)
            return exits.ENVIRONMENT
        self.say(f"Stored in {self.db} as game {game_id}.")
        return exits.OK
