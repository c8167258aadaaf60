"""Games in progress: a person (or several, hot-seat) against bots, one move at a time, on disk.

``Setup`` (``play.setup``) says what game is played and who sits where (``Setup.from_query`` reads
the Play page's address, ``/play?game=<game>&players=2&seat=1&bots=heuristic&seed=7&name=Tester``);
``Store`` keeps the games of one database in a folder beside it (``play_folder``: ``<db>.play/``), each
in a journal of its own (``play.journal``, folded by ``play.line``), and hands out ``Session``s
(``play.session``): immutable snapshots of a game, each with the ``version`` a client sends back with
its next move, so that a click on a position that has moved on (another tab, a double click) is
refused (``StaleVersion``) instead of applied twice.

- A person's move is checked by the engine (``Store.act``, ``play.moves``): an illegal one raises the
  engine's ``IllegalMoveError``, naming the rule, and changes nothing.
- A bot's move (``Store.bot_step``) is computed, on disk, then returned, one at a time, so that a page
  can show them one by one. A bot's move at move index k is seeded from the game's seed and k (built-in
  agents; a user's agent runs in a process of its own as in the arena: ``play.hosted``), so a game
  resumed after a restart goes on exactly as it would have (``play.bot_turns``).
- A part of another seat's move that a person decides (refraining from a draw the move offers,
  declining a card a building offers: ``Engine.deciders``) is asked of that person before the move is
  made (``Session.asked``); a bot's part of a person's move is the rules' default.
- A take-back (``Store.takeback``: only a person playing bots alone) undoes the person's last decision
  and every bot move after it; the log keeps only the final line, and the game is marked (its
  ``meta.takebacks``) and left out of the ratings.
- What a person is shown is asked of the game's view module (``play.shown.seat_view``): the state as
  that seat sees it, the moves as that seat knew them, and its own legal moves; nothing else leaves the
  server.

Every call that changes a game returns only once the change is on disk: kill the process at any
moment and a game resumes from the journal at the last position any call returned.
"""

from __future__ import annotations

import base64
import os
import re
import secrets
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from play import journal
from play.bot_turns import BUDGET, BotTurns
from play.errors import (
    NotAMove,
    NotYourTurn,
    PlayError,
    SessionDamaged,
    SessionNotFound,
    SetupError,
    StaleVersion,
    StoreFailed,
    TakebackRefused,
)
from play.line import JOURNAL, JOURNAL_FORMAT, Line, fold, stamp
from play.moves import illegal, part, resolve
from play.session import Session, game_log, log_of, takeback_refusal
from play.setup import Setup
from replay.errors import FieldError, RuleViolation, printable
from replay.registry import view_for

#: Games whose fold a store keeps (each the states of a whole game: a few MB at most).
KEPT_FOLDS = 16
#: A game's id: 24 characters of base32 in lower case (120 random bits): unguessable, fit for an
#: address and a file name, never starting with ``-``.
ID_CHARS = 24
_ID = re.compile(rf"[a-z2-7]{{{ID_CHARS}}}")


def play_folder(db: str | os.PathLike[str]) -> Path:
    """Where the games played on database ``db`` are kept: the folder ``<db>.play`` beside it."""
    return Path(f"{os.fspath(db)}.play")


def new_id() -> str:
    """A new game's id: 120 random bits as 24 characters of base32 in lower case."""
    return base64.b32encode(secrets.token_bytes(15)).decode("ascii").lower()



@dataclass(frozen=True)
class InProgress:
    """An unfinished game as a list shows it."""

    id: str
    game: str
    title: str
    players: int
    names: tuple[str, ...]
    humans: tuple[int, ...]
    moves: int
    to_act: int | None
    created: datetime
    updated: datetime


class Store:
    """The games of one folder (``play_folder(db)``). Safe to share between threads and with other
    processes on the same folder: every change is made under the game's lock and checked against the
    version the caller saw. ``close`` ends the processes of users' agents it started (a ``with``
    block does)."""

    def __init__(self, folder: str | os.PathLike[str], *, budget: float = BUDGET,
                 clock: Callable[[], datetime] | None = None) -> None:
        self.folder = Path(folder)
        self.clock = clock or (lambda: datetime.now(UTC))
        #: The bots' moves, and the processes of users' agents.
        self.bots = BotTurns(budget)
        self._lock = threading.Lock()
        self._games: dict[str, threading.Lock] = {}
        #: The last fold of each game this store read: its header, the entries folded, the fold.
        self._folds: dict[str, tuple[dict[str, Any], tuple[dict[str, Any], ...], Line]] = {}

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End every user's agent process this store started."""
        self.bots.close()

    # -- the folder and the journals -------------------------------------------------------------

    def _name(self, game_id: str) -> str:
        if not isinstance(game_id, str) or not _ID.fullmatch(game_id):
            raise SessionNotFound(f"no game {printable(repr(game_id))} (an id is {ID_CHARS} letters and digits)")
        return game_id + journal.SUFFIX

    def _shown(self, name: str) -> str:
        return str(self.folder / name)

    @contextmanager
    def _folder(self, make: bool = False) -> Iterator[int]:
        try:
            fd = journal.open_folder(self.folder, make)
        except journal.JournalMissing:
            raise SessionNotFound(f"no game is kept in {self.folder}: no such folder") from None
        except journal.JournalError as err:
            raise PlayError(str(err)) from None
        try:
            yield fd
        finally:
            os.close(fd)

    @contextmanager
    def _opened(self, game_id: str, exclusive: bool,
                over_as_none: bool = False) -> Iterator[tuple[journal.Open, Any, tuple[str, ...]]]:
        """The game's journal open and locked, folded (``Line``), with the note of a dropped last line;
        with ``over_as_none``, a game whose last entry says it is over is not folded (None). The fold
        is kept for the next call (only the lines added since are folded then), once the block ended
        without an error: a block that raised may have left its fold half-changed."""
        name = self._name(game_id)
        with self._folder() as folder:
            try:
                with journal.opened(folder, name, self._shown(name), exclusive) as handle:
                    lines = handle.lines()
                    notes = (lines.note,) if lines.note else ()
                    if over_as_none and lines.entries and lines.entries[-1].get("over") is True:
                        yield handle, None, notes
                        return
                    line, done = self._fold(game_id, lines, self._shown(name))
                    yield handle, line, notes
                    with self._lock:
                        if len(self._folds) >= KEPT_FOLDS:  # the game read longest ago goes
                            self._folds.pop(next(iter(self._folds)))
                        self._folds[game_id] = (lines.header, done + tuple(handle.added), line)
            except journal.JournalMissing:
                raise SessionNotFound(f"no game {game_id} in {self.folder} (finished and stored long ago, abandoned, "
                                      "or played on another database)") from None
            except journal.JournalDamaged as err:
                raise SessionDamaged(str(err)) from None
            except journal.JournalError as err:
                raise PlayError(str(err)) from None

    def _fold(self, game_id: str, lines: journal.Lines, shown: str) -> tuple[Line, tuple[dict[str, Any], ...]]:
        """The journal's lines folded, from the fold kept of its earlier lines when they are unchanged."""
        with self._lock:
            kept = self._folds.pop(game_id, None)
        if kept is not None:
            header, entries, line = kept
            if header == lines.header and lines.entries[:len(entries)] == entries:
                for entry in lines.entries[len(entries):]:
                    line.add(entry)
                return line, lines.entries
        return fold(lines, game_id, shown), lines.entries

    def _write(self, handle: journal.Open, line: Line, entry: dict[str, Any], notes: Sequence[str]) -> Session:
        """Fold ``entry`` in (checked), then put it on disk; the new session. The entry that ends the
        game says so (``over``), so that a list of games in progress need not fold finished ones."""
        line.add(entry)
        session = line.session(notes)
        if session.over:
            entry["over"] = True
        handle.append(entry)
        return session

    def _entry(self, line: Line, kind: str, seat: int | None = None, move: Any = None,
               faults: Sequence[dict[str, str]] = ()) -> dict[str, Any]:
        entry: dict[str, Any] = {"kind": kind, "version": line.version + 1, "at": stamp(self.clock())}
        if seat is not None:
            entry["seat"] = seat
        if move is not None:
            entry["move"] = move.to_json()
        if faults:
            entry["faults"] = list(faults)
        return entry

    # -- the calls -------------------------------------------------------------------------------

    def start(self, setup: Setup) -> Session:
        """Start a game: its journal made, on disk, and its first session. Raises ``SetupError`` for a
        setup made by hand that no game can have, and ``PlayError`` when the folder of games cannot be
        made or written."""
        try:
            if Setup.from_json(setup.to_json()) != setup:
                raise ValueError("it does not stay the same in a journal")
        except ValueError as err:
            raise SetupError("setup", str(err)) from None
        created = self.clock()
        with self._folder(make=True) as folder:
            while True:
                game_id = new_id()
                header = {"journal": JOURNAL, "format": JOURNAL_FORMAT, "id": game_id, "created": stamp(created),
                          "setup": setup.to_json()}
                try:
                    journal.create(folder, game_id + journal.SUFFIX, header)
                except FileExistsError:  # 120 random bits met another game's: draw again
                    continue
                except OSError as err:
                    raise PlayError(f"{self.folder}: cannot write a new game: {err.strerror or err}") from None
                break
        return Line(game_id, setup, created, self._shown(game_id + journal.SUFFIX)).session()

    def load(self, game_id: str) -> Session:
        """The game ``game_id`` as it stands (a last line cut short by a crash is dropped, with a note).
        Raises ``SessionNotFound`` and ``SessionDamaged`` (naming the file and the line)."""
        with self._opened(game_id, exclusive=False) as (_, line, notes):
            session: Session = line.session(notes)
            return session

    def act(self, game_id: str, given: Any, expected_version: int) -> Session:
        """A person's move: ``given`` is a move of the game (typed), its JSON form (a dict, or its
        text), or its text form (``Move.text``, as ``seat_view``'s ``legal`` lists them; letter case
        and spacing aside). The move is checked by the engine and made only when ``expected_version``
        is the game's version; it is on disk when this returns.

        Raises ``StaleVersion`` (nothing changed), ``NotYourTurn`` (a bot is to act, or the game is
        over), ``NotAMove`` (not a move of this game, or not one of the person's choices),
        ``IllegalMoveError`` (the engine's error, naming the rule), and ``SessionNotFound``,
        ``SessionDamaged``, ``PlayError`` (a disk that refuses)."""
        with self._opened(game_id, exclusive=True) as (handle, line, notes):
            session = line.session(notes)
            check_version(session, expected_version)
            seat = session.to_act
            if seat is None:
                raise NotYourTurn("the game is over: no move can be made")
            if seat not in session.setup.humans:
                raise NotYourTurn(f"it is {session.setup.names[seat]}'s turn (a bot): ask for the bot's move")
            move = resolve(session, given)
            engine = session.engine
            state = session.state
            if session.asked is not None:
                entry = self._entry(line, "part", seat, part(session, move))
            else:
                try:
                    engine.apply(state, move)
                except RuleViolation as err:
                    raise illegal(session, seat, move, err) from None
                except FieldError as err:
                    raise NotAMove(f"not a move of {view_for(session.setup.game).TITLE}: {err}") from None
                entry = self._entry(line, "move", seat, engine.with_others_from(state, engine.canonical_move(move),
                                                                                 seat, None))
            made = self._safely(handle, line, entry, notes)
        self.bots.ended(made)
        return made

    def _safely(self, handle: journal.Open, line: Line, entry: dict[str, Any], notes: Sequence[str]) -> Session:
        try:
            return self._write(handle, line, entry, notes)
        except OSError as err:
            raise PlayError(f"{handle.shown}: cannot write the move: {err.strerror or err}") from None

    def bot_step(self, game_id: str, expected_version: int) -> Session | None:
        """The next bot's move: computed (seeded from the game's seed and the move's index; a user's
        agent in its process, a fault playing a random legal move), on disk, and the new session
        returned. None, changing nothing, when a person is to act or the game is over.

        Raises ``StaleVersion`` (also when the game moved on while the bot thought: nothing changed),
        ``SessionNotFound``, ``SessionDamaged`` and ``PlayError``."""
        with self._game_lock(game_id):
            session = self.load(game_id)
            check_version(session, expected_version)
            if session.over or session.human_to_act:
                return None
            seat = session.to_act
            assert seat is not None
            move, faults = self.bots.move(session, seat)
            with self._opened(game_id, exclusive=True) as (handle, line, notes):
                check_version(line.session(), expected_version)
                made = self._safely(handle, line, self._entry(line, "move", seat, move, faults), notes)
            self.bots.ended(made)
            return made

    @contextmanager
    def _game_lock(self, game_id: str) -> Iterator[None]:
        # One bot of one game thinks at a time in this process (a user's agent has one process).
        with self._lock:
            lock = self._games.setdefault(game_id, threading.Lock())
        with lock:
            yield

    def takeback(self, game_id: str, expected_version: int) -> Session:
        """Undo the person's last decision and every bot move after it (the person is then to act where
        it decided last); counted in ``takebacks``. Only in a game of one person against bots, before
        its end.

        Raises ``TakebackRefused`` saying why, ``StaleVersion``, ``SessionNotFound``, ``SessionDamaged``
        and ``PlayError``."""
        with self._opened(game_id, exclusive=True) as (handle, line, notes):
            session = line.session(notes)
            check_version(session, expected_version)
            why = takeback_refusal(session)
            if why is not None:
                raise TakebackRefused(f"no take-back: {why}")
            return self._safely(handle, line, self._entry(line, "takeback"), notes)

    def abandon(self, game_id: str) -> None:
        """Remove the game (its journal) for good; a process of a user's agent it had is ended.
        Raises ``SessionNotFound``, ``SessionDamaged`` is not raised: a damaged game can be abandoned."""
        name = self._name(game_id)
        with self._folder() as folder:
            try:
                with journal.opened(folder, name, self._shown(name), exclusive=True) as handle:
                    handle.remove()
            except journal.JournalMissing:
                raise SessionNotFound(f"no game {game_id} in {self.folder}") from None
            except journal.JournalError as err:
                raise PlayError(str(err)) from None
            except OSError as err:
                raise PlayError(f"{self._shown(name)}: cannot remove it: {err.strerror or err}") from None
        self.bots.forget(game_id)

    def in_progress(self, problems: list[str] | None = None) -> list[InProgress]:
        """The unfinished games, the one changed last first. A journal that cannot be read is left out
        (its message added to ``problems`` when given)."""
        found: list[InProgress] = []
        try:
            with self._folder() as folder:
                names = sorted(os.listdir(folder))
        except SessionNotFound:
            return []
        for name in names:
            game_id = name[: -len(journal.SUFFIX)]
            if not name.endswith(journal.SUFFIX) or not _ID.fullmatch(game_id):
                continue
            try:
                with self._opened(game_id, exclusive=False, over_as_none=True) as (_, line, notes):
                    session = line.session(notes) if line is not None else None
            except SessionNotFound:
                continue  # removed meanwhile
            except PlayError as err:
                if problems is not None:
                    problems.append(err.message)
                continue
            if session is None or session.over:
                continue
            setup = session.setup
            found.append(InProgress(session.id, setup.game, view_for(setup.game).TITLE, setup.players, setup.names,
                                    setup.humans, len(session.moves), session.to_act, session.created,
                                    session.updated))
        found.sort(key=lambda g: g.updated, reverse=True)
        return found

    def log(self, game_id: str) -> dict[str, Any]:
        """The game's log (``log_of``): complete with its result once it is over. Raises
        ``SessionNotFound`` and ``SessionDamaged``."""
        return log_of(self.load(game_id))

    def finish(self, game_id: str, db: str | os.PathLike[str]) -> str:
        """Store the finished game in the database ``db`` through the product's one import
        (``ingest``): once (a game already stored is not stored again: the import knows it by its
        content), so calling this again is harmless. Its file in the database is named ``governor play
        <id>``. Returns the game's id in the database.

        Raises ``NotYourTurn`` when the game is not over, ``StoreFailed`` when the database cannot take
        it (locked, read-only, not a database: the game stays here, to be stored later),
        ``SessionNotFound`` and ``SessionDamaged``."""
        import tempfile

        from ingest.db import DatabaseError
        from ingest.importer import import_paths
        from ingest.lake_files import LakeError
        from ingest.stores import StoreError
        from replay.logfile import dumps_game

        session = self.load(game_id)
        if not session.over:
            raise NotYourTurn(f"game {game_id} is not over: only a finished game is stored")
        stored = game_log(session).game_id
        target = os.fspath(db)
        # The log is imported from a folder of its own (made for it, removed after): nothing is left
        # beside the journals that an import of the database's folder would read as a log.
        with tempfile.TemporaryDirectory(prefix="governor-play-") as scratch:
            path = os.path.join(scratch, f"{game_id}.json")
            try:
                with open(path, "x", encoding="utf-8") as handle:
                    handle.write(dumps_game(log_of(session)) + "\n")
                summary = import_paths([path], target, workers=1, keep_ids=True,
                                       display_names={path: f"governor play {game_id}"})
            except (DatabaseError, LakeError, StoreError, OSError) as err:
                raise StoreFailed(f"{target}: the game could not be stored: {err}") from None
        if summary.rejected or summary.problems:
            why = (summary.messages or summary.problems or ["rejected"])[0]
            raise StoreFailed(f"{target}: the game could not be stored: {why}")
        return stored

def check_version(session: Session, expected: int) -> None:
    """Raise ``StaleVersion`` unless ``expected`` is the version of ``session``."""
    if type(expected) is not int or expected != session.version:
        raise StaleVersion(session.version, expected if type(expected) is int else -1)
