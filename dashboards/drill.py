""""Learn from your mistakes": the drill's state, apart from any page. For one seat, its mistakes and
blunders in game order (``Puzzle``); at each, the player is asked for a better move; a move whose
estimated winning chance is within the inaccuracy threshold of the best candidate's is accepted
(``accepts``), any other is said to be worse and the player may try again; "Show solution" and
"Skip" give up on it. Every state is a frozen ``Drill``: each action returns the next one.

A move is judged only by an estimate: the analysis's own for a candidate it rolled out, else one
made for it (``dashboards.review_data.estimate_move``) before ``answer`` is called.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from analysis.decisions import THRESHOLDS, Decision

#: A move is accepted when it loses less than this much winning chance against the best candidate:
#: the loss from which a move is tagged an inaccuracy.
ACCEPT_BELOW = dict((name, value) for name, value in THRESHOLDS)["inaccuracy"]
#: What became of each puzzle left: found a good move, asked for the solution, skipped.
SOLVED, SHOWN, SKIPPED = "solved", "shown", "skipped"


@dataclass(frozen=True)
class Option:
    """A move of a puzzle: its key (``review_data.move_key``), text form, words and estimated chance."""

    key: str
    text: str
    words: str
    estimate: float


@dataclass(frozen=True)
class Puzzle:
    """A mistake or blunder to find a better move for: the decision's step (the position is the one
    before that move), the deciding seat, the tag, the move played, the best candidate, and every
    candidate the analysis rolled out (best first)."""

    step: int
    seat: int
    tag: str
    played: Option
    best: Option
    candidates: tuple[Option, ...]

    def analysed(self, key: str) -> Option | None:
        """The candidate with ``key``, None when the analysis did not roll that move out."""
        return next((c for c in self.candidates if c.key == key), None)


@dataclass(frozen=True)
class Attempt:
    """A move the player proposed, its estimate, whether it was one of the analysed candidates (else
    it was estimated for the drill), and whether it was accepted."""

    option: Option
    analysed: bool
    accepted: bool


@dataclass(frozen=True)
class Drill:
    """The drill of one seat: its puzzles, the one asked (``index``; past the last when done), what
    became of each earlier one, the attempts at the one asked and whether its solution is shown."""

    seat: int
    puzzles: tuple[Puzzle, ...]
    index: int = 0
    outcomes: tuple[str, ...] = ()
    attempts: tuple[Attempt, ...] = ()
    revealed: bool = False

    @property
    def current(self) -> Puzzle | None:
        return self.puzzles[self.index] if self.index < len(self.puzzles) else None

    @property
    def finished(self) -> bool:
        return self.index >= len(self.puzzles)

    @property
    def solved(self) -> bool:
        """Whether the puzzle asked was answered by an accepted move."""
        return any(a.accepted for a in self.attempts)

    def progress(self) -> str:
        """``3 of 7``: the puzzle asked among all (the last one's number once done)."""
        return f"{min(self.index + 1, len(self.puzzles))} of {len(self.puzzles)}"


def puzzle_of(decision: Decision, keys: Sequence[str]) -> Puzzle:
    """The puzzle of a tagged decision; ``keys`` are its candidates' keys, in its candidates' order.
    Raises ``ValueError`` when the decision has no tag or the keys do not match its candidates."""
    if decision.tag is None:
        raise ValueError(f"the decision at move {decision.step} is not a mistake")
    if len(keys) != len(decision.candidates):
        raise ValueError(f"{len(keys)} keys for {len(decision.candidates)} candidates")
    options = tuple(Option(k, c.text, c.words, c.estimate) for k, c in zip(keys, decision.candidates))
    played = next(o for o, c in zip(options, decision.candidates) if c.played)
    return Puzzle(decision.step, decision.seat, decision.tag, played, options[0], options)


def start(seat: int, puzzles: Sequence[Puzzle]) -> Drill:
    """The drill of ``seat`` over ``puzzles`` (its mistakes and blunders in game order)."""
    return Drill(seat, tuple(puzzles))


def loss(puzzle: Puzzle, estimate: float) -> float:
    """The winning chance a move of estimate ``estimate`` loses against the puzzle's best candidate (0
    for a move estimated above it)."""
    return max(0.0, puzzle.best.estimate - estimate)


def accepts(puzzle: Puzzle, estimate: float) -> bool:
    """Whether a move estimated at ``estimate`` is good enough: it loses less than an inaccuracy's
    threshold against the best candidate (rounded to 9 places, so that 0.55 - 0.50 is 0.05)."""
    return round(loss(puzzle, estimate), 9) < ACCEPT_BELOW


def answer(drill: Drill, option: Option) -> Drill:
    """The drill after the player proposed ``option`` (with its estimate) at the puzzle asked: an
    accepted move shows the solution; another may be followed by another try. Raises ``ValueError``
    when the drill is over or the puzzle's solution is already shown."""
    puzzle = drill.current
    if puzzle is None:
        raise ValueError("the drill is over")
    if drill.revealed:
        raise ValueError("the solution of this position is shown: go on to the next one")
    accepted = option.key != puzzle.played.key and accepts(puzzle, option.estimate)
    attempt = Attempt(option, puzzle.analysed(option.key) is not None, accepted)
    return replace(drill, attempts=(*drill.attempts, attempt), revealed=accepted)


def show_solution(drill: Drill) -> Drill:
    """The drill with the puzzle's best move shown (counted as shown unless already solved). Raises
    ``ValueError`` when the drill is over."""
    if drill.current is None:
        raise ValueError("the drill is over")
    return replace(drill, revealed=True)


def _leave(drill: Drill, outcome: str) -> Drill:
    return replace(drill, index=drill.index + 1, outcomes=(*drill.outcomes, outcome), attempts=(), revealed=False)


def next_puzzle(drill: Drill) -> Drill:
    """Go on from a puzzle whose solution is shown: it counts as solved when an accepted move was
    found, else as shown. Raises ``ValueError`` when the drill is over or the solution is not shown."""
    if drill.current is None:
        raise ValueError("the drill is over")
    if not drill.revealed:
        raise ValueError("find a move or show the solution first")
    return _leave(drill, SOLVED if drill.solved else SHOWN)


def skip(drill: Drill) -> Drill:
    """Leave the puzzle asked without its solution (counted as skipped; as solved or shown when its
    solution is already on the page). Raises ``ValueError`` when the drill is over."""
    if drill.current is None:
        raise ValueError("the drill is over")
    if drill.revealed:
        return next_puzzle(drill)
    return _leave(drill, SKIPPED)


def summary(drill: Drill) -> str:
    """What the player did: ``Found a good move in 3 of 7 positions (2 solutions shown, 2 skipped).``"""
    found = drill.outcomes.count(SOLVED)
    shown = drill.outcomes.count(SHOWN)
    skipped = drill.outcomes.count(SKIPPED)
    rest = []
    if shown:
        rest.append(f"{shown} solution{'s' if shown != 1 else ''} shown")
    if skipped:
        rest.append(f"{skipped} skipped")
    tail = f" ({', '.join(rest)})" if rest else ""
    return f"Found a good move in {found} of {len(drill.puzzles)} positions{tail}."
