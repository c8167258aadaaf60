"""Statistics: win rates (by seat, building owned, building built by round k, role per round),
scores, game length and score curves over the games the filters select. A section appears only for a
game that declares what it counts (``GameDeclaration.build`` for the buildings, ``choice`` for the
roles), and the score is named as the game names it (``score_unit``).

Every rate is shown with its sample size (saying what it counts), a 95 % Wilson interval, its
baseline (what chance gives a player of that player count) and its lift (rate / baseline). Rankings
use the lower end of the lift's interval, or the lift itself, over rows with at least a minimum n.
The filters are in the URL (``/statistics?game=<game>&counts=2,3&...``)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboards import charts, data, ui, url_state
from dashboards.plain import isolate
from dashboards.stats import FEW_GAMES, MAX_MIN_N, arrow, plural, ranked, rate_label
from dashboards.stats_queries import (
    ADDED_BY,
    TIES,
    Filters,
    game_lengths,
    game_moves,
    has_win_chance,
    player_games,
    player_names,
    score_counts,
    score_summary,
    summary,
    vp_by_round,
    win_chance_added,
    win_rate_by_building,
    win_rate_by_building_round,
    win_rate_by_role_round,
    win_rate_by_seat,
)
from replay.game import GameDeclaration, declarations

TIE_LABELS = {
    "full": "a win for each tied player",
    "share": "1/k of a win for each of k tied players",
}
#: "Win chance added" by: each option's label, and what its n counts.
ADDED_LABELS = {"building": "building built", "role": "role chosen", "kind": "decision kind"}
ADDED_N = {"building": "builds (n)", "role": "choices (n)", "kind": "moves (n)"}
RANK_LABELS = {"lift_low": "lift's 95% interval, lower end", "lift": "lift (point estimate)"}


def tabs_of(declared: GameDeclaration | None) -> list[str]:
    """The page's tabs for a game: the third is its score's curves ("VP curves", "Points curves")."""
    unit = declared.score_unit if declared is not None else "score"
    return ["Win rates", "Scores and length", f"{unit[:1].upper()}{unit[1:]} curves"]


def rate_table(frame: pd.DataFrame, label: str, n_label: str, n_help: str, split: bool = False,
               first: tuple[str, ...] = ()) -> None:
    """A rate table: ``first`` columns, the player count when ``split``, the label, n (named by what
    it counts), wins, rate and its interval, baseline, lift and its interval, and the few-games mark.
    Rates in percent."""
    columns = list(first) + (["player_count"] if split and "player_count" in frame.columns else []) + [
        label, "n", "wins", "win_rate", "ci_low", "ci_high", "baseline", "lift", "lift_low", "lift_high", "few_games"]
    shown = frame[columns].copy()
    for column in ("win_rate", "ci_low", "ci_high", "baseline"):
        shown[column] = shown[column] * 100
    config = {
        "player_count": st.column_config.NumberColumn("players in game"),
        "seat": st.column_config.NumberColumn("seat", help="Numbered from 0 (the first player), as in SQL."),
        "n": st.column_config.NumberColumn(n_label, help=n_help),
        "wins": st.column_config.NumberColumn("wins", format="%.2f" if (frame["wins"] % 1 != 0).any() else "%d",
                                              help="Wins among the n; a full tie counts as the tie setting says."),
        "win_rate": st.column_config.NumberColumn("win rate", format="%.1f%%"),
        "ci_low": st.column_config.NumberColumn("95% CI low", format="%.1f%%"),
        "ci_high": st.column_config.NumberColumn("95% CI high", format="%.1f%%"),
        "baseline": st.column_config.NumberColumn(
            "baseline", format="%.1f%%",
            help="The win rate chance gives these players: the win share of all players of the same player "
                 "count in the selection (1 / players when ties are shared), averaged over the n."),
        "lift": st.column_config.NumberColumn("lift", format="%.2f", help="win rate / baseline; 1.00 = chance"),
        "lift_low": st.column_config.NumberColumn("lift low", format="%.2f", help="95% CI low / baseline"),
        "lift_high": st.column_config.NumberColumn("lift high", format="%.2f", help="95% CI high / baseline"),
        "few_games": st.column_config.CheckboxColumn(f"few (n < {FEW_GAMES})"),
    }
    st.dataframe(shown, hide_index=True, column_config=config, width="stretch",
                 height=min(400, 38 + 35 * max(1, len(frame))))


def ranked_bars(frame: pd.DataFrame, label: str, title: str, key: str) -> None:
    """The rows of ``frame`` with n >= the minimum n as lift bars, best first by the chosen ranking,
    and a line saying how many rows were left out."""
    shown, dropped = ranked(frame, min_n, rank_by)
    if split:
        shown = shown.assign(**{label: shown[label].astype(str)})
    if len(shown):
        st.plotly_chart(charts.rate_bars(shown, label, title, group="player_count" if split else None), key=key)
    else:
        st.info(f"{title}: no row has n >= {min_n}.")
    if dropped:
        st.caption(f"{plural(dropped, 'row')} with n < {min_n} left out of the chart (lower the minimum n to see "
                   "them; the table below has every row).")


def added_section(filters: Filters, split: bool) -> None:
    """"Win chance added": for each building built, role chosen or decision kind, the mean change of the
    mover's learned win chance across its moves with a 95 % interval, beside the movers' raw win rate;
    a line saying how to fill the win chances when the database has none."""
    st.subheader("Win chance added")
    if not has_win_chance():
        st.info("This database holds no learned win chances: fill them with governor winchance --db FILE "
                "(docs/analysis.md, \"Win chance added\").")
        return
    by = st.radio("By", added_options, format_func=ADDED_LABELS.__getitem__, key="stats_added", horizontal=True)
    added = win_chance_added(filters, by, split)
    st.caption(
        "Added: the mean change of the mover's learned win chance across the move (after it less before it, in "
        "points; the chance to win if every seat played like the expert bot from here, learned from that bot's "
        "games), with its 95 % interval. Beside it, the raw win rate of the players who made the move: a "
        "building strong players build has a high win rate, but adds only what building it changes. The move "
        "that ends a game adds what is left of its result.")
    if added.empty:
        st.info("No move of the selected games has win chances.")
        return
    columns = ["player_count"] * (split and "player_count" in added.columns) + [
        by, "n", "added", "added_low", "added_high", "win_rate", "ci_low", "ci_high", "few_games"]
    shown = added[columns].copy()
    for column in ("added", "added_low", "added_high", "win_rate", "ci_low", "ci_high"):
        shown[column] = shown[column] * 100
    st.dataframe(shown, hide_index=True, width="stretch", height=min(400, 38 + 35 * max(1, len(shown))), column_config={
        "player_count": st.column_config.NumberColumn("players in game"),
        by: st.column_config.TextColumn(ADDED_LABELS[by]),
        "n": st.column_config.NumberColumn(ADDED_N[by], help="Moves counted: a player making it twice counts twice."),
        "added": st.column_config.NumberColumn("added", format="%+.2f", help="Mean change of the mover's win chance, points."),
        "added_low": st.column_config.NumberColumn("95% CI low", format="%+.2f"),
        "added_high": st.column_config.NumberColumn("95% CI high", format="%+.2f"),
        "win_rate": st.column_config.NumberColumn("movers' win rate", format="%.1f%%"),
        "ci_low": st.column_config.NumberColumn("win rate low", format="%.1f%%"),
        "ci_high": st.column_config.NumberColumn("win rate high", format="%.1f%%"),
        "few_games": st.column_config.CheckboxColumn(f"few (n < {FEW_GAMES})"),
    })


st.title("Statistics")
ui.require_games()

kinds = data.frame("SELECT game, count(*) AS games, min(player_count) AS lo, max(player_count) AS hi, "
                   "min(TRY_CAST(played_at AS DATE)) AS first, max(TRY_CAST(played_at AS DATE)) AS last "
                   "FROM games GROUP BY game ORDER BY games DESC, game")
game_options = list(kinds["game"])
ranges = {
    str(r["game"]): (
        list(range(int(r["lo"]), int(r["hi"]) + 1)),
        (pd.Timestamp(r["first"]).date(), pd.Timestamp(r["last"]).date()) if pd.notna(r["first"]) else None,
    )
    for _, r in kinds.iterrows()
}


def reset_for_game() -> None:
    """A new game type: every one of its player counts and its whole date range, never the previous
    game's leftovers (a silent filter would skew every chart)."""
    counts_all, dates = ranges[st.session_state["stats_game"]]
    st.session_state["stats_counts"] = counts_all
    if dates:
        st.session_state["stats_dates"] = dates
    else:
        st.session_state.pop("stats_dates", None)


url_state.seed("stats_game", "game", url_state.one_of(game_options), game_options[0])
game = st.session_state["stats_game"]
# What the game declares: its score's words and the moves the building and role sections count (a game
# in the database that is not registered has none of them).
declared = declarations().get(game)
builds = declared is not None and declared.build is not None
chooses = declared is not None and declared.choice is not None
unit = declared.score_unit if declared is not None else "score"
TABS = tabs_of(declared)
counts_all, date_range = ranges[game]
url_state.seed("stats_counts", "counts", url_state.one_of(counts_all, int), counts_all, many=True)
st.session_state["stats_counts"] = [c for c in st.session_state["stats_counts"] if c in counts_all]
url_state.seed("stats_player", "player", str, None)
url_state.seed("stats_ties", "ties", url_state.one_of(TIES), "full")
url_state.seed("stats_min_n", "min_n", url_state.int_in(0, MAX_MIN_N), FEW_GAMES)
url_state.seed("stats_rank", "rank", url_state.one_of(RANK_LABELS), "lift_low")
url_state.seed("stats_split", "split", url_state.parse_bool, False)
url_state.seed("stats_humans", "humans", url_state.parse_bool, False)
url_state.seed("stats_tab", "tab", url_state.one_of(TABS), TABS[0])
if date_range:
    url_state.seed("stats_dates", "dates", url_state.parse_date, date_range, many=True)
    chosen_dates = st.session_state["stats_dates"]
    if not (isinstance(chosen_dates, list | tuple) and len(chosen_dates) in (1, 2)):
        st.session_state["stats_dates"] = date_range
    else:
        st.session_state["stats_dates"] = tuple(min(max(d, date_range[0]), date_range[1]) for d in chosen_dates)

# Rows that wrap: at any width every filter keeps a readable size (columns would squeeze them).
cols = [st.container(horizontal=True, gap="medium")] * 4
game = cols[0].selectbox("Game", game_options, format_func=ui.game_title, key="stats_game", on_change=reset_for_game,
                         width=170)
counts = cols[1].multiselect("Player count", counts_all, key="stats_counts", width=230,
                             help="Games with these numbers of players. All are chosen when the game changes.")
suggestions = player_names(game)
chosen_player = st.session_state.get("stats_player")
if chosen_player and chosen_player not in suggestions:
    suggestions = [chosen_player, *suggestions]
player = cols[2].selectbox(
    "Player", suggestions, index=None, placeholder="any player (type any name)", key="stats_player",
    accept_new_options=True, width=260,
    help="Only games with this player (exact name), and only this player's seats in the rates. The list "
         "suggests the 2,000 most frequent names; any other name can be typed.")
date_from = date_to = None
if date_range:
    chosen = cols[3].date_input("Played between", min_value=date_range[0], max_value=date_range[1], key="stats_dates",
                                width=240)
    if isinstance(chosen, tuple | list) and len(chosen) == 2 and tuple(chosen) != date_range:
        date_from, date_to = chosen
else:
    cols[3].caption("No game has a date: no date filter.", width=180)

opts = [st.container(horizontal=True, gap="large")] * 4
ties = opts[0].radio("A full tie counts as", TIES, format_func=lambda t: TIE_LABELS[t], key="stats_ties", width=260,
                     help="Full ties (same score and tiebreak) give several winners. 'A win for each' is the "
                          "players.won column of SQL; then the seat rates of a player count add up to more than "
                          "100%. '1/k' makes every game's wins add up to exactly 1.")
min_n = int(opts[1].number_input("Minimum n in charts", min_value=0, max_value=MAX_MIN_N, step=10,
                                 value=st.session_state["stats_min_n"], key="stats_min_n", width=160,
                                 help="Rows counting fewer players are left out of the ranked charts."))
# Only the buildings' charts are ranked: a game without buildings has no ranking to choose.
rank_by = opts[2].radio("Rank buildings by", list(RANK_LABELS), format_func=lambda r: RANK_LABELS[r], key="stats_rank",
                        width=230, help="The lower end of the 95% interval puts a building owned by 3 players at "
                                        "100% below one owned by 3,000 at 60%.") if builds else "lift_low"
split = opts[3].toggle("Split by player count", key="stats_split", width="content")
with_human = opts[3].toggle("Only games with a human player", key="stats_humans", width="content",
                            help="Leave out the games every seat of which an agent played (governor arena, "
                                 "simulate's bots): only games where at least one seat was a person.")

# The sliders of the Win rates tab: seeded here, so that they are in the URL whichever tab is open.
top_round = int(data.frame("SELECT max(rounds) AS r FROM games WHERE game = ?", (game,))["r"].iloc[0] or 1)
default_k = min(5, max(2, top_round))
url_state.seed("stats_round_k", "k", url_state.int_in(1, max(2, top_round)), default_k)
url_state.seed("stats_role_round", "round", url_state.int_in(1, max(2, top_round)), None)
# "Win chance added" by building, role or kind of move: only what the game declares.
added_options = [b for b in ADDED_BY if (b != "building" or builds) and (b != "role" or chooses)]
url_state.seed("stats_added", "added", url_state.one_of(added_options), added_options[0])
if st.session_state["stats_added"] not in added_options:  # another game's choice
    st.session_state["stats_added"] = added_options[0]
chosen_k = st.session_state.get("stats_round_k")
chosen_role_round = st.session_state.get("stats_role_round")

url_state.publish({
    "game": game, "counts": counts if sorted(counts) != counts_all else None, "player": player,
    "dates": [date_from, date_to] if date_from and date_to else None,
    "ties": ties if ties != "full" else None, "min_n": min_n if min_n != FEW_GAMES else None,
    "rank": rank_by if rank_by != "lift_low" else None, "split": split or None, "humans": with_human or None,
    "tab": st.session_state["stats_tab"] if st.session_state["stats_tab"] != TABS[0] else None,
    "k": chosen_k if chosen_k != default_k else None, "round": chosen_role_round if chosen_role_round != 1 else None,
    "added": st.session_state["stats_added"] if st.session_state["stats_added"] != added_options[0] else None,
})

if not counts:
    st.info("Choose at least one player count.")
    st.stop()
if player and player_games(game, player) == 0:
    st.info(f"No {ui.game_title(game)} game has a player of that exact name: ")
    st.text(player)
    st.stop()

filters = Filters(game=game, player_counts=tuple(sorted(counts)), date_from=date_from, date_to=date_to,
                  player=player, ties=ties, with_human=with_human)
head = summary(filters)
games_n = int(head["games"] or 0)
seats_n = int(head["n"] or 0)
row = st.container(horizontal=True, gap="large")
row.metric("Games", f"{games_n:,}", help="Games that match every filter.", width="content")
row.metric("Player seats" if not player else "The player's seats", f"{seats_n:,}", width="content",
           help="Players counted: one per seat of each game (only the named player's with a player filter).")
row.metric("Average score", f"{head['avg_score']:.1f}" if pd.notna(head["avg_score"]) else "-", width="content")
row.metric("Average rounds", f"{head['avg_rounds']:.1f}" if pd.notna(head["avg_rounds"]) else "-", width="content")
if player and seats_n:
    baseline = float(head["expected"]) / seats_n
    lift = round(float(head["wins"]) / seats_n / baseline, 2) if baseline else None
    row.metric("The player's win rate", f"{float(head['wins']) / seats_n:.1%}",
               f"lift {lift:.2f}" if lift is not None else None, delta_color="off",
               delta_arrow=arrow(lift - 1) if lift is not None else "off",
               help="Win rate over the player's games; lift = win rate / the rate chance gives (baseline).", width="content")
    st.text(f"{isolate(player)}: {rate_label(float(head['wins']), seats_n, baseline)}")
st.caption(
    f"{ui.game_title(game)}, player counts {', '.join(map(str, sorted(counts)))} of "
    f"{', '.join(map(str, counts_all))}" + (f", played {date_from} to {date_to}" if date_from else "")
    + f". A full tie counts as {TIE_LABELS[ties]}. Seats are numbered from 0 (the first player), as in SQL.")
if games_n == 0:
    st.info("No game matches the filters.")
    st.stop()
if games_n < FEW_GAMES:
    st.warning(f"Only {plural(games_n, 'game')} {'matches' if games_n == 1 else 'match'}: every rate below "
               f"rests on few games (n < {FEW_GAMES}).")

win_tab, score_tab, curve_tab = st.tabs(TABS, key="stats_tab", on_change="rerun")

if win_tab.open:
    with win_tab:
        st.caption(
            "Bars: lift = win rate / baseline, with its 95 % Wilson interval; the dotted line at 1 is chance. Each "
            "bar reads 'win rate vs baseline'. The baseline is what a player of the same player count wins in this "
            f"selection ({'exactly 1 / players' if ties == 'share' else 'about 1 / players; a little more with full ties'}). "
            f"Pale bars rest on fewer than {FEW_GAMES} players.")
        # Beside the seats, what the game declares: the buildings owned, built by round k, and the roles.
        left, right = st.columns(2) if builds else (st.container(), None)
        with left:
            seats = win_rate_by_seat(filters)
            st.plotly_chart(charts.rate_bars(seats, "label", "Win rate by seat (n = games)"), key="stats_seat_chart")
            sums = seats.groupby("player_count")["win_rate"].sum()
            st.caption(
                "Seat rates summed per player count: "
                + ", ".join(f"{int(c)}p {s:.1%}" for c, s in sums.items())
                + (". Above 100% because a full tie counts as a win for every tied seat; choose '1/k' to make "
                   "them add up to 100%." if ties == "full" else ". With ties shared they add up to 100%."))
            rate_table(seats, "label", "games (n)", "Games with this seat: one player each.",
                       first=("player_count", "seat"))
        if right is not None:
            with right:
                owned = win_rate_by_building(filters, split)
                ranked_bars(owned, "building", "Win rate by building owned at the end (n = owners)",
                            "stats_building_chart")
        left, right = st.columns(2) if builds and chooses else (st.container(), st.container())
        if builds:
            with left:
                st.session_state["stats_round_k"] = min(max(1, st.session_state.get("stats_round_k") or default_k),
                                                        max(2, top_round))
                k = st.slider("Built by round k", 1, max(2, top_round), key="stats_round_k")
                built = win_rate_by_building_round(filters, k, split)
                ranked_bars(built, "building", f"Win rate by building built by round {k} (n = builders)",
                            "stats_built_chart")
        with right:
            roles = win_rate_by_role_round(filters, split) if chooses else pd.DataFrame()
            if len(roles):
                groups = list(roles.groupby("player_count")) if split else [(None, roles)]
                for count, part in groups:
                    part = part.assign(text=[f"{r:.0%} vs {b:.0%}, n={n}" + (" (few)" if f else "") for r, b, n, f in
                                             zip(part["win_rate"], part["baseline"], part["n"], part["few_games"])])
                    title = "Lift by role chosen, per round" + (f" ({int(count)} players)" if count else "")
                    # Cells resting on fewer than the minimum n stay blank rather than shout.
                    part = part.assign(shown_lift=part["lift"].where(part["n"] >= min_n))
                    st.plotly_chart(charts.heatmap(part, "round", "role", "shown_lift", title, text="text", centre=1.0),
                                    key=f"stats_role_heatmap_{count}")
                st.caption(f"Heat map: lift of the players who chose each role in each round; blank cells rest on "
                           f"fewer than {min_n} choices (late rounds: only long games reach them).")
                first, last = int(roles["round"].min()), max(int(roles["round"].max()), int(roles["round"].min()) + 1)
                st.session_state["stats_role_round"] = min(max(first, st.session_state.get("stats_role_round") or first),
                                                           last)
                chosen_round = st.slider("Round", first, last, key="stats_role_round")
                st.caption(f"Roles chosen in round {chosen_round}.")
                rate_table(roles[roles["round"] == chosen_round], "role", "choices (n)",
                           "Times the role was chosen in this round: one player in one game each (a role is chosen "
                           "at most once a round). In 2-player games the governor chooses twice a round, so one "
                           "player can count under two roles.", split)
        if builds:
            with st.expander("Tables: buildings (every row, whatever its n)"):
                st.caption("Owned at the end")
                rate_table(owned, "building", "owners (n)", "Players owning the building when the game ended.", split)
                st.caption(f"Built by round {k}")
                rate_table(built, "building", "builders (n)", f"Players who built it in rounds 1 to {k}.", split)
        added_section(filters, split)
        if not (builds and chooses):
            missing = [what for what, has in (("buildings", builds), ("roles", chooses)) if not has]
            st.caption(f"{ui.game_title(game)} declares no {' and no '.join(missing)}: no win rate by "
                       f"{' or by '.join(m[:-1] for m in missing)} is shown.")

if score_tab.open:
    with score_tab:
        left, right = st.columns(2)
        scores = score_counts(filters)
        left.plotly_chart(charts.count_bars(scores, "score", "players", "result", "Final scores",
                                            f"final score ({unit})"), key="stats_scores")
        lengths = game_lengths(filters)
        lengths["players in game"] = lengths["player_count"].astype(str) + " players"
        right.plotly_chart(charts.count_bars(lengths, "rounds", "games", "players in game", "Game length (rounds)",
                                             "rounds"), key="stats_rounds")
        moves = game_moves(filters)
        moves["players in game"] = moves["player_count"].astype(str) + " players"
        left.plotly_chart(charts.count_bars(moves, "moves", "games", "players in game",
                                            "Game length (moves, in bins of 10)", "moves"), key="stats_moves")
        right.dataframe(score_summary(filters), hide_index=True, width="stretch")

if curve_tab.open:
    with curve_tab:
        curves = vp_by_round(filters)
        st.plotly_chart(charts.curves(curves, "round", "vp", "group", f"Average {unit} at the end of each round",
                                      low="low", high="high", y_title=unit), key="stats_vp_curves")
        st.caption("Band: 95 % interval of the mean. Late rounds rest on fewer games (only long games reach them); "
                   "n counts players.")
        st.dataframe(curves[["round", "group", "vp", "n"]].round(2), hide_index=True, width="stretch", height=300,
                     column_config={"vp": st.column_config.NumberColumn(unit)})
