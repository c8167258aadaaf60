"""The pure parts of the dashboard: intervals, boards, diffs, the replay payload's runs, escaping."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from dashboards.diff import change, changes_html, step_changes
from dashboards.replay_data import runs
from dashboards.stats import FEW_GAMES, rate_label, wilson, with_intervals
from dashboards.ui import md_text
from replay.registry import engine_for


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


def test_diff_kinds_speak_words_and_never_column_names() -> None:
    assert change("items", "hand cards", ["Well", "Well", "Hero"], ["Well", "Smithy"]) == [
        "hand cards: +Smithy, \u2212Well, \u2212Hero"
    ]
    assert change("items", None, ["Well"], ["Well", "Smithy"]) == ["+Smithy"]
    assert change("value", "round", 1, 2) == ["round 1 \u2192 2"]
    assert change("value", "round", 2, 2) == []
    assert change("value", "role", "builder", None) == ["role builder \u2192 \u2013"]
    assert change("seat", "governor", 0, 1, ["Ana", "Bruno"]) == ["governor Ana \u2192 Bruno"]
    assert change("count", "tobacco", 3, 1) == ["\u22122 tobacco"]
    assert change("goods", None, ["indigo"], ["indigo", "sugar", "sugar"]) == ["+2 sugar"]
    assert change("tagged", "supply of", ["corn:10", "sugar:3"], ["corn:8", "sugar:3"]) == ["supply of corn 10 \u2192 8"]
    # A second card of a role in words, never its internal label.
    assert change("tagged", "doubloons on", ["settler:0", "prospector_2:0"], ["settler:1", "prospector_2:1"]) == [
        "doubloons on settler 0 \u2192 1", "doubloons on prospector (2nd) 0 \u2192 1"]
    # A kind of change only one game's columns have is said by that game (its ``change_words["kinds"]``).
    kinds = engine_for("puerto_rico").change_words["kinds"]
    assert change("ships", None, ["empty 0/4", "corn 5/5"], ["indigo 2/4", "empty 0/5"], kinds=kinds) == [
        "the 4-ship: empty \u2192 2 indigo", "the 5-ship: 5 corn \u2192 empty"
    ]
    assert change("tiles", None, ["corn"], ["corn*", "quarry", "sugar"], kinds=kinds) == ["+quarry", "+sugar plantation"]
    assert change("tiles", None, None, ["corn"], kinds=kinds) == ["+corn plantation"]
    with pytest.raises(ValueError, match="unknown kind of change 'colour'"):
        change("colour", None, 1, 2)
    # Nothing of one game's own kinds is known without it.
    with pytest.raises(ValueError, match="unknown kind of change 'ships'"):
        change("ships", None, ["empty 0/4"], ["corn 1/4"])
    # Columns the engine has no words for (keys, derived counts, seats of roles) are never shown.
    changes = step_changes(
        "san_juan", {"game_id": "g", "step": 1, "round": 1, "to_act": 0, "stage": "role"},
        {"game_id": "g", "step": 2, "round": 2, "to_act": 1, "stage": "chapel"},
        [{"seat": 0, "vp": 1, "building_count": 1}, {"seat": 1, "vp": 1}],
        [{"seat": 0, "vp": 1, "building_count": 2}, {"seat": 1, "vp": 3}], ["Ana", "Bruno"],
    )
    assert changes == [("Table", ["round 1 \u2192 2"]), ("Bruno", ["VP 1 \u2192 3"])]
    html = changes_html([("Ana", ["+Well", "hand cards: +Hero, \u2212Tower", "hand 3 \u2192 1"])])
    assert html == (
        '<ul class="gv-diff"><li><b>Ana</b>: <span class="plus">+Well</span>, hand cards: '
        '<span class="plus">+Hero</span>, <span class="minus">\u2212Tower</span>, hand 3 \u2192 1</li></ul>'
    )


def test_runs_keep_only_the_changes() -> None:
    rows = [{"step": 0, "a": 1, "b": ["x"]}, {"step": 1, "a": 1, "b": ["x"]}, {"step": 2, "a": 2, "b": ["x", "y"]},
            {"step": 3, "a": 2, "b": ["x"]}]
    assert runs(rows, ["a", "b"]) == {"a": [[0, 1], [2, 2]], "b": [[0, ["x"]], [2, ["x", "y"]], [3, ["x"]]]}


def test_markdown_text_is_escaped() -> None:
    assert md_text("[click me](https://example.com) :red[x]") == "\\[click me\\]\\(https\\://example\\.com\\) \\:red\\[x\\]"
    assert md_text("<b>x</b> $1$\nnext") == "\\<b\\>x\\</b\\> \\$1\\$ next"
