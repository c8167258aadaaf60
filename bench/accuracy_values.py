"""The values of a rollout the accuracy benchmark compares (``bench/bench_accuracy.py``), each from a
rollout's final scores and winners, a decision rebuilt from its JSON with one of them as its "share",
and the statistics of its tables: a mean with its interval, a value's exchange rate to win chance."""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Callable
from typing import Any

from analysis.decisions import THRESHOLDS, Z95, Candidate, Decision
from analysis.rollouts import score_share, share_stats, win_share

#: A final (each seat's [total, tie-break], the winners) and a seat -> the rollout's value for it.
Valuation = Callable[[list[Any], int], float]


# The valuations of a rollout compared (each from the rollout's final scores and winners).
def win_value(final: list[Any], seat: int) -> float:
    return win_share(final[1], seat)


def beaten_value(final: list[Any], seat: int) -> float:
    """The share of the opponents the seat finished ahead of (a winner ahead of every other seat,
    then by score and tie-break; level counts half)."""
    scores, winners = final
    total = 0.0
    for other in range(len(scores)):
        if other != seat:
            if (seat in winners) != (other in winners):
                total += 1.0 if seat in winners else 0.0
            else:
                mine, theirs = tuple(scores[seat]), tuple(scores[other])
                total += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    return total / (len(scores) - 1)


def share_value(final: list[Any], seat: int) -> float:
    return score_share([s[0] for s in final[0]], seat)


def places_value(second: float) -> Valuation:
    """Points by place: 1 for first, ``second`` for second, 0 for last, read off the share of
    opponents beaten (``beaten_value``: 1, 0.5 and 0 at three seats), in straight lines between."""
    def value(final: list[Any], seat: int) -> float:
        ahead = beaten_value(final, seat)
        return 2 * second * ahead if ahead <= 0.5 else second + (ahead - 0.5) * 2 * (1 - second)
    return value


def blend_value(beaten_rate: float, share_rate: float) -> Valuation:
    """The mean of the share of opponents beaten and the score share, each in points of win chance
    by its own exchange rate (so that its own rate is about 1)."""
    def value(final: list[Any], seat: int) -> float:
        return (beaten_rate * beaten_value(final, seat) + share_rate * share_value(final, seat)) / 2
    return value


VALUATIONS: dict[str, Valuation] = {"win": win_value, "opponents beaten": beaten_value, "score share": share_value}
#: Points by place (first 1, last 0) with the second place's points: 0 is the win, 0.5 the opponents
#: beaten (both above); the others weigh keeping off the last place more or less.
PLACES = (0.25, 0.75, 1.0)
#: The valuation of the rule (``analysis.accuracy``).
RULE = "score share"


def values_of(candidate: dict[str, Any], seat: int, value: Valuation) -> list[float | None]:
    return [None if f is None else value(f, seat) for f in candidate.get("finals") or []]


def decision_of(obj: dict[str, Any], value: Valuation | None = share_value) -> Decision:
    """A decision from its JSON (``Decision.to_json`` and each candidate's ``finals``): what accuracy
    reads of it, each candidate's move kept as its JSON, and as its "share" the mean and spread of
    ``value`` over its rollouts (the score share, as the analysis keeps it; None: none, the
    accuracy of the win chances alone)."""
    candidates = []
    for c in obj["candidates"]:
        share, share_sd = share_stats(values_of(c, obj["seat"], value)) if value is not None else (None, None)
        candidates.append(Candidate(c["move"], c["text"], c["words"], c["played"], c["wins"], c["rollouts"],
                                    share, share_sd))
    mover = obj["mover"] if obj["mover"] != obj["seat"] else None
    # A stored adaptive analysis tagged a loss of a blunder's size it was not sure of a mistake: kept.
    sure = obj.get("tag") == "blunder" if obj["loss"] >= THRESHOLDS[0][1] and obj.get("tag") else None
    return Decision(obj["step"], obj["seat"], obj["player"], obj["legal_moves"], tuple(candidates), mover,
                    obj["mover_player"] if mover is not None else None, obj["rollout_bot"], sure)


def mean_interval(values: list[float]) -> tuple[float, float, float]:
    """The mean and its normal 95 % interval."""
    mean = statistics.fmean(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("nan")
    return mean, mean - half, mean + half


def exchange_rate(analysed: list[dict[str, Any]], value: Valuation, low: float = 0.1, high: float = 0.9) -> tuple[float, int]:
    """Points of win chance one point of ``value`` is worth: over every pair of a played move and
    another candidate of a decision in a contested position (the candidates' mean win chance within
    ``low`` to ``high``, each candidate at least 8 rollouts), the least-squares slope (through 0) of the
    difference of their win chances on the difference of their mean values; and the pairs."""
    products = squares = 0.0
    pairs = 0
    for record in analysed:
        for obj in record["decisions"]:
            if obj["legal_moves"] < 2:
                continue
            stats = []
            for c in obj["candidates"]:
                ended = [x for x in values_of(c, obj["seat"], value) if x is not None]
                if len(ended) < 8:
                    break
                stats.append((c["played"], c["wins"] / c["rollouts"], statistics.fmean(ended)))
            else:
                if not stats or not low < statistics.fmean(s[1] for s in stats) < high:
                    continue
                played = next(s for s in stats if s[0])
                for other in stats:
                    if other is not played:
                        products += (other[1] - played[1]) * (other[2] - played[2])
                        squares += (other[2] - played[2]) ** 2
                        pairs += 1
    return (products / squares if squares else float("nan")), pairs


def move_key(engine: Any, move: Any) -> str:
    """What tells two moves apart (as in ``analysis.decisions``): the JSON of the canonical form."""
    return json.dumps(engine.canonical_move(move).to_json(), sort_keys=True)


def move_kind(obj: dict[str, Any]) -> str:
    """The kind of a decision (its JSON): the kind of the move played (its JSON's ``kind``), or "a part
    of another seat's move" (``Decision.mover``)."""
    if obj["mover"] != obj["seat"]:
        return "part of another seat's move"
    return str(obj["played"]["move"].get("kind", "move"))
