"""A seat's choices at a decision: its legal moves with what other seats decide in them following the
move played, each once however the log wrote it, and which of them lead to the same state (one
choice played out, or no decision at all when they all do)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from replay.errors import FieldError, RuleViolation


def move_key(engine: Any, move: Any) -> str:
    """What tells two moves apart: the JSON of the form ``legal_moves`` lists (one decision written
    two ways has one key)."""
    return json.dumps(engine.canonical_move(move).to_json(), sort_keys=True)


def same_move(engine: Any, a: Any, b: Any) -> bool:
    """Whether two moves make the same decision (one may be a log's other written form of it)."""
    if a == b:
        return True
    a, b = engine.canonical_move(a), engine.canonical_move(b)
    return bool(a == b) or a.to_json() == b.to_json()


def unlisted(engine: Any, legal: Sequence[Any], played: Any) -> int:
    """1 when the move played is not among the listed ones (``own_choices`` then adds it), else 0."""
    key = move_key(engine, played)
    return 0 if any(move_key(engine, m) == key for m in legal) else 1


def own_choices(engine: Any, state: Any, seat: int, played: Any, legal: Sequence[Any] | None = None) -> list[Any]:
    """The choices of ``seat`` at the move ``played`` from ``state``: each legal move with what the
    other seats decide in it following ``played`` (``Engine.with_others_from``: where it applies, else
    the rules' default), each once, in the order of the legal moves. For the seat to act, its own
    moves; for a seat that decides a part of the move, ``played`` with only that part varied. The move
    played stands as the log wrote it, in place of the listed form of the same choice (never beside
    it; added when the list lacks it). ``legal`` is ``engine.legal_moves(state)`` when already made.
    Raises ``ValueError`` when the game is over in ``state``."""
    moves = engine.legal_moves(state) if legal is None else legal
    played_key = move_key(engine, played)
    choices: list[Any] = []
    seen: set[str] = set()
    for move in moves:
        variant = engine.with_others_from(state, move, seat, played)
        key = move_key(engine, variant)
        if key not in seen:
            seen.add(key)
            choices.append(played if key == played_key else variant)
    if played_key not in seen:
        choices.append(played)
    return choices


def reached(engine: Any, state: Any, move: Any) -> Any:
    """The state ``move`` leads to from ``state``; None when the rules refuse it."""
    try:
        return engine.apply(state, move)
    except (RuleViolation, FieldError):
        return None


def one_sensible_move(engine: Any, state: Any, moves: Sequence[Any]) -> bool:
    """Whether all ``moves`` lead from ``state`` to one same state: then there is nothing to decide.
    Stops at the first move that leads elsewhere (usually the second)."""
    first = reached(engine, state, moves[0]) if moves else None
    return first is not None and all(reached(engine, state, move) == first for move in moves[1:])


def same_state_groups(engine: Any, state: Any, moves: Sequence[Any]) -> list[int]:
    """For each move, the index of the first move of ``moves`` that leads from ``state`` to the same
    state (its own index when none before does). Such moves are one choice played out: in every
    world they give the same rollouts, so only the first is rolled out."""
    after: list[Any] = []
    groups = []
    for index, move in enumerate(moves):
        state_after = reached(engine, state, move)
        after.append(state_after)
        groups.append(next((j for j in range(index) if state_after is not None and after[j] == state_after), index))
    return groups
