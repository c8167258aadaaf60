"""Luck and skill: every change of the win chance split into what chance did and what decisions did
(docs/analysis.md, "Luck and skill").

The games' chance outcomes (the deck's order, the plantations' stack) are data of the log, drawn as
moves reveal them: a move is a decision with, often, a chance part (the cards it draws). The
part of a move's change that the decision alone makes is measured as GNU Backgammon measures luck,
against what the same move would have done on average: the move is applied to ``SAMPLES`` deals of
everything the deciding seat could not see (``Engine.determinise``), and the mean change of each seat's
chance over those deals is the *decision's* change; the rest of the real change is *chance's* change.
A move made by no seat (the game's own step) is chance only.

Per seat and game:

- **luck** is the sum of its chance's changes;
- **skill** is the sum of its decisions' changes: what its own decisions gained or lost, and what its
  rivals' decisions gave it or took from it (in a game one seat wins, a rival's mistake is a gain).

Each step's chances sum to 1 over the seats, so each change sums to 0, and so do luck and skill; and a
seat's start chance plus its luck plus its skill is its result (1 for a sole winner, 1/k for each of k
tied winners, 0 for the others). Nothing here names a game."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from analysis.winchance.model import WinModel
from analysis.winchance.predict import chances
from replay.errors import RuleViolation
from replay.logfile import GameLog
from replay.registry import AnyEngine, engine_for
from replay.replayer import iter_replay

#: The deals of the hidden cards each move is tried on: enough that the split is stable to about a
#: hundredth of a game, few enough that a whole game takes a second or two.
SAMPLES = 8
#: The seed of the deals: the same game always gives the same split.
SEED = 0


@dataclass(frozen=True)
class Split:
    """A game's win chances split into chance and decisions: ``chances`` (steps + 1, players), each
    row the seats' chances before the first move and after each move; ``deciders`` the seat that made
    each move (None for the game's own); ``luck`` and ``skill`` (steps, players), each move's change
    split into its chance part and its decision part (``luck + skill`` is the change)."""

    chances: np.ndarray
    deciders: tuple[int | None, ...]
    luck: np.ndarray
    skill: np.ndarray

    def seat_luck(self) -> list[float]:
        """Each seat's luck over the game, in games (sums to 0 over the seats)."""
        return [float(v) for v in self.luck.sum(axis=0)]

    def seat_skill(self) -> list[float]:
        """Each seat's skill over the game, in games (sums to 0 over the seats)."""
        return [float(v) for v in self.skill.sum(axis=0)]

    def extremes(self, seat: int) -> tuple[int | None, int | None]:
        """The moves (1-based step numbers) at which chance helped ``seat`` most and hurt it most, or
        None where no move's chance part moved the seat's chance."""
        return extremes(self.luck, seat)


def extremes(luck: np.ndarray, seat: int) -> tuple[int | None, int | None]:
    """The moves (1-based step numbers) at which chance helped ``seat`` most and hurt it most in
    ``luck`` (moves, players: each move's chance part, as ``Split.luck`` or the table ``luck`` holds
    it), or None where no move's chance part moved the seat's chance (the first of equal moves)."""
    column = luck[:, seat]
    if not column.size:
        return None, None
    best, worst = int(np.argmax(column)), int(np.argmin(column))
    return (best + 1 if column[best] > 0 else None), (worst + 1 if column[worst] < 0 else None)


def split(values: np.ndarray, deciders: Sequence[int | None], decided: np.ndarray) -> Split:
    """The split of the chances ``values`` (steps + 1, players) whose moves were made by ``deciders``
    (steps), given ``decided`` (steps, players), the change each move's decision alone makes (ignored
    for a move of no seat, which is all chance). Each decision's change is centred to sum to 0 over the
    seats, so that the sums hold exactly whatever the estimate's rounding. Raises ``ValueError`` when the
    shapes do not match."""
    steps = values.shape[0] - 1
    if len(deciders) != steps or decided.shape != (steps, values.shape[1]):
        raise ValueError(f"{steps} moves, but {len(deciders)} deciders and decisions of shape {decided.shape}")
    change = np.diff(values, axis=0)
    skill = decided - decided.mean(axis=1, keepdims=True)
    chance_only = np.array([seat is None for seat in deciders], dtype=bool)
    skill[chance_only] = 0.0
    return Split(values, tuple(deciders), change - skill, skill)


def _decided(model: WinModel, engine: AnyEngine, before: Any, move: Any, seat: int, where: str) -> np.ndarray | None:
    """The mean change each seat's chance takes when ``move`` is made by ``seat`` on ``SAMPLES`` deals
    of what the seat cannot see of ``before``; None when the move cannot be made on any deal (it names a
    card the deals moved: the whole change is then the decision's)."""
    pairs: list[Any] = []
    for k in range(SAMPLES):
        dealt = engine.determinise(before, seat, random.Random(f"{SEED}:{where}:{k}"))
        try:
            pairs.extend((dealt, engine.apply(dealt, move)))
        except (RuleViolation, ValueError):
            continue
    if not pairs:
        return None
    seen = chances(model, engine, pairs)
    return np.asarray((seen[1::2] - seen[0::2]).mean(axis=0))


def game_split(model: WinModel, log: GameLog) -> Split:
    """The split of the game ``log`` (replayed; a game cut short ends where its moves end) by
    ``model``'s whole view, as a post-game analysis sees a finished game. Raises ``GovernorError`` for
    a log that does not replay."""
    engine = engine_for(log.game)
    states: list[Any] = []
    deciders: list[int | None] = []
    decided: list[np.ndarray | None] = []
    before: Any = None
    for state, step in iter_replay(log, require_complete=False, describe=False):
        if step is not None:
            deciders.append(step.seat)
            decided.append(None if step.seat is None
                           else _decided(model, engine, before, step.move, step.seat, str(step.number)))
        states.append(state)
        before = state
    values = chances(model, engine, states)
    change = np.diff(values, axis=0)
    # A move no deal could take is all decision (its chance part 0); one of no seat is all chance.
    table = np.array([change[t] if part is None else part for t, part in enumerate(decided)])
    return split(values, deciders, table.reshape(len(deciders), model.players))
