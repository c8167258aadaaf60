"""Every user string is text in every chart: Plotly reads labels, legends, hover labels and titles
as a small HTML of its own, so names such as ``<a href>``, ``<b>``, ``<br>``, ``<span style>`` and
``&quot;`` go through ``charts.chart_text`` in every chart of the Games, Statistics and Players pages."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest

from dashboards import charts
from dashboards.charts import chart_text
from dashboards.plain import NAME_CHARS, cut

NAMES = [
    '<a target="_blank" href="https://example.com">link</a>',
    "<b>bold</b> <i>it</i>",
    "two<br>lines",
    '<span style="font-size:40px;color:red">big</span>',
    'say &quot;hi&quot; & "quoted" &#60;b&#62;',
]


def plotly_reads(text: str) -> str:
    """What Plotly shows for a label: its tags dropped (they format or link), then the entities it
    decodes (``&lt;``, ``&gt;``, ``&amp;`` and numeric ones) decoded; ``&quot;`` stays as typed."""
    shown = re.sub(r"<[^>]*>", "", text)
    shown = re.sub(r"&#(\d+);", lambda m: chr(int(m.group(1))), shown)
    return shown.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def strings(spec: Any, path: str = "") -> list[tuple[str, str]]:
    """Every string of a figure's JSON with where it is, except our own hover templates."""
    if isinstance(spec, str):
        return [(path, spec)]
    if isinstance(spec, dict):
        return [pair for key, value in spec.items() if key != "hovertemplate"
                for pair in strings(value, f"{path}.{key}")]
    if isinstance(spec, list | tuple):
        return [pair for i, value in enumerate(spec) for pair in strings(value, f"{path}[{i}]")]
    if hasattr(spec, "tolist"):
        return strings(spec.tolist(), path)
    return []


def assert_names_are_text(fig, expected: list[str]) -> None:
    found = strings(fig.to_plotly_json())
    tagged = [(where, text) for where, text in found if "<" in text or ">" in text]
    assert tagged == [], tagged
    shown = {plotly_reads(text) for _, text in found}
    for name in expected:
        assert any(name in s for s in shown), (name, sorted(shown))


@pytest.mark.parametrize("name", NAMES)
def test_chart_text_shows_as_typed(name: str) -> None:
    assert plotly_reads(chart_text(name)) == name
    assert "<" not in chart_text(name) and ">" not in chart_text(name)
    assert plotly_reads(chart_text("x" * 60, 40)) == "x" * 39 + "\u2026"


def rates(labels: list[str]) -> pd.DataFrame:
    n = len(labels)
    return pd.DataFrame({"label": labels, "lift": [1.2] * n, "lift_low": [0.8] * n, "lift_high": [1.6] * n,
                         "win_rate": [0.6] * n, "baseline": [0.5] * n, "ci_low": [0.4] * n, "ci_high": [0.8] * n,
                         "n": [40] * n, "few_games": [False] * n, "player_count": [3] * n})


def test_every_chart_builder_escapes_what_it_is_given() -> None:
    assert_names_are_text(charts.rate_bars(rates(NAMES), "label", NAMES[0]), NAMES)
    assert_names_are_text(charts.rate_bars(rates(NAMES), "label", NAMES[1], group="label"), NAMES)
    grid = pd.DataFrame({"round": [1, 2] * len(NAMES), "role": [n for n in NAMES for _ in (1, 2)],
                         "lift": [1.0] * 2 * len(NAMES), "text": [n for n in NAMES for _ in (1, 2)]})
    assert_names_are_text(charts.heatmap(grid, "round", "role", "lift", NAMES[2], text="text", centre=1.0), NAMES)
    counts = pd.DataFrame({"score": range(len(NAMES)), "players": [3] * len(NAMES), "result": NAMES})
    assert_names_are_text(charts.count_bars(counts, "score", "players", "result", NAMES[3], NAMES[4]), NAMES)
    lines = pd.DataFrame({"round": [1, 2] * len(NAMES), "vp": [3, 5] * len(NAMES), "group": [n for n in NAMES for _ in (1, 2)],
                          "low": [2, 4] * len(NAMES), "high": [4, 6] * len(NAMES)})
    assert_names_are_text(charts.curves(lines, "round", "vp", "group", NAMES[0], low="low", high="high"), NAMES)
    compared = pd.DataFrame({"round": [1, 2] * len(NAMES), "vp": [2, 4] * len(NAMES),
                             "line": [f"A: {n}" for n in NAMES for _ in (1, 2)], "game": ["A"] * 2 * len(NAMES)})
    assert_names_are_text(charts.compare_curves(compared, unit="VP", name="Victory points"), [f"A: {n}"[:39] for n in NAMES])


@pytest.fixture(scope="module")
def hostile_db(dash_db: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The sample database with the hostile names given to the seats of two 3-player games."""
    db = tmp_path_factory.mktemp("chart_names") / "names.duckdb"
    shutil.copy(dash_db, db)
    with duckdb.connect(str(db)) as con:
        ids = [r[0] for r in con.execute("SELECT game_id FROM games WHERE player_count = 3 ORDER BY game_id LIMIT 2").fetchall()]
        for game_id, names in zip(ids, (NAMES[:3], NAMES[2:])):
            con.execute("UPDATE games SET players = ? WHERE game_id = ?", [names, game_id])
            for seat, name in enumerate(names):
                con.execute("UPDATE players SET name = ? WHERE game_id = ? AND seat = ?", [name, game_id, seat])
        # The last name's one rated game (the importer computes ratings; here one row is given).
        con.execute("UPDATE player_rating_history SET name = ? WHERE rowid = (SELECT min(rowid) FROM "
                    "player_rating_history WHERE game = 'san_juan')", [NAMES[4]])
    return db, ids


def test_the_games_compare_chart_shows_names_as_text(hostile_db, open_page) -> None:
    db, ids = hostile_db
    at = open_page(db, "views/import_logs.py")
    at.query_params.update({"compare": "1", "ids": ",".join(ids)})
    at.switch_page("views/games.py").run()
    assert not at.exception
    (chart,) = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    legend = [trace["name"] for trace in chart["data"]]
    # Long names are cut with an ellipsis, as wherever a name shares a line with other text.
    # Each name isolated (U+2068 ... U+2069), cut so that the label stays within NAME_CHARS.
    assert [plotly_reads(n) for n in legend] == (
        [f"A: \u2068{cut(n, NAME_CHARS - 5)}\u2069" for n in NAMES[:3]]
        + [f"B: \u2068{cut(n, NAME_CHARS - 5)}\u2069" for n in NAMES[2:]])
    assert all("<" not in n for n in legend)


def test_the_players_and_statistics_charts_show_names_as_text(hostile_db, open_page) -> None:
    db, _ = hostile_db
    at = open_page(db, "views/statistics.py", player=NAMES[0], tab="VP curves")
    assert not at.exception
    for element in at.get("plotly_chart"):
        found = strings(json.loads(element.proto.spec))
        assert [t for _, t in found if "<" in t and "hovertemplate" not in _] == []
    at = open_page(db, "views/players.py", type="san_juan", name=NAMES[4], min_games="1")
    assert not at.exception
    assert html.escape(NAMES[4]) in " ".join(e.value for e in at.html)
    (chart,) = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    points = [t for t in chart["data"] if t.get("mode") == "lines+markers"]
    assert len(points) == 2 and all(len(t["x"]) == 1 for t in points)  # one rated game: a point each, not nothing
