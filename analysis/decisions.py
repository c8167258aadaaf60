"""Each decision of a game with every candidate's estimated winning chance, the loss of the move
played and its tag (inaccuracy, mistake, blunder), computed by rollouts (``analysis.rollouts``).

The candidates of a decision are the acting seat's legal moves; when there are more than ``top``,
the move played, the heuristic bot's move and the best of a cheap pre-ranking (a few rollouts each,
over at most ``PRERANK_CAP`` moves) make up the ``top``.
"""

from __future__ import annotations

import math
import multiprocessing
import random
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from analysis.rollouts import RolloutResult, RolloutTask, run_task
from replay.logfile import GameLog
from replay.registry import engine_for
from replay.replayer import iter_replay
from replay.simulate import make_bot

#: Loss of winning chance (best candidate minus the move played) from which a move is tagged; a tag
#: also needs the loss to be significant (see ``significant``).
THRESHOLDS = (("blunder", 0.20), ("mistake", 0.10), ("inaccuracy", 0.05))
#: Rollouts of each move in the pre-ranking, and the most moves pre-ranked.
PRERANK_ROLLOUTS = 4
PRERANK_CAP = 48
#: The normal quantile of a two-sided 95 % interval.
Z95 = 1.959963984540054


def interval(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a share ``wins / n`` (``wins`` may be fractional: tied wins count
    1/k); ``(0, 1)`` when ``n`` is 0."""
    if n <= 0:
        return 0.0, 1.0
    p = min(1.0, max(0.0, wins / n))
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def significant(best: Candidate, played: Candidate, z: float = Z95) -> bool:
    """Whether the best candidate's estimate is above the played move's beyond chance (a two-sample
    test of proportions at 95 %)."""
    if best.rollouts == 0 or played.rollouts == 0:
        return False
    p1, p2 = best.estimate, played.estimate
    spread = math.sqrt(p1 * (1 - p1) / best.rollouts + p2 * (1 - p2) / played.rollouts)
    return p1 - p2 > z * spread if spread > 0 else p1 > p2


def tag_for(loss: float, is_significant: bool) -> str | None:
    """The tag of a move that lost ``loss`` winning chance: ``blunder``, ``mistake``, ``inaccuracy``."""
    if not is_significant:
        return None
    for name, threshold in THRESHOLDS:
        if loss >= threshold:
            return name
    return None


@dataclass(frozen=True)
class Candidate:
    """One candidate move of a decision and its estimate (share of rollouts the acting seat won)."""

    move: Any
    text: str
    words: str
    played: bool
    wins: float
    rollouts: int

    @property
    def estimate(self) -> float:
        return self.wins / self.rollouts if self.rollouts else 0.0

    @property
    def low(self) -> float:
        return interval(self.wins, self.rollouts)[0]

    @property
    def high(self) -> float:
        return interval(self.wins, self.rollouts)[1]

    def to_json(self) -> dict[str, Any]:
        return {
            "move": self.move.to_json(), "text": self.text, "words": self.words, "played": self.played,
            "rollouts": self.rollouts, "wins": round(self.wins, 6), "estimate": round(self.estimate, 6),
            "low": round(self.low, 6), "high": round(self.high, 6),
        }


@dataclass(frozen=True)
class Decision:
    """A decision of the game (a state where the acting seat had more than one legal move): the
    candidates best first, the move played, the loss and its tag."""

    step: int
    seat: int
    player: str
    legal: int
    candidates: tuple[Candidate, ...]

    @property
    def best(self) -> Candidate:
        return self.candidates[0]

    @property
    def played(self) -> Candidate:
        return next(c for c in self.candidates if c.played)

    @property
    def loss(self) -> float:
        return max(0.0, self.best.estimate - self.played.estimate)

    @property
    def tag(self) -> str | None:
        return tag_for(self.loss, significant(self.best, self.played))

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step, "seat": self.seat, "player": self.player, "legal_moves": self.legal,
            "played": self.played.to_json(), "best": self.best.to_json(), "loss": round(self.loss, 6),
            "tag": self.tag, "candidates": [c.to_json() for c in self.candidates],
        }


@dataclass
class Options:
    """How to analyse: rollouts per candidate, seed, at most ``top`` candidates per decision, worker
    processes (1 runs inline), and which steps (1-based move numbers; None for all)."""

    rollouts: int = 100
    seed: int = 0
    top: int = 6
    workers: int = 1
    steps: tuple[int, int] | None = None
    chunk: int = 25
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class _Point:
    step: int
    seat: int
    state: Any
    played: Any


def decision_points(log: GameLog, steps: tuple[int, int] | None = None) -> Iterator[tuple[_Point, int]]:
    """Every decision of a replayed game: the state before the move, the seat, the move played, and
    the number of legal moves. Raises as ``iter_replay`` when the log is bad."""
    engine = engine_for(log.game)
    before = None
    for state, step in iter_replay(log, describe=False):
        if step is not None and step.seat is not None:
            if before is not None and (steps is None or steps[0] <= step.number <= steps[1]):
                legal = engine.legal_moves(before)
                if len(legal) > 1:
                    yield _Point(step.number, step.seat, before, step.move), len(legal)
        before = state


def _same(engine: Any, a: Any, b: Any) -> bool:
    """Whether two moves make the same decision (one may be a log's other written form of it)."""
    if a == b:
        return True
    a, b = engine.canonical_move(a), engine.canonical_move(b)
    return bool(a == b) or a.to_json() == b.to_json()


def choose_candidates(engine: Any, point: _Point, options: Options,
                      run: Callable[[RolloutTask], RolloutResult]) -> list[Any]:
    """The moves to estimate at a decision: all legal moves when they are at most ``top``, else the
    move played, the heuristic bot's move and the best of the pre-ranking. The move played stands as
    the log wrote it, in place of the listed form of the same decision (never beside it)."""
    legal = list(engine.legal_moves(point.state))
    at = next((i for i, m in enumerate(legal) if _same(engine, m, point.played)), None)
    if at is None:
        legal.append(point.played)
    else:
        legal[at] = point.played
    if len(legal) <= options.top:
        return legal
    must = [point.played]
    bot_move = make_bot(engine.game, "heuristic", options.seed).choose(point.state)
    if not _same(engine, bot_move, point.played):
        must.append(bot_move)
    rest = [m for m in legal if not any(_same(engine, m, x) for x in must)]
    if len(rest) > PRERANK_CAP:
        rest = random.Random(f"prerank:{options.seed}:{point.step}").sample(rest, PRERANK_CAP)
    task = RolloutTask(engine.game, point.step, point.seat, point.state, tuple(rest), options.seed ^ 0x5EED,
                       0, PRERANK_ROLLOUTS)
    result = run(task)
    ranked = sorted(range(len(rest)), key=lambda i: (-result.wins[i], i))
    return must + [rest[i] for i in ranked[: max(0, options.top - len(must))]]


def _tasks(engine: Any, point: _Point, candidates: Sequence[Any], options: Options) -> list[RolloutTask]:
    tasks = []
    for first in range(0, options.rollouts, options.chunk):
        count = min(options.chunk, options.rollouts - first)
        tasks.append(RolloutTask(engine.game, point.step, point.seat, point.state, tuple(candidates),
                                 options.seed, first, count))
    return tasks


def _decision(engine: Any, names: Sequence[str], point: _Point, legal: int, candidates: Sequence[Any],
              results: Sequence[RolloutResult]) -> Decision:
    made = []
    for index, move in enumerate(candidates):
        wins = sum(r.wins[index] for r in results)
        n = sum(r.played[index] for r in results)
        made.append(Candidate(move, move.text(), engine.describe_move(point.state, move, names),
                              _same(engine, move, point.played), wins, n))
    made.sort(key=lambda c: (-c.estimate, not c.played, c.text))
    return Decision(point.step, point.seat, names[point.seat], legal, tuple(made))


def analyse_state(game: str, state: Any, names: Sequence[str], played: Any, options: Options | None = None,
                  step: int = 0) -> Decision:
    """Analyse one position (inline, no worker processes): the candidates of the seat to act, one of
    which is ``played``; ``step`` numbers the decision (and seeds its rollouts)."""
    options = options or Options()
    engine = engine_for(game)
    seat = engine.current_seat(state)
    point = _Point(step, seat, state, played)
    legal = len(engine.legal_moves(state))
    candidates = choose_candidates(engine, point, options, run_task)
    results = [run_task(t) for t in _tasks(engine, point, candidates, options)]
    return _decision(engine, names, point, legal, candidates, results)


def analyse(log: GameLog, options: Options | None = None,
            cancelled: Callable[[], bool] | None = None) -> Iterator[Decision]:
    """Yield each decision of ``log`` analysed, in game order, as soon as it is done. With more than
    one worker, rollouts run in worker processes, several decisions in flight at once. ``cancelled``
    is polled between results: when it returns True the analysis stops. Raises as ``iter_replay``."""
    options = options or Options()
    engine = engine_for(log.game)
    points = list(decision_points(log, options.steps))
    if options.workers <= 1:
        for point, legal in points:
            if cancelled is not None and cancelled():
                return
            candidates = choose_candidates(engine, point, options, run_task)
            results = [run_task(t) for t in _tasks(engine, point, candidates, options)]
            yield _decision(engine, log.players, point, legal, candidates, results)
        return
    # forkserver: the dashboard runs analyses from a thread of its server, which must not be forked.
    with ProcessPoolExecutor(max_workers=options.workers, mp_context=multiprocessing.get_context("forkserver")) as pool:
        yield from _analyse_pool(pool, engine, log, points, options, cancelled)


def _analyse_pool(pool: Executor, engine: Any, log: GameLog, points: list[tuple[_Point, int]],
                  options: Options, cancelled: Callable[[], bool] | None) -> Iterator[Decision]:
    def run_remote(task: RolloutTask) -> RolloutResult:
        return pool.submit(run_task, task).result()

    # Candidate choice needs its pre-ranking first, so decisions are prepared a few ahead while the
    # rollouts of earlier ones run.
    ahead = max(2, options.workers * 2)
    pending: list[tuple[_Point, int, list[Any], list[Future[RolloutResult]]]] = []
    index = 0
    try:
        while index < len(points) or pending:
            while index < len(points) and len(pending) < ahead:
                point, legal = points[index]
                index += 1
                candidates = choose_candidates(engine, point, options, run_remote)
                futures = [pool.submit(run_task, t) for t in _tasks(engine, point, candidates, options)]
                pending.append((point, legal, candidates, futures))
            point, legal, candidates, futures = pending.pop(0)
            results = []
            for future in futures:
                if cancelled is not None and cancelled():
                    return
                results.append(future.result())
            yield _decision(engine, log.players, point, legal, candidates, results)
    finally:
        for _, _, _, futures in pending:
            for future in futures:
                future.cancel()
