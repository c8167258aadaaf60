"""Replay: one game step by step, as the players saw the table, from the stored state rows.

The game goes to the browser in one view (everything, public, or one seat's), made here on the
server by the game's own view (``replay.registry.view_for``): the browser never receives what that
view may not see. It gets a window of steps around the one shown (the whole game unless it is very
long) and the component in ``dashboards/replay_component`` steps through it there (buttons, slider,
keys, move list, chart) without asking the server; another view or a step past the window is a round
trip. The URL holds ``game``, ``step`` and ``view`` (the browser keeps ``step`` and ``view`` up to
date); the page reads stored states and never replays to show a step. Under the viewer: "Review"
(the game analysed in the background, accuracy, mistakes and a drill: ``dashboards.review_panel``), "What if?"
(a variation from any position, ``dashboards.whatif_panel``) and "Winning chances"
(``dashboards.analysis_panel``), both in the same view. The board leaves the server before anything
under it is made, and in a tab that has not drawn this game yet those panels wait until the
browser has drawn the board (it says so, which reruns the page): a link opened in a new tab shows
its board sooner, the panels a moment after."""

from __future__ import annotations

import re

import streamlit as st

from dashboards import analysis_panel, data, delivery, drill_panel, model_chart, review_panel, ui, whatif_panel
from dashboards.first_paint import HELD_COOKIE, board_payload, signature
from dashboards.replay_component import replay_viewer
from dashboards.replay_data import parse_step, parse_view, window
from replay.protocol import Viewer


def _download(game_id: str, log_text: str, viewer: Viewer) -> None:
    """The game's log as it was imported (JSON), in the view everything only: it holds all that any
    view hides (every card of every hand, every VP chip), so a seat's or the public view offers it
    nowhere, even once the game is over (and says where it is)."""
    if viewer.sees_everything:
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", game_id)[:80] or "game"
        # Made when clicked (no rerun): the page does not hold a copy per run.
        st.download_button("Download the game's log (JSON)", data=lambda: log_text.encode("utf-8"),
                           file_name=f"{name}.json", mime="application/json", on_click="ignore",
                           key="replay_download")
    else:
        ui.caption("The game's log holds all that this view hides, so it is offered in the view everything "
                   "only (choose it in the View box to download it).")


ui.inject_css()
# The viewer has its own title: less of Streamlit's top margin, so more of the board fits the screen.
st.html(
    "<style>[data-testid='stMainBlockContainer'] { padding-top: 2.2rem; }"
    " @media (max-width: 736px) { [data-testid='stMainBlockContainer'] { padding-top: 3.6rem; } }</style>"
)
ui.require_games()

asked = (st.query_params.get("game") or "").strip()
game_id = asked
found = data.replay_game(game_id) if game_id else None
step_param = st.query_params.get("step")
view_param = st.query_params.get("view")
notes: list[tuple[str, str]] = []
if found is None and asked:
    # The id comes from the URL: text, never Markdown (escaped Markdown still autolinks a URL).
    notes.append(("warning", f"No game with id {asked} in the database; showing the newest game instead."))
    step_param = view_param = None
if found is None:
    # Back from another page (the sidebar drops the URL's parameters): the game this tab last showed.
    last = st.session_state.get("replay_game")
    found = data.replay_game(last) if last and not asked else None
    if found is None:
        newest = data.games_list()
        found = data.replay_game(str(newest.iloc[0]["game_id"]))
assert found is not None
game, prepared = found.row, found.prepared
game_id = str(game["game_id"])
st.session_state["replay_game"] = game_id
if st.query_params.get("game") != game_id:
    st.query_params["game"] = game_id

game_type = str(game["game"])
total = int(game["moves"])
step, step_note = parse_step(step_param, total)
view, view_note = parse_view(view_param, int(game["player_count"]))
notes += [("info", note) for note in (step_note, view_note) if note]

viewer = Viewer.parse(view, int(game["player_count"]))
# The game's variations (What if?) come back from the URL after a reload or from a shared link; the
# log is read before the board only when there are some. A link's variations that were refused are
# said with the other notes (they are brought back once: the run the drawn board causes says nothing).
log_text: str | None = None
if "var" in st.query_params or whatif_panel.lines(game_id):
    log_text = data.game_log(game_id, found.row_id)
    restored = whatif_panel.restore(game, log_text)
    if restored:
        notes.append(("warning", restored))
# Until the browser has drawn this game's board once in this tab, nothing under it is made: on 2
# cores the panels' work (the log, the What-if and Winning-chances panels: server time and the
# browser's own drawing of their widgets) delayed a new tab's board by 0.4 to 0.5 s.
hold_panels = delivery.live() and st.session_state.get("replay_shown") != game_id
# The run the drawn board causes to send the panels beside it (below) keeps the first run's notes too.
panels_rerun = st.session_state.pop("replay_panels_rerun", None) == game_id
if hold_panels or panels_rerun:
    # The run the drawn board causes no longer sees what the notes were about (the URL now names the
    # game shown and its step): the first run's notes stay.
    kept_notes = st.session_state.get("replay_notes")
    if not notes and isinstance(kept_notes, tuple) and kept_notes[0] == game_id:
        notes = list(kept_notes[1])
    st.session_state["replay_notes"] = (game_id, notes)
for kind, note in notes:
    ui.alert(kind, note)

if prepared is None:
    st.warning(f"The database has no state tables for {ui.game_title(game_type)}; only the moves can be shown.")
    st.dataframe(data.game_moves(game_id)[["step", "round", "player", "words"]], hide_index=True)
    st.stop()

# A drill of the Review in progress is asked above the board, where its position is shown.
drill_slot = st.container() if drill_panel.active(game_id) else None
kept = whatif_panel.lines(game_id)
variation = whatif_panel.active(game_id, game, log_text)
if variation is not None:
    # A what-if variation: shown at the move chosen in the move list, else at its newest move; the URL
    # keeps the game.
    payload = whatif_panel.payload(variation, game, viewer)
    payload["url_game"] = game_id
    payload["variation_result"] = whatif_panel.result_text(variation, [str(n) for n in game["players"]])
    payload["variation_k"] = whatif_panel.active_index(game_id)
    at = st.session_state.get("whatif_at")
    shown = at[1] if isinstance(at, tuple) and at[0] == payload["game_id"] else payload["total"]
    shown = min(max(0, int(shown)), payload["total"])
    reply = replay_viewer(window(payload, shown), shown, viewer.name,
                          f"variation|{payload['game_id']}|{viewer.name}|{shown}", await_shown=hold_panels)
else:
    # The view's window with the stored analysis (tags, estimates): what a new tab's first paint drew.
    payload = board_payload(found, viewer, step)
    # The board this tab drew first (dashboards/first_paint.py) is the same payload: the browser holds
    # it, so it gets only its signature (the game goes to the browser once), unless it said it does
    # not hold it after all.
    held: str | None = signature(found, viewer, step)
    if held != st.context.cookies.get(HELD_COOKIE) or st.session_state.get("replay_full") == held:
        held = None
    if kept and log_text is not None:
        payload = {**payload, "variations": whatif_panel.move_list(game, log_text, viewer)}
        held = None
    # The same URL asks for the same position: a rerun of the page leaves the viewer where the user
    # stepped it; a new game, step or view in the URL moves it.
    request = f"{game_id}|{step_param}|{view_param}"
    # A row of the tagged moves' table moved the board: it comes into view (the table is far under it).
    reveal = st.session_state.pop(analysis_panel.REVEAL_KEY, None)
    # The Review's results beside the board, once this tab has drawn it (a new tab's board goes first).
    side = None
    if not hold_panels and not found.analysis.empty:
        log_text = log_text if log_text is not None else data.game_log(game_id, found.row_id)
        side = review_panel.beside(game, log_text, found.analysis, viewer)
    # The learned win chance's graph, once this tab has drawn the board (computed once per game and
    # view): the log is read after the board is on its way.
    model = None
    if not hold_panels and st.session_state.get("replay_shown") == game_id:
        log_text = log_text if log_text is not None else data.game_log(game_id, found.row_id)
        model = model_chart.model_payload(game, log_text, viewer)
    reply = replay_viewer(payload, step, view if view_param is not None else None, request, branch=True,
                          await_shown=hold_panels, held=held, reveal=None if reveal is None else str(reveal),
                          review=side, model=model)
    if reply.full is not None and reply.full == held:
        st.session_state["replay_full"] = held
        st.rerun()
    if reply.branch is not None:
        whatif_panel.branch_at(reply.branch)
if reply.variation is not None:
    # A variation's move clicked in the move list (or "Back to the game"): the viewer shows that line.
    k, at_step = reply.variation
    whatif_panel.open_line(game_id, k if k >= 0 else None)
    opened = whatif_panel.active(game_id, game, log_text) if k >= 0 and log_text is not None else None
    if opened is not None:
        st.session_state["whatif_at"] = (whatif_panel.payload_id(opened, game_id), at_step)
    elif at_step >= 0:
        st.query_params["step"] = str(min(at_step, total))
    st.rerun()
if reply.want is not None:
    # Another view, or a step past the window the browser holds: the URL names it, and the rerun sends it.
    wanted_view, _ = parse_view(reply.want["view"], int(game["player_count"]))
    st.query_params["step"] = str(min(max(0, reply.want["step"]), total))
    st.query_params["view"] = wanted_view
    st.rerun()

if reply.shown is not None:
    st.session_state["replay_shown"] = game_id
    hold_panels = False
    if variation is None and (not found.analysis.empty or model_chart.shown(viewer)):
        # The viewer was sent without the Review beside the board and the win chance's graph (held for
        # the board's first draw): the page runs again to send them with the panels.
        st.session_state["replay_panels_rerun"] = game_id
        st.rerun()
# The board leaves the server before the page goes on (the event loop that sends it shares the
# interpreter with this script).
delivery.send_now()
if hold_panels:
    st.stop()
# The log (for the panels under the board) is read once the board is on its way.
if log_text is None:
    log_text = data.game_log(game_id, found.row_id)
if variation is None:
    # The luckiest and unluckiest moments on the win chance's graph, computed when asked if not stored.
    model_chart.luck_button(game, log_text, viewer, model)
_download(game_id, log_text, viewer)
review_panel.show(game, log_text, found.analysis, viewer, drill_slot)
whatif_panel.show(game, log_text, step, viewer)
analysis_panel.show(game, log_text, found.analysis, viewer)
