"""The pure parts of the dashboard: intervals, diffs, the replay payload's runs, escaping."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from dashboards.diff import change, changes_html, step_changes
from dashboards.replay_data import runs
from dashboards.stats import FEW_GAMES, rate_label, wilson, with_intervals
from dashboards.ui import md_text


def test_wilson_known_values() -> None:
    low, high = wilson(50, 100)
    assert math.isclose(low, 0.4038, abs_tol=1e-4) and math.isclose(high, 0.5962, abs_tol=1e-4)
    low, high = wilson(0, 10)
    assert low == 0.0 and math.isclose(high, 0.2775, abs_tol=1e-4)
    assert math.isclose(wilson(10, 10)[1], 1.0)
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="wins=5, n=3"):
        wilson(5, 3)


def test_intervals_and_few_games_mark() -> None:
    rates = with_intervals(pd.DataFrame({"wins": [3, 300], "n": [10, 600]}))
    assert list(rates["few_games"]) == [True, False]
    assert (rates["ci_low"] < rates["win_rate"]).all() and (rates["win_rate"] < rates["ci_high"]).all()
    assert rate_label(3, 10).endswith("few games") and f"n={FEW_GAMES}" in rate_label(15, FEW_GAMES)


def test_diff_of_rows_reports_changes_as_multisets() -> None:
    assert change("hand", ["Well", "Well", "Hero"], ["Well", "Smithy"]) == "hand +Smithy, \u2212Well, \u2212Hero"
    assert change("round", 1, 2) == "round 1 \u2192 2"
    assert change("round", 2, 2) is None
    changes = step_changes(
        {"game_id": "g", "step": 1, "round": 1}, {"game_id": "g", "step": 2, "round": 2},
        [{"seat": 0, "vp": 1}, {"seat": 1, "vp": 1}], [{"seat": 0, "vp": 1}, {"seat": 1, "vp": 3}], ["Ana", "Bruno"],
    )
    assert changes == [("table", ["round 1 \u2192 2"]), ("Bruno", ["vp 1 \u2192 3"])]
    assert 'class="plus"' in changes_html([("Ana", ["hand +Well"])])


def test_runs_keep_only_the_changes() -> None:
    rows = [{"step": 0, "a": 1, "b": ["x"]}, {"step": 1, "a": 1, "b": ["x"]}, {"step": 2, "a": 2, "b": ["x", "y"]},
            {"step": 3, "a": 2, "b": ["x"]}]
    assert runs(rows, ["a", "b"]) == {"a": [[0, 1], [2, 2]], "b": [[0, ["x"]], [2, ["x", "y"]], [3, ["x"]]]}


def test_markdown_text_is_escaped() -> None:
    assert md_text("[click me](https://example.com) :red[x]") == "\\[click me\\]\\(https\\://example\\.com\\) \\:red\\[x\\]"
    assert md_text("<b>x</b> $1$\nnext") == "\\<b\\>x\\</b\\> \\$1\\$ next"
