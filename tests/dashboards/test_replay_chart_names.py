"""Every user string is text in the Replay page's charts: player names such as ``<a href>``, ``<b>``,
``<br>``, ``<span style>`` and ``&quot;`` show as typed in the Winning-chances legend and hover labels
(``charts.chart_text``), never as Plotly's HTML."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import duckdb
import pandas as pd

from analysis.decisions import Options, analyse
from analysis.store import store
from dashboards import analysis_panel
from dashboards.plain import cut
from replay.logfile import parse_game

from .test_chart_text import NAMES, plotly_reads, strings

GAME_FILE = Path(__file__).resolve().parents[2] / "sample_logs" / "san_juan" / "san_juan-2p-seed2026-0000.json"


def _rows(seats: int) -> pd.DataFrame:
    """Two decisions per seat, the second tagged, with a hostile move text."""
    out = []
    for seat in range(seats):
        for k, tag in enumerate((None, "blunder")):
            out.append({"step": 1 + 2 * seat + k, "seat": seat, "player": NAMES[seat], "candidate": f"build <b>{seat}</b>",
                        "estimate": 0.4, "ci_low": 0.3, "ci_high": 0.5, "loss": 0.25 if tag else 0.0, "tag": tag,
                        "best": "build <i>x</i>"})
    return pd.DataFrame(out)


def _tagged(spec: dict) -> list[tuple[str, str]]:
    return [(where, text) for where, text in strings(spec) if "<" in text or ">" in text]


def test_the_winning_chances_chart_shows_five_hostile_names_as_text() -> None:
    fig = analysis_panel.chart(_rows(5), NAMES)
    spec = fig.to_plotly_json()
    assert _tagged(spec) == []
    assert [plotly_reads(t["name"]) for t in spec["data"]] == [cut(n) for n in NAMES]
    # Hover labels: the name and the move, each as typed.
    for trace, name in zip(spec["data"], NAMES):
        assert {plotly_reads(c[2]) for c in trace["customdata"]} == {cut(name)}
        assert {plotly_reads(c[0]) for c in trace["customdata"]} == {f"build <b>{NAMES.index(name)}</b>"}
    # The legend sits above the plot, clear of the axis titles, whatever the number of seats.
    assert spec["layout"]["legend"]["yanchor"] == "bottom" and spec["layout"]["legend"]["y"] > 1


def test_the_replay_page_sends_stored_hostile_names_as_data(open_page: Callable, dash_db_copy: Path) -> None:
    """With a stored analysis the winning chances are drawn by the viewer (its text escaped there), not
    by Plotly: the page sends the estimates and the names as data, and no Plotly chart is left to read
    a name as HTML."""
    log = parse_game(json.loads(GAME_FILE.read_text()), file=str(GAME_FILE))
    options = Options(rollouts=2, top=2, seed=3, steps=(1, 8))
    decisions = list(analyse(log, options))
    store(dash_db_copy, log.game_id, "1.0", decisions, options)
    names = [NAMES[0], NAMES[4]]
    with duckdb.connect(str(dash_db_copy)) as con:
        con.execute("UPDATE games SET players = ? WHERE game_id = ?", [names, log.game_id])
        for seat, name in enumerate(names):
            con.execute("UPDATE players SET name = ? WHERE game_id = ? AND seat = ?", [name, log.game_id, seat])
            con.execute("UPDATE analysis SET player = ? WHERE game_id = ? AND seat = ?", [name, log.game_id, seat])
    at = open_page(dash_db_copy, "views/replay.py", game=log.game_id)
    # The one Plotly chart left is the calibration diagram of the help on winning chances, which
    # holds no name.
    charts = at.get("plotly_chart")
    assert [chart.key for chart in charts] == ["analysis_calibration"]
    assert not any(name in str(chart.proto) for chart in charts for name in names)
    (element,) = at.get("bidi_component")
    game = json.loads(element.proto.json)["game"]
    assert game["names"] == names
    assert [(d[0], d[1]) for d in game["analysis"]] == [(d.step, d.seat) for d in decisions]
