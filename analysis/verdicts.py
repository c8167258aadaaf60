"""What an analysis finds at a decision: each candidate move's estimate (``Candidate``), the decision
with its best move, the loss of the move played and its tag (``Decision``), and the rules that tag it:
the thresholds, the significance of a difference, the Wilson interval of an estimate. The analysis
that finds them is ``analysis.decisions``; the accuracy, the review and the stored rows read them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

#: Loss of winning chance (best candidate minus the move played) from which a move is tagged; a tag
#: also needs the loss to be significant (see ``significant``).
THRESHOLDS = (("blunder", 0.20), ("mistake", 0.10), ("inaccuracy", 0.05))

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


def tag_for(loss: float, is_significant: bool, sure: bool | None = None) -> str | None:
    """The tag of a move that lost ``loss`` winning chance: ``blunder``, ``mistake``, ``inaccuracy``.
    ``sure`` False (adaptive sampling: the rollouts are not sure of a blunder's loss,
    ``analysis.racing.Race.sure``) makes a blunder's loss a mistake; None: the loss alone decides."""
    if not is_significant:
        return None
    for name, threshold in THRESHOLDS:
        if loss >= threshold:
            return "mistake" if name == "blunder" and sure is False else name
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
    #: The mean and standard deviation over the same rollouts of the seat's share of the final scores
    #: (``analysis.rollouts.score_share``): what the accuracy reads where the win chance says nothing
    #: (``analysis.accuracy``). None when unknown (an analysis stored before it was kept).
    share: float | None = None
    share_sd: float | None = None

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
    """A decision of the game (a state where a seat had more than one choice): the candidates best
    first, the move played, the loss and its tag. Usually the decision of the seat to act; a part of
    that seat's move that another seat decides (refraining from a draw the move offers, or declining
    a card its building offers) is that other seat's decision at the same step, whose candidates
    are the move played with only that part varied: then ``mover`` and ``mover_player`` name the seat
    making the move. ``legal`` counts the seat's distinct choices."""

    step: int
    seat: int
    player: str
    legal: int
    candidates: tuple[Candidate, ...]
    mover: int | None = None
    mover_player: str | None = None
    #: The kind of bot that played the rollouts (``expert``, ``heuristic``).
    rollout_bot: str = ""
    #: Adaptive sampling: whether the rollouts are sure the best candidate is a blunder's worth better
    #: than the move played (``analysis.racing.Race.sure``); a loss of a blunder's size they are not
    #: sure of is tagged a mistake. None (fixed sampling; nothing better than the move played): the
    #: loss alone decides.
    sure: bool | None = None
    #: The version that bot declares (``replay.registry.bot_version``; "" when unknown: a stored
    #: analysis made before versions were kept).
    rollout_version: str = ""

    @property
    def mover_seat(self) -> int:
        """The seat making the move: ``seat`` unless the decision is a part of another seat's move."""
        return self.seat if self.mover is None else self.mover

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
        return tag_for(self.loss, significant(self.best, self.played), self.sure)

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step, "seat": self.seat, "player": self.player,
            "mover": self.mover_seat, "mover_player": self.player if self.mover_player is None else self.mover_player,
            "legal_moves": self.legal,
            "played": self.played.to_json(), "best": self.best.to_json(), "loss": round(self.loss, 6),
            "tag": self.tag, "candidates": [c.to_json() for c in self.candidates],
            "rollout_bot": self.rollout_bot,
        }
