"""Players: a leaderboard of skill ratings per game type, and one player's games, results, win rate by
seat and player count, favourite roles and buildings, and rating after each game. Ratings are OpenSkill
(Plackett-Luce) ratings computed at import (``ingest.ratings``). A bot (an agent of ``governor arena``,
one player per agent name and version) is marked as one, and the page lists all players, humans only
or bots only. The game type, the filter and the player live in the URL
(``?type=<game>&who=bots&name=heuristic%20v1&bot=1``). Names are shown as plain text only.

Accuracy (0-100 per analysed seat, docs/analysis.md "Accuracy") is shown for the games with a stored
analysis: each player's mean over them beside the leaderboard, and for one player its trend and its
mean by game type and player count.

Luck and skill (in games, docs/winchance.md "Luck and skill") are shown for the games whose luck is
stored (``governor winchance --luck``): each player's sums over them in the leaderboard, and beside one
player's results in those games ("won 12 of 20; luck +1.8 games; skill -0.4 games")."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dashboards import charts, data, ui, url_state
from dashboards.explorer_queries import interval_text
from dashboards.plain import bdi, isolate, isolate_column
from dashboards.player_queries import (
    MIN_GAMES,
    WHO,
    accuracy_board,
    accuracy_by_count,
    accuracy_history,
    buildings,
    by_player_count,
    by_seat,
    game_types,
    games,
    has_analyses,
    has_luck,
    leaderboard,
    luck_board,
    luck_words,
    player_luck,
    player_names,
    rating,
    rating_history,
    results,
    roles,
)
from dashboards.stats import FEW_GAMES, points_vs_chance, wilson

#: The largest minimum of rated games the leaderboard takes.
MAX_MIN_GAMES = 1_000_000


def _percent(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """A copy with the interval as text (``ci``) and ``columns`` turned from fractions to percent."""
    out = frame.copy()
    if "ci_low" in out.columns:
        out["ci"] = interval_text(out)
    for column in columns:
        out[column] = out[column] * 100
    return out


def _rate_columns(n_help: str) -> dict[str, Any]:
    return {
        "n": st.column_config.NumberColumn("n", help=n_help),
        "wins": st.column_config.NumberColumn("wins"),
        "win_rate": st.column_config.NumberColumn("win rate", format="%.1f%%"),
        "ci": st.column_config.TextColumn("95% CI", help="Wilson score interval of the win rate"),
        "baseline": st.column_config.NumberColumn("baseline", help="Chance: 1 / player count", format="%.1f%%"),
        "few_games": st.column_config.CheckboxColumn(f"few (< {FEW_GAMES})"),
    }


def _set_player(player: tuple[str, bool] | None) -> None:
    """Put the chosen player (name, bot) in the URL (``name``, and ``bot=1`` for a bot), or none."""
    for param in ("name", "bot"):
        if param in st.query_params:
            del st.query_params[param]
    if player:
        st.query_params["name"] = player[0]
        if player[1]:
            st.query_params["bot"] = "1"


def _on_type() -> None:
    st.query_params["type"] = st.session_state["players_type"]
    _set_player(None)


def _on_who() -> None:
    who = st.session_state["players_who"]
    if who == "all":
        if "who" in st.query_params:
            del st.query_params["who"]
    else:
        st.query_params["who"] = who


def _on_name() -> None:
    _set_player(st.session_state.get("players_name"))


def _shown(player: tuple[str, bool]) -> str:
    """A player as the list shows it: the name isolated, a bot marked."""
    return isolate(player[0]) + (" (bot)" if player[1] else "")


def _accuracy_interval(frame: pd.DataFrame) -> list[str]:
    """Each row's 95 % interval of the mean accuracy as text (blank for one game)."""
    return ["" if pd.isna(low) else f"{low:.1f}-{high:.1f}" for low, high in zip(frame["low"], frame["high"])]


def _accuracy_chart(history: pd.DataFrame) -> go.Figure:
    """The player's accuracy in each analysed game (points, oldest first) and its running mean (line)."""
    x = history["number"].tolist()
    running = history["accuracy"].expanding().mean().tolist()
    hover = [f"{'' if pd.isna(d) else d} {g[:12]}: {a:.1f}" for d, g, a in
             zip(history["played_at"], history["game_id"], history["accuracy"])]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=x, y=history["accuracy"].tolist(), mode="markers", name="accuracy in the game",
                             marker={"color": charts.PALETTE[0], "size": 7}, text=[charts.chart_text(h) for h in hover],
                             hoverinfo="text"))
    fig.add_trace(go.Scatter(x=x, y=running, mode="lines", name="mean so far",
                             line={"color": charts.PALETTE[1], "width": 2}))
    fig.update_layout(title={"text": "Accuracy in each analysed game"}, xaxis_title="analysed games, oldest first",
                      yaxis_title="accuracy", yaxis_range=[0, 100], height=320,
                      margin={"l": 10, "r": 10, "t": 40, "b": 10}, legend={"orientation": "h", "y": -0.3})
    if len(history) == 1:  # one game: a range around the point, not plotly's default
        fig.update_xaxes(range=[0.5, 1.5], tickvals=[1])
    return fig


def _metric(box: Any, label: str, value: str, **options: Any) -> None:
    """A metric as wide as its figure, so that a row of them wraps instead of cutting figures."""
    box.metric(label, value, width="content", **options)


st.title("Players")
ui.require_games()
if not {"player_ratings", "player_roles", "player_builds"} <= data.tables():
    st.info("This database was made by an older governor: run `governor import` once (any log) to compute "
            "the ratings.")
    st.stop()

types = game_types()
game = url_state.raw_param("type") or ""
if game not in types:
    game = str(types[0])
st.session_state["players_type"] = game
st.selectbox("Game", types, format_func=ui.game_title, key="players_type", on_change=_on_type)

# -- leaderboard ------------------------------------------------------------------------------------
st.subheader("Leaderboard")
url_state.seed("players_min_games", "min_games", url_state.int_in(1, MAX_MIN_GAMES), MIN_GAMES)
min_games = st.number_input("Minimum rated games", min_value=1, max_value=MAX_MIN_GAMES, step=1,
                            value=st.session_state["players_min_games"], key="players_min_games")
if min_games != MIN_GAMES:
    st.query_params["min_games"] = str(int(min_games))
elif "min_games" in st.query_params:
    del st.query_params["min_games"]
url_state.seed("players_who", "who", lambda text: text if text in WHO else "all", "all")
who = st.radio("Show", list(WHO), format_func=WHO.__getitem__, horizontal=True, key="players_who", on_change=_on_who,
               help="Bots are the agents of governor arena: one player per agent name and version (heuristic v1).")
board = leaderboard(game, int(min_games), who)
# Each player's luck and skill over its games whose luck is stored, beside the ratings (none stored: no columns).
lucky = luck_board(game, who) if has_luck() else pd.DataFrame()
if len(lucky):
    board = board.merge(lucky[["name", "bot", "luck_games", "luck", "skill"]], on=["name", "bot"], how="left")
    # Beside the results: what chance and decisions made of them.
    order = list(board.columns)
    at = order.index("win_rate") + 1
    board = board[order[:at] + ["luck_games", "luck", "skill"] + [c for c in order[at:] if c not in
                                                                     ("luck_games", "luck", "skill")]]
kind = {"all": "players", "humans": "humans", "bots": "bots"}[who]
st.caption(
    "Skill ratings by OpenSkill (Plackett-Luce model), recomputed at every import from all games of this type "
    "in date order (undated games first, then by source id, its closing number compared as a number, then by "
    "game id): the same ratings governor arena's leaderboard gives its games. Everyone starts at mu 25, sigma "
    "8.33; the rating shown, mu - 3 sigma, is low until enough games confirm the skill. A player holding several "
    "seats of a game (a bot playing itself) is rated once, at the mean of its seats' ranks. "
    f"{len(board):,} {kind} with at least {int(min_games)} rated games. Select a row to see the player."
)
# The table's key follows the filter and the chosen player, so that a row picked earlier never overrides a later choice.
chosen_key = f"{who}:{url_state.raw_param('name') or ''}:{url_state.raw_param('bot') or ''}"
event = st.dataframe(
    _percent(board, ["win_rate"]).assign(name=isolate_column(board["name"])), key=f"players_board:{chosen_key}", hide_index=True,
    width="stretch", height=min(420, 38 + 35 * max(1, len(board))), selection_mode="single-row", on_select="rerun",
    column_config={
        "place": st.column_config.NumberColumn("#", width="small"),
        "name": st.column_config.TextColumn("player"),
        "bot": st.column_config.CheckboxColumn("bot", width="small", help="An agent of governor arena (name and version)"),
        "games": st.column_config.NumberColumn("games", help="Seats in rated games: a game counts once per seat the "
                                                             "player held (a game with one player only is not rated)"),
        "wins": st.column_config.NumberColumn("wins"),
        "win_rate": st.column_config.NumberColumn("win rate", format="%.1f%%"),
        "mu": st.column_config.NumberColumn("skill (mu)", format="%.2f"),
        "sigma": st.column_config.NumberColumn("uncertainty (sigma)", format="%.2f"),
        "ordinal": st.column_config.NumberColumn("rating (mu - 3 sigma)", format="%.2f"),
        "luck_games": st.column_config.NumberColumn("games with luck", help="Seats in games whose luck is stored "
                                                    "(governor winchance --luck): the luck and skill are over these"),
        "luck": st.column_config.NumberColumn("luck (games)", format="%+.2f", help=(
            "The sum over those games of what chance drew: the wins chance gave (+) or took (-)")),
        "skill": st.column_config.NumberColumn("skill (games)", format="%+.2f", help=(
            "The sum over those games of what decisions did, its own and its rivals': the wins they gave or took")),
    },
)
picked = event.selection.rows if event is not None else []
if picked:
    row = board.iloc[picked[0]]
    _set_player((str(row["name"]), bool(row["bot"])))
    st.rerun()

# -- accuracy over analysed games -------------------------------------------------------------------
analysed = has_analyses()
accurate = accuracy_board(game, who) if analysed else pd.DataFrame()
if len(accurate):
    st.markdown("**Accuracy over analysed games**")
    st.caption(
        "Accuracy (0-100) of each seat in the games of this type with a stored analysis (Replay page, or "
        "governor analyse --store): lichess's formula on the win chance each decision lost against the best "
        "candidate, losses within the estimates' noise counting as none (docs/analysis.md, Accuracy). The mean "
        "over the player's analysed games, with a 95% interval; tags per game."
    )
    st.dataframe(
        accurate.assign(name=isolate_column(accurate["name"]), ci=_accuracy_interval(accurate),
                        avg_loss=accurate["avg_loss"] * 100)[
            ["name", "bot", "games", "accuracy", "ci", "inaccuracies", "mistakes", "blunders", "avg_loss"]],
        key="players_accuracy", hide_index=True, width="stretch", height=min(420, 38 + 35 * len(accurate)),
        column_config={
            "name": st.column_config.TextColumn("player"),
            "bot": st.column_config.CheckboxColumn("bot", width="small"),
            "games": st.column_config.NumberColumn("analysed games"),
            "accuracy": st.column_config.NumberColumn("mean accuracy", format="%.1f"),
            "ci": st.column_config.TextColumn("95% CI", help="Normal interval of the mean over the games"),
            "inaccuracies": st.column_config.NumberColumn("inaccuracies / game", format="%.2f"),
            "mistakes": st.column_config.NumberColumn("mistakes / game", format="%.2f"),
            "blunders": st.column_config.NumberColumn("blunders / game", format="%.2f"),
            "avg_loss": st.column_config.NumberColumn("win chance lost / decision", format="%.2f pts"),
        },
    )
else:
    st.caption("No analysed game of this type yet: accuracy is shown for games with a stored analysis "
               "(Replay page, or governor analyse --store).")

# -- one player -------------------------------------------------------------------------------------
st.subheader("Player")
names = player_names(game, who)
wanted_name = url_state.raw_param("name")
wanted: tuple[str, bool] | None = None
if wanted_name is not None:
    wanted = (wanted_name, url_state.raw_param("bot") == "1")
    if wanted not in names:
        if wanted in player_names(game):
            st.warning("That player is not among the " + kind + " shown: choose All to see them.")
        else:
            st.warning("No player of that name in this game type.")
        wanted = None
st.session_state["players_name"] = wanted
st.selectbox("Player", names, key="players_name", index=None, placeholder="choose a player",
             on_change=_on_name, format_func=_shown,
             help="Every player seen in games of this type, most games first; bots are marked.")
if not wanted:
    st.stop()
name, bot = wanted

st.html(f"<h3 style='margin:0'>{bdi(name)}</h3>" if not bot else
        f"<h3 style='margin:0'>{bdi(name)} <span class='gv-bot' style='font-size:0.6em;font-weight:600;"
        "padding:0 0.4em;border:1px solid currentColor;border-radius:0.4em;opacity:0.75;vertical-align:middle'>"
        "bot</span></h3>")
head = results(game, name, bot)
rated = rating(game, name, bot)
history = rating_history(game, name, bot)
# Metrics wrap onto more lines on a narrow screen rather than cutting their figures.
metrics = st.container(horizontal=True, gap="large")
played, won = int(head["games"]), int(head["wins"])
_metric(metrics, "Games", f"{played:,}", help=f"{won:,} won")
rate = won / played if played else 0.0
delta, delta_arrow = points_vs_chance(rate, float(head["baseline"]))
_metric(metrics, "Win rate", f"{rate:.1%}", delta=delta, delta_arrow=delta_arrow,
                  help=f"{won:,} wins in {played:,} games; chance (1 / player count) is {head['baseline']:.1%}")
low, high = wilson(won, played)
_metric(metrics, "95% interval", f"{low:.1%}-{high:.1%}".replace("%-", "-"),
                  help="Wilson score interval" + (f"; few games (fewer than {FEW_GAMES})" if played < FEW_GAMES else ""))
if rated is not None:
    _metric(metrics, "Rating (mu - 3 sigma)", f"{rated['ordinal']:.2f}",
                      help=f"skill mu {rated['mu']:.2f}, uncertainty sigma {rated['sigma']:.2f}, "
                      f"place {int(rated['place'])} of {int(rated['rated'])} rated players")
    # A player holding several seats of a game (a bot playing itself) is rated once a game.
    rated_seats = int(rated["games"])
    held = f" ({rated_seats} seats)" if rated_seats != len(history) else ""
    st.caption(f"Skill mu {rated['mu']:.2f} \u00b1 sigma {rated['sigma']:.2f}; place {int(rated['place'])} of "
               f"{int(rated['rated'])} rated players; {len(history)} rated games{held}; average score "
               f"{head['score']:.1f}, average rank {head['rank']:.2f}.")
else:
    _metric(metrics, "Rating (mu - 3 sigma)", "not rated")
# Its results beside its luck and skill, over the games whose luck is stored (GNU Backgammon's way).
luck_line = luck_words(player_luck(game, name, bot), played) if has_luck() else None
if luck_line is not None:
    ui.text(luck_line, "gv-text gv-luck")
accuracy_games = accuracy_history(game, name, bot) if analysed else pd.DataFrame()
if len(accuracy_games):
    _metric(metrics, "Accuracy", f"{accuracy_games['accuracy'].mean():.1f}",
            help=f"Mean accuracy (0-100) over {len(accuracy_games)} analysed games")

st.markdown("**Win rate by player count**")
counts = by_player_count(game, name, bot)
st.dataframe(
    _percent(counts, ["win_rate", "baseline"])[
        ["player_count", "n", "wins", "win_rate", "ci", "baseline", "score", "few_games"]],
    key="players_counts", hide_index=True, width="stretch",
    column_config={"player_count": st.column_config.NumberColumn("players"),
                   "score": st.column_config.NumberColumn("avg score", format="%.1f"),
                   **_rate_columns("Games at this player count")},
)
st.markdown("**Win rate by seat**")
seats = by_seat(game, name, bot)
st.dataframe(
    _percent(seats, ["win_rate", "baseline"])[
        ["player_count", "seat", "n", "wins", "win_rate", "ci", "baseline", "few_games"]],
    key="players_seats", hide_index=True, width="stretch",
    column_config={"player_count": st.column_config.NumberColumn("players"),
                   "seat": st.column_config.NumberColumn("seat", help="Numbered from 0 (the first governor), as in SQL"),
                   **_rate_columns("Games in this seat")},
)

st.markdown("**Favourite roles**")
chosen = roles(game, name, bot)
st.dataframe(
    _percent(chosen, ["share", "win_rate"])[
        ["role", "choices", "share", "n", "wins", "win_rate", "ci"]],
    key="players_roles", hide_index=True, width="stretch",
    column_config={"role": st.column_config.TextColumn("role"),
                   "choices": st.column_config.NumberColumn("choices", help="Times the player chose it"),
                   "share": st.column_config.NumberColumn("share", help="Of the player's role choices", format="%.1f%%"),
                   **_rate_columns("Games in which the player chose it at least once")},
)
st.markdown("**Favourite buildings**")
built = buildings(game, name, bot)
st.dataframe(
    _percent(built, ["share", "win_rate"])[
        ["building", "n", "share", "round", "wins", "win_rate", "ci"]],
    key="players_buildings", hide_index=True, width="stretch", height=min(420, 38 + 35 * max(1, len(built))),
    column_config={"building": st.column_config.TextColumn("building"),
                   "share": st.column_config.NumberColumn("share", help="Of the player's games", format="%.1f%%"),
                   "round": st.column_config.NumberColumn("first round", format="%.1f",
                                                          help="Average round in which the player first built it"),
                   **_rate_columns("Games in which the player built it")},
)

if len(history):
    st.plotly_chart(charts.rating_history(history), key="players_rating_chart")

if len(accuracy_games):
    st.plotly_chart(_accuracy_chart(accuracy_games), key="players_accuracy_chart")
    st.markdown("**Accuracy by game and player count**")
    by_count = accuracy_by_count(name, bot)
    st.dataframe(
        by_count.assign(game=[ui.game_title(g) for g in by_count["game"]], ci=_accuracy_interval(by_count))[
            ["game", "player_count", "games", "accuracy", "ci", "blunders"]],
        key="players_accuracy_counts", hide_index=True, width="stretch",
        column_config={"game": st.column_config.TextColumn("game"),
                       "player_count": st.column_config.NumberColumn("players"),
                       "games": st.column_config.NumberColumn("analysed games"),
                       "accuracy": st.column_config.NumberColumn("mean accuracy", format="%.1f"),
                       "ci": st.column_config.TextColumn("95% CI"),
                       "blunders": st.column_config.NumberColumn("blunders / game", format="%.2f")},
    )

st.markdown("**Games**")
mine = games(game, name, bot)
mine["played_at"] = mine["played_at"].fillna("")
mine["open"] = [f"replay?game={g}&step=0" for g in mine["game_id"]]
st.dataframe(
    mine[["open", "played_at", "player_count", "seat", "score", "rank", "won", "rounds", "players", "winner", "game_id"]],
    key="players_games", hide_index=True, width="stretch",
    column_config={
        "open": st.column_config.LinkColumn("replay", display_text="open"),
        "played_at": st.column_config.TextColumn("date"),
        "player_count": st.column_config.NumberColumn("players"),
        "seat": st.column_config.NumberColumn("seat", help="Numbered from 0 (the first governor), as in SQL"),
        "won": st.column_config.CheckboxColumn("won"),
        "players": st.column_config.TextColumn("names"),
        "winner": st.column_config.TextColumn("winner"),
        "game_id": st.column_config.TextColumn("game id"),
    },
)
