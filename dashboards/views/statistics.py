"""Statistics: win rates (by seat, building owned, building built by round k, role per round),
scores, game length and VP curves over the games the filters select. Every rate shows its sample
size and a 95 % Wilson interval; rates from fewer than 30 games are marked."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboards import charts, data, ui
from dashboards.stats import FEW_GAMES, rate_label
from dashboards.stats_queries import (
    Filters,
    game_lengths,
    player_names,
    scores,
    summary,
    vp_by_round,
    win_rate_by_building,
    win_rate_by_building_round,
    win_rate_by_role_round,
    win_rate_by_seat,
)

RATE_COLUMNS = {
    "n": st.column_config.NumberColumn("n (players)"),
    "wins": st.column_config.NumberColumn("wins"),
    "win_rate": st.column_config.NumberColumn("win rate", format="%.1f%%"),
    "ci_low": st.column_config.NumberColumn("95% CI low", format="%.1f%%"),
    "ci_high": st.column_config.NumberColumn("95% CI high", format="%.1f%%"),
    "few_games": st.column_config.CheckboxColumn(f"few (n < {FEW_GAMES})"),
}


def rate_table(frame: pd.DataFrame, label: str) -> None:
    """A rate table: label, n, wins, rate and interval in percent, and the few-games mark."""
    shown = frame[[label, "n", "wins", "win_rate", "ci_low", "ci_high", "few_games"]].copy()
    for column in ("win_rate", "ci_low", "ci_high"):
        shown[column] = shown[column] * 100
    st.dataframe(shown, hide_index=True, column_config=RATE_COLUMNS, width="stretch",
                 height=min(400, 38 + 35 * len(frame)))


st.title("Statistics")
ui.require_games()

kinds = data.frame("SELECT game, count(*) AS games, min(player_count) AS lo, max(player_count) AS hi, min(TRY_CAST(played_at AS DATE)) AS first, "
                   "max(TRY_CAST(played_at AS DATE)) AS last FROM games GROUP BY game ORDER BY games DESC, game")
cols = st.columns([1.2, 1.5, 2, 2])
game = cols[0].selectbox("Game", list(kinds["game"]), format_func=ui.game_title, key="stats_game")
info = kinds[kinds["game"] == game].iloc[0]
counts_all = list(range(int(info["lo"]), int(info["hi"]) + 1))
counts = cols[1].multiselect("Player count", counts_all, default=counts_all, key="stats_counts")
player = cols[2].selectbox("Player", player_names(game), index=None, placeholder="any player", key="stats_player",
                           help="Only games with this player, and only this player's seats in the rates.")
date_from = date_to = None
if pd.notna(info["first"]):
    first, last = info["first"], info["last"]
    first = first.date() if hasattr(first, "date") else first
    last = last.date() if hasattr(last, "date") else last
    chosen = cols[3].date_input("Played between", value=(first, last), min_value=first, max_value=last, key="stats_dates")
    if isinstance(chosen, tuple | list) and len(chosen) == 2 and (chosen[0] != first or chosen[1] != last):
        date_from, date_to = chosen
else:
    cols[3].caption("No game has a date: no date filter.")

filters = Filters(game=game, player_counts=tuple(counts), date_from=date_from, date_to=date_to, player=player)
head = summary(filters)
games_n = int(head["games"] or 0)
metrics = st.columns(5)
metrics[0].metric("Games", f"{games_n:,}")
metrics[1].metric("Player seats", f"{int(head['n'] or 0):,}")
metrics[2].metric("Average score", f"{head['avg_score']:.1f}" if pd.notna(head["avg_score"]) else "-")
metrics[3].metric("Average rounds", f"{head['avg_rounds']:.1f}" if pd.notna(head["avg_rounds"]) else "-")
if player:
    metrics[4].metric(f"{player} wins", rate_label(int(head["wins"] or 0), int(head["n"] or 0)))
if games_n == 0:
    st.info("No game matches the filters.")
    st.stop()
if games_n < FEW_GAMES:
    st.warning(f"Only {games_n} games match: every rate below rests on few games (n < {FEW_GAMES}).")

win_tab, score_tab, curve_tab = st.tabs(["Win rates", "Scores and length", "VP curves"], key="stats_tab", on_change="rerun")

if win_tab.open:
    with win_tab:
        st.caption(f"Bars: win rate with its 95 % Wilson interval; pale bars rest on fewer than {FEW_GAMES} players.")
        left, right = st.columns(2)
        with left:
            seats = win_rate_by_seat(filters)
            st.plotly_chart(charts.rate_bars(seats, "label", "Win rate by seat", sort=False), key="stats_seat_chart")
            rate_table(seats, "label")
        with right:
            owned = win_rate_by_building(filters)
            st.plotly_chart(charts.rate_bars(owned, "building", "Win rate by building owned at the end"),
                            key="stats_building_chart")
        left, right = st.columns(2)
        with left:
            top_round = int(data.frame("SELECT max(rounds) AS r FROM games WHERE game = ?", (game,))["r"].iloc[0] or 1)
            k = st.slider("Built by round k", 1, max(1, top_round), min(5, top_round), key="stats_round_k")
            built = win_rate_by_building_round(filters, k)
            st.plotly_chart(charts.rate_bars(built, "building", f"Win rate by building built by round {k}"),
                            key="stats_built_chart")
        with right:
            roles = win_rate_by_role_round(filters)
            if len(roles):
                roles["text"] = [f"n={n}, {lo:.0%}-{hi:.0%}" + (" (few)" if f else "")
                                 for n, lo, hi, f in zip(roles["n"], roles["ci_low"], roles["ci_high"], roles["few_games"])]
                st.plotly_chart(charts.heatmap(roles, "round", "role", "win_rate", "Win rate by role chosen, per round",
                                               text="text"), key="stats_role_heatmap")
                chosen_round = st.slider("Round", int(roles["round"].min()), int(roles["round"].max()), 1,
                                         key="stats_role_round")
                rate_table(roles[roles["round"] == chosen_round], "role")
        with st.expander("Tables: buildings"):
            rate_table(owned, "building")
            rate_table(built, "building")

if score_tab.open:
    with score_tab:
        left, right = st.columns(2)
        final = scores(filters)
        final["result"] = final["won"].map({True: "winners", False: "the rest"})
        left.plotly_chart(charts.histogram(final, "score", "result", "Final scores"), key="stats_scores")
        lengths = game_lengths(filters)
        lengths["players"] = lengths["player_count"].astype(str) + " players"
        right.plotly_chart(charts.histogram(lengths, "rounds", "players", "Game length (rounds)"), key="stats_rounds")
        left.plotly_chart(charts.histogram(lengths, "moves", "players", "Game length (moves)"), key="stats_moves")
        table = final.groupby(["player_count", "result"])["score"].describe()[["count", "mean", "min", "50%", "max"]]
        right.dataframe(table.round(1), width="stretch")

if curve_tab.open:
    with curve_tab:
        curves = vp_by_round(filters)
        st.plotly_chart(charts.curves(curves, "round", "vp", "group", "Average VP at the end of each round",
                                      low="low", high="high"), key="stats_vp_curves")
        st.caption("Band: 95 % interval of the mean. Late rounds rest on fewer games (only long games reach them).")
        st.dataframe(curves[["round", "group", "vp", "n"]].round(2), hide_index=True, width="stretch", height=300)
