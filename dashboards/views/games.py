"""Games: the stored games in a table to search and filter (player, winner, winning score, building
owned at the end, end reason, rounds, date, game type, player count); selecting a row opens it in
Replay, or, in compare mode, selecting two rows shows them side by side (final boards, VP curves
on one chart). Each row says whether the game has a stored analysis, and "Analyse the rest" analyses
the others in the background (``dashboards.analyse_panel``). The filters and the compared games are in the URL. Filtering runs in SQL; the table
shows the newest ``SHOWN`` matches."""

from __future__ import annotations

from datetime import date
from html import escape
from typing import Any, cast

import pandas as pd
import streamlit as st

from dashboards import analyse_panel, board_parts, charts, data, ui, url_state
from dashboards.plain import NAME_CHARS, cut, isolate, isolate_column, isolated, name_html, sql_name, sql_names
from dashboards.stats import plural
from replay.game import declarations

#: Rows sent to the browser at most (the count of all matches is always given).
SHOWN = 2000
#: The height of a final board's frame: the status bar, then a panel per seat (stacked in a half-page column).
BOARD_HEIGHT_BAR, BOARD_HEIGHT_SEAT = 150, 330
OWNERS = {"anyone": "any player", "winner": "a winner"}
#: Pixel widths of the narrow number columns: each header shows whole ("small" cut them to
#: "Winning sco" and "Length (mo").
HEADER_WIDTHS = {"Players": 76, "Winning score": 120, "Rounds": 76, "Length (moves)": 128, "Analysed": 96}


def _range(raw: list[Any], low: int, high: int) -> tuple[int, int]:
    """A (low, high) pair from the URL, clamped to the allowed bounds (``ValueError`` when malformed)."""
    if len(raw) != 2:
        raise ValueError("a range needs two numbers")
    a, b = sorted(int(v) for v in raw)
    return max(low, a), min(high, b)


def fitting_counts(chosen_types: list[str], counts_of: dict[str, list[int]]) -> list[int]:
    """Every player count the chosen game types were played with (of all types when none is chosen)."""
    picked = chosen_types or list(counts_of)
    return sorted({c for game in picked for c in counts_of.get(game, [])})


def filtered_games(where: list[str], params: list[Any], limit: int = SHOWN) -> tuple[pd.DataFrame, int]:
    """The newest ``limit`` games matching every condition in ``where`` (SQL over ``games g`` and
    ``s``, the winning score per game), and how many match in all. Names and sources are text to show,
    each isolated (``plain.sql_names``): a right-to-left name keeps the names around it in order."""
    players, winner = sql_names("g.players"), sql_names("g.winner_names")
    source = sql_name("coalesce(g.source_id, regexp_extract(g.file, '[^/]+$'))")
    sql = (
        "WITH s AS (SELECT game_id, max(score) AS top_score FROM players GROUP BY game_id) "
        f"SELECT g.game_id, g.game, g.player_count, {players} AS players, g.played_at, "
        f"{winner} AS winner, s.top_score, g.rounds, g.moves, g.end_reason, "
        f"{source} AS source, g.game_id IN (SELECT game_id FROM analysis) AS analysed, count(*) OVER () AS matches "
        "FROM games g JOIN s USING (game_id) "
        + (f"WHERE {' AND '.join(where)} " if where else "")
        + "ORDER BY g.played_at DESC NULLS LAST, g.imported_at DESC, g.file, g.file_index LIMIT ?"
    )
    rows = data.frame(sql, tuple(params + [limit]))
    total = int(rows["matches"].iloc[0]) if len(rows) else 0
    return rows.drop(columns=["matches"]), total


def final_state(game: str, game_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The stored table and seats after the last step of one game."""
    states = data.frame(f'SELECT * FROM "{game}_states" WHERE game_id = ? ORDER BY step DESC LIMIT 1', (game_id,))
    step = int(states["step"].iloc[0])
    seats = data.frame(f'SELECT * FROM "{game}_player_states" WHERE game_id = ? AND step = ? ORDER BY seat', (game_id, step))
    return _records(states)[0], _records(seats)


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [{k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()} for row in frame.to_dict("records")]


def vp_by_round(game: str, game_id: str) -> pd.DataFrame:
    """Each seat's VP at the end of every round of one game (the state after the round's last move)."""
    return data.frame(
        "SELECT e.round, ps.seat, ps.vp FROM (SELECT round, max(step) AS step FROM moves WHERE game_id = ? GROUP BY round) e "
        f'JOIN "{game}_player_states" ps ON ps.game_id = ? AND ps.step = e.step ORDER BY e.round, ps.seat',
        (game_id, game_id),
    )


def compare(ids: list[str]) -> None:
    """Two games side by side: facts, final board and result of each, and every seat's VP by round
    of both games on one chart (the first game solid, the second dashed)."""
    ui.inject_css()
    rows = [data.game_row(i) for i in ids]
    missing = [i for i, r in zip(ids, rows) if r is None]
    if missing:
        ui.alert("warning", "Not in the database, so not compared: " + isolated(missing))
        return
    st.subheader("Compare")
    curves = []
    boards: list[tuple[str | None, int] | None] = []
    columns = st.columns(2, gap="medium")
    for letter, column, row in zip("AB", columns, rows):
        assert row is not None
        game, game_id = str(row["game"]), str(row["game_id"])
        names = [str(n) for n in row["players"]]
        winners = [int(w) for w in (row["winners"] if row["winners"] is not None else [])]
        with column:
            st.markdown(f"**{letter}: {ui.game_title(game)}**, {int(row['player_count'])} players, "
                        f"{int(row['rounds'])} rounds, {int(row['moves'])} moves")
            played = f" (played {escape(str(row['played_at']))})" if row.get("played_at") else ""
            st.html('<div class="gv-text">' + " \u2013 ".join(name_html(n) for n in names) + played + "</div>")
            st.caption(f"game id `{game_id}`; end: {row.get('end_reason') or 'not recorded'}")
            st.page_link("views/replay.py", label=f"Replay game {letter}", icon=":material/play_circle:",
                         query_params={"game": game_id, "step": "0"})
            result = data.game_players(game_id)
            result["name"] = isolate_column(result["name"])
            st.dataframe(result[["seat", "name", "score", "rank", "won", "tiebreak"]], hide_index=True, width="stretch",
                         column_config={"seat": st.column_config.NumberColumn("seat", help="From 0, as in SQL.")})
        if game in data.games_with_states() and board_parts.board_js(game) is not None:
            state, seats = final_state(game, game_id)
            boards.append((board_parts.static_board(game, state, seats, names, winners), len(seats)))
            vp = vp_by_round(game, game_id)
            # Each name isolated (and cut so that the label stays within the legend's length).
            vp["line"] = [f"{letter}: " + (isolate(cut(names[s], NAME_CHARS - 5)) if s < len(names) else str(s))
                          for s in vp["seat"]]
            vp["game"] = letter
            curves.append(vp)
        else:
            boards.append(None)
    if curves:
        # The score's words as the game declares them; two games of different kinds share the plain word.
        kinds = {str(row["game"]) for row in rows if row is not None}
        declared = declarations().get(kinds.pop()) if len(kinds) == 1 else None
        unit, name = (declared.score_unit, declared.score_name) if declared is not None else ("points", "Points")
        st.plotly_chart(charts.compare_curves(pd.concat(curves, ignore_index=True), unit=unit, name=name),
                        key="games_compare_vp")
    st.markdown("**Final boards**")
    for column, drawn in zip(st.columns(2, gap="medium"), boards):
        with column:
            if drawn is None or drawn[0] is None:
                st.info("No stored states for this game type: no final board.")
            else:
                # The board's own document in a frame: the Replay page's drawing and stylesheet, kept
                # apart from the page's (see dashboards.board_parts).
                st.iframe(drawn[0], height=BOARD_HEIGHT_BAR + BOARD_HEIGHT_SEAT * drawn[1])


def opened_game() -> str | None:
    """The game of the row just selected in the table (not in compare mode), or None. Read before the
    page draws anything, from the ids the previous run showed: opening a game then costs no query
    and no redraw of this page before the switch to Replay."""
    picked = st.session_state.get("games_table")
    shown = st.session_state.get("games_shown_ids") or []
    if st.session_state.get("games_compare_mode") or not picked:
        return None
    rows = list(picked["selection"]["rows"]) if "selection" in picked else []
    return str(shown[rows[0]]) if rows and 0 <= rows[0] < len(shown) else None


opened = opened_game()
if opened is not None:
    st.switch_page("views/replay.py", query_params={"game": opened, "step": "0"})

st.title("Games")
ui.require_games()
analyse_panel.show()

bounds = data.frame(
    "SELECT (SELECT list(DISTINCT game ORDER BY game) FROM games) AS types, "
    "(SELECT list(DISTINCT player_count ORDER BY player_count) FROM games) AS counts, "
    "(SELECT list(DISTINCT end_reason ORDER BY end_reason) FROM games WHERE end_reason IS NOT NULL) AS ends, "
    "(SELECT min(rounds) FROM games) AS r_lo, (SELECT max(rounds) FROM games) AS r_hi, "
    "(SELECT min(score) FROM players) AS s_lo, (SELECT max(score) FROM players) AS s_hi, "
    "(SELECT min(TRY_CAST(played_at AS DATE)) FROM games) AS d_lo, (SELECT max(TRY_CAST(played_at AS DATE)) FROM games) AS d_hi, "
    "(SELECT count(*) FROM games) AS total"
).iloc[0]
types = [str(t) for t in bounds["types"]]
counts = [int(c) for c in bounds["counts"]]
ends = [str(e) for e in (bounds["ends"] if bounds["ends"] is not None else [])]
rounds_range = (int(bounds["r_lo"]), max(int(bounds["r_hi"]), int(bounds["r_lo"]) + 1))
score_range = (int(bounds["s_lo"]), max(int(bounds["s_hi"]), int(bounds["s_lo"]) + 1))
date_range = (pd.Timestamp(bounds["d_lo"]).date(), pd.Timestamp(bounds["d_hi"]).date()) if pd.notna(bounds["d_lo"]) else None
buildings = data.frame("SELECT DISTINCT unnest(final_buildings) AS b FROM players ORDER BY b")["b"].tolist()
#: The player counts each game type was played with.
counts_of = {str(r["game"]): [int(c) for c in r["counts"]] for _, r in data.frame(
    "SELECT game, list(DISTINCT player_count ORDER BY player_count) AS counts FROM games GROUP BY game").iterrows()}
total_games = int(bounds["total"])

url_state.seed("games_search", "q", str, "")
url_state.seed("games_types", "types", url_state.one_of(types), types, many=True)
url_state.seed("games_counts", "counts", url_state.one_of(counts, int), counts, many=True)
url_state.seed("games_player", "player", str, "")
url_state.seed("games_winner", "winner", str, "")
url_state.seed("games_building", "building", url_state.one_of(buildings), None)
url_state.seed("games_owner", "owner", url_state.one_of(OWNERS), "anyone")
url_state.seed("games_end", "end", url_state.one_of(ends), [], many=True)
url_state.seed("games_compare_mode", "compare", lambda t: True, False)
for key, param, full in (("games_rounds", "rounds", rounds_range), ("games_score", "score", score_range)):
    url_state.seed(key, param, url_state.int_in(-1_000_000, 1_000_000), list(full), many=True)
    try:
        st.session_state[key] = _range(list(st.session_state[key]), *full)
    except ValueError:
        st.session_state[key] = full
if date_range:
    url_state.seed("games_dates", "dates", url_state.parse_date, date_range, many=True)
    chosen = st.session_state["games_dates"]
    if isinstance(chosen, list | tuple) and len(chosen) in (1, 2):
        st.session_state["games_dates"] = tuple(min(max(d, date_range[0]), date_range[1]) for d in chosen)
    else:
        st.session_state["games_dates"] = date_range

row1 = st.columns([3, 2, 2])
search = row1[0].text_input("Search", key="games_search", placeholder="player, winner, game id or source",
                            help="Case-insensitive; matches any part of players, winner, game id and source.")
chosen_types = row1[1].multiselect("Game", types, format_func=ui.game_title, key="games_types")
# The player counts of the chosen games; counts chosen that do not fit them (2 players, once only a
# game of 3 to 5 is chosen) give the default, every count of the chosen games, in the URL too.
fit_counts = fitting_counts(chosen_types, counts_of) or counts
if any(c not in fit_counts for c in st.session_state["games_counts"]):
    st.session_state["games_counts"] = fit_counts
chosen_counts = row1[2].multiselect("Players", fit_counts, key="games_counts",
                                    help="Player counts of the chosen games; a new choice of games that does not "
                                         "have a chosen count chooses all of its own.")
ss = st.session_state
narrowed = bool(ss["games_player"] or ss["games_winner"] or ss["games_building"] or ss["games_end"]
                or tuple(ss["games_score"]) != score_range or tuple(ss["games_rounds"]) != rounds_range
                or (date_range and tuple(ss["games_dates"]) != date_range))
more = st.expander("More filters: player, winner, building, end, score, rounds, date" + (" (some set)" if narrowed else ""),
                   expanded=narrowed)
row2 = more.columns([2, 2, 2, 1.3, 2])
player = row2[0].text_input("Player", key="games_player", placeholder="exact name, any case",
                            help="Games in which a player has this name (case does not matter): the name in the "
                                 "game's log or, for an agent, its name on the Players page (heuristic v1).")
winner = row2[1].text_input("Winner", key="games_winner", placeholder="exact name, any case",
                            help="Games won by a player of this name (a full tie has several winners).")
building = row2[2].selectbox("Building owned at the end", buildings, index=None, key="games_building",
                             placeholder="any building")
owner = row2[3].radio("owned by", list(OWNERS), format_func=lambda o: OWNERS[o], key="games_owner")
chosen_ends = row2[4].multiselect("End reason", ends, key="games_end", placeholder="any end",
                                  help="Why the game ended (the games.end_reason column).")
row3 = more.columns([2, 2, 2])
score = cast(tuple[int, int], row3[0].slider("Winning score", score_range[0], score_range[1], key="games_score",
                       help="The highest final score of the game."))
rounds = cast(tuple[int, int], row3[1].slider("Rounds", rounds_range[0], rounds_range[1], key="games_rounds"))
dates: tuple[date, date] | None = None
if date_range:
    picked = row3[2].date_input("Played between", min_value=date_range[0], max_value=date_range[1], key="games_dates",
                                help="Games without a date are left out once the range is narrowed.")
    if isinstance(picked, tuple | list) and len(picked) == 2 and tuple(picked) != date_range:
        dates = (picked[0], picked[1])
else:
    row3[2].caption("No game has a date: no date filter.")

where: list[str] = []
params: list[Any] = []
if search.strip():
    where.append("contains(lower(array_to_string(g.players, ' ') || ' ' || array_to_string(g.winner_names, ' ') || ' ' "
                 "|| g.game_id || ' ' || coalesce(g.source_id, '') || ' ' || coalesce(g.file, '')), ?)")
    params.append(search.strip().lower())
if sorted(chosen_types) != types:
    where.append("g.game IN (SELECT unnest(?::VARCHAR[]))")
    params.append(list(chosen_types))
if sorted(chosen_counts) != fit_counts:
    where.append("g.player_count IN (SELECT unnest(?::INT[]))")
    params.append(list(chosen_counts))
if player.strip():
    # A name in the log, or a player as the Players page names it (an agent: heuristic v1).
    where.append("(list_contains(list_transform(g.players, lambda x: lower(x)), ?) "
                 "OR g.game_id IN (SELECT game_id FROM players WHERE lower(name) = ?))")
    params += [player.strip().lower()] * 2
if winner.strip():
    where.append("list_contains(list_transform(g.winner_names, lambda x: lower(x)), ?)")
    params.append(winner.strip().lower())
if building:
    where.append("g.game_id IN (SELECT game_id FROM players WHERE list_contains(final_buildings, ?)"
                 + (" AND won)" if owner == "winner" else ")"))
    params.append(building)
if chosen_ends:
    where.append("g.end_reason IN (SELECT unnest(?::VARCHAR[]))")
    params.append(list(chosen_ends))
if tuple(score) != score_range:
    where.append("s.top_score BETWEEN ? AND ?")
    params += list(score)
if tuple(rounds) != rounds_range:
    where.append("g.rounds BETWEEN ? AND ?")
    params += list(rounds)
if dates:
    where.append("TRY_CAST(g.played_at AS DATE) BETWEEN ? AND ?")
    params += list(dates)

compare_mode = st.toggle("Compare two games", key="games_compare_mode",
                         help="Select two rows to see them side by side; without this, selecting a row opens it in Replay.")
compare_ids = [i for i in (url_state.raw_param("ids") or "").split(",") if i][:2]

shown, matches = filtered_games(where, params)
more_note = f" (the newest {SHOWN:,} shown; narrow the filters to see the others)" if matches > SHOWN else ""
st.caption(f"{matches:,} of {plural(total_games, 'game')}{more_note}. "
           + ("Select two rows to compare them." if compare_mode else "Select a row to replay the game."))
view = shown.assign(game=shown["game"].map(ui.game_title), played_at=shown["played_at"].fillna("")).reset_index(drop=True)
st.session_state["games_shown_ids"] = [str(i) for i in view["game_id"]]
event = st.dataframe(
    view,
    key="games_table_compare" if compare_mode else "games_table",
    hide_index=True,
    on_select="rerun",
    selection_mode="multi-row" if compare_mode else "single-row",
    height=420 if compare_mode else 560,
    # No date column when no game has a date (an empty column says nothing).
    column_order=["game", "player_count", "players", "analysed"] + (["played_at"] if date_range else [])
    + ["winner", "top_score", "rounds", "moves", "end_reason", "source", "game_id"],
    column_config={
        "game": st.column_config.TextColumn("Game", width="small"),
        "player_count": st.column_config.NumberColumn("Players", width=HEADER_WIDTHS["Players"]),
        "players": st.column_config.TextColumn("Names", width="medium"),
        "played_at": st.column_config.TextColumn("Date"),
        "winner": st.column_config.TextColumn("Winner"),
        "top_score": st.column_config.NumberColumn("Winning score", width=HEADER_WIDTHS["Winning score"]),
        "rounds": st.column_config.NumberColumn("Rounds", width=HEADER_WIDTHS["Rounds"]),
        "moves": st.column_config.NumberColumn("Length (moves)", width=HEADER_WIDTHS["Length (moves)"]),
        "end_reason": st.column_config.TextColumn("End"),
        "analysed": st.column_config.CheckboxColumn("Analysed", width=HEADER_WIDTHS["Analysed"],
                                                    help="A stored analysis (whole, or a part: a review stopped "
                                                         "half-way); open the game to see it."),
        "source": st.column_config.TextColumn("Source"),
        "game_id": st.column_config.TextColumn("Game id"),
    },
)
selected = list(event.selection.rows) if event is not None else []
if compare_mode and selected:
    compare_ids = [str(view.iloc[r]["game_id"]) for r in selected[:2]]
    if len(selected) > 2:
        st.caption("More than two rows selected: the first two are compared.")

url_state.publish({
    "q": search.strip() or None,
    "types": chosen_types if sorted(chosen_types) != types else None,
    "counts": chosen_counts if sorted(chosen_counts) != fit_counts else None,
    "player": player.strip() or None, "winner": winner.strip() or None,
    "building": building, "owner": owner if building and owner != "anyone" else None,
    "end": chosen_ends or None,
    "score": list(score) if tuple(score) != score_range else None,
    "rounds": list(rounds) if tuple(rounds) != rounds_range else None,
    "dates": list(dates) if dates else None,
    "compare": compare_mode or None, "ids": compare_ids if compare_mode else None,
})

if not compare_mode and selected:
    game_id = str(view.iloc[selected[0]]["game_id"])
    st.switch_page("views/replay.py", query_params={"game": game_id, "step": "0"})
if compare_mode:
    if len(compare_ids) == 2:
        compare(compare_ids)
    else:
        st.info(f"{len(compare_ids)} of 2 games chosen: select {2 - len(compare_ids)} more row"
                f"{'s' if len(compare_ids) == 0 else ''} to compare.")
