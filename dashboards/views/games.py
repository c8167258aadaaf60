"""Games: every stored game in a table to search and filter; selecting a row opens it in Replay."""

from __future__ import annotations

import streamlit as st

from dashboards import data, ui

st.title("Games")
ui.require_games()

games = data.games_list()
types = sorted(games["game"].unique())
counts = sorted(int(c) for c in games["player_count"].unique())

left, middle, right = st.columns([3, 2, 2])
search = left.text_input(
    "Search", key="games_search", placeholder="player, winner, game id or source",
    help="Case-insensitive; matches any of players, winner, game id and source.",
)
chosen_types = middle.multiselect("Game", types, default=types, format_func=ui.game_title, key="games_types")
chosen_counts = right.multiselect("Players", counts, default=counts, key="games_counts")

shown = games[games["game"].isin(chosen_types) & games["player_count"].isin(chosen_counts)]
if search.strip():
    needle = search.strip().lower()
    haystack = (
        shown["players"].fillna("") + " " + shown["winner"].fillna("") + " " + shown["game_id"] + " "
        + shown["source"].fillna("")
    ).str.lower()
    shown = shown[haystack.str.contains(needle, regex=False)]
dated = games["played_at"].notna()
if dated.any():
    dates = games.loc[dated, "played_at"].astype(str).str[:10]
    low, high = st.select_slider(
        "Played between", options=sorted(dates.unique()), value=(dates.min(), dates.max()), key="games_dates"
    )
    keep = shown["played_at"].isna() | shown["played_at"].astype(str).str[:10].between(low, high)
    shown = shown[keep]

st.caption(f"{len(shown):,} of {len(games):,} games. Select a row to replay the game.")
view = shown.assign(game=shown["game"].map(ui.game_title), played_at=shown["played_at"].fillna("")).reset_index(drop=True)
event = st.dataframe(
    view,
    key="games_table",
    hide_index=True,
    on_select="rerun",
    selection_mode="single-row",
    height=560,
    column_order=["game", "player_count", "players", "played_at", "winner", "rounds", "moves", "source", "game_id"],
    column_config={
        "game": st.column_config.TextColumn("Game", width="small"),
        "player_count": st.column_config.NumberColumn("Players", width="small"),
        "players": st.column_config.TextColumn("Names", width="medium"),
        "played_at": st.column_config.TextColumn("Date"),
        "winner": st.column_config.TextColumn("Winner"),
        "rounds": st.column_config.NumberColumn("Rounds", width="small"),
        "moves": st.column_config.NumberColumn("Length (moves)", width="small"),
        "source": st.column_config.TextColumn("Source"),
        "game_id": st.column_config.TextColumn("Game id"),
    },
)
rows = event.selection.rows if event is not None else []
if rows:
    game_id = str(view.iloc[rows[0]]["game_id"])
    st.switch_page("views/replay.py", query_params={"game": game_id, "step": "0"})
