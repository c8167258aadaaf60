"""Replay as a fold: the initial state, then one immutable snapshot per move.

Every error carries the file, the game, the move number, the seat and player, and the rule.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from replay.engine_base import SnapshotWorking
from replay.errors import FieldError, IllegalMoveError, LogFormatError, ResultMismatchError, RuleViolation
from replay.logfile import GameLog
from replay.protocol import Engine, M, Rules, S, Working
from replay.registry import AnyEngine, engine_for
from replay.words import seat_name


@dataclass(frozen=True)
class Step:
    """One move of a replay: its number (1-based), the seat that made it, the move, the move in words
    and the state after it."""

    number: int
    seat: int | None
    move: Any
    words: str
    state: Any


@dataclass(frozen=True)
class Replay:
    """A whole replayed game: the log, the initial state and every step."""

    log: GameLog
    engine: AnyEngine
    initial: Any
    steps: list[Step]

    @property
    def final(self) -> Any:
        return self.steps[-1].state if self.steps else self.initial

    def state_at(self, step: int) -> Any:
        """The state after ``step`` moves (0 is the initial state)."""
        return self.initial if step == 0 else self.steps[step - 1].state


def _format_error(log: GameLog, path: str, reason: str) -> LogFormatError:
    return LogFormatError(reason, file=log.file, game_index=log.index, path=path, game_id=log.game_id)


#: Parsed moves by (game, JSON content): the same few hundred moves recur across games, and a move is a
#: frozen value, so it can be shared. Only moves that parsed cleanly are kept (errors name their path).
_PARSED: Final[dict[tuple[Any, ...], Any]] = {}
_PARSED_LIMIT: Final = 1 << 16
_SCALARS: Final = (str, int, bool, type(None))


def _move_key(game: str, raw: Any) -> tuple[Any, ...] | None:
    """A hashable key of a move's JSON, or None if it holds anything but scalars and lists of strings.
    Types are part of the key so that ``true`` and ``1`` never share an entry."""
    if type(raw) is not dict:
        return None
    parts: list[Any] = [game]
    for key, value in raw.items():
        kind = type(value)
        if kind is list:
            for item in value:
                if type(item) is not str:
                    return None
            value = tuple(value)
        elif kind not in _SCALARS:
            return None
        parts.append((key, kind, value))
    return tuple(parts)


def _parse_move(engine: Rules[Any, M], log: GameLog, index: int, raw: Any, key: tuple[Any, ...] | None) -> M:
    """Parse a move not yet in ``_PARSED`` (``key`` is its ``_move_key``) and keep it there if it can be
    shared. Raises ``LogFormatError``."""
    try:
        move = engine.parse_move(raw, f"moves[{index}]")
    except FieldError as err:
        raise _format_error(log, err.path, err.reason) from None
    params = getattr(type(move), "__dataclass_params__", None)
    if key is not None and params is not None and params.frozen:
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.clear()
        _PARSED[key] = move
    return move


def iter_replay(
    log: GameLog, *, require_complete: bool = True, describe: bool = True, steps: bool = True
) -> Iterator[tuple[Any, Step | None]]:
    """Yield ``(state, None)`` for the initial state, then ``(state, step)`` after every move.

    With ``describe`` False, ``Step.words`` is left empty (validation does not need it); with ``steps``
    False no ``Step`` is made and every item is ``(state, None)`` (only the states are wanted).
    Raises ``LogFormatError`` (malformed setup or move, missing chance outcome, a game that is not over
    at the end), ``IllegalMoveError`` (a rule broken, a move after the end) and ``ResultMismatchError``."""
    engine, initial = _start(log)
    yield initial, None
    work = SnapshotWorking(engine, initial)
    names = log.players
    before = initial
    for number, seat, move in _fold(log, engine, work, require_complete):
        state = work.state
        if steps:
            words = engine.describe_move(before, move, names) if describe else ""
            yield state, Step(number, seat, move, words, state)
        else:
            yield state, None
        before = state
    _finish(log, engine, before, require_complete)


def final_state(log: GameLog, *, require_complete: bool = True) -> Any:
    """Replay a whole log, keeping only the last state: every move checked exactly as ``iter_replay``
    checks it, with the same errors, but made in place on the engine's working game
    (``Engine.working``) when it has one, so no snapshot is made per move. Raises as ``iter_replay``."""
    engine, initial = _start(log)
    working = getattr(engine, "working", None)
    work = working(initial) if working is not None else SnapshotWorking(engine, initial)
    # A zero-length deque consumes the fold in C.
    deque(_fold(log, engine, work, require_complete), maxlen=0)
    state = work.snapshot()
    _finish(log, engine, state, require_complete)
    return state


def replay_in_place(
    log: GameLog, *, require_complete: bool = True, before_move: Callable[[Any, int | None, Any], None] | None = None
) -> tuple[Any, Any, Iterator[tuple[int, int | None, Any]]]:
    """``(engine, work, steps)``: the log's engine, its working game (``Engine.working``) at the initial
    state, and the fold that makes every move on it, yielding ``(number, seat, move)`` once the move and
    the defaults taken after it are made (so ``work`` holds the state after that step). Every move is
    checked exactly as ``iter_replay`` checks it, with the same errors, and the checks of the finished
    game run when the fold ends. ``before_move(work, seat, move)`` is called after the turn check,
    just before each move is made (the state it sees is the one the move is made in). For callers that
    read what they need from the working game step by step (the importer) instead of keeping a snapshot
    per state. Raises as ``iter_replay`` (the setup's errors at once, the others while folding)."""
    engine, initial = _start(log)
    working = getattr(engine, "working", None)
    work = working(initial) if working is not None else SnapshotWorking(engine, initial)

    def steps() -> Iterator[tuple[int, int | None, Any]]:
        yield from _fold(log, engine, work, require_complete, before_move)
        _finish(log, engine, work.snapshot(), require_complete)

    return engine, work, steps()


def _start(log: GameLog) -> tuple[AnyEngine, Any]:
    """The engine of the log and the state before the first move. Raises ``LogFormatError``."""
    engine = engine_for(log.game)
    names = log.players
    if not engine.min_players <= len(names) <= engine.max_players:
        raise _format_error(
            log, "players", f"{log.game} is for {engine.min_players} to {engine.max_players} players, not {len(names)}"
        )
    try:
        return engine, engine.new_game(log)
    except FieldError as err:
        raise _format_error(log, err.path, err.reason) from None


def _fold(
    log: GameLog, engine: Engine[Any, M], work: Working[Any, M], require_complete: bool,
    before_move: Callable[[Any, int | None, Any], None] | None = None,
) -> Iterator[tuple[int, int | None, Any]]:
    """Make every move of the log on ``work`` (a ``replay.protocol.Working``), checking whose turn it
    is, and the defaults the log leaves out; yield ``(number, seat, move)`` after each move. Raises as
    ``iter_replay`` (the checks of the finished game are ``_finish``'s). ``before_move``: see
    ``replay_in_place``."""
    names = log.players
    moves = log.moves
    count = len(moves)
    # A working game may say that its rules have no decision a log can leave out.
    defaults = getattr(work, "takes_defaults", True)
    upcoming = _read_move(engine, log, 0) if moves else None
    for index in range(count):
        number = index + 1
        assert upcoming is not None
        move, claimed = upcoming
        if work.is_over():
            raise _illegal(log, number, None, move, "game.over", f"the game is already over after move {index}; no further moves")
        seat = work.current_seat()
        if claimed is not None and claimed != seat:
            raise _illegal(log, number, claimed, move, "turn.seat", f"it is seat {seat}'s turn ({seat_name(names, seat)}), not seat {claimed}'s")
        if before_move is not None:
            before_move(work, seat, move)
        try:
            work.apply(move)
        except RuleViolation as err:
            raise _illegal(log, number, seat, move, err.rule, err.reason) from None
        except FieldError as err:
            raise _format_error(log, err.path, err.reason) from None
        # The next move tells whether the seat now to act left a decision out; a default it takes
        # belongs to this step, as when the engine took that decision alone.
        if number < count:
            upcoming = _read_move(engine, log, number)
            if defaults:
                _take_defaults(log, work, number, upcoming[0], upcoming[1])
        elif require_complete and defaults:
            # A complete log that says nothing more takes every default left (the last storage).
            _take_defaults(log, work, number, None, None)
        yield number, seat, move


def _finish(log: GameLog, engine: Engine[S, Any], state: S, require_complete: bool) -> None:
    """The checks of the state after the last move: over when the log must be complete, no unused
    setup, the recorded result. Raises as ``iter_replay``."""
    over = engine.is_over(state)
    if require_complete and not over:
        raise _format_error(
            log, "moves", f"the log ends after move {len(log.moves)} but the game is not over: {engine.pending(state)}"
        )
    if over:
        unused = engine.unused_setup(log, state)
        if unused is not None:
            raise _format_error(log, unused.path, unused.reason)
        if log.result is not None:
            check_result(log, engine, state)


def _read_move(engine: Rules[Any, M], log: GameLog, index: int) -> tuple[M, int | None]:
    """Move ``index`` of the log and the seat it names (None if it names none).
    Raises ``LogFormatError`` for a malformed move or seat."""
    raw = log.moves[index]
    key = _move_key(log.game, raw)
    move = _PARSED.get(key) if key is not None else None
    if move is None:
        move = _parse_move(engine, log, index, raw, key)
    claimed = raw.get("seat") if isinstance(raw, dict) else None
    if claimed is not None and (
        not isinstance(claimed, int) or isinstance(claimed, bool) or not 0 <= claimed < len(log.players)
    ):
        raise _format_error(
            log, f"moves[{index}].seat", f"expected a seat number from 0 to {len(log.players) - 1}, got {claimed!r}"
        )
    return move, claimed


def fill_defaults(engine: Rules[S, M], state: S, move: M | None, claimed: int | None) -> S:
    """The state once the decisions a log left out before ``move`` are taken by default.

    While the seat to act has a default (``engine.default_move``), ``move`` is that seat's decision
    only if it is of the default's kind and names that seat or no seat (``claimed`` None); otherwise
    the seat said nothing and its default is taken (``engine.apply_default``). ``move`` None means the
    log ends: every default left is taken. Raises what ``engine.apply`` raises."""
    work = SnapshotWorking(engine, state)
    for _ in _defaults_due(work, move, claimed):
        work.apply_default()
    return work.state


def _defaults_due(work: Any, move: Any | None, claimed: int | None) -> Iterator[tuple[int | None, Any]]:
    """``(seat, default move)`` of each default to take now on the working game, before the caller takes
    it (``work.apply_default()``); see ``fill_defaults``."""
    while True:
        default = work.default_move()
        if default is None:
            return
        seat = work.current_seat()
        if move is not None and type(move) is type(default) and claimed in (None, seat):
            return
        yield seat, default


def _take_defaults(log: GameLog, work: Any, number: int, move: Any | None, claimed: int | None) -> None:
    """``fill_defaults`` on a working game, with its errors (never expected: a default is legal) carried
    as replay errors against move ``number``, the move after which the defaults are taken."""
    if work.default_move() is None:
        return
    for seat, default in _defaults_due(work, move, claimed):
        try:
            work.apply_default()
        except RuleViolation as err:
            raise _illegal(log, number, seat, default, err.rule, err.reason) from None
        except FieldError as err:
            raise _format_error(log, err.path, err.reason) from None


def _illegal(log: GameLog, number: int, seat: int | None, move: Any, rule: str, reason: str) -> IllegalMoveError:
    return IllegalMoveError(
        reason,
        rule=rule,
        move_number=number,
        seat=seat,
        player=log.players[seat] if seat is not None and seat < len(log.players) else None,
        move_text=move.text(),
        file=log.file,
        game_index=log.index,
        game_id=log.game_id,
    )


def check_result(log: GameLog, engine: Rules[S, Any], state: S) -> None:
    """Compare the recorded ``result`` with the replay. Raises ``ResultMismatchError``."""
    error = result_error(log, [s.total for s in engine.scores(state)], engine.winners(state))
    if error is not None:
        raise error


def result_error(log: GameLog, scores: list[int], winners: list[int]) -> ResultMismatchError | None:
    """How the recorded ``result`` disagrees with these final scores and winners, or None."""
    result = log.result or {}
    recorded = result.get("scores")
    if recorded is not None:
        if not isinstance(recorded, list) or len(recorded) != len(scores):
            return ResultMismatchError(
                f"expected a list of {len(scores)} scores", file=log.file, game_index=log.index,
                path="result.scores", game_id=log.game_id,
            )
        if list(recorded) != scores:
            return ResultMismatchError(
                f"the log records {recorded} but the replay scores {scores}",
                file=log.file, game_index=log.index, path="result.scores", game_id=log.game_id,
            )
    recorded_winners = result.get("winners")
    # parse_game lets only lists of seat numbers through; sort by str so no input can make it raise.
    if recorded_winners is not None and sorted(recorded_winners, key=str) != sorted(winners, key=str):
        return ResultMismatchError(
            f"the log records winner seat(s) {recorded_winners} but the replay gives {winners}",
            file=log.file, game_index=log.index, path="result.winners", game_id=log.game_id,
        )
    return None


def replay(log: GameLog) -> Replay:
    """Replay a whole log and keep every state. Raises as ``iter_replay``."""
    it = iter_replay(log)
    initial, _ = next(it)
    steps = [step for _, step in it if step is not None]
    return Replay(log, engine_for(log.game), initial, steps)


