"""Rates with their uncertainty and their baseline: Wilson score intervals, lifts, and the columns
every rate table shows.

A rate means little without what chance would give: in a 2-player game a seat wins half the time,
in a 4-player game a quarter. So every rate comes with its *baseline* (the win share of all players
of the same player count in the selection, averaged over the rows the rate counts; ``1 / players``
when a full tie counts ``1/k`` of a win for each of the ``k`` tied players) and its *lift* (rate
divided by baseline: 1.0 is "no better than chance").
"""

from __future__ import annotations

import math
from typing import Literal

import pandas as pd

#: Below this many counted rows a rate is marked as resting on few games (and the default minimum n).
FEW_GAMES = 30
#: The largest minimum n the Statistics page takes (from its box or its URL): more than any selection holds.
MAX_MIN_N = 10_000_000
#: The normal quantile of a two-sided 95 % interval.
Z95 = 1.959963984540054


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a rate ``wins / n`` (95 % by default), as ``(low, high)``.

    ``wins`` may be fractional (a full tie counted as ``1/k`` of a win). ``n == 0`` gives
    ``(0.0, 1.0)``: nothing is known. Raises ``ValueError`` when ``wins`` is not within ``0..n``."""
    if n < 0 or wins < 0 or wins > n + 1e-9:
        raise ValueError(f"wilson: need 0 <= wins <= n, got wins={wins}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = min(1.0, wins / n)
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def with_intervals(frame: pd.DataFrame, wins: str = "wins", n: str = "n", expected: str = "expected") -> pd.DataFrame:
    """``frame`` with ``win_rate``, ``ci_low``, ``ci_high`` and ``few_games`` columns added from its
    ``wins`` and ``n`` columns, and, when it has an ``expected`` column (the sum of each counted row's
    chance of winning), ``baseline`` (``expected / n``), ``lift`` and the interval of the lift
    ``lift_low``, ``lift_high`` (the rate's interval divided by the baseline). A copy."""
    out = frame.copy()
    counts = [int(m) for m in out[n].tolist()]
    hits = [float(k) for k in out[wins].tolist()]
    bounds = [wilson(k, m) for k, m in zip(hits, counts)]
    out["win_rate"] = [k / m if m else float("nan") for k, m in zip(hits, counts)]
    out["ci_low"] = [b[0] for b in bounds]
    out["ci_high"] = [b[1] for b in bounds]
    out["few_games"] = [m < FEW_GAMES for m in counts]
    if expected in out.columns:
        base = [float(e) / m if m else float("nan") for e, m in zip(out[expected].tolist(), counts)]
        out["baseline"] = base
        out["lift"] = [r / b if b else float("nan") for r, b in zip(out["win_rate"], base)]
        out["lift_low"] = [lo / b if b else float("nan") for lo, b in zip(out["ci_low"], base)]
        out["lift_high"] = [hi / b if b else float("nan") for hi, b in zip(out["ci_high"], base)]
    return out


def ranked(frame: pd.DataFrame, min_n: int, by: str = "lift_low") -> tuple[pd.DataFrame, int]:
    """The rows with ``n >= min_n``, best first by ``by`` (``lift_low``, the lower end of the lift's
    95 % interval, by default; ``lift`` for the point estimate), and how many rows were left out."""
    kept = frame[frame["n"] >= min_n]
    return kept.sort_values([by, "n"], ascending=[False, False]), len(frame) - len(kept)


def arrow(difference: float) -> Literal["up", "down", "off"]:
    """The arrow ``st.metric`` draws by a delta that compares a figure with chance (its ``delta_arrow``):
    ``up`` above, ``down`` below, ``off`` at chance. ``difference`` is the figure shown less chance's
    (rounded as shown: "+0.0 pts" and a lift of 1.00 get no arrow, a lift of 0.00 points down);
    Streamlit's own choice reads the text's sign, an up arrow for "+0.0" or "lift 0.00"."""
    return "up" if difference > 0 else "down" if difference < 0 else "off"


def points_vs_chance(rate: float, baseline: float) -> tuple[str, Literal["up", "down", "off"]]:
    """A win rate against chance as a metric's delta and its arrow (``arrow``): ``("+2.5 pts vs
    chance", "up")``; a difference that rounds to zero reads "+0.0" (never "-0.0") with no arrow."""
    points = round(100 * (rate - baseline), 1) + 0.0  # + 0.0: no negative zero
    return f"{points:+.1f} pts vs chance", arrow(points)


def rate_label(wins: float, n: int, baseline: float | None = None) -> str:
    """A rate as text with its interval and sample size, e.g. ``"52.0% (48.1-55.9%, n=600)"``, and
    with a baseline its lift: ``"52.0% (48.1-55.9%, n=600) vs 33.3% expected: lift 1.56"``; marked
    ``few games`` when ``n < FEW_GAMES``."""
    if n == 0:
        return "no games"
    low, high = wilson(wins, n)
    text = f"{wins / n:.1%} ({low:.1%}-{high:.1%}, n={n})"
    if baseline:
        text += f" vs {baseline:.1%} expected: lift {wins / n / baseline:.2f}"
    return text + " - few games" if n < FEW_GAMES else text


def plural(count: int, one: str, many: str | None = None) -> str:
    """``"1 game"``, ``"2 games"``, ``"1,000 games"``: a count with the word in the right number."""
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


def ordinal(number: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``21st``."""
    suffix = "th" if number % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def role_words(card: str) -> str:
    """A role card as words: ``some_role`` is "Some role", and a second card of a role (``draw_2``) is
    "Draw (2nd)"; the stored names are never shown as they are."""
    base, _, number = str(card).rpartition("_")
    if base and number.isdecimal():
        nth = int(number)
        return f"{role_words(base)} ({ordinal(nth)})"
    text = str(card).replace("_", " ")
    return text[:1].upper() + text[1:]
