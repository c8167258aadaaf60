"""Accuracy per move and per seat, 0 to 100, from an analysis' rollouts, the way lichess turns win%
lost into an accuracy for chess, calibrated for these games (docs/analysis.md, "Accuracy").

A move's *win chance lost* is read from the seat's **score share** (its share of the seats' final
scores in each rollout, ``analysis.rollouts.score_share``): the highest share among the candidates
minus the played move's, counted only when that difference is beyond the rollouts' noise (a Welch
test at 95 % on the shares' own spread: ``share_loss``), and turned into win chance by the exchange
rate measured in these games' contested positions (``SHARE_TO_WIN``: one point of score share is
worth that many points of win chance). A win saturates: once a seat is out of the race every move
wins 0 % of its rollouts and nothing seems to cost anything, while a score share still rises and
falls with every move, as chess's material does before lichess's win% saturates. A candidate
without a score share (an analysis stored before it was kept) is judged on its win chance as before:
the best candidate's estimate minus the played move's, when significant (``counted_loss``).

A decision whose candidates all have the same value (share, or win chance for the old analyses)
shows nothing at stake and is left out of the seat's accuracy. A move's accuracy is

    accuracy = 103.1668 * exp(-0.04354 * LOSS_SCALE * loss_pct) - 3.1669, clipped to 0..100

(lichess's curve, with the loss in points of win chance scaled by ``LOSS_SCALE``), and a seat's
accuracy over a game is the mean of the volatility-weighted mean and the harmonic mean of its moves'
accuracies (lichess's blend): the weight of a move is the standard deviation of the seat's win
chances in a window around it, so moves in a quiet position count less than moves where the game
swung, and the harmonic mean makes one blunder cost more than one good move earns.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from analysis.decisions import Z95, Candidate, Decision, significant

# The curve's constants, the loss scale and the bounds of a move's weight and window, with their
# reasons, live with the database's accuracy view, which computes the same numbers in SQL and may not
# import this module.
from ingest.accuracy_sql import (
    CURVE_A,
    CURVE_B,
    CURVE_C,
    LOSS_SCALE,
    SHARE_TO_WIN,
    WEIGHT_BOUNDS,
    WINDOW_BOUNDS,
)

#: The tags counted, worst first (``analysis.decisions.THRESHOLDS``).
TAGS = ("blunder", "mistake", "inaccuracy")


def move_accuracy(loss: float) -> float:
    """The accuracy (0 to 100) of a move that lost ``loss`` win chance (a share, 0 to 1; 0 when it
    was the best or within the noise): 100 for no loss, 63.6 at 5 points, 40.0 at 10, 14.9 at 20,
    0 from about 40 points."""
    if loss <= 0:
        return 100.0
    raw = CURVE_A * math.exp(-CURVE_B * LOSS_SCALE * 100 * loss) + CURVE_C
    return min(100.0, max(0.0, raw))


def counted_loss(best: Candidate, played: Candidate) -> float:
    """The win chance the played move lost against the best candidate (a share, 0 to 1), counted
    only when significant (``analysis.decisions.significant``); else 0."""
    if played is best or not significant(best, played):
        return 0.0
    return max(0.0, best.estimate - played.estimate)


def share_loss(candidates: Sequence[Candidate], played: Candidate) -> float:
    """The score share the played move lost against the candidate of the highest mean share (a
    share, 0 to 1; the played move first among equals), counted only when beyond the noise: the
    difference of the two means is more than ``Z95`` standard errors of it (Welch: each mean's
    own spread, ``Candidate.share_sd``, over its rollouts; with no spread, any difference counts);
    else 0. Candidates without a share are not compared."""
    known = [c for c in candidates if c.share is not None and c.rollouts > 0]
    if played.share is None or played.rollouts == 0 or not known:
        return 0.0
    best = max(known, key=lambda c: (c.share or 0.0, c is played))
    if best is played:
        return 0.0
    difference = (best.share or 0.0) - played.share
    spread = math.sqrt((best.share_sd or 0.0) ** 2 / best.rollouts + (played.share_sd or 0.0) ** 2 / played.rollouts)
    return difference if (difference > Z95 * spread if spread > 0 else difference > 0) else 0.0


def modelled(candidates: Sequence[Candidate]) -> bool:
    """Whether the win chance lost is modelled from the score shares: every candidate has one."""
    return bool(candidates) and all(c.share is not None for c in candidates)


def move_loss(candidates: Sequence[Candidate], best: Candidate, played: Candidate) -> float:
    """The win chance the played move lost (a share, 0 to 1): ``SHARE_TO_WIN`` times its
    ``share_loss`` (at most 1) when every candidate has a score share, else its ``counted_loss``
    against ``best`` (the candidate of the highest win chance)."""
    if modelled(candidates):
        return min(1.0, SHARE_TO_WIN * share_loss(candidates, played))
    return counted_loss(best, played)


def at_stake(candidates: Iterable[Candidate]) -> bool:
    """Whether some move was valued better than another: the candidates' score shares differ (their
    win chances, for candidates without a share). When they are all equal (for win chances: every
    rollout lost, or every one won, whatever the move) the decision tells nothing about the move
    chosen."""
    listed = list(candidates)
    values = [c.share or 0.0 for c in listed] if modelled(listed) else [c.estimate for c in listed]
    return bool(values) and max(values) > min(values)


def decision_loss(decision: Decision) -> float:
    """``move_loss`` of a decision's played move."""
    return move_loss(decision.candidates, decision.best, decision.played)


def decision_accuracy(decision: Decision) -> float:
    """The accuracy (0 to 100) of a decision's played move: ``move_accuracy(decision_loss(...))``."""
    return move_accuracy(decision_loss(decision))


@dataclass(frozen=True)
class ScoredMove:
    """One analysed decision as accuracy needs it: when, whose, the seat's win chance before (the
    best candidate's estimate) and after (the played move's), the counted loss, the tag, and whether
    anything was at stake (``at_stake``; a seat's accuracy counts only those)."""

    step: int
    seat: int
    player: str
    before: float
    after: float
    loss: float
    tag: str | None
    at_stake: bool = True

    @property
    def accuracy(self) -> float:
        return move_accuracy(self.loss)


def scored(decision: Decision) -> ScoredMove:
    """A decision as a ``ScoredMove``."""
    return ScoredMove(decision.step, decision.seat, decision.player, decision.best.estimate,
                      decision.played.estimate, decision_loss(decision), decision.tag, at_stake(decision.candidates))


def _std(values: Sequence[float]) -> float:
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def volatility_weights(win_chances: Sequence[float], moves: int) -> list[float]:
    """The weight of each of ``moves`` moves from a seat's win chances in points (``moves + 1``
    values: before its first move, then after each): lichess's windows, the standard deviation of
    the values in a window of 2 to 8 (a tenth of the moves), the first windows repeating the first
    one, kept within ``WEIGHT_BOUNDS``."""
    if moves <= 0:
        return []
    size = min(WINDOW_BOUNDS[1], max(WINDOW_BOUNDS[0], moves // 10))
    values = list(win_chances)
    first = values[:size]
    windows = [first] * (min(size, len(values)) - 2)
    windows += [values[i:i + size] for i in range(max(1, len(values) - size + 1))]
    low, high = WEIGHT_BOUNDS
    return [min(high, max(low, _std(w))) for w in windows[:moves]]


def game_accuracy(moves: Sequence[ScoredMove]) -> float | None:
    """One seat's accuracy over its ``moves`` (in game order): the mean of the volatility-weighted
    mean and the harmonic mean of the moves' accuracies (a move's accuracy counted at least 1 in the
    harmonic mean, as lichess does). None when there are no moves."""
    if not moves:
        return None
    accuracies = [m.accuracy for m in moves]
    weights = volatility_weights([100 * moves[0].before] + [100 * m.after for m in moves], len(moves))
    weighted = sum(a * w for a, w in zip(accuracies, weights, strict=True)) / sum(weights)
    harmonic = len(accuracies) / sum(1 / max(1.0, a) for a in accuracies)
    return (weighted + harmonic) / 2


@dataclass(frozen=True)
class SeatSummary:
    """One seat's accuracy over an analysed game: the accuracy (0 to 100; None when none of its
    decisions was analysed), its tagged moves, the mean counted win chance lost per move (a share,
    0 to 1) and the moves (decisions) it is over; its ``luck`` and ``skill`` over the game, in games
    (``analysis.winchance.luck``; None when they were not measured)."""

    seat: int
    player: str
    accuracy: float | None
    inaccuracies: int
    mistakes: int
    blunders: int
    avg_loss: float
    moves: int
    luck: float | None = None
    skill: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The summary as ``governor analyse --summary --json`` prints it (rounded; no ``moves``)."""
        return {
            "seat": self.seat, "player": self.player,
            "accuracy": None if self.accuracy is None else round(self.accuracy, 2),
            "inaccuracies": self.inaccuracies, "mistakes": self.mistakes, "blunders": self.blunders,
            "avg_loss": round(self.avg_loss, 6),
            "luck": None if self.luck is None else round(self.luck, 4),
            "skill": None if self.skill is None else round(self.skill, 4),
        }


def summarise(moves: Iterable[ScoredMove], players: Sequence[str]) -> list[SeatSummary]:
    """One ``SeatSummary`` per seat of ``players`` (in seat order) from scored moves in game order;
    only the moves with something at stake count."""
    by_seat: dict[int, list[ScoredMove]] = {seat: [] for seat in range(len(players))}
    for move in moves:
        mine = by_seat.setdefault(move.seat, [])
        if move.at_stake:
            mine.append(move)
    out = []
    for seat, mine in sorted(by_seat.items()):
        count = {tag: sum(1 for m in mine if m.tag == tag) for tag in TAGS}
        name = players[seat] if seat < len(players) else (mine[0].player if mine else "")
        out.append(SeatSummary(
            seat, name, game_accuracy(mine), count["inaccuracy"], count["mistake"], count["blunder"],
            sum(m.loss for m in mine) / len(mine) if mine else 0.0, len(mine),
        ))
    return out


def seat_summaries(decisions: Iterable[Decision], players: Sequence[str]) -> list[SeatSummary]:
    """One ``SeatSummary`` per seat of ``players`` (in seat order) from a game's analysed decisions
    in game order (``analysis.decisions.analyse``); decisions of fewer than two legal moves, and
    those with nothing at stake (``at_stake``), are left out. A seat with no decision counted has
    accuracy None and zero counts."""
    return summarise((scored(d) for d in decisions if d.legal >= 2), players)


def scored_from_rows(rows: Iterable[dict[str, Any]]) -> list[ScoredMove]:
    """The scored moves of one game's stored analysis (rows of the ``analysis`` table as dicts, in
    ``analysis.store.load``'s order: by step, decision, rank): each decision's best candidate is its
    rank-1 row, the played move its ``played`` row. Decisions of fewer than two legal moves, or with
    no played row, are left out."""
    decisions: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for row in rows:
        decisions.setdefault((row["step"], row["seat"]), []).append(row)
    out = []
    for (step, seat), group in decisions.items():
        played_row = next((r for r in group if r["played"]), None)
        if played_row is None or (group[0]["legal_moves"] or 0) < 2:
            continue
        candidates = [_candidate(r) for r in group]
        best_row = min(group, key=lambda r: r["rank"])
        best, played = candidates[group.index(best_row)], candidates[group.index(played_row)]
        loss = 0.0 if best_row is played_row and not modelled(candidates) else move_loss(candidates, best, played)
        out.append(ScoredMove(step, seat, played_row["player"], best.estimate, played.estimate, loss,
                              played_row["tag"], at_stake(candidates)))
    return out


def _candidate(row: dict[str, Any]) -> Candidate:
    share, share_sd = row.get("score_share"), row.get("score_share_sd")
    return Candidate(None, row["candidate"], row["words"], bool(row["played"]), float(row["wins"]),
                     int(row["rollouts"]), None if share is None else float(share),
                     None if share_sd is None else float(share_sd))
