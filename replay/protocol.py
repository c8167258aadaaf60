"""The engine protocol both games implement, so that replay, ingestion and the dashboard hold no rules.

An engine is a module-level object with the handful of hooks OpenSpiel's Python games have
(current player, legal moves in a fixed order, apply), plus what the rest of the product needs to show
and store a state: scores with their breakdown, a JSON view, and typed columns for the database.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeAlias, TypeVar, runtime_checkable

import pyarrow as pa

from replay.errors import FieldError
from replay.logfile import GameLog

#: A plain JSON object (a log's parts, a view, a stored row): its values are whatever JSON holds, which
#: only the game that wrote them knows (the one loosely typed value of the protocol).
JSON: TypeAlias = dict[str, Any]

#: A game's state (immutable) and a game's move: each game's own types (``SanJuanState``,
#: ``SanJuanMove``); generic code keeps them apart without knowing them.
S = TypeVar("S")
M = TypeVar("M", bound="Move")
#: The same, where a protocol only hands a state out (``S_co``) or only takes states or moves in
#: (``S_contra``, ``M_contra``), as type checkers want a protocol's type variables declared.
S_co = TypeVar("S_co", covariant=True)
S_contra = TypeVar("S_contra", contravariant=True)
M_contra = TypeVar("M_contra", bound="Move", contravariant=True)


@dataclass(frozen=True)
class Score:
    """One seat's score: the total, its parts by name, and the tie-break value."""

    total: int
    parts: dict[str, int] = field(default_factory=dict)
    tiebreak: int = 0


class Move(Protocol):
    """A typed decision: a JSON form (the log) and a short text form (the UI)."""

    def to_json(self) -> JSON: ...

    def text(self) -> str: ...


class Working(Protocol[S_co, M]):
    """A game changed in place, move after move: what a replay that keeps no state in between (validation)
    folds the log over. It runs the same rules as ``Engine.apply`` and raises the same errors; a working
    game that raised is not used again. ``snapshot`` is the immutable state the pure ``apply`` would have
    reached (equal values; seats' objects are not shared with earlier states)."""

    #: False when the game has no decision a log may leave out: the fold then never asks for one.
    takes_defaults: bool

    def current_seat(self) -> int | None: ...

    def is_over(self) -> bool: ...

    def apply(self, move: M) -> None:
        """Make ``move``. Raises ``RuleViolation`` or ``FieldError`` as ``Engine.apply``."""
        ...

    def default_move(self) -> M | None:
        """As ``Engine.default_move`` of the current state."""
        ...

    def apply_default(self) -> None:
        """As ``Engine.apply_default``."""
        ...

    def snapshot(self) -> S_co:
        """The current state, immutable."""
        ...

    def stuck(self) -> bool:
        """Whether the game has reached a dead end: no move can ever end it (the rules have no exit;
        random players find such ends). False whenever the game can still end, and where the game
        does not tell."""
        ...


class StateRows(Protocol):
    """What the importer reads of a game replayed in place (``StorageRows.state_rows``), after each
    step: ``view()`` is what ``global_row``, ``step_info`` and ``describe_move`` read the current state
    from (the state itself, or the working table, which answers them the same), and ``changed()`` the
    ``(seat, row)`` of every seat whose ``player_rows`` row may differ from the one ``changed`` gave
    last (every seat at the first call; an unchanged row may be given again). A protocol: the games'
    own versions are compiled classes (``replay/*/rows.py``), which cannot subclass an interpreted one."""

    def view(self) -> object: ...

    def changed(self) -> list[tuple[int, JSON]]: ...


class Bot(Protocol[S_contra, M]):
    """A player program: the move it makes in a state, or in a working game (``Working``)."""

    def choose(self, state: S_contra) -> M: ...

    def choose_working(self, game: Working[S_contra, M]) -> M: ...


@runtime_checkable
class Rules(Protocol[S, M]):
    """The rules of a game: its setup, its moves, what is legal, what a move does, and its end and
    scores. States are immutable; ``apply`` is pure."""

    game: str
    version: str
    min_players: int
    max_players: int

    def new_game(self, log: GameLog) -> S:
        """The state before the first move, from the log's players, options and setup.

        Raises ``FieldError`` (path inside the log) for a malformed or impossible setup."""
        ...

    def parse_move(self, obj: object, path: str) -> M:
        """A typed move from its JSON form. Raises ``FieldError`` for a malformed move."""
        ...

    def legal_moves(self, state: S) -> list[M]:
        """Every legal decision of the seat to act, in a fixed order (empty when the game is over); a
        decision with several written forms is listed once, in the form of ``canonical_move``."""
        ...

    def canonical_move(self, move: M) -> M:
        """The form ``legal_moves`` lists of ``move`` (the same decision; ``move`` itself when it has
        one form only): what tells whether a logged move is among the listed ones."""
        ...

    def deciders(self, state: S, move: M) -> tuple[int, ...]:
        """The seats other than the one to act in ``state`` that decide a part of ``move``, in seat
        order (a move that lets every other seat refrain from a draw, or decline a card its building
        offers); () for most moves, and always for a game whose moves carry only their own seat's
        choices."""
        ...

    def with_others_from(self, state: S, move: M, seat: int, source: M | None) -> M:
        """The move of the seat to act in ``state`` made of what ``seat`` decides in ``move`` (a legal
        move in ``state``) and of what every other seat decides in ``source``: a part ``source`` does
        not hold (``source`` None, another role) is the rules' default (nobody refrains or declines).
        With ``seat`` the seat to act, its own variant of ``move`` with the others following
        ``source``; with ``seat`` a seat of ``deciders``, ``source`` with that seat's part taken from
        ``move``. The identity (``move``, for the seat to act) in a game whose moves carry only their
        own seat's choices. Raises ``ValueError`` when the game is over, or when ``seat`` is not the
        seat to act and ``source`` is None."""
        ...

    def apply(self, state: S, move: M) -> S:
        """The state after ``move``; checks it and raises ``RuleViolation`` when it is illegal."""
        ...

    def working(self, state: S) -> Working[S, M]:
        """A ``Working`` game starting from ``state``, for replays that need no snapshot per move
        (an engine without this hook is replayed through ``apply``; see ``replay.replayer``)."""
        ...

    def current_seat(self, state: S) -> int | None:
        """The seat that must decide now, or None when the game is over."""
        ...

    def default_move(self, state: S) -> M | None:
        """The decision the rules take for the seat to act when a log leaves it out, or None when the
        log must record it. A decision that can be left out is one a log written before the engine
        offered it (a choice to keep less than the most) never records; the replayer takes
        the default when the log's next move is not this seat's (see ``replay.replayer.fill_defaults``)."""
        ...

    def apply_default(self, state: S) -> S:
        """The state once the seat to act took its default: not a move of its own, so what the rules did
        (``automatic_events``) is told with the move that led to ``state``. Raises ``ValueError`` when
        ``default_move(state)`` is None."""
        ...

    def is_over(self, state: S) -> bool:
        """Whether the game has ended."""
        ...

    def scores(self, state: S) -> list[Score]:
        """Each seat's score as if the game ended now (the final score once it is over)."""
        ...

    def winners(self, state: S) -> list[int]:
        """Seats with the best score after the tie-break (several only on a full tie)."""
        ...

    def end_reason(self, state: S) -> str | None:
        """A short code of why the game ended (None while it goes on)."""
        ...

    def unused_setup(self, log: GameLog, state: S) -> FieldError | None:
        """What the setup of a finished game holds that the game never used (an extra reshuffle)."""
        ...

    def round_of(self, state: S) -> int:
        """The round number (1-based) the state is in."""
        ...


@runtime_checkable
class Words(Protocol[S_contra, M_contra]):
    """A game in words: its moves, what the rules did by themselves, what it waits for, and the whole
    state as text or plain JSON (``replay``, the dashboard, ``--json``)."""

    def describe_move(self, state: S_contra, move: M_contra, names: Sequence[str]) -> str:
        """The move in words, from the state it was made in ("Ana builds ..., paying ...")."""
        ...

    def automatic_events(self, before: S_contra, move: M_contra, after: S_contra, names: Sequence[str]) -> list[str]:
        """What the rules did by themselves after ``move`` took ``before`` to ``after`` (cards drawn by
        powers, forced loads, goods returned, seats skipped and why...), as sentences with player
        names, in the order it happened; empty when nothing happened beyond the move itself."""
        ...

    def pending(self, state: S_contra) -> str:
        """What the game waits for, in words ("seat 2 must choose a role")."""
        ...

    def render(self, state: S_contra, names: Sequence[str]) -> str:
        """The state as readable text for the terminal."""
        ...

    def render_view(self, view: JSON, names: Sequence[str]) -> str:
        """A view of a state as readable text for the terminal: ``to_view``'s (then the same text as
        ``render``), or what a viewer sees of it (``GameView.view_state``), showing nothing the view
        left out."""
        ...

    def to_view(self, state: S_contra, names: Sequence[str]) -> JSON:
        """The whole state as plain JSON, for ``replay --json`` and the dashboard."""
        ...

    def step_info(self, state: S_contra) -> JSON:
        """What the moves table stores of the phase a move is made in: ``round``, and a value for each of
        the game's declared ``step_columns`` (``GameDeclaration``)."""
        ...


@runtime_checkable
class StorageRows(Protocol[S_contra, M]):
    """A game as typed columns for the database: the schemas of its two state tables, each state's
    rows, the rows of a game replayed in place, and how "What changed" speaks of the columns."""

    #: Schema of the per-step global state row and of the per-step, per-seat row.
    global_schema: pa.Schema
    player_schema: pa.Schema
    #: How "What changed" speaks of the stored columns: ``{"global": {column: (kind, label)},
    #: "player": {...}}`` (see ``dashboards.diff``; what a viewer may see is the game's ``GameView``).
    change_words: JSON

    def global_row(self, state: S_contra) -> JSON:
        """Typed global columns of a state (matching ``global_schema``, without the keys)."""
        ...

    def player_rows(self, state: S_contra) -> list[JSON]:
        """Typed per-seat columns of a state (matching ``player_schema``, without the keys)."""
        ...

    def state_rows(self, work: Working[S_contra, M]) -> StateRows:
        """The rows of a game replayed in place on ``work``, step by step, for the importer: a
        ``replay.engine_base.StateRows`` (what ``global_row``, ``step_info`` and ``describe_move`` read
        now, and the per-seat rows that changed), so that no snapshot is made per state."""
        ...

    def buildings_of(self, state: S_contra) -> list[list[str]]:
        """Each seat's buildings (names), for "which buildings win" statistics."""
        ...


@runtime_checkable
class Simulation(Protocol[S]):
    """What playing new games needs besides the rules: a random setup, chance outcomes drawn as play
    goes on, and the complete log at the end."""

    def new_random_game(self, players: Sequence[str], seed: int, options: JSON) -> GameLog:
        """A log with a random setup and no moves (simulation)."""
        ...

    def simulation_state(self, log: GameLog, seed: int) -> S:
        """The initial state, drawing chance outcomes the log lacks from ``seed`` (simulation)."""
        ...

    def finish_log(self, log: GameLog, state: S, moves: list[JSON]) -> JSON:
        """The complete log of a simulated game: chance outcomes drawn during play and the result."""
        ...

    def redraw(self, state: S, error: FieldError, seed: int) -> S | None:
        """When ``error`` (raised applying a move to ``state``) says that a chance outcome the log
        recorded does not fit what the game holds now (a variation that left the recorded game: its
        discards differ), ``state`` drawing that outcome and every later one from ``seed`` instead;
        None for any other error, or when the state draws from a seed already."""
        ...


@runtime_checkable
class Engine(Rules[S, M], Words[S, M], StorageRows[S, M], Simulation[S], Protocol[S, M]):
    """What every game engine provides: ``Rules``, ``Words``, ``StorageRows`` and ``Simulation``, and
    the determinisation of a state for a seat (``determinise``, from the game's view module). A function
    asks for the narrowest of these it needs."""

    def determinise(self, state: S, seat: int, rng: random.Random) -> S:
        """``state`` with everything ``seat`` cannot see (other hands, pile orders, face-down tiles,
        future reshuffles) dealt again from the ``random.Random`` ``rng``; the result depends only on
        what the seat sees and on ``rng`` (analysis rollouts must not cheat)."""
        ...


# -- what a seat may see ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Viewer:
    """Who is looking at a game: ``everything`` (the whole state, as a log holds it), ``public`` (what
    every player at the table knows) or one seat (what that seat knows: the public view and its own
    secrets). Written as ``all``, ``public`` and ``seat0``, ``seat1``... in URLs.

    Build one with ``Viewer.everything()``, ``Viewer.public()``, ``Viewer.of_seat(k)`` or
    ``Viewer.parse(text, player_count)``."""

    kind: str
    seat: int | None = None

    EVERYTHING: ClassVar[str] = "all"
    PUBLIC: ClassVar[str] = "public"
    SEAT: ClassVar[str] = "seat"

    @classmethod
    def everything(cls) -> Viewer:
        """The viewer who sees the whole state."""
        return cls(cls.EVERYTHING)

    @classmethod
    def public(cls) -> Viewer:
        """The viewer who sees what every seat sees."""
        return cls(cls.PUBLIC)

    @classmethod
    def of_seat(cls, seat: int) -> Viewer:
        """The viewer sitting at ``seat``. Raises ``ValueError`` for a negative seat."""
        if seat < 0:
            raise ValueError(f"no seat {seat}: seats count from 0")
        return cls(cls.SEAT, seat)

    @classmethod
    def parse(cls, text: str, player_count: int) -> Viewer:
        """The viewer named ``all``, ``public`` or ``seatN`` (any letter case, N a seat of a game of
        ``player_count`` players). Raises ``ValueError`` naming the views there are for anything else."""
        value = text.strip().lower()
        if value == cls.EVERYTHING:
            return cls.everything()
        if value == cls.PUBLIC:
            return cls.public()
        digits = value[len(cls.SEAT):]
        if value.startswith(cls.SEAT) and digits.isascii() and digits.isdigit() and int(digits) < player_count:
            return cls.of_seat(int(digits))
        seats = ", ".join(f"{cls.SEAT}{s}" for s in range(player_count))
        raise ValueError(f"unknown view {text!r} (views: {cls.EVERYTHING}, {cls.PUBLIC}, {seats})")

    @property
    def name(self) -> str:
        """How URLs write the viewer: ``all``, ``public`` or ``seatN``."""
        return f"{self.SEAT}{self.seat}" if self.kind == self.SEAT else self.kind

    @property
    def sees_everything(self) -> bool:
        """Whether this viewer sees the whole state."""
        return self.kind == self.EVERYTHING

    def sees_secrets_of(self, seat: int | None) -> bool:
        """Whether this viewer sees what only ``seat`` knows (its hand...): everything does, and a
        seat sees its own; None (the table) has no secrets of a seat's."""
        return self.kind == self.EVERYTHING or (self.kind == self.SEAT and self.seat == seat)


class GameView(Protocol[S]):
    """The one place a game decides what a viewer may see (a module ``replay/<game>/view.py``, found
    with ``replay.registry.view_for``). The Replay page, its move list, "what changed", the VP chart,
    the What-if panel, the analysis' determinisation and agent observations all go through it; nothing
    else in the product decides what is hidden.

    The state functions take the engine's states; the row functions take the importer's stored rows
    (``Engine.global_row`` / ``player_rows``), so that the dashboard can serve a view from the database
    without replaying."""

    #: The game's name as players write it (the declaration's ``title``).
    TITLE: str

    def view_state(self, state: S, viewer: Viewer, names: Sequence[str] = ()) -> JSON:
        """``Engine.to_view`` of ``state`` as ``viewer`` sees it: what it may not see is replaced by
        counts (other hands, face-down cards) or left out (face-down tiles, hidden VP). Plain JSON."""
        ...

    def view_table_row(self, row: JSON, viewer: Viewer) -> JSON:
        """A stored table row (``global_schema`` columns) as ``viewer`` sees it (a new dict)."""
        ...

    def view_seat_row(self, row: JSON, seat: int, viewer: Viewer, over: bool) -> JSON:
        """Seat ``seat``'s stored row (``player_schema`` columns) as ``viewer`` sees it (a new dict);
        ``over`` says whether the game has ended (what is turned up at the end is seen then)."""
        ...

    def view_move_words(self, details: JSON, words: str, player: str, seat: int | None,
                        viewer: Viewer) -> str:
        """A move in words as ``viewer`` saw it: ``words`` (``Engine.describe_move``) when nothing of
        it is hidden from ``viewer``, else the table's form of it, made from ``details`` (the move's
        JSON form) and ``player`` (its player's name)."""
        ...

    def view_move_events(self, events: Sequence[str], names: Sequence[str], viewer: Viewer) -> list[str]:
        """A move's recorded events in words (as stored, ``Engine.automatic_events``) as ``viewer``
        saw them, ``names`` the game's players: a new list, with what ``viewer`` may not see left out
        of each sentence."""
        ...

    def hides_move(self, details: JSON, seat: int | None, viewer: Viewer) -> bool:
        """Whether ``viewer`` may not see all of the move (its raw text then must not be shown)."""
        ...

    def sees_decisions(self, seat: int, viewer: Viewer) -> bool:
        """Whether ``viewer`` may see the list of ``seat``'s legal decisions (and the analysis of them):
        in a game with hidden hands, which moves are legal tells what the hand holds."""
        ...

    def determinise(self, state: S, seat: int, rng: random.Random) -> S:
        """``state`` with everything ``Viewer.of_seat(seat)`` cannot see dealt again from the
        ``random.Random`` ``rng``: ``view_state`` of the result for that seat equals that of ``state``,
        and the result depends only on that view and on ``rng``."""
        ...

    def board_catalogue(self) -> JSON:
        """The catalogue facts a board prints (cost, VP, colour class of every card or building...),
        as plain JSON for the browser."""
        ...

    def final_scoring(self, rows: Sequence[JSON]) -> JSON | None:
        """The end-of-game scoring table a board shows under it, ``{"columns": [...], "rows": [[...],
        ...]}`` (one row per seat, in the order of ``columns``; the rules' tie-break among them), made
        from each seat's stored row at the last step as the viewer sees it (``view_seat_row``), so that
        it shows nothing the view left out; None for a game that shows none. The board's script
        computes no rule: it shows this as it is."""
        ...
