"""The engine protocol both games implement, so that replay, ingestion and the dashboard hold no rules.

An engine is a module-level object with the handful of hooks OpenSpiel's Python games have
(current player, legal moves in a fixed order, apply), plus what the rest of the product needs to show
and store a state: scores with their breakdown, a JSON view, and typed columns for the database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import pyarrow as pa

from replay.errors import FieldError
from replay.logfile import GameLog


@dataclass(frozen=True)
class Score:
    """One seat's score: the total, its parts by name, and the tie-break value."""

    total: int
    parts: dict[str, int] = field(default_factory=dict)
    tiebreak: int = 0


class Move(Protocol):
    """A typed decision: a JSON form (the log) and a short text form (the UI)."""

    def to_json(self) -> dict[str, Any]: ...

    def text(self) -> str: ...


class Working(Protocol):
    """A game changed in place, move after move: what a replay that keeps no state in between (validation)
    folds the log over. It runs the same rules as ``Engine.apply`` and raises the same errors; a working
    game that raised is not used again. ``snapshot`` is the immutable state the pure ``apply`` would have
    reached (equal values; seats' objects are not shared with earlier states)."""

    #: False when the game has no decision a log may leave out: the fold then never asks for one.
    takes_defaults: bool

    def current_seat(self) -> int | None: ...

    def is_over(self) -> bool: ...

    def apply(self, move: Any) -> None:
        """Make ``move``. Raises ``RuleViolation`` or ``FieldError`` as ``Engine.apply``."""
        ...

    def default_move(self) -> Any | None:
        """As ``Engine.default_move`` of the current state."""
        ...

    def apply_default(self) -> None:
        """As ``Engine.apply_default``."""
        ...

    def snapshot(self) -> Any:
        """The current state, immutable."""
        ...


class Engine(Protocol):
    """What every game engine provides. States are immutable; ``apply`` is pure."""

    game: str
    version: str
    min_players: int
    max_players: int
    #: Schema of the per-step global state row and of the per-step, per-seat row.
    global_schema: pa.Schema
    player_schema: pa.Schema
    #: How "What changed" speaks of the stored columns: ``{"global": {column: (kind, label)},
    #: "player": {...}, "secret": {columns left out of a public view}}`` (see ``dashboards.diff``).
    change_words: dict[str, Any]

    def new_game(self, log: GameLog) -> Any:
        """The state before the first move, from the log's players, options and setup.

        Raises ``FieldError`` (path inside the log) for a malformed or impossible setup."""
        ...

    def parse_move(self, obj: Any, path: str) -> Move:
        """A typed move from its JSON form. Raises ``FieldError`` for a malformed move."""
        ...

    def legal_moves(self, state: Any) -> list[Any]:
        """Every legal decision of the seat to act, in a fixed order (empty when the game is over); a
        decision with several written forms is listed once, in the form of ``canonical_move``."""
        ...

    def canonical_move(self, move: Any) -> Any:
        """The form ``legal_moves`` lists of ``move`` (the same decision; ``move`` itself when it has
        one form only): what tells whether a logged move is among the listed ones."""
        ...

    def apply(self, state: Any, move: Any) -> Any:
        """The state after ``move``; checks it and raises ``RuleViolation`` when it is illegal."""
        ...

    def working(self, state: Any) -> Working:
        """A ``Working`` game starting from ``state``, for replays that need no snapshot per move
        (an engine without this hook is replayed through ``apply``; see ``replay.replayer``)."""
        ...

    def current_seat(self, state: Any) -> int | None:
        """The seat that must decide now, or None when the game is over."""
        ...

    def default_move(self, state: Any) -> Any | None:
        """The decision the rules take for the seat to act when a log leaves it out, or None when the
        log must record it. A decision that can be left out is one a log written before the engine
        offered it (Puerto Rico storage keeping less than the most) never records; the replayer takes
        the default when the log's next move is not this seat's (see ``replay.replayer.fill_defaults``)."""
        ...

    def apply_default(self, state: Any) -> Any:
        """The state once the seat to act took its default: not a move of its own, so what the rules did
        (``automatic_events``) is told with the move that led to ``state``. Raises ``ValueError`` when
        ``default_move(state)`` is None."""
        ...

    def determinise(self, state: Any, seat: int, rng: Any) -> Any:
        """``state`` with everything ``seat`` cannot see (other hands, pile orders, face-down tiles,
        future reshuffles) dealt again from the ``random.Random`` ``rng``; the result depends only on
        what the seat sees and on ``rng`` (analysis rollouts must not cheat)."""
        ...

    def is_over(self, state: Any) -> bool:
        """Whether the game has ended."""
        ...

    def scores(self, state: Any) -> list[Score]:
        """Each seat's score as if the game ended now (the final score once it is over)."""
        ...

    def winners(self, state: Any) -> list[int]:
        """Seats with the best score after the tie-break (several only on a full tie)."""
        ...

    def end_reason(self, state: Any) -> str | None:
        """A short code of why the game ended (None while it goes on)."""
        ...

    def buildings_of(self, state: Any) -> list[list[str]]:
        """Each seat's buildings (names), for "which buildings win" statistics."""
        ...

    def pending(self, state: Any) -> str:
        """What the game waits for, in words ("seat 2 must choose a role")."""
        ...

    def unused_setup(self, log: GameLog, state: Any) -> FieldError | None:
        """What the setup of a finished game holds that the game never used (an extra reshuffle)."""
        ...

    def round_of(self, state: Any) -> int:
        """The round number (1-based) the state is in."""
        ...

    def describe_move(self, state: Any, move: Any, names: Sequence[str]) -> str:
        """The move in words, from the state it was made in ("Ana builds Smithy, paying ...")."""
        ...

    def automatic_events(self, before: Any, move: Any, after: Any, names: Sequence[str]) -> list[str]:
        """What the rules did by themselves after ``move`` took ``before`` to ``after`` (cards drawn by
        powers, forced loads, goods returned, seats skipped and why...), as sentences with player
        names, in the order it happened; empty when nothing happened beyond the move itself."""
        ...

    def step_info(self, state: Any) -> dict[str, Any]:
        """Phase information for the moves table: round, governor seat, current role."""
        ...

    def to_view(self, state: Any, names: Sequence[str]) -> dict[str, Any]:
        """The whole state as plain JSON, for ``replay --json`` and the dashboard."""
        ...

    def render(self, state: Any, names: Sequence[str]) -> str:
        """The state as readable text for the terminal."""
        ...

    def global_row(self, state: Any) -> dict[str, Any]:
        """Typed global columns of a state (matching ``global_schema``, without the keys)."""
        ...

    def player_rows(self, state: Any) -> list[dict[str, Any]]:
        """Typed per-seat columns of a state (matching ``player_schema``, without the keys)."""
        ...

    def state_rows(self, work: Working) -> Any:
        """The rows of a game replayed in place on ``work``, step by step, for the importer: a
        ``replay.engine_base.StateRows`` (what ``global_row``, ``step_info`` and ``describe_move`` read
        now, and the per-seat rows that changed), so that no snapshot is made per state."""
        ...

    def new_random_game(self, players: Sequence[str], seed: int, options: dict[str, Any]) -> GameLog:
        """A log with a random setup and no moves (simulation)."""
        ...

    def simulation_state(self, log: GameLog, seed: int) -> Any:
        """The initial state, drawing chance outcomes the log lacks from ``seed`` (simulation)."""
        ...

    def finish_log(self, log: GameLog, state: Any, moves: list[dict[str, Any]]) -> dict[str, Any]:
        """The complete log of a simulated game: chance outcomes drawn during play and the result."""
        ...
