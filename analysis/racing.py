"""Adaptive sampling of a decision's candidates: rollouts go where they decide something.

The candidates are rolled out in rounds: after 8, 12, 16, 24, 32, 48, 64, 96... rollouts each (each
look half or a third more than the one before), then the cap (``--rollouts``). Every candidate still
in the race gets the same rollout numbers in a round, so the same determinised worlds and bot seeds
(common random numbers), and a candidate that leaves the race keeps the rollouts ``0..n-1`` it had:
its estimate is exactly what ``run_task`` gives for ``n`` rollouts. After each round:

- **Clearly below the leader.** A candidate whose paired difference to the leader (the highest
  estimate) is more than ``z`` standard errors leaves, with ``z`` such that the chance of dropping the
  true best of a decision this way is at most ``ALPHA`` (5 %): a one-sided normal test of the mean
  paired difference at level ``ALPHA / (tests)``, Bonferroni over the other candidates and the
  looks (``drop_z``; 2.9 for 6 candidates and 6 looks).
- **Cannot make the move played a blunder.** From ``FUTILE_FROM`` rollouts, a candidate whose
  difference to the move played has a one-sided 95 % upper bound below ``BLUNDER`` (20 points)
  leaves: what it would still change is at most a mistake's or an inaccuracy's worth.
- **The move played never leaves.** The race ends when it is alone, when its loss to the leader is
  settled at a mistake or more (from ``SETTLE_FROM`` rollouts, a one-sided 99.5 % lower bound above
  ``MISTAKE``), or at the cap.

**A blunder must be sure.** The move named best makes the move played a blunder (a loss of 20 points
or more) only when the rollouts are sure of it: the one-sided 99 % lower bound of their paired
difference is at least ``BLUNDER`` (``Race.sure``); a loss of a blunder's size they are less sure of
is a mistake. A loss estimated at 20 to 30 points from 100 rollouts can be 12 to 18 points in
another seed's rollouts, where a candidate that cannot be 20 points better than the move played
leaves the race: two seeds then tagged the one move a blunder and nothing.

The differences are paired by rollout number (both candidates played in the same world with the same
bot seeds). Their variance counts one extra observation of the largest variance a difference of two
results in 0..1 can have (1), so that a handful of equal rollouts never looks like certainty.

**A search's race** (``Race(..., futile=0.0, settle=0.0)``, the ``search`` agent choosing a move
instead of judging one): a candidate leaves once it cannot be better than the move played (the
prior bot's) at all, the race ends once the leader is settled better than it, and the leader is
played only when it beats the move played (``Race.beats_played``). The analysis' thresholds above
left only candidates that could be a blunder's worth better, so that a search could mend only the
bot's blunders.

Everything here is arithmetic on the rollouts' results: no engine, no randomness. The same results
give the same race, whatever the order or the process in which the rollouts ran.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

#: The first look of a race (rollouts per candidate); each next one is 1.5 or 4/3 times the last.
FIRST_LOOK = 8
#: The chance, per decision, of dropping the best candidate by the test below the leader.
ALPHA = 0.05
#: A loss of winning chance from which a move is a blunder / a mistake (``decisions.THRESHOLDS``).
BLUNDER = 0.20
MISTAKE = 0.10
#: Normal quantiles: the bound a candidate must stay under to leave as unable to make the move played
#: a blunder (one-sided 95 %), and the bound the played move's loss must clear to end the race
#: (one-sided 99.5 %).
Z_FUTILE = 1.6448536269514722
Z_SETTLE = 2.5758293035489004
#: The one-sided 99 % normal quantile: the bound a blunder's loss must clear (``Race.sure``).
Z_SURE = 2.3263478740408408
#: The first looks at which those two rules apply: at 8 rollouts a move that wins half its games
#: still loses 7 of 8 one time in 30; and the race ending at 48 rather than 32 tells the best apart
#: from the other good moves more often (two seeds named the same best move at 1 more decision in 100).
FUTILE_FROM = 12
SETTLE_FROM = 48


def schedule(cap: int) -> tuple[int, ...]:
    """The looks of a race with at most ``cap`` rollouts per candidate: 8, 12, 16, 24, 32, 48, 64,
    96, 128... below the cap, then the cap. A cap of at most the first look is one round, which is
    fixed sampling."""
    looks = []
    look = FIRST_LOOK
    while look < cap:
        looks.append(look)
        look = look * 3 // 2 if look & (look - 1) == 0 else look * 4 // 3
    return (*looks, cap)


def t_quantile(z: float, df: int) -> float:
    """The quantile of Student's t with ``df`` degrees of freedom at the probability where the normal
    quantile is ``z`` (Cornish-Fisher expansion, within 1 % from 5 degrees of freedom on): the paired
    differences' variance is estimated from few rollouts at the first looks."""
    if df <= 0:
        return math.inf
    z2 = z * z
    return z * (1 + (z2 + 1) / (4 * df) + (5 * z2 * z2 + 16 * z2 + 3) / (96 * df * df)
                + (3 * z2 ** 3 + 19 * z2 * z2 + 17 * z2 - 15) / (384 * df ** 3))


def drop_z(candidates: int, looks: int, alpha: float = ALPHA) -> float:
    """The one-sided normal quantile that keeps the chance of dropping the true best at most
    ``alpha`` over ``candidates - 1`` comparisons at each of ``looks`` looks (Bonferroni)."""
    tests = max(1, candidates - 1) * max(1, looks)
    return NormalDist().inv_cdf(1 - alpha / tests)


@dataclass(frozen=True)
class Paired:
    """The mean paired difference of two candidates' results, its standard error and the pairs."""

    mean: float
    se: float
    pairs: int


def paired(a: Sequence[float | None], b: Sequence[float | None], n: int) -> Paired:
    """``a - b`` over the first ``n`` rollouts where both ended. The variance counts one extra
    observation of variance 1 (the largest a difference of two results in 0..1 has); with no pair,
    the mean is 0 and the standard error 1."""
    diffs = [x - y for x, y in zip(a[:n], b[:n], strict=True) if x is not None and y is not None]
    m = len(diffs)
    if m == 0:
        return Paired(0.0, 1.0, 0)
    mean = sum(diffs) / m
    variance = (sum((d - mean) ** 2 for d in diffs) + 1.0) / (m + 1)
    return Paired(mean, math.sqrt(variance / m), m)


def mean_of(results: Sequence[float | None], n: int) -> float:
    """The mean of the first ``n`` results that ended (0 when none did)."""
    ended = [x for x in results[:n] if x is not None]
    return sum(ended) / len(ended) if ended else 0.0


@dataclass
class Race:
    """The race of one decision's candidates (``candidates`` of them, the move played at index
    ``played``, at most ``cap`` rollouts each). Feed it each round's results (``record``) until
    ``done``. Raises ``ValueError`` for a played index out of range or a cap below 1."""

    candidates: int
    played: int
    cap: int
    #: A candidate leaves once its difference to the move played cannot reach this (``BLUNDER`` in the
    #: analysis; 0 in a search: it cannot be better at all).
    futile: float = BLUNDER
    #: The race ends once the leader's difference to the move played is settled above this.
    settle: float = MISTAKE
    #: Per candidate, the result of each rollout it had, in rollout order (None: it did not end).
    results: list[list[float | None]] = field(default_factory=list)
    #: Per candidate, whether it is still in the race.
    alive: list[bool] = field(default_factory=list)
    looks: tuple[int, ...] = ()
    look: int = 0
    done: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.played < self.candidates:
            raise ValueError(f"played {self.played} is not one of {self.candidates} candidates")
        if self.cap < 1:
            raise ValueError(f"a race needs a cap of at least 1 rollout, not {self.cap}")
        self.results = [[] for _ in range(self.candidates)]
        self.alive = [True] * self.candidates
        self.looks = schedule(self.cap)
        self.z_drop = drop_z(self.candidates, len(self.looks))

    @property
    def rollouts(self) -> int:
        """Rollouts each candidate still in the race has had."""
        return self.looks[self.look - 1] if self.look else 0

    def next_round(self) -> tuple[int, int, list[int]]:
        """The next round: its first rollout number, how many rollouts, and which candidates (those
        in the race). Raises ``ValueError`` when the race is over."""
        if self.done:
            raise ValueError("the race is over")
        first = self.rollouts
        return first, self.looks[self.look] - first, [i for i in range(self.candidates) if self.alive[i]]

    def record(self, results: dict[int, Sequence[float | None]]) -> None:
        """Add the next round's results (candidate index: its results in rollout order) and decide
        who goes on. Raises ``ValueError`` when they are not the round's."""
        first, count, running = self.next_round()
        if sorted(results) != running or any(len(results[i]) != count for i in running):
            raise ValueError(f"a round of {count} rollouts of candidates {running} was expected")
        for i in running:
            self.results[i].extend(results[i])
        self.look += 1
        self._decide()

    def leader(self) -> int:
        """The candidate in the race with the highest estimate (the move played first among equals,
        then the first listed)."""
        n = self.rollouts
        running = [i for i in range(self.candidates) if self.alive[i]]
        return min(running, key=lambda i: (-mean_of(self.results[i], n), i != self.played, i))

    def sure(self, candidate: int) -> bool:
        """Whether the rollouts are sure that ``candidate`` is a blunder's worth better than the move
        played: the one-sided 99 % lower bound (Student's t) of their mean paired difference, over the
        rollouts both had, is at least ``BLUNDER``. Raises ``IndexError`` for a candidate out of range."""
        mine, played = self.results[candidate], self.results[self.played]
        diff = paired(mine, played, min(len(mine), len(played)))
        return diff.mean - _bound(Z_SURE, diff) * diff.se >= BLUNDER

    def beats_played(self, candidate: int) -> bool:
        """Whether ``candidate`` is better than the move played beyond chance: the one-sided 95 % lower
        bound (Student's t) of their mean paired difference is above 0 (a search plays it instead of
        the prior bot's move; at 99 % it did so too seldom to play better than version 1 of the search). The move played never beats itself. Raises ``IndexError`` for a candidate
        out of range."""
        if candidate == self.played:
            return False
        mine, played = self.results[candidate], self.results[self.played]
        diff = paired(mine, played, min(len(mine), len(played)))
        return diff.pairs > 0 and diff.mean - _bound(Z_FUTILE, diff) * diff.se > 0

    def _decide(self) -> None:
        n, played = self.rollouts, self.played
        if n >= FUTILE_FROM:
            for i in range(self.candidates):
                if self.alive[i] and i != played:
                    diff = paired(self.results[i], self.results[played], n)
                    if diff.mean + _bound(Z_FUTILE, diff) * diff.se < self.futile:
                        self.alive[i] = False
        leader = self.leader()
        for i in range(self.candidates):
            if self.alive[i] and i not in (leader, played):
                diff = paired(self.results[leader], self.results[i], n)
                if diff.mean > _bound(self.z_drop, diff) * diff.se:
                    self.alive[i] = False
        if self.look == len(self.looks) or sum(self.alive) == 1:
            self.done = True
        elif leader != played and n >= SETTLE_FROM:
            loss = paired(self.results[leader], self.results[played], n)
            self.done = loss.mean - _bound(Z_SETTLE, loss) * loss.se >= self.settle


def _bound(z: float, diff: Paired) -> float:
    """Student's t quantile for the mean of ``diff``'s pairs at the level of the normal ``z``."""
    return t_quantile(z, diff.pairs - 1)
