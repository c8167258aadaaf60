"""How closely the analysis' winning chances are calibrated: of the moves estimated at 30 %, did about
30 % win? Pure functions over pairs of (forecast, outcome): reliability bins, expected calibration
error, Brier score beside the base rate's, and a plotly reliability diagram.

An outcome counts as the analysis counts a rollout (``analysis.rollouts.win_share``): 1 for a sole
win, 1/k for a k-way full tie, 0 otherwise. The figures the docs and the dashboard show were
measured by ``bench/bench_calibration.py``; each game's package ships the bins measured for it
(``calibration.json``, package data read by ``stored_results``: what is measured of a game is the
game's own, like its rules).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from analysis.decisions import interval
from replay.registry import game_of

if TYPE_CHECKING:
    import plotly.graph_objects as go

#: Equal-width bins of the forecast, 0-10 %, 10-20 %... (the last one holds 100 %).
BINS = 10
#: The file of a game's measured calibration, in the game's own package (package data).
STORED_NAME = "calibration.json"
#: One colour per series, distinct in light and dark themes (plotly's D3 set, as the dashboard's charts).
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")


@dataclass(frozen=True)
class Bin:
    """The forecasts that fell in ``[low, high)`` (the last bin includes 1): how many, their mean, the
    observed rate of their outcomes and its Wilson 95 % interval."""

    low: float
    high: float
    count: int
    forecast: float
    observed: float
    observed_low: float
    observed_high: float

    def to_json(self) -> dict[str, Any]:
        return {"low": round(self.low, 6), "high": round(self.high, 6), "count": self.count,
                "forecast": round(self.forecast, 6), "observed": round(self.observed, 6),
                "observed_low": round(self.observed_low, 6), "observed_high": round(self.observed_high, 6)}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Bin:
        """A bin from ``to_json``'s object. Raises ``KeyError`` or ``TypeError`` for another object."""
        return cls(float(obj["low"]), float(obj["high"]), int(obj["count"]), float(obj["forecast"]),
                   float(obj["observed"]), float(obj["observed_low"]), float(obj["observed_high"]))


@dataclass(frozen=True)
class Calibration:
    """The calibration of a set of forecasts: positions, expected calibration error, Brier score, the
    base rate (the mean outcome) and the Brier score of always forecasting it, and the non-empty bins."""

    positions: int
    ece: float
    brier: float
    base_rate: float
    base_brier: float
    bins: tuple[Bin, ...]

    def to_json(self) -> dict[str, Any]:
        return {"positions": self.positions, "ece": round(self.ece, 6), "brier": round(self.brier, 6),
                "base_rate": round(self.base_rate, 6), "base_brier": round(self.base_brier, 6),
                "bins": [b.to_json() for b in self.bins]}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Calibration:
        """A calibration from ``to_json``'s object. Raises ``KeyError`` or ``TypeError`` for another object."""
        return cls(int(obj["positions"]), float(obj["ece"]), float(obj["brier"]), float(obj["base_rate"]),
                   float(obj["base_brier"]), tuple(Bin.from_json(b) for b in obj["bins"]))


def _checked(forecasts: Sequence[float], outcomes: Sequence[float]) -> None:
    """Raises ``ValueError`` when the two differ in length, are empty, or hold a value outside 0..1."""
    if len(forecasts) != len(outcomes):
        raise ValueError(f"{len(forecasts)} forecasts but {len(outcomes)} outcomes")
    if not forecasts:
        raise ValueError("no forecasts to measure")
    for name, values in (("forecast", forecasts), ("outcome", outcomes)):
        bad = next((v for v in values if not 0.0 <= v <= 1.0), None)
        if bad is not None:
            raise ValueError(f"a {name} of {bad!r} is not a chance between 0 and 1")


def bin_index(forecast: float, bins: int = BINS) -> int:
    """The equal-width bin of ``forecast`` (0-based): ``[k/bins, (k+1)/bins)``, 1 in the last one."""
    return min(bins - 1, int(forecast * bins))


def reliability_bins(forecasts: Sequence[float], outcomes: Sequence[float], bins: int = BINS) -> tuple[Bin, ...]:
    """The non-empty equal-width bins of the forecasts, lowest first: per bin the count, the mean
    forecast, the observed rate (mean outcome) and its Wilson 95 % interval. Raises ``ValueError``
    when the inputs differ in length, are empty, or hold a value outside 0..1."""
    _checked(forecasts, outcomes)
    sums: dict[int, list[float]] = {}
    for forecast, outcome in zip(forecasts, outcomes, strict=True):
        total = sums.setdefault(bin_index(forecast, bins), [0, 0.0, 0.0])
        total[0] += 1
        total[1] += forecast
        total[2] += outcome
    out = []
    for index in sorted(sums):
        count, forecast_sum, outcome_sum = sums[index]
        n = int(count)
        low, high = interval(outcome_sum, n)
        out.append(Bin(index / bins, (index + 1) / bins, n, forecast_sum / n, outcome_sum / n, low, high))
    return tuple(out)


def expected_calibration_error(bins: Sequence[Bin]) -> float:
    """The count-weighted mean of ``|mean forecast - observed rate|`` over the bins; 0 for no bins."""
    total = sum(b.count for b in bins)
    if total == 0:
        return 0.0
    return sum(b.count * abs(b.forecast - b.observed) for b in bins) / total


def chance_ece(bins: Sequence[Bin]) -> float:
    """The expected calibration error that chance alone gives forecasts that are exactly right, with
    the bins' counts: in a bin of n positions forecast at p the observed rate strays from p by about
    ``sqrt(2/pi) * sqrt(p(1-p)/n)`` on average (the mean absolute value of a normal error; a tie's
    fractional outcome strays a little less). An ECE near this says nothing is measurably off; 0 for no
    bins."""
    total = sum(b.count for b in bins)
    if total == 0:
        return 0.0
    spread = math.sqrt(2 / math.pi)
    return sum(b.count * spread * math.sqrt(b.forecast * (1 - b.forecast) / b.count) for b in bins) / total


def brier_score(forecasts: Sequence[float], outcomes: Sequence[float]) -> float:
    """The mean squared difference between forecast and outcome (0 is perfect). Raises
    ``ValueError`` as ``reliability_bins``."""
    _checked(forecasts, outcomes)
    return math.fsum((f - o) ** 2 for f, o in zip(forecasts, outcomes, strict=True)) / len(forecasts)


def base_rate_brier(outcomes: Sequence[float]) -> float:
    """The Brier score of forecasting the mean outcome every time: what a forecast must beat to know
    anything about the position. Raises ``ValueError`` as ``reliability_bins``."""
    _checked(outcomes, outcomes)
    base = math.fsum(outcomes) / len(outcomes)
    return brier_score([base] * len(outcomes), outcomes)


def calibrate(forecasts: Sequence[float], outcomes: Sequence[float], bins: int = BINS) -> Calibration:
    """Everything above at once. Raises ``ValueError`` as ``reliability_bins``."""
    made = reliability_bins(forecasts, outcomes, bins)
    return Calibration(len(forecasts), expected_calibration_error(made), brier_score(forecasts, outcomes),
                       math.fsum(outcomes) / len(outcomes), base_rate_brier(outcomes), made)


def reliability_figure(series: Mapping[str, Calibration], title: str = "") -> go.Figure:
    """The reliability diagram: the diagonal of perfect calibration, and per series (named by its
    key) each bin's observed rate against its mean forecast, the marker's area growing with the
    bin's count, with the observed rate's 95 % interval as an error bar."""
    import plotly.graph_objects as go  # plotly is slow to import: only the figure needs it

    figure = go.Figure()
    figure.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="perfect calibration",
                                line={"dash": "dot", "color": "#8b929c"}, hoverinfo="skip"))
    biggest = max((b.count for c in series.values() for b in c.bins), default=1)
    for index, (name, calibration) in enumerate(series.items()):
        bins = calibration.bins
        figure.add_trace(go.Scatter(
            x=[b.forecast for b in bins], y=[b.observed for b in bins], mode="lines+markers",
            name=f"{name} (ECE {calibration.ece:.3f})",
            line={"color": COLOURS[index % len(COLOURS)], "width": 1},
            marker={"size": [6 + 18 * math.sqrt(b.count / biggest) for b in bins],
                    "color": COLOURS[index % len(COLOURS)]},
            error_y={"type": "data", "symmetric": False, "array": [b.observed_high - b.observed for b in bins],
                     "arrayminus": [b.observed - b.observed_low for b in bins], "thickness": 1},
            customdata=[[b.count, b.low * 100, b.high * 100] for b in bins],
            hovertemplate=("forecast %{customdata[1]:.0f}-%{customdata[2]:.0f}%: mean %{x:.1%}, won %{y:.1%}"
                           "<br>%{customdata[0]} positions<extra>" + name.replace("<", "&lt;") + "</extra>"),
        ))
    figure.update_layout(
        title=title or None, height=420, margin={"l": 50, "r": 20, "t": 40 if title else 20, "b": 50},
        xaxis={"title": "estimated winning chance of the move played", "range": [-0.02, 1.02], "tickformat": ".0%",
               # square, and narrower than a wide page rather than stretched past 0..100 %
               "constrain": "domain"},
        yaxis={"title": "share of those positions won", "range": [-0.02, 1.02], "tickformat": ".0%",
               "scaleanchor": "x", "scaleratio": 1},
        legend={"orientation": "h", "yanchor": "top", "y": -0.18, "x": 0},
    )
    return figure


def game_package(game: str) -> str:
    """The package of ``game`` (that of the module its declaration names as its view: the games'
    packages hold their view). Raises ``KeyError`` naming the known games for another name."""
    return game_of(game).view.partition(":")[0].rpartition(".")[0]


def stored_path(game: str) -> Path:
    """Where ``game``'s measured calibration is kept in a checkout (``bench/bench_calibration.py``
    writes it there). Raises as ``game_package``."""
    return Path(str(resources.files(game_package(game)))) / STORED_NAME


def parse_results(text: str, where: str) -> dict[str, Any]:
    """A game's measured calibration from its JSON text: ``{"rollouts", "rollout_bot", "populations":
    {population: Calibration JSON}}``, the rollout bot's own games first. Raises ``ValueError``
    naming ``where`` when the text is not such JSON."""
    try:
        obj = json.loads(text)
        if not isinstance(obj, dict) or not isinstance(obj.get("populations"), dict):
            raise ValueError("no populations")
        for found in obj["populations"].values():
            Calibration.from_json(found)
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise ValueError(f"{where}: not the calibration benchmark's results ({type(err).__name__}: {err})") from err
    return obj


def stored_results(game: str) -> dict[str, Any] | None:
    """The calibration measured for ``game`` as its package ships it (``parse_results``), or None when
    it ships none. Raises ``KeyError`` for an unknown game, ``OSError`` when the file cannot be read
    and ``ValueError`` when it is not such JSON."""
    package = game_package(game)
    found = resources.files(package).joinpath(STORED_NAME)
    if not found.is_file():
        return None
    return parse_results(found.read_text(encoding="utf-8"), f"{package}:{STORED_NAME}")


def stored_figure(results: Mapping[str, Any]) -> go.Figure:
    """The reliability diagram of a game's measured calibration (``stored_results``), one series per
    population of bots. Raises ``KeyError`` or ``TypeError`` for other JSON (``parse_results`` checks it)."""
    series = {name: Calibration.from_json(obj) for name, obj in results["populations"].items()}
    return reliability_figure(series)
