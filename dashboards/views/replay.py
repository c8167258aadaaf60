"""Replay: one game step by step, as the players saw the table, from the stored state rows.

The game and step live in the URL (``?game=ID&step=N``), so a position can be linked. The page reads
the state after each step from ``<game>_states`` and ``<game>_player_states``; it never replays."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from dashboards import board_puerto_rico, board_san_juan, charts, data, ui
from dashboards.diff import changes_html, step_changes
from dashboards.move_list import move_list_html

BOARDS = {"san_juan": board_san_juan.board_html, "puerto_rico": board_puerto_rico.board_html}

#: Labels of the stepping buttons; the keyboard script finds them by their keys (``.st-key-replay_prev``).
FIRST, PREVIOUS, NEXT, LAST = "First", "Prev", "Next", "Last"

KEYS_SCRIPT = """
<script>
(function () {
  const doc = window.parent && window.parent.document ? window.parent.document : document;
  const win = doc.defaultView || window;
  if (win.__governorReplayKeys) { return; }
  win.__governorReplayKeys = true;
  doc.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) { return; }
    const target = event.target;
    const tag = target && target.tagName ? target.tagName.toLowerCase() : "";
    if (tag === "input" || tag === "textarea" || tag === "select" || (target && target.isContentEditable)) { return; }
    if (target && target.getAttribute && target.getAttribute("role") === "slider") { return; }
    const wanted = {ArrowLeft: "replay_prev", ArrowRight: "replay_next", Home: "replay_first", End: "replay_last"}[event.key];
    if (!wanted) { return; }
    const button = doc.querySelector(".st-key-" + wanted + " button");
    if (button && !button.disabled) { event.preventDefault(); button.click(); }
  });
})();
</script>
"""


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as dicts, with pandas' NaN for a missing value turned back into None."""
    return [
        {k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()} for row in frame.to_dict("records")
    ]


def _set_step(step: int, total: int) -> None:
    step = max(0, min(int(step), total))
    st.session_state["replay_step"] = step
    st.query_params["step"] = str(step)


def _on_slider(total: int) -> None:
    _set_step(st.session_state["replay_step"], total)


def _on_move(total: int) -> None:
    _set_step(st.session_state["replay_move"], total)


def _on_round(first_step_of_round: dict[int, int], total: int) -> None:
    wanted = int(st.session_state["replay_round"])
    _set_step(first_step_of_round.get(wanted, 0), total)


ui.inject_css()
ui.require_games()

game_id: str = st.query_params.get("game") or ""
game = data.game_row(game_id) if game_id else None
if game is None:
    if game_id:
        st.warning(f"No game with id `{game_id}` in the database; showing the newest game instead.")
    newest = data.games_list()
    game_id = str(newest.iloc[0]["game_id"])
    game = data.game_row(game_id)
    st.query_params["game"] = game_id
assert game is not None

game_type = str(game["game"])
names = [str(n) for n in game["players"]]
winners = [int(w) for w in (game["winners"] if game["winners"] is not None else [])]
moves = data.game_moves(game_id)
total = int(moves["step"].max()) if len(moves) else 0

try:
    step = int(st.query_params.get("step", 0))
except ValueError:
    step = 0
step = max(0, min(step, total))
st.query_params["step"] = str(step)
st.session_state["replay_step"] = step

title = f"{ui.game_title(game_type)}: {', '.join(names)}"
st.markdown(f"### {title}")
facts = [
    f"{int(game['player_count'])} players",
    f"{int(game['rounds'])} rounds",
    f"{total} moves",
    "winner " + ", ".join(names[w] for w in winners) if winners else "no winner",
]
if isinstance(game.get("played_at"), str) and game["played_at"]:
    facts.insert(0, f"played {game['played_at']}")
facts.append(f"source {game.get('source_id') or game.get('file')}")
st.caption(" \u00b7 ".join(facts) + f" \u00b7 game id `{game_id}`")

# -- controls ------------------------------------------------------------------------------------
buttons = st.columns([1.25, 1.25, 1.25, 1.25, 4.6, 1, 1], vertical_alignment="bottom")
buttons[0].button(FIRST, key="replay_first", icon=":material/first_page:", on_click=_set_step, args=(0, total), disabled=step == 0, width="stretch")
buttons[1].button(PREVIOUS, key="replay_prev", icon=":material/chevron_left:", on_click=_set_step, args=(step - 1, total), disabled=step == 0, width="stretch")
buttons[2].button(NEXT, key="replay_next", icon=":material/chevron_right:", on_click=_set_step, args=(step + 1, total), disabled=step >= total, width="stretch")
buttons[3].button(LAST, key="replay_last", icon=":material/last_page:", on_click=_set_step, args=(total, total), disabled=step >= total, width="stretch")
if total > 0:
    buttons[4].slider("Step", 0, total, key="replay_step", on_change=_on_slider, args=(total,), label_visibility="collapsed")
first_step_of_round = {int(r): int(s) for r, s in moves.groupby("round")["step"].min().items()} if len(moves) else {}
round_now = int(moves.loc[moves["step"] == step, "round"].iloc[0]) if step > 0 else 1
if first_step_of_round:
    st.session_state["replay_round"] = round_now
    buttons[5].number_input(
        "Round", min_value=min(first_step_of_round), max_value=max(first_step_of_round), step=1, key="replay_round",
        on_change=_on_round, args=(first_step_of_round, total), help="Jump to the first move of a round",
    )
st.session_state["replay_move"] = step
buttons[6].number_input("Move", min_value=0, max_value=total, step=1, key="replay_move", on_change=_on_move, args=(total,),
                        help="Jump to the state after a move (0 = the start)")
st.html(KEYS_SCRIPT, unsafe_allow_javascript=True)

current = moves[moves["step"] == step]
if step == 0:
    st.markdown(f"**Move 0 of {total}** \u00b7 the start of the game")
else:
    words = str(current["words"].iloc[0])
    st.markdown(f"**Move {step} of {total}** \u00b7 round {round_now} \u00b7 {words}")

# -- board, moves, changes, chart ---------------------------------------------------------------
if game_type not in data.games_with_states():
    st.warning(f"The database has no state tables for {ui.game_title(game_type)}; only the moves can be shown.")
    st.html(move_list_html(moves, step))
    st.stop()

states = data.game_states(game_type, game_id)
player_states = data.game_player_states(game_type, game_id)
state_now = states[states["step"] == step]
if state_now.empty:
    st.error(f"No stored state for step {step} of this game.")
    st.stop()
state_row = _records(state_now)[0]
players_now = _records(player_states[player_states["step"] == step])

board_col, side_col = st.columns([3, 1.25], gap="medium")
with board_col:
    render = BOARDS.get(game_type)
    if render is not None:
        st.html(render(state_row, players_now, names, winners))
    else:
        st.dataframe(pd.DataFrame([state_row]), hide_index=True)
        st.dataframe(pd.DataFrame(players_now), hide_index=True)
    scale = st.segmented_control("Chart by", ["move", "round"], default="move", key="replay_chart_scale")
    rounds = states.set_index("step")["round"] if scale == "round" else None
    st.plotly_chart(charts.vp_trend(player_states, names, step, rounds), key="replay_vp_chart")
with side_col:
    st.markdown("**Moves**")
    st.html(move_list_html(moves, step))
    st.markdown("**What changed**" + (f" (move {step})" if step else ""))
    if step == 0:
        st.caption("The start of the game: nothing before it.")
    else:
        before_state = _records(states[states["step"] == step - 1])
        changes = step_changes(
            game_type, before_state[0] if before_state else None, state_row,
            _records(player_states[player_states["step"] == step - 1]), players_now, names,
        )
        st.html(changes_html(changes))
