"""A game in progress: a person (or several, hot-seat) against bots, one move at a time, on disk.

``Setup`` says what game is played and who sits where (``Setup.from_query`` reads the Play page's
address, ``/play?game=san_juan&players=2&seat=1&bots=heuristic&seed=7&name=Tester``); ``Store`` keeps
the games of one database in a folder beside it (``play_folder``: ``<db>.play/``), each in a journal
of its own (``play.journal``), and hands out ``Session``s: immutable snapshots of a game, each with the
``version`` a client sends back with its next move, so that a click on a position that has moved on
(another tab, a double click) is refused (``StaleVersion``) instead of applied twice.

- A person's move is checked by the engine (``Store.act``): an illegal one raises the engine's
  ``IllegalMoveError``, naming the rule, and changes nothing.
- A bot's move (``Store.bot_step``) is computed, on disk, then returned, one at a time, so that a page
  can show them one by one. A bot's move at move index k is seeded from the game's seed and k (built-in
  agents; a user's agent runs in a process of its own as in the arena: ``play.hosted``), so a game
  resumed after a restart goes on exactly as it would have.
- A part of another seat's move that a person decides (San Juan: refraining from the councillor's
  draw, declining a gold mine's card: ``Engine.deciders``) is asked of that person before the move is
  made (``Session.asked``); a bot's part of a person's move is the rules' default.
- A take-back (``Store.takeback``: only a person playing bots alone) undoes the person's last decision
  and every bot move after it; the log keeps only the final line, and the game is marked (its
  ``meta.takebacks``) and left out of the ratings.
- What a person is shown is asked of the game's view module (``seat_view``): the state as that seat
  sees it, the moves as that seat knew them, and its own legal moves; nothing else leaves the server.

Every call that changes a game returns only once the change is on disk: kill the process at any
moment and a game resumes from the journal at the last position any call returned.

``Setup`` (``play.setup``) and the errors (``play.errors``) are named here too: this module is the API.
"""

from __future__ import annotations

import base64
import json
import os
import random
import re
import secrets
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from play import journal
from play.agents import built_in_agent
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
from play.hosted import HostedAgent
from play.setup import Setup, seats_of
from play.views import seat_view as agent_view
from replay.errors import FieldError, IllegalMoveError, RuleViolation, printable
from replay.logfile import GameLog
from replay.protocol import Engine, Viewer
from replay.registry import engine_for, view_for
from replay.simulate import MAX_MOVES

__all__ = [
    "Asked", "InProgress", "NotAMove", "NotYourTurn", "PlayError", "Played", "Session", "SessionDamaged",
    "SessionNotFound", "Setup", "SetupError", "StaleVersion", "Store", "StoreFailed", "TakebackRefused",
    "bot_seed", "game_log", "log_of", "move_key", "moves_seen", "new_id", "play_folder", "seat_view", "seats_of",
]

#: Games whose fold a store keeps (each the states of a whole game: a few MB at most).
KEPT_FOLDS = 16
#: The journal's format (its header's ``journal`` and ``format``).
JOURNAL = "governor play"
JOURNAL_FORMAT = 1
#: ``meta.generator`` of a finished game's log.
GENERATOR = "governor play"
#: The documented key order of a log (as ``governor simulate`` and the arena write it).
LOG_ORDER = ("format", "version", "game", "source_id", "meta", "players", "options", "setup", "moves", "result")
#: Seconds a user's agent may take for a decision (the arena's default budget).
BUDGET = 1.0
#: A game's id: 24 characters of base32 in lower case (120 random bits): unguessable, fit for an
#: address and a file name, never starting with ``-``.
ID_CHARS = 24
_ID = re.compile(rf"[a-z2-7]{{{ID_CHARS}}}")


# -- a game as it stands -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Played:
    """One move of the game's final line: its number (from 1), the seat that made it, the typed move,
    whether a bot made it, the faults of a user's agent at it (``{"kind", "detail"}``: it then played a
    random legal move), whether the log leaves it out (the rules' default: ``Engine.default_move``), and
    when it was made."""

    number: int
    seat: int
    move: Any
    bot: bool
    faults: tuple[dict[str, str], ...]
    omitted: bool
    at: datetime


@dataclass(frozen=True)
class Asked:
    """A move waiting for the people whose part of it is theirs to decide (``Engine.deciders``):
    ``mover`` made ``move`` (with the parts decided so far); ``seats`` are the people still to decide,
    the first now."""

    mover: int
    move: Any
    seats: tuple[int, ...]
    faults: tuple[dict[str, str], ...] = ()


@dataclass(frozen=True)
class Session:
    """A game in progress (or over), as one snapshot: never changed; each change of the game gives a
    new one. ``moves`` is the final line (take-backs removed), ``states`` the state before the first
    move and after each, ``state`` the current one (with everything: show a person only
    ``seat_view``), ``version`` the number of changes made to the game (each move, each part, each
    take-back): what a client sends back with its next move. ``notes`` say what reading the game had
    to put right (a last line cut short by a crash, dropped)."""

    id: str
    setup: Setup
    moves: tuple[Played, ...]
    takebacks: int
    states: tuple[Any, ...]
    version: int
    created: datetime
    updated: datetime
    asked: Asked | None = None
    notes: tuple[str, ...] = ()
    #: How many decisions of the final line people made (moves and parts): what a take-back may undo.
    decided: int = 0

    @property
    def engine(self) -> Engine:
        """The game's engine."""
        return engine_for(self.setup.game)

    @property
    def state(self) -> Any:
        """The current state (everything: the server's own)."""
        return self.states[-1]

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.engine.is_over(self.state)

    @property
    def to_act(self) -> int | None:
        """The seat that decides now: a person asked for a part of a move, else the seat to act; None
        once the game is over."""
        if self.asked is not None:
            return self.asked.seats[0]
        return self.engine.current_seat(self.state)

    @property
    def human_to_act(self) -> bool:
        """Whether a person decides now."""
        return self.to_act in self.setup.humans

    @property
    def can_take_back(self) -> bool:
        """Whether ``Store.takeback`` would take something back now."""
        return _takeback_refusal(self) is None

    def choices(self) -> list[Any]:
        """The moves the seat to act may make now, each once, in the engine's order: for a person
        making a move, its own variants (the other seats' parts at the rules' default: a bot decides
        its own); for a person asked for a part, the move with only that part varied. Empty when the
        game is over. (Made once per session: a Puerto Rico mayor may have thousands.)"""
        return list(self._choices)

    @cached_property
    def _choices(self) -> tuple[Any, ...]:
        return tuple(self._list_choices())

    def _list_choices(self) -> list[Any]:
        engine = self.engine
        state = self.state
        if self.over:
            return []
        if self.asked is not None:
            from analysis.decisions import own_choices

            return own_choices(engine, state, self.asked.seats[0], self.asked.move)
        seat = self.to_act
        legal = engine.legal_moves(state)
        if seat not in self.setup.humans:
            return list(legal)
        seen: set[str] = set()
        out = []
        for move in legal:
            variant = engine.with_others_from(state, move, seat, None)
            key = move_key(engine, variant)
            if key not in seen:
                seen.add(key)
                out.append(variant)
        return out

    def faults(self) -> list[dict[str, Any]]:
        """The faults of users' agents, as the arena writes them in a log's ``meta``: ``move`` (1-based),
        ``seat``, ``kind`` and ``detail``."""
        return [{"move": p.number, "seat": p.seat, **f} for p in self.moves for f in p.faults]


def move_key(engine: Engine, move: Any) -> str:
    """What tells two decisions apart: the JSON of the form ``legal_moves`` lists."""
    return json.dumps(engine.canonical_move(move).to_json(), sort_keys=True)


def _takeback_refusal(session: Session) -> str | None:
    if len(session.setup.humans) != 1:
        return "take-backs are for one person playing bots"
    if session.over:
        return "the game is over"
    if not session.decided:
        return "there is no move of yours to take back"
    return None


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _moment(text: Any) -> datetime:
    if not isinstance(text, str):
        raise ValueError("no time")
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        raise ValueError("a time without its zone")
    return value


class _Line:
    """A game's journal folded through the engine: each entry checked as it is added (``add``), the
    take-backs undone, the session at any point (``session``)."""

    def __init__(self, game_id: str, setup: Setup, created: datetime, shown: str) -> None:
        self.id = game_id
        self.setup = setup
        self.created = self.updated = created
        self.shown = shown
        self.engine = engine_for(setup.game)
        log = self.engine.new_random_game(list(setup.names), setup.seed, dict(setup.options))
        self.base = log
        self.states: list[Any] = [self.engine.simulation_state(log, setup.seed)]
        self.moves: list[Played] = []
        self.asked: Asked | None = None
        #: Each decision of the line (a move or a part), whether a person made it, and where the line
        #: stood before it (states, moves, what was asked): a take-back goes back to it at once.
        self.decisions: list[tuple[bool, int, int, Asked | None]] = []
        self.version = 0
        self.takebacks = 0

    def damaged(self, line: int, reason: str) -> SessionDamaged:
        return SessionDamaged(f"{self.shown}: line {line}: {reason}")

    def session(self, notes: Sequence[str] = ()) -> Session:
        return Session(self.id, self.setup, tuple(self.moves), self.takebacks, tuple(self.states), self.version,
                       self.created, self.updated, self.asked, tuple(notes), sum(1 for d in self.decisions if d[0]))

    def parse(self, obj: Any, line: int) -> Any:
        try:
            return self.engine.parse_move(obj, "move")
        except FieldError as err:
            raise self.damaged(line, f"not a move of the game: {err}") from None

    def add(self, entry: dict[str, Any]) -> None:
        """Fold one entry in. Raises ``SessionDamaged`` for an entry the game cannot take there."""
        line = self.version + 2  # the header is line 1
        if entry.get("version") != self.version + 1:
            raise self.damaged(line, f"version {entry.get('version')!r} where {self.version + 1} comes")
        try:
            at = _moment(entry.get("at"))
        except ValueError as err:
            raise self.damaged(line, f"bad time: {err}") from None
        kind = entry.get("kind")
        faults = entry.get("faults", [])
        if not isinstance(faults, list) or not all(
                isinstance(f, dict) and isinstance(f.get("kind"), str) and isinstance(f.get("detail"), str)
                for f in faults):
            raise self.damaged(line, "bad faults")
        seat = entry.get("seat")
        state = self.states[-1]
        if kind == "move":
            if self.asked is not None:
                raise self.damaged(line, f"a move while seat {self.asked.seats[0]} is asked for its part")
            mover = self.engine.current_seat(state)
            if mover is None or seat != mover:
                raise self.damaged(line, f"a move of seat {seat!r} where seat {mover} is to act")
            move = self.parse(entry.get("move"), line)
            human = mover in self.setup.humans
            self.decisions.append((human, len(self.states), len(self.moves), self.asked))
            fault_list = tuple({"kind": f["kind"], "detail": f["detail"]} for f in faults)
            asking = tuple(s for s in self.engine.deciders(state, move) if s in self.setup.humans and s != mover)
            if asking:
                self.check(state, move, line)
                self.asked = Asked(mover, move, asking, fault_list)
            else:
                self.apply(mover, move, fault_list, at, line)
        elif kind == "part":
            asked = self.asked
            if asked is None or seat != asked.seats[0]:
                raise self.damaged(line, f"a part decided by seat {seat!r}, which nobody asked")
            given = self.parse(entry.get("move"), line)
            try:
                move = self.engine.with_others_from(state, given, seat, asked.move)
            except ValueError as err:
                raise self.damaged(line, f"not a part of the move asked: {err}") from None
            self.decisions.append((True, len(self.states), len(self.moves), asked))
            if asked.seats[1:]:
                self.check(state, move, line)
                self.asked = Asked(asked.mover, move, asked.seats[1:], asked.faults)
            else:
                self.asked = None
                self.apply(asked.mover, move, asked.faults, at, line)
        elif kind == "takeback":
            while True:
                if not self.decisions:
                    raise self.damaged(line, "a take-back with no move of a person's to take back")
                human, states, moves, asked_before = self.decisions.pop()
                del self.states[states:]
                del self.moves[moves:]
                self.asked = asked_before
                if human:
                    break
            self.takebacks += 1
        else:
            raise self.damaged(line, f"unknown entry {kind!r}")
        self.version += 1
        self.updated = at

    def check(self, state: Any, move: Any, line: int) -> Any:
        try:
            return self.engine.apply(state, move)
        except (RuleViolation, FieldError) as err:
            raise self.damaged(line, f"an illegal move {move.text()!r}: {err}") from None

    def apply(self, seat: int, move: Any, faults: tuple[dict[str, str], ...], at: datetime, line: int) -> None:
        state = self.states[-1]
        if len(self.moves) >= MAX_MOVES:
            raise self.damaged(line, f"more than {MAX_MOVES} moves: no game is that long")
        default = self.engine.default_move(state)
        after = self.check(state, move, line)
        self.states.append(after)
        self.moves.append(Played(len(self.moves) + 1, seat, move, seat not in self.setup.humans, faults,
                                 default is not None and move == default, at))


def _fold(lines: journal.Lines, game_id: str, shown: str) -> _Line:
    header = lines.header
    if header.get("journal") != JOURNAL or header.get("format") != JOURNAL_FORMAT or header.get("id") != game_id:
        raise SessionDamaged(f"{shown}: line 1: not the journal of game {game_id}")
    try:
        setup = Setup.from_json(header.get("setup"))
        created = _moment(header.get("created"))
    except ValueError as err:
        raise SessionDamaged(f"{shown}: line 1: {err}") from None
    line = _Line(game_id, setup, created, shown)
    for entry in lines.entries:
        line.add(entry)
    return line


# -- what a person is shown --------------------------------------------------------------------------


def seat_view(session: Session, seat: int) -> dict[str, Any]:
    """What the page may send to the person at ``seat`` (0-based), all of it plain JSON, all of it
    decided by the game's view module (``replay.registry.view_for``: the Replay page's seat view):

    - ``state``: the state as the seat sees it (``GameView.view_state``), and ``text``, the same as
      the game's own text (``Engine.render_view``);
    - ``moves``: the final line as the seat knew it: each move's ``number``, ``seat``, ``player``,
      ``bot``, ``words`` (``view_move_words``), ``text`` (its text form, None when the seat may not
      see all of it) and ``events`` (``view_move_events``);
    - ``legal``: when this seat decides now, its choices (``Session.choices``), each with its
      ``index``, ``text`` (the form ``governor replay`` prints), ``words`` and ``move`` (its JSON form,
      what ``Store.act`` takes back); else empty. ``asked``: the move this seat is asked a part of;
    - ``id``, ``version``, ``game``, ``title``, ``names``, ``seat``, ``humans``, ``to_act``,
      ``human_to_act``, ``over``, ``takebacks``, ``can_take_back``, and once over ``result``
      (``scores``, ``tiebreaks``, ``winners``).

    The Replay board of the game so far is made from ``game_log(session)`` as the What-if panel makes
    a variation's (the rows an import would store, seen through ``PreparedGame.payload``).

    Raises ``ValueError`` for a seat the game does not have."""
    setup = session.setup
    if not 0 <= seat < setup.players:
        raise ValueError(f"no seat {seat} in a game of {setup.players}")
    engine = session.engine
    view = view_for(setup.game)
    viewer = Viewer.of_seat(seat)
    names = list(setup.names)
    shown_state = view.view_state(session.state, viewer, names)
    moves = moves_seen(session, viewer)
    out: dict[str, Any] = {
        "id": session.id, "version": session.version, "game": setup.game, "title": view.TITLE, "names": names,
        "seat": seat, "humans": list(setup.humans), "state": shown_state,
        "text": engine.render_view(shown_state, names), "moves": moves, "to_act": session.to_act,
        "human_to_act": session.human_to_act, "over": session.over, "takebacks": session.takebacks,
        "can_take_back": session.can_take_back, "legal": [], "asked": None,
    }
    deciding = session.to_act == seat and seat in setup.humans and view.sees_decisions(seat, viewer)
    if deciding:
        state = session.state
        out["legal"] = [{"index": i, "text": m.text(), "words": engine.describe_move(state, m, names),
                         "move": m.to_json()} for i, m in enumerate(session.choices())]
        asked = session.asked
        if asked is not None:
            details = asked.move.to_json()
            mover = names[asked.mover]
            words = engine.describe_move(state, asked.move, names)
            if view.hides_move(details, asked.mover, viewer):
                words = view.view_move_words(details, words, mover, asked.mover, viewer)
            out["asked"] = {"seat": asked.mover, "player": mover, "words": words}
    if session.over:
        scores = engine.scores(session.state)
        out["result"] = {"scores": [s.total for s in scores], "tiebreaks": [s.tiebreak for s in scores],
                         "winners": list(engine.winners(session.state))}
    return out


def moves_seen(session: Session, viewer: Viewer, first: int = 0) -> list[dict[str, Any]]:
    """The moves of the final line from index ``first`` (0-based) as ``viewer`` knew them (the game's
    view module decides, as on the Replay page): each move's ``number``, ``seat``, ``player``, ``bot``,
    ``words``, ``text`` (None when ``viewer`` may not see all of the move) and ``events``."""
    engine = session.engine
    view = view_for(session.setup.game)
    names = list(session.setup.names)
    out = []
    for played, before, after in zip(session.moves[first:], session.states[first:], session.states[first + 1:]):
        details = played.move.to_json()
        player = names[played.seat]
        words = engine.describe_move(before, played.move, names)
        hidden = view.hides_move(details, played.seat, viewer)
        out.append({
            "number": played.number, "seat": played.seat, "player": player, "bot": played.bot,
            "words": view.view_move_words(details, words, player, played.seat, viewer) if hidden else words,
            "text": None if hidden else played.move.text(),
            "events": view.view_move_events(engine.automatic_events(before, played.move, after, names), names, viewer),
        })
    return out


def game_log(session: Session) -> GameLog:
    """The log of the game so far (``log_of``) as a ``GameLog``, for what reads logs (the rows an
    import would store, the Replay board)."""
    from replay.logfile import parse_game

    return parse_game(log_of(session), file=f"governor play {session.id}")


def log_of(session: Session) -> dict[str, Any]:
    """The game as a log of the format (``docs/log-format.md``): its setup, the moves of its final line
    (a move equal to the rules' default left out, as ``governor simulate`` writes them), and once it is
    over its ``result``. ``meta``: ``generator`` (``governor play``), ``seed``, ``agents`` (each bot
    seat's ``seat``, ``name``, ``spec`` and ``version``, as the arena writes them: the importer stores
    these seats as bots), ``takebacks`` (the number of take-backs: a game with any is left out of the
    ratings), ``faults`` (of users' agents, when any) and, once over, ``date`` (of its last move)."""
    setup = session.setup
    engine = session.engine
    base = engine.new_random_game(list(setup.names), setup.seed, dict(setup.options))
    moves = [{"seat": p.seat, **p.move.to_json()} for p in session.moves if not p.omitted]
    obj = engine.finish_log(base, session.state, moves)
    meta: dict[str, Any] = {"generator": GENERATOR, "seed": setup.seed}
    meta["agents"] = [{"seat": s, "name": setup.names[s], "spec": spec, "version": setup.versions[s]}
                      for s, spec in enumerate(setup.bots) if spec is not None]
    meta["takebacks"] = session.takebacks
    faults = session.faults()
    if faults:
        meta["faults"] = faults
    over = session.over
    if over:
        meta["date"] = session.updated.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    obj["meta"] = {**meta, **obj.get("meta", {})}
    if not over:
        obj.pop("result", None)
    return {k: obj[k] for k in LOG_ORDER if k in obj}


# -- the games of a database -------------------------------------------------------------------------


def play_folder(db: str | os.PathLike[str]) -> Path:
    """Where the games played on database ``db`` are kept: the folder ``<db>.play`` beside it."""
    return Path(f"{os.fspath(db)}.play")


def new_id() -> str:
    """A new game's id: 120 random bits as 24 characters of base32 in lower case."""
    return base64.b32encode(secrets.token_bytes(15)).decode("ascii").lower()


def bot_seed(seed: int, index: int) -> int:
    """The seed of a bot's move at move index ``index`` (0-based) of a game of seed ``seed``."""
    return random.Random(f"play:{seed}:{index}").randrange(2**31)


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
        self.budget = budget
        self.clock = clock or (lambda: datetime.now(UTC))
        self._hosted: dict[tuple[str, int], HostedAgent] = {}
        self._lock = threading.Lock()
        self._games: dict[str, threading.Lock] = {}
        #: The last fold of each game this store read: its header, the entries folded, the fold.
        self._folds: dict[str, tuple[dict[str, Any], tuple[dict[str, Any], ...], _Line]] = {}

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End every user's agent process this store started."""
        with self._lock:
            hosted = list(self._hosted.values())
            self._hosted.clear()
        for agent in hosted:
            agent.close()

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
        """The game's journal open and locked, folded (``_Line``), with the note of a dropped last line;
        with ``over_as_none``, a game whose last entry says it is over is not folded (None). The fold
        is kept for the next call (only the lines added since are folded then), once the block ended
        well: a block that raised may have left its fold half-changed."""
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

    def _fold(self, game_id: str, lines: journal.Lines, shown: str) -> tuple[_Line, tuple[dict[str, Any], ...]]:
        """The journal's lines folded, from the fold kept of its earlier lines when they are unchanged."""
        with self._lock:
            kept = self._folds.pop(game_id, None)
        if kept is not None:
            header, entries, line = kept
            if header == lines.header and lines.entries[:len(entries)] == entries:
                for entry in lines.entries[len(entries):]:
                    line.add(entry)
                return line, lines.entries
        return _fold(lines, game_id, shown), lines.entries

    def _write(self, handle: journal.Open, line: _Line, entry: dict[str, Any], notes: Sequence[str]) -> Session:
        """Fold ``entry`` in (checked), then put it on disk; the new session. The entry that ends the
        game says so (``over``), so that a list of games in progress need not fold finished ones."""
        line.add(entry)
        session = line.session(notes)
        if session.over:
            entry["over"] = True
        handle.append(entry)
        return session

    def _entry(self, line: _Line, kind: str, seat: int | None = None, move: Any = None,
               faults: Sequence[dict[str, str]] = ()) -> dict[str, Any]:
        entry: dict[str, Any] = {"kind": kind, "version": line.version + 1, "at": _stamp(self.clock())}
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
                header = {"journal": JOURNAL, "format": JOURNAL_FORMAT, "id": game_id, "created": _stamp(created),
                          "setup": setup.to_json()}
                try:
                    journal.create(folder, game_id + journal.SUFFIX, header)
                except FileExistsError:  # 120 random bits met another game's: draw again
                    continue
                except OSError as err:
                    raise PlayError(f"{self.folder}: cannot write a new game: {err.strerror or err}") from None
                break
        return _Line(game_id, setup, created, self._shown(game_id + journal.SUFFIX)).session()

    def load(self, game_id: str) -> Session:
        """The game ``game_id`` as it stands (a last line cut short by a crash is dropped, with a note).
        Raises ``SessionNotFound`` and ``SessionDamaged`` (naming the file and the line)."""
        with self._opened(game_id, exclusive=False) as (_, line, notes):
            return line.session(notes)

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
            _check_version(session, expected_version)
            seat = session.to_act
            if seat is None:
                raise NotYourTurn("the game is over: no move can be made")
            if seat not in session.setup.humans:
                raise NotYourTurn(f"it is {session.setup.names[seat]}'s turn (a bot): ask for the bot's move")
            move = _resolve(session, given)
            engine = session.engine
            state = session.state
            if session.asked is not None:
                entry = self._entry(line, "part", seat, _part(session, move))
            else:
                try:
                    engine.apply(state, move)
                except RuleViolation as err:
                    raise _illegal(session, seat, move, err) from None
                except FieldError as err:
                    raise NotAMove(f"not a move of {view_for(session.setup.game).TITLE}: {err}") from None
                entry = self._entry(line, "move", seat, engine.with_others_from(state, engine.canonical_move(move),
                                                                                 seat, None))
            made = self._safely(handle, line, entry, notes)
        self._ended(made)
        return made

    def _safely(self, handle: journal.Open, line: _Line, entry: dict[str, Any], notes: Sequence[str]) -> Session:
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
            _check_version(session, expected_version)
            if session.over or session.human_to_act:
                return None
            seat = session.to_act
            assert seat is not None
            move, faults = self._bot_move(session, seat)
            with self._opened(game_id, exclusive=True) as (handle, line, notes):
                _check_version(line.session(), expected_version)
                made = self._safely(handle, line, self._entry(line, "move", seat, move, faults), notes)
            self._ended(made)
            return made

    def _ended(self, session: Session) -> None:
        """Once a game is over: each user's agent of it is told (``on_game_end``: the final view of its
        seat and the result; the game is recorded already, so what the hook does changes nothing) and
        its process let go."""
        if not session.over:
            return
        with self._lock:
            mine = [key for key in self._hosted if key[0] == session.id]
            agents = [(key[1], self._hosted.pop(key)) for key in mine]
        if not agents:
            return
        engine, setup = session.engine, session.setup
        result = {"scores": [s.total for s in engine.scores(session.state)],
                  "winners": list(engine.winners(session.state))}
        for seat, agent in agents:
            agent.end(agent_view(setup.game, session.state, seat, setup.names), result)
            agent.close()

    @contextmanager
    def _game_lock(self, game_id: str) -> Iterator[None]:
        # One bot of one game thinks at a time in this process (a user's agent has one process).
        with self._lock:
            lock = self._games.setdefault(game_id, threading.Lock())
        with lock:
            yield

    def _bot_move(self, session: Session, seat: int) -> tuple[Any, list[dict[str, str]]]:
        setup = session.setup
        spec = setup.bots[seat]
        assert spec is not None
        engine = session.engine
        index = len(session.moves)
        agent = built_in_agent(spec, setup.game)
        if agent is not None:
            agent.reset(bot_seed(setup.seed, index))
            return agent.choose_working(engine.working(session.state)), []
        faults: list[dict[str, str]] = []
        with self._lock:
            hosted = self._hosted.get((session.id, seat))
            fresh = hosted is None
            if hosted is None:
                hosted = self._hosted[(session.id, seat)] = HostedAgent(spec, setup.game, self.budget)
        if fresh:
            fault = hosted.begin(setup.game, seat, list(setup.names), setup.seed)
            if fault is not None:
                faults.append({"kind": fault[0], "detail": fault[1]})
        legal = list(engine.legal_moves(session.state))
        move = None
        if not hosted.out:
            move, fault, _ = hosted.decide(engine, agent_view(setup.game, session.state, seat, setup.names), legal)
            if fault is not None:
                faults.append({"kind": fault[0], "detail": fault[1]})
        if move is None:
            move = random.Random(f"play-fallback:{setup.seed}:{index}").choice(legal)
        return move, faults

    def takeback(self, game_id: str, expected_version: int) -> Session:
        """Undo the person's last decision and every bot move after it (the person is then to act where
        it decided last); counted in ``takebacks``. Only in a game of one person against bots, before
        its end.

        Raises ``TakebackRefused`` saying why, ``StaleVersion``, ``SessionNotFound``, ``SessionDamaged``
        and ``PlayError``."""
        with self._opened(game_id, exclusive=True) as (handle, line, notes):
            session = line.session(notes)
            _check_version(session, expected_version)
            why = _takeback_refusal(session)
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
        with self._lock:
            gone = [key for key in self._hosted if key[0] == game_id]
            agents = [self._hosted.pop(key) for key in gone]
        for agent in agents:
            agent.close()

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


def _check_version(session: Session, expected: int) -> None:
    if type(expected) is not int or expected != session.version:
        raise StaleVersion(session.version, expected if type(expected) is int else -1)


def _illegal(session: Session, seat: int, move: Any, err: RuleViolation) -> IllegalMoveError:
    return IllegalMoveError(err.reason, rule=err.rule, move_number=len(session.moves) + 1, seat=seat,
                            player=session.setup.names[seat], move_text=move.text())


def _resolve(session: Session, given: Any) -> Any:
    """The typed move ``given`` names (see ``Store.act``). Raises ``NotAMove``."""
    engine = session.engine
    title = view_for(session.setup.game).TITLE
    if isinstance(given, str):
        text = " ".join(given.split())
        if text.startswith("{"):
            try:
                given = json.loads(text)
            except (ValueError, RecursionError) as err:
                raise NotAMove(f"not a move's JSON form: {err}") from None
        else:
            wanted = text.casefold()
            for move in session.choices():
                if " ".join(move.text().split()).casefold() == wanted:
                    return move
            raise NotAMove(f"{text!r} is not a move you can make now (your {len(session.choices())} moves are listed "
                           "by their text forms)")
    if isinstance(given, Mapping):
        try:
            return engine.parse_move(dict(given), "move")
        except FieldError as err:
            raise NotAMove(f"not a move of {title}: {err}") from None
    if not callable(getattr(given, "to_json", None)) or not callable(getattr(given, "text", None)):
        raise NotAMove(f"not a move of {title}: {type(given).__name__}")
    return given


def _part(session: Session, move: Any) -> Any:
    """The move asked of ``session.to_act`` with its part as in ``move`` (one of its choices).
    Raises ``IllegalMoveError`` or ``NotAMove``."""
    engine = session.engine
    seat = session.to_act
    assert seat is not None and session.asked is not None
    key = move_key(engine, move)
    for choice in session.choices():
        if move_key(engine, choice) == key:
            return choice
    try:
        engine.apply(session.state, move)
    except RuleViolation as err:
        raise _illegal(session, seat, move, err) from None
    except FieldError as err:
        raise NotAMove(f"not a move of {view_for(session.setup.game).TITLE}: {err}") from None
    names = session.setup.names
    raise NotAMove(f"{move.text()!r} is not a choice of {names[seat]}'s part of {names[session.asked.mover]}'s move")
