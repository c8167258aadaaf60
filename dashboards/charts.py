"""Plotly figures of the dashboard: rates with intervals, heat maps, distributions and curves."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")


def rate_bars(frame: pd.DataFrame, label: str, title: str, height: int | None = None, sort: bool = True) -> go.Figure:
    """Horizontal bars of ``win_rate`` by ``label`` with 95 % Wilson intervals; the sample size is in
    each label, and rates from few games are drawn pale and marked."""
    frame = frame.sort_values("win_rate") if sort else frame.iloc[::-1]
    colours = ["#c9d6e8" if few else "#2f6fb0" for few in frame["few_games"]]
    labels = [f"{name} (n={n}{', few' if few else ''})" for name, n, few in zip(frame[label], frame["n"], frame["few_games"])]
    fig = go.Figure(
        go.Bar(
            x=frame["win_rate"], y=labels, orientation="h", marker_color=colours,
            text=[f"{r:.0%}" for r in frame["win_rate"]], textposition="inside", insidetextanchor="start",
            textfont={"color": ["#234" if few else "#fff" for few in frame["few_games"]], "size": 11},
            error_x={
                "type": "data", "symmetric": False,
                "array": frame["ci_high"] - frame["win_rate"], "arrayminus": frame["win_rate"] - frame["ci_low"],
                "color": "#333", "thickness": 1.2, "width": 3,
            },
            customdata=frame[["n", "ci_low", "ci_high"]].to_numpy(),
            hovertemplate="%{y}: %{x:.1%} (95% CI %{customdata[1]:.1%}-%{customdata[2]:.1%}, n=%{customdata[0]})<extra></extra>",
        )
    )
    fig.update_layout(
        title={"text": title, "font": {"size": 14}}, height=height or max(220, 24 * len(frame) + 80),
        margin={"l": 10, "r": 20, "t": 40, "b": 10}, xaxis={"tickformat": ".0%", "range": [0, 1]},
    )
    return fig


def heatmap(frame: pd.DataFrame, x: str, y: str, value: str, title: str, text: str | None = None) -> go.Figure:
    """A heat map of ``value`` over ``x`` and ``y`` (e.g. win rate by round and role)."""
    table = frame.pivot(index=y, columns=x, values=value)
    labels = frame.pivot(index=y, columns=x, values=text).to_numpy() if text else None
    fig = go.Figure(
        go.Heatmap(
            z=table.to_numpy(), x=table.columns.astype(str), y=table.index.astype(str), colorscale="Blues",
            zmin=0, zmax=1, text=labels,
            hovertemplate="%{y}, " + x + " %{x}: %{z:.1%}<br>%{text}<extra></extra>" if text else None,
            colorbar={"tickformat": ".0%"},
        )
    )
    fig.update_layout(title={"text": title, "font": {"size": 14}}, height=300, margin={"l": 10, "r": 10, "t": 40, "b": 10})
    return fig


def histogram(frame: pd.DataFrame, x: str, colour: str | None, title: str, nbins: int | None = None) -> go.Figure:
    """Overlaid histograms of ``x``, one per value of ``colour``."""
    fig = go.Figure()
    groups = frame.groupby(colour) if colour else [("all", frame)]
    for i, (key, rows) in enumerate(groups):
        fig.add_trace(
            go.Histogram(x=rows[x], name=str(key), opacity=0.7, nbinsx=nbins, marker_color=PALETTE[i % len(PALETTE)])
        )
    fig.update_layout(
        barmode="overlay", title={"text": title, "font": {"size": 14}}, height=300,
        margin={"l": 10, "r": 10, "t": 40, "b": 10}, xaxis_title=x, yaxis_title="count",
    )
    return fig


def curves(frame: pd.DataFrame, x: str, y: str, group: str, title: str, low: str | None = None, high: str | None = None) -> go.Figure:
    """Lines of ``y`` over ``x``, one per ``group``, with an optional band from ``low`` to ``high``."""
    fig = go.Figure()
    for i, (key, rows) in enumerate(frame.groupby(group, sort=True)):
        colour = PALETTE[i % len(PALETTE)]
        if low and high:
            fig.add_trace(go.Scatter(x=list(rows[x]) + list(rows[x])[::-1], y=list(rows[high]) + list(rows[low])[::-1],
                                     fill="toself", fillcolor=colour, opacity=0.15, line={"width": 0},
                                     showlegend=False, hoverinfo="skip"))
        fig.add_trace(go.Scatter(x=rows[x], y=rows[y], mode="lines+markers", name=str(key), line={"color": colour}))
    fig.update_layout(title={"text": title, "font": {"size": 14}}, height=320,
                      margin={"l": 10, "r": 10, "t": 40, "b": 10}, xaxis_title=x, yaxis_title=y)
    return fig
