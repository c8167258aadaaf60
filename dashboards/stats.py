"""Rates with their uncertainty: Wilson score intervals, and the columns every rate table shows."""

from __future__ import annotations

import math

import pandas as pd

#: Below this many games a rate is marked as resting on few games.
FEW_GAMES = 30
#: The normal quantile of a two-sided 95 % interval.
Z95 = 1.959963984540054


def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a rate ``wins / n`` (95 % by default), as ``(low, high)``.

    ``n == 0`` gives ``(0.0, 1.0)``: nothing is known. Raises ``ValueError`` when ``wins`` is not
    within ``0..n``."""
    if n < 0 or wins < 0 or wins > n:
        raise ValueError(f"wilson: need 0 <= wins <= n, got wins={wins}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def with_intervals(frame: pd.DataFrame, wins: str = "wins", n: str = "n") -> pd.DataFrame:
    """``frame`` with ``win_rate``, ``ci_low``, ``ci_high`` and ``few_games`` columns added from its
    ``wins`` and ``n`` columns (a copy; the input is left alone)."""
    out = frame.copy()
    counts = out[n].astype(int).tolist()
    hits = out[wins].astype(int).tolist()
    bounds = [wilson(k, m) for k, m in zip(hits, counts)]
    out["win_rate"] = [k / m if m else float("nan") for k, m in zip(hits, counts)]
    out["ci_low"] = [b[0] for b in bounds]
    out["ci_high"] = [b[1] for b in bounds]
    out["few_games"] = [m < FEW_GAMES for m in counts]
    return out


def rate_label(wins: int, n: int) -> str:
    """A rate as text with its interval and sample size, e.g. ``"52.0% (48.1-55.9%, n=600)"``;
    marked ``few games`` when ``n < FEW_GAMES``."""
    if n == 0:
        return "no games"
    low, high = wilson(wins, n)
    text = f"{wins / n:.1%} ({low:.1%}-{high:.1%}, n={n})"
    return text + " - few games" if n < FEW_GAMES else text
