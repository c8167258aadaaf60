"""The Replay page's winning chances say what a chance means (the chance to win if every seat played
like the game's rollout bot from here) and show the reliability diagram the calibration benchmark
measured (``analysis.calibration``, ``bench/bench_calibration.py``)."""

from __future__ import annotations

import html
import json
from pathlib import Path

from analysis import calibration
from analysis.calibration import calibrate
from dashboards import analysis_panel

FORECASTS = [0.05, 0.15, 0.12, 0.5, 0.95, 1.0]
OUTCOMES = [0.0, 1.0, 0.0, 1 / 3, 1.0, 0.5]


def test_the_help_names_the_rollout_bot_and_the_measured_numbers() -> None:
    made = calibrate(FORECASTS, OUTCOMES).to_json()
    results = {"rollouts": 100, "rollout_bot": "expert", "populations": {
        "expert bots (the rollout bot)": made, "random bots": made}}
    assert analysis_panel.help_text("san_juan", results) == (
        "A winning chance here is the chance to win if every seat played like the expert bot from here (the bot "
        "San Juan's analysis rolls out with), not against any player: the share of rollouts from redeals of what "
        "the seat could not see that it won after its move. Measured on 6 positions of games between expert bots "
        "(the rollout bot), against each game's result: expected calibration error 0.233 (the mean gap between a "
        "bin's estimate and the share won), Brier score 0.170 against 0.171 for always saying the base rate (47%). "
        "Between other bots the estimates are further off, since those players do not play like the expert bot "
        "(random bots: 0.233 on 6 positions). Each point is the positions whose estimate fell in a tenth of the "
        "scale: its estimate on average, and the share of them won with its 95% interval; on the diagonal, the "
        "chances come true (docs/analysis.md, \"Calibration\").")
    # Puerto Rico's analysis rolls out with its heuristic bot; a game not measured says so.
    assert analysis_panel.help_text("puerto_rico", None).endswith(
        "played like the heuristic bot from here (the bot Puerto Rico's analysis rolls out with), not against any "
        "player: the share of rollouts from redeals of what the seat could not see that it won after its move. "
        "Its calibration has not been measured for this game.")


def test_the_replay_page_shows_the_reliability_diagram(open_page, dash_db: Path, sql) -> None:
    game_id = sql(dash_db, "SELECT game_id FROM games ORDER BY game_id LIMIT 1")[0][0]
    at = open_page(dash_db, "views/replay.py", game=game_id, step=3)
    helps = [e for e in at.expander if e.label == "What does a winning chance mean?"]
    assert len(helps) == 1
    charts = helps[0].get("plotly_chart")
    assert len(charts) == 1
    figure = json.loads(charts[0].proto.spec)
    stored = calibration.stored_results("san_juan")
    assert stored is not None
    shipped = stored["populations"]
    # The diagonal, then one series per population of bots, the rollout bot's own games first.
    names = [trace["name"] for trace in figure["data"]]
    assert names[0] == "perfect calibration"
    assert [name.split(" (ECE ")[0] for name in names[1:]] == list(shipped)
    assert names[1].startswith("expert bots (the rollout bot)")
    own = shipped["expert bots (the rollout bot)"]
    assert figure["data"][1]["y"] == [b["observed"] for b in own["bins"]]
    text = html.unescape(" ".join(h.proto.body for h in helps[0].get("html")))
    assert f"Measured on {own['positions']:,} positions of games between expert bots" in text


def test_a_results_file_that_cannot_be_read_is_one_line(open_page, dash_db: Path, sql, monkeypatch) -> None:
    def unreadable(game: str) -> None:
        raise ValueError("replay.x:calibration.json: not the calibration benchmark's results (ValueError: no populations)")

    monkeypatch.setattr(analysis_panel, "stored_results", unreadable)
    game_id = sql(dash_db, "SELECT game_id FROM games ORDER BY game_id LIMIT 1")[0][0]
    at = open_page(dash_db, "views/replay.py", game=game_id, step=3)
    helps = [e for e in at.expander if e.label == "What does a winning chance mean?"]
    assert helps[0].get("plotly_chart") == []
    text = html.unescape(" ".join(h.proto.body for h in helps[0].get("html")))
    assert ("The calibration measured for the analysis cannot be read: replay.x:calibration.json: not the calibration "
            "benchmark's results (ValueError: no populations)") in text
    assert "Its calibration has not been measured for this game." in text
