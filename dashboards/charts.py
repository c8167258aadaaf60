"""Plotly figures of the dashboard: rates with intervals, heat maps, distributions and curves.

Plotly reads every label it draws (legend entries, tick labels, bar texts, hover labels, titles) as a
small HTML of its own: ``<b>``, ``<i>``, ``<br>``, ``<sub>``, ``<sup>``, ``<span style=...>``, live
``<a href=...>`` links, and the entities ``&lt;``, ``&gt;``, ``&amp;`` and numeric ones. So every
string that does not come from this code (player names, and anything else read from the database)
goes through ``chart_text`` before it reaches a figure; every chart here does so.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd
import plotly.graph_objects as go

from dashboards.plain import NAME_CHARS, cut

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")
#: Error bars and reference lines: a grey that stands out on a white and on a near-black page (about
#: 3.3:1 and 6:1).
NEUTRAL = "#8b929c"
#: The label colour on a pale bar (the bar is a light tint in both themes).
FEW_TEXT = "#14202e"


def tint(colour: str, amount: float = 0.6) -> str:
    """``colour`` (``#rrggbb``) mixed with ``amount`` of white: the pale form of a bar."""
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(c + (255 - c) * amount):02x}" for c in (red, green, blue))


def chart_text(value: object, limit: int | None = None) -> str:
    """``value`` as a Plotly label that shows exactly as typed: ``&``, ``<`` and ``>`` become the
    entities Plotly decodes (``&amp;``, ``&lt;``, ``&gt;``), so no tag and no entity of the text is
    read, and quotes stay as they are (Plotly does not decode ``&quot;``, which would show as typed).
    With ``limit`` the text is first put on one line and cut with an ellipsis (``plain.cut``)."""
    text = cut(str(value), limit) if limit else str(value)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def chart_texts(values: Iterable[object], limit: int | None = None) -> list[str]:
    """``chart_text`` of each value."""
    return [chart_text(v, limit) for v in values]


def rate_bars(frame: pd.DataFrame, label: str, title: str, group: str | None = None, height: int | None = None) -> go.Figure:
    """Horizontal bars of the ``lift`` (win rate / baseline) by ``label`` with its 95 % interval, in
    the frame's order (first row on top); a line at 1.0 marks chance. Each bar says its rate against
    its baseline and its ``n``; rates from few rows are drawn pale. With ``group`` (e.g. the player
    count) one colour per group."""
    order = chart_texts(dict.fromkeys(frame[label].astype(str)))
    fig = go.Figure()
    groups = list(frame.groupby(group, sort=True)) if group else [(None, frame)]
    for i, (key, rows) in enumerate(groups):
        colour = PALETTE[i % len(PALETTE)] if group else "#2f6fb0"
        few = [bool(f) for f in rows["few_games"]]
        fig.add_trace(
            go.Bar(
                x=rows["lift"], y=chart_texts(rows[label].astype(str)), orientation="h",
                name=chart_text(f"{key} players") if group else "lift",
                # Pale bars are solid tints, not transparent ones: their dark labels then read on a light
                # and on a dark page alike.
                marker={"color": [tint(colour) if f else colour for f in few],
                        "line": {"color": colour, "width": 1}},
                text=[f"{r:.0%} vs {b:.0%}" for r, b in zip(rows["win_rate"], rows["baseline"])],
                textposition="inside", insidetextanchor="start",
                textfont={"color": [FEW_TEXT if f else "#ffffff" for f in few], "size": 11},
                error_x={
                    "type": "data", "symmetric": False,
                    "array": rows["lift_high"] - rows["lift"], "arrayminus": rows["lift"] - rows["lift_low"],
                    "color": NEUTRAL, "thickness": 1.6, "width": 4,
                },
                customdata=rows[["n", "win_rate", "ci_low", "ci_high", "baseline"]].to_numpy(),
                hovertemplate=(
                    "%{y}: win rate %{customdata[1]:.1%} (95% CI %{customdata[2]:.1%}-%{customdata[3]:.1%}, "
                    "n=%{customdata[0]}) vs baseline %{customdata[4]:.1%}: lift %{x:.2f}<extra></extra>"
                ),
            )
        )
    fig.add_vline(x=1.0, line={"color": NEUTRAL, "dash": "dot", "width": 1.5})
    top = max([1.5] + [float(v) for v in frame["lift_high"] if v == v])
    fig.update_layout(
        title={"text": chart_text(title), "font": {"size": 14}}, barmode="group",
        height=height or max(220, (24 if not group else 14 * frame[group].nunique() + 8) * len(order) + 90),
        margin={"l": 10, "r": 20, "t": 40, "b": 10},
        xaxis={"title": "lift (win rate / baseline; 1 = chance)", "range": [0, min(top, 4.0) * 1.02]},
        yaxis={"categoryorder": "array", "categoryarray": order[::-1], "automargin": True},
        legend={"orientation": "h", "y": -0.15},
        showlegend=bool(group),
    )
    return fig


def heatmap(frame: pd.DataFrame, x: str, y: str, value: str, title: str, text: str | None = None,
            centre: float | None = None) -> go.Figure:
    """A heat map of ``value`` over ``x`` and ``y`` (e.g. lift by round and role). With ``centre`` a
    diverging scale around it (a lift of 1.0 is white), else 0 to 1 in blues."""
    table = frame.pivot(index=y, columns=x, values=value)
    labels = frame.pivot(index=y, columns=x, values=text).map(
        lambda v: chart_text(v) if isinstance(v, str) else v).to_numpy() if text else None
    fig = go.Figure(
        go.Heatmap(
            z=table.to_numpy(), x=chart_texts(table.columns.astype(str)), y=chart_texts(table.index.astype(str)),
            colorscale="RdBu" if centre is not None else "Blues", text=labels,
            zmin=0 if centre is None else centre - 1, zmax=1 if centre is None else centre + 1,
            hovertemplate=("%{y}, " + chart_text(x) + " %{x}: %{z:.2f}<br>%{text}<extra></extra>") if text else None,
            colorbar={"tickformat": ".1f" if centre is not None else ".0%"},
        )
    )
    fig.update_layout(title={"text": chart_text(title), "font": {"size": 14}}, height=300,
                      margin={"l": 10, "r": 10, "t": 40, "b": 10})
    return fig


def count_bars(frame: pd.DataFrame, x: str, count: str, colour: str | None, title: str, x_title: str) -> go.Figure:
    """Counts already aggregated (``count`` by ``x``), one bar per value of ``colour`` side by side, so
    no group hides another."""
    fig = go.Figure()
    groups = list(frame.groupby(colour, sort=True)) if colour else [("all", frame)]
    for i, (key, rows) in enumerate(groups):
        fig.add_trace(go.Bar(x=rows[x], y=rows[count], name=chart_text(key), marker_color=PALETTE[i % len(PALETTE)]))
    fig.update_layout(
        barmode="group", bargap=0.15, title={"text": chart_text(title), "font": {"size": 14}}, height=300,
        margin={"l": 10, "r": 10, "t": 40, "b": 10}, xaxis_title=chart_text(x_title), yaxis_title=chart_text(count),
        legend={"orientation": "h", "y": -0.25},
    )
    return fig


def curves(frame: pd.DataFrame, x: str, y: str, group: str, title: str, low: str | None = None, high: str | None = None,
           y_title: str | None = None) -> go.Figure:
    """Lines of ``y`` over ``x``, one per ``group``, with an optional band from ``low`` to ``high``; the
    y axis is titled ``y_title`` (default: ``y``)."""
    fig = go.Figure()
    for i, (key, rows) in enumerate(frame.groupby(group, sort=True)):
        colour = PALETTE[i % len(PALETTE)]
        if low and high:
            fig.add_trace(go.Scatter(x=list(rows[x]) + list(rows[x])[::-1], y=list(rows[high]) + list(rows[low])[::-1],
                                     fill="toself", fillcolor=colour, opacity=0.15, line={"width": 0},
                                     showlegend=False, hoverinfo="skip"))
        fig.add_trace(go.Scatter(x=rows[x], y=rows[y], mode="lines+markers", name=chart_text(key), line={"color": colour}))
    fig.update_layout(title={"text": chart_text(title), "font": {"size": 14}}, height=320,
                      margin={"l": 10, "r": 10, "t": 40, "b": 10}, xaxis_title=chart_text(x),
                      yaxis_title=chart_text(y if y_title is None else y_title))
    return fig


def compare_curves(frame: pd.DataFrame, *, unit: str, name: str) -> go.Figure:
    """The score by round of every seat of two games on one chart: ``frame`` has ``round``, ``vp`` (the
    score), ``line`` (the legend entry, e.g. "A: Ana") and ``game`` ("A" solid, "B" dashed); ``unit`` and
    ``name`` are the score's words as the game declares them (``GameDeclaration.score_unit``,
    ``score_name``). Names go through ``chart_text`` (cut to ``plain.NAME_CHARS``), so Plotly shows them
    as typed."""
    fig = go.Figure()
    for i, (line, rows) in enumerate(frame.groupby("line", sort=False)):
        dashed = str(rows["game"].iloc[0]) != "A"
        fig.add_trace(go.Scatter(
            x=rows["round"].tolist(), y=rows["vp"].tolist(), mode="lines+markers", name=chart_text(line, NAME_CHARS),
            line={"color": PALETTE[i % len(PALETTE)], "dash": "dash" if dashed else "solid", "width": 2},
            marker={"symbol": "square" if dashed else "circle", "size": 6},
        ))
    fig.update_layout(
        title={"text": f"{chart_text(name)} at the end of each round (A solid, B dashed)", "font": {"size": 14}},
        height=360, margin={"l": 10, "r": 10, "t": 40, "b": 10}, xaxis_title="round", yaxis_title=chart_text(unit),
        legend={"orientation": "h", "y": -0.2}, hovermode="x unified",
    )
    return fig


def rating_history(history: pd.DataFrame) -> go.Figure:
    """A player's skill (mu, with a band of one sigma each side) and conservative rating (mu - 3 sigma)
    after each rated game (``number``). Points are marked when there are few games, so a player with
    one game shows a point rather than an empty chart."""
    fig = go.Figure()
    x = history["number"].tolist()
    mode = "lines+markers" if len(history) <= 30 else "lines"
    fig.add_trace(go.Scatter(x=x, y=(history["mu"] + history["sigma"]).tolist(), mode="lines", line={"width": 0},
                             showlegend=False, hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=x, y=(history["mu"] - history["sigma"]).tolist(), mode="lines", line={"width": 0},
                             fill="tonexty", fillcolor="rgba(31,119,180,0.18)", name="mu \u00b1 sigma",
                             hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=x, y=history["mu"].tolist(), mode=mode, name="skill (mu)",
                             line={"color": PALETTE[0], "width": 2}))
    fig.add_trace(go.Scatter(x=x, y=history["ordinal"].tolist(), mode=mode, name="rating (mu - 3 sigma)",
                             line={"color": PALETTE[1], "width": 2}))
    fig.update_layout(title={"text": "Rating after each game"}, xaxis_title="rated games", yaxis_title="rating",
                      height=340, margin={"l": 10, "r": 10, "t": 40, "b": 10},
                      legend={"orientation": "h", "y": -0.25})
    if len(history) == 1:  # one game: a range around the point, not plotly's default of the unit square
        fig.update_xaxes(range=[0.5, 1.5], tickvals=[1])
    return fig
