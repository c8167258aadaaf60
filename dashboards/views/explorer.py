"""Explorer: the tree of the first decisions of every game (the moves each game declares as such, in its
first rounds: ``ingest.openings``), like an opening explorer. Each node shows its games and the win rate of the seat that
made the decision against chance; a row of the continuations table goes one decision deeper. The game
type, player counts and path live in the URL (``?type=<game>&players=3,4&path=<token>,<token>``),
so a node can be linked; example games open on the Replay page at the node's move."""

from __future__ import annotations

import html
from typing import Any

import streamlit as st

from dashboards import data, ui, url_state
from dashboards.explorer_queries import (
    Node,
    continuations,
    example_games,
    game_types,
    interval_text,
    node_summary,
    parse_path,
    path_text,
)
from dashboards.stats import FEW_GAMES, points_vs_chance, wilson
from ingest.openings import OPENING_ROUNDS
from replay import registry


def _set_path(path: tuple[str, ...]) -> None:
    if path:
        st.query_params["path"] = path_text(path)
    elif "path" in st.query_params:
        del st.query_params["path"]


def _on_type() -> None:
    """A new game type: back to the start with that game's defaults (every player count it is played
    with): a count chosen for the previous game may not exist in this one, and a choice that fits
    would still hide some of its games."""
    st.query_params["type"] = st.session_state["explorer_type"]
    if "players" in st.query_params:
        del st.query_params["players"]
    _set_path(())


def _on_counts() -> None:
    """New player counts: back to the start, the counts into the URL (none when every count is chosen
    or none is: both count every game)."""
    chosen = sorted(int(c) for c in st.session_state.get("explorer_counts") or [])
    if chosen and chosen != st.session_state.get("explorer_available"):
        st.query_params["players"] = ",".join(map(str, chosen))
    elif "players" in st.query_params:
        del st.query_params["players"]
    _set_path(())


def fitting_counts(wanted: list[int] | None, available: list[int]) -> list[int] | None:
    """The player counts of the URL when every one of them is a count the game is played with, else
    None: counts that do not fit the game (``players=2,3,4`` on a game of 3 to 5 players) give the
    game's default, every count, rather than the part that fits (which would silently drop the
    5-player games)."""
    if not wanted or any(c not in available for c in wanted):
        return None
    return sorted(set(wanted))


def left_out(stored: list[str], explored: list[str]) -> list[str]:
    """The games of the database the Explorer has nothing for, each as a sentence saying why: a game
    that declares no opening decisions (``GameDeclaration.openings``), or one not registered here."""
    why = []
    for game in stored:
        if game in explored:
            continue
        if game not in registry.game_names():
            why.append(f"{ui.game_title(game)} is not a game this installation knows, so its first decisions "
                       "are not counted.")
        elif not registry.game_of(game).openings:
            why.append(f"{ui.game_title(game)} declares no opening decisions (the first moves the Explorer "
                       "counts), so it has no tree to explore.")
        else:
            why.append(f"{ui.game_title(game)}: its games' first decisions are not stored yet (run governor "
                       "import once, any log, to count them).")
    return why


def _metric(box: Any, label: str, value: str, **options: Any) -> None:
    """A metric as wide as its figure, so that a row of them wraps instead of cutting figures."""
    box.metric(label, value, width="content", **options)


st.title("Explorer")
ui.require_games()
if "openings" not in data.tables():
    st.info("This database was made by an older governor: run `governor import` once (any log) to build "
            "the Explorer's table.")
    st.stop()

kinds = game_types()
types = list(kinds["game"])
# A game of the database that is not in the Explorer is said, with why, rather than left out unsaid.
stored = [str(g) for g in data.frame("SELECT DISTINCT game FROM games ORDER BY game")["game"]]
missing = left_out(stored, types)
if not len(kinds):
    for sentence in missing or ["No game has opening decisions stored yet."]:
        st.info(ui.md_text(sentence))
    st.stop()
game = url_state.raw_param("type") or ""
if game not in types:
    if game:
        # The URL's game: why the Explorer has nothing for it (its text is shown as typed, never as Markdown).
        why = left_out([game], types)[0] if game in stored else f"No {ui.game_title(game)} game is in the database."
        st.info(ui.md_text(f"{why} The Explorer shows {ui.game_title(str(types[0]))}."))
    game = str(types[0])
available = sorted(int(c) for c in kinds.loc[kinds["game"] == game, "counts"].iloc[0])
fitting = fitting_counts(url_state.parsed("players", url_state.int_in(0, 99), None, many=True), available)
if fitting is None or fitting == available:
    # The game's default, in the URL too: no count that does not fit stays there.
    counts = available
    if "players" in st.query_params:
        del st.query_params["players"]
else:
    counts = fitting
if url_state.raw_param("type") not in (None, game):
    st.query_params["type"] = game
st.session_state["explorer_type"] = game
st.session_state["explorer_counts"] = counts
st.session_state["explorer_available"] = available

left, right = st.columns([1, 2])
left.selectbox("Game", types, format_func=ui.game_title, key="explorer_type", on_change=_on_type)
right.multiselect("Player count", available, key="explorer_counts", on_change=_on_counts,
                  help="No player count chosen counts every player count. A new game chooses all of its own.")
# The decisions counted, in the game's own words (its declaration's ``opening_words``).
counted = registry.game_of(game).opening_words if game in registry.game_names() else ""
for sentence in missing:
    st.caption(ui.md_text(sentence))
st.caption(
    f"Decisions of the first {OPENING_ROUNDS} rounds" + (f": {counted}" if counted else "")
    + f". A win counts for the seat that made the decision (on a full tie every tied seat wins); "
    f"the baseline is chance, 1 / player count. Rates from fewer than {FEW_GAMES} games are marked few."
)

path = parse_path(url_state.raw_param("path"))
node = Node(game, tuple(counts), path)
summary = node_summary(node)
if summary["games"] == 0 and path:
    st.warning("No game of this selection goes through this path; back to the start.")
    node = Node(game, tuple(counts), ())
    path = ()
    _set_path(())
    summary = node_summary(node)

# -- where we are ----------------------------------------------------------------------------------
seats = summary["seats"]
crumbs = ["Start"] + [
    f"{i}. {html.escape(token)} <small style='opacity:.7'>(seat {html.escape(seat)})</small>"
    for i, (token, seat) in enumerate(zip(path, seats), start=1)
]
st.html("<div style='line-height:1.9'><b>Path:</b> " + " &rsaquo; ".join(crumbs) + "</div>")
nav = st.container(horizontal=True)
nav.button("Back", key="explorer_back", icon=":material/undo:", disabled=not path, on_click=_set_path, args=(path[:-1],))
nav.button("Start", key="explorer_start", icon=":material/home:", disabled=not path, on_click=_set_path, args=((),))

# Metrics wrap onto more lines on a narrow screen rather than cutting their figures.
metrics = st.container(horizontal=True, gap="large")
_metric(metrics, "Games here", f"{summary['games']:,}")
_metric(metrics, "Baseline (chance)", f"{summary['baseline']:.1%}", help="1 / player count, averaged over these games")
if path:
    rate = summary["wins"] / summary["games"]
    low, high = wilson(summary["wins"], summary["games"])
    delta, delta_arrow = points_vs_chance(rate, float(summary["baseline"]))
    _metric(metrics, f"Win rate of seat {seats[-1]}", f"{rate:.1%}", delta=delta, delta_arrow=delta_arrow,
                      help=f"The seat that made decision {len(path)}: {summary['wins']:,} wins in {summary['games']:,} games")
    _metric(metrics, "95% interval", f"{low:.1%}-{high:.1%}".replace("%-", "-"), help="Wilson score interval")
    if summary["games"] < FEW_GAMES:
        st.caption(f"Few games (fewer than {FEW_GAMES}): the rate says little.")

# -- next decisions ---------------------------------------------------------------------------------
moves = continuations(node)
st.subheader("Next decisions")
if not len(moves):
    st.info(f"No recorded decision after this one within the first {OPENING_ROUNDS} rounds.")
else:
    ended = summary["games"] - int(moves["games"].sum())
    note = f" ({ended:,} of the node's games record no further decision in these rounds)" if ended else ""
    st.caption("Select a row to go one decision deeper." + note)
    shown = moves.assign(ci=interval_text(moves))[
        ["decision", "seats", "games", "share", "wins", "win_rate", "ci", "baseline", "lift", "few_games"]]
    for column in ("share", "win_rate", "baseline", "lift"):
        shown[column] = shown[column] * 100
    # One table per depth: going deeper or back shows a table with nothing selected.
    event = st.dataframe(
        shown, key=f"explorer_moves_{len(path)}", hide_index=True, selection_mode="single-row", on_select="rerun",
        width="stretch", height=min(420, 38 + 35 * len(shown)),
        column_config={
            "decision": st.column_config.TextColumn("decision"),
            "seats": st.column_config.TextColumn("seat", help="Who makes it: numbered from 0 (the first governor), as in SQL"),
            "games": st.column_config.NumberColumn("games", help="Games in which this was the next decision"),
            "share": st.column_config.NumberColumn("share", format="%.1f%%", help="Of the games going on from here"),
            "wins": st.column_config.NumberColumn("wins", help="Games the seat making the decision won"),
            "win_rate": st.column_config.NumberColumn("win rate", format="%.1f%%"),
            "ci": st.column_config.TextColumn("95% CI", help="Wilson score interval of the win rate"),
            "baseline": st.column_config.NumberColumn("baseline", format="%.1f%%", help="Chance: 1 / player count"),
            "lift": st.column_config.NumberColumn("vs baseline", format="%+.1f pts",
                                                  help="Win rate minus baseline, in percentage points"),
            "few_games": st.column_config.CheckboxColumn(f"few (< {FEW_GAMES})"),
        },
    )
    picked = event.selection.rows if event is not None else []
    if picked:
        _set_path(path + (str(moves.iloc[picked[0]]["decision"]),))
        st.rerun()

# -- example games ----------------------------------------------------------------------------------
st.subheader("Example games")
examples = example_games(node)
examples["played_at"] = examples["played_at"].fillna("")
examples["open"] = [f"replay?game={g}&step={int(s)}" for g, s in zip(examples["game_id"], examples["step"])]
st.caption("Newest first; the link opens the game on the Replay page at this node's position.")
st.dataframe(
    examples[["open", "played_at", "player_count", "players", "winner", "step", "game_id"]],
    key="explorer_examples", hide_index=True, width="stretch",
    column_config={
        "open": st.column_config.LinkColumn("replay", display_text="open"),
        "played_at": st.column_config.TextColumn("date"),
        "player_count": st.column_config.NumberColumn("players"),
        "players": st.column_config.TextColumn("names"),
        "winner": st.column_config.TextColumn("winner"),
        "step": st.column_config.NumberColumn("at move"),
        "game_id": st.column_config.TextColumn("game id"),
    },
)
