"""Calibration of the analysis' winning chances: reliability bins, expected calibration error and
Brier scores computed right on a hand-made example, the reliability diagram drawn from them, and
the benchmark's results the package ships read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis import calibration
from analysis.calibration import (
    Bin,
    Calibration,
    base_rate_brier,
    bin_index,
    brier_score,
    calibrate,
    chance_ece,
    expected_calibration_error,
    parse_results,
    reliability_bins,
    reliability_figure,
    stored_figure,
    stored_path,
    stored_results,
)
from replay.registry import game_names, rollout_bot

#: Six positions: an estimate of 5 % lost; 15 % won and 12 % lost; 50 % ended in a 3-way tie (1/3);
#: 95 % won and 100 % tied two ways (1/2).
FORECASTS = [0.05, 0.15, 0.12, 0.5, 0.95, 1.0]
OUTCOMES = [0.0, 1.0, 0.0, 1 / 3, 1.0, 0.5]


def test_the_bins_of_a_hand_made_example() -> None:
    bins = reliability_bins(FORECASTS, OUTCOMES)
    # Only the non-empty bins, lowest first: 0-10 %, 10-20 %, 50-60 %, 90-100 % (1 is in the last).
    assert [(b.low, b.high, b.count) for b in bins] == [(0.0, 0.1, 1), (0.1, 0.2, 2), (0.5, 0.6, 1), (0.9, 1.0, 2)]
    assert [b.forecast for b in bins] == pytest.approx([0.05, 0.135, 0.5, 0.975])
    assert [b.observed for b in bins] == pytest.approx([0.0, 0.5, 1 / 3, 0.75])
    # The observed rate's Wilson 95 % interval: 1 win of 2 is 9.45 % to 90.55 %.
    assert (bins[1].observed_low, bins[1].observed_high) == pytest.approx((0.094531, 0.905469), abs=1e-6)
    assert (bins[0].observed_low, bins[0].observed_high) == pytest.approx((0.0, 0.793451), abs=1e-6)


def test_the_scores_of_a_hand_made_example() -> None:
    bins = reliability_bins(FORECASTS, OUTCOMES)
    # (1 * 0.05 + 2 * 0.365 + 1 * (0.5 - 1/3) + 2 * 0.225) / 6
    assert expected_calibration_error(bins) == pytest.approx(1.3966667 / 6)
    # 0.05² + 0.85² + 0.12² + (0.5 - 1/3)² + 0.05² + 0.5², over 6
    assert brier_score(FORECASTS, OUTCOMES) == pytest.approx(1.0196778 / 6)
    # The base rate is the mean outcome, 17/36; its Brier score is the outcomes' variance.
    assert base_rate_brier(OUTCOMES) == pytest.approx(0.1705247, abs=1e-7)
    made = calibrate(FORECASTS, OUTCOMES)
    assert (made.positions, made.base_rate, made.bins) == (6, pytest.approx(17 / 36), bins)
    assert made.ece == expected_calibration_error(bins) and made.brier == brier_score(FORECASTS, OUTCOMES)


def test_forecasts_that_come_true_have_no_calibration_error() -> None:
    # Of the 20 % forecasts one in five wins, of the 75 % three in four: calibrated, and sharper than the base rate.
    forecasts = [0.2] * 5 + [0.75] * 4
    outcomes = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0]
    made = calibrate(forecasts, outcomes)
    assert made.ece == pytest.approx(0.0)
    assert made.brier < made.base_brier


def test_the_bin_edges() -> None:
    assert [bin_index(x) for x in (0.0, 0.0999, 0.1, 0.3, 0.7, 0.9999, 1.0)] == [0, 0, 1, 3, 7, 9, 9]
    assert bin_index(0.5, bins=4) == 2


@pytest.mark.parametrize(("forecasts", "outcomes", "message"), [
    ([0.5], [1.0, 0.0], "1 forecasts but 2 outcomes"),
    ([], [], "no forecasts to measure"),
    ([1.5], [1.0], "a forecast of 1.5 is not a chance between 0 and 1"),
    ([0.5], [-1.0], "a outcome of -1.0 is not a chance between 0 and 1"),
])
def test_bad_inputs_are_one_clear_error(forecasts: list[float], outcomes: list[float], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        calibrate(forecasts, outcomes)
    assert str(raised.value) == message


def test_a_calibration_round_trips_through_json() -> None:
    made = calibrate(FORECASTS, OUTCOMES)
    again = Calibration.from_json(json.loads(json.dumps(made.to_json())))
    assert again.positions == 6 and again.ece == pytest.approx(made.ece, abs=1e-6)
    assert [b.count for b in again.bins] == [1, 2, 1, 2]
    assert again.bins[1] == Bin(0.1, 0.2, 2, 0.135, 0.5, 0.094531, 0.905469)


def test_the_reliability_diagram_draws_the_bins() -> None:
    made = calibrate(FORECASTS, OUTCOMES)
    figure = reliability_figure({"expert bots": made})
    diagonal, points = figure.data
    assert (list(diagonal.x), list(diagonal.y)) == ([0, 1], [0, 1])
    assert points.name == f"expert bots (ECE {made.ece:.3f})"
    assert list(points.x) == [b.forecast for b in made.bins] and list(points.y) == [b.observed for b in made.bins]
    # Markers grow with the count (the biggest bins, 2 positions, are the largest), error bars span the interval.
    sizes = list(points.marker.size)
    assert sizes[1] == sizes[3] == max(sizes) and sizes[0] == sizes[2] < max(sizes)
    assert list(points.error_y.array)[1] == pytest.approx(0.905469 - 0.5)
    assert list(points.error_y.arrayminus)[1] == pytest.approx(0.5 - 0.094531)


def test_stored_results_are_read_and_drawn(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    results = {"rollouts": 100, "rollout_bot": "expert", "populations": {
        "expert bots": calibrate(FORECASTS, OUTCOMES).to_json()}}
    assert parse_results(json.dumps(results), "here") == results
    figure = stored_figure(results)
    assert [t.name for t in figure.data] == ["perfect calibration", "expert bots (ECE 0.233)"]
    # A game's package that ships no calibration has none; a file that is not such JSON is one error.
    monkeypatch.setattr(calibration, "STORED_NAME", "none.json")
    assert calibration.stored_results("san_juan") is None
    with pytest.raises(ValueError) as raised:
        parse_results("[1, 2]", "replay.x:calibration.json")
    assert str(raised.value) == ("replay.x:calibration.json: not the calibration benchmark's results "
                                 "(ValueError: no populations)")
    with pytest.raises(ValueError) as raised:
        parse_results('{"populations": {"a": {"positions": 1}}}', "f")
    assert str(raised.value) == "f: not the calibration benchmark's results (KeyError: 'ece')"


def test_each_game_ships_its_calibration_measured_on_enough_positions() -> None:
    """The figures of docs/analysis.md and the dashboard's help come from ``bench/bench_calibration.py``:
    each game's package ships its own, measured on at least 2,000 positions of games between the
    game's own rollout bots, the first population."""
    for game in game_names():
        measured = stored_results(game)
        assert measured is not None, game
        assert measured["rollout_bot"] == rollout_bot(game)
        first = next(iter(measured["populations"]))
        assert first == f"{rollout_bot(game)} bots (the rollout bot)"
        own = Calibration.from_json(measured["populations"][first])
        assert own.positions >= 2000
        assert sum(b.count for b in own.bins) == own.positions
        assert stored_path(game).is_file()


def test_the_calibration_error_chance_alone_gives() -> None:
    # 100 positions at 50 %: the observed rate strays by sqrt(2/pi) * 5 points on average; 400 at 10 %, by
    # sqrt(2/pi) * 1.5 points; weighted by count.
    bins = [Bin(0.5, 0.6, 100, 0.5, 0.5, 0.4, 0.6), Bin(0.1, 0.2, 400, 0.1, 0.1, 0.07, 0.13)]
    assert chance_ece(bins) == pytest.approx((100 * 0.0398942 + 400 * 0.0119683) / 500, abs=1e-7)
    assert chance_ece([]) == 0.0
