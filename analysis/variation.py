"""What-if: a variation branching from any position of a game, played on by hand or by the bots, kept
as a complete log of the format. The mainline is never changed.

The game's own chance outcomes are used while they still fit: cards come off the recorded deck in its
recorded order, and a recorded reshuffle is used when it is an order of what the variation's discard
pile holds; when it is not (the variation discarded other cards), that reshuffle and every later one
are drawn from a seed instead, and ``notes`` says from which move.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from replay.errors import FieldError
from replay.logfile import GameLog, dumps_game, parse_game
from replay.registry import engine_for, game_of, make_bot
from replay.replayer import final_state
from replay.simulate import MAX_MOVES


@dataclass(frozen=True)
class Choice:
    """A legal move of the seat to act, in words, with its group."""

    move: Any
    text: str
    words: str
    group: str


@dataclass
class Variation:
    """A branch of ``log`` after its first ``branch`` moves, then ``moves`` (typed) and the state."""

    log: GameLog
    branch: int
    state: Any
    moves: list[Any] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)
    seed: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def engine(self) -> Any:
        return engine_for(self.log.game)

    @property
    def over(self) -> bool:
        return bool(self.engine.is_over(self.state))

    @property
    def seat(self) -> int | None:
        return self.engine.current_seat(self.state)  # type: ignore[no-any-return]


def start(log: GameLog, branch: int, seed: int = 0) -> Variation:
    """A variation from the position after the first ``branch`` moves of ``log`` (0 = the start).
    Raises ``ValueError`` for a step out of range, and as ``final_state`` for a bad log."""
    if not 0 <= branch <= len(log.moves):
        raise ValueError(f"the game has {len(log.moves)} moves; a variation starts after 0 to {len(log.moves)} of them")
    prefix = replace(log, moves=tuple(log.moves[:branch]))
    # The prefix checked as validation checks it, with no snapshot per move.
    return Variation(log, branch, final_state(prefix, require_complete=False), seed=seed)


def choices(variation: Variation) -> list[Choice]:
    """The seat to act's legal moves in words, grouped as the game declares (``GameDeclaration.group_of``),
    in the engine's order."""
    engine = variation.engine
    names = variation.log.players
    declared = game_of(variation.log.game)
    out = []
    for move in engine.legal_moves(variation.state):
        kind = move.to_json().get("kind", "")
        out.append(Choice(move, move.text(), engine.describe_move(variation.state, move, names),
                          declared.group_of(kind)))
    return out


def _apply(variation: Variation, state: Any, move: Any) -> Any:
    """Apply with the game's recorded reshuffles while they fit, else drawn from the seed (the engine's
    ``redraw``)."""
    engine = variation.engine
    try:
        return engine.apply(state, move)
    except FieldError as err:
        fresh = engine.redraw(state, err, variation.seed)
        if fresh is None:
            raise
        number = variation.branch + len(variation.moves) + 1
        variation.notes.append(
            f"From move {number} on, the game's recorded reshuffles no longer fit this variation's discard "
            f"pile: reshuffles are drawn anew (seed {variation.seed})."
        )
        return engine.apply(fresh, move)


def play(variation: Variation, move: Any) -> Variation:
    """The variation with ``move`` played by the seat to act (checked). Raises ``RuleViolation``."""
    seat = variation.seat
    if seat is None:
        raise ValueError("the game is over")
    state = _apply(variation, variation.state, move)
    return replace(variation, state=state, moves=[*variation.moves, move], seats=[*variation.seats, seat],
                   notes=list(variation.notes))


def finish(variation: Variation, seed: int = 0) -> Variation:
    """The variation played to the end by the heuristic bots (one per seat, seeded from ``seed``)."""
    rng = random.Random(f"whatif:{seed}")
    bots = [make_bot(variation.log.game, "heuristic", rng.randrange(2**31)) for _ in variation.log.players]
    for _ in range(MAX_MOVES):
        if variation.over:
            return variation
        seat = variation.seat
        assert seat is not None
        variation = play(variation, bots[seat].choose(variation.state))
    raise RuntimeError("the bots did not finish the game")


def to_log(variation: Variation) -> dict[str, Any]:
    """The variation as a log of the format: the game's setup, its first ``branch`` moves, then the
    variation's; chance outcomes the variation drew are recorded, and the result when it is over."""
    engine = variation.engine
    log = variation.log
    moves: list[dict[str, Any]] = [dict(m) for m in log.moves[: variation.branch]]
    moves += [{"seat": seat, **move.to_json()} for seat, move in zip(variation.seats, variation.moves)]
    obj = engine.finish_log(log, variation.state, moves)
    if not variation.over:
        obj.pop("result", None)
    obj.pop("source_id", None)
    meta = dict(log.meta or {})
    meta.update({"variation_of": log.game_id, "branch_after_move": variation.branch,
                 "made_at": datetime.now(UTC).isoformat(timespec="seconds")})
    obj["meta"] = meta
    order = ["format", "version", "game", "source_id", "meta", "players", "options", "setup", "moves", "result"]
    return {k: obj[k] for k in order if k in obj}


def to_text(variation: Variation) -> str:
    """``to_log`` as the text of a ``.json`` file."""
    return dumps_game(to_log(variation))


def as_game_log(variation: Variation) -> GameLog:
    """``to_log`` parsed back (to lay out its rows the way an import does)."""
    return parse_game(to_log(variation), file="variation")


def moves_words(variation: Variation, names: Sequence[str] | None = None) -> list[str]:
    """The variation's moves in words."""
    engine = variation.engine
    names = names or variation.log.players
    state = start(variation.log, variation.branch).state
    words = []
    for move in variation.moves:
        words.append(engine.describe_move(state, move, names))
        state = _apply(variation, state, move)
    return words
