"""The Replay page's "What if?": branch from any position, play moves by hand or let the bots finish,
download the variation as a log. The variation lives in this browser session; the mainline and the
database are never changed.

The engine decides everything (``analysis.variation``): this module only shows its choices and lays
out the variation's states with the importer's own row builder, in the viewer's format.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

import pandas as pd
import streamlit as st

from analysis import variation as V
from dashboards import ui
from ingest.lake import expand_player_changes
from ingest.rows import Batch, add_record
from replay.logfile import LogRecord, parse_game
from replay.protocol import Viewer
from replay.registry import view_for

KEY = "whatif"


def _log_of(game_row: dict[str, Any], log_text: str) -> Any:
    import json

    return parse_game(json.loads(log_text), file=str(game_row.get("file") or "game"))


def payload(variation: V.Variation, base: dict[str, Any], viewer: Viewer | None = None) -> dict[str, Any]:
    """The viewer's payload (``replay_data.game_payload``) of a variation as ``viewer`` sees it
    (default: everything), from the rows an import would store for it. Raises ``ValueError`` when the
    variation cannot be laid out as rows."""
    from dashboards.replay_data import game_payload

    log = V.as_game_log(variation)
    batch = Batch()
    add_record(batch, LogRecord("variation", 0, "", log, None), datetime.now(UTC), complete=False)
    if batch.rejections:
        raise ValueError(batch.rejections[0]["message"])
    tables = batch.to_arrow()
    game = log.game
    _, seats = expand_player_changes(f"{game}_player_changes", tables[f"{game}_player_changes"])
    row = tables["games"].to_pylist()[0]
    moves = tables["moves"].to_pandas().drop(columns=["game_id"])
    states = tables[f"{game}_states"].to_pandas()
    seat_rows = seats.to_pandas().sort_values(["step", "seat"])
    data = game_payload(row, moves, states, seat_rows, viewer)
    digest = hashlib.sha1(f"{variation.branch}:{[m.text() for m in variation.moves]}".encode()).hexdigest()[:8]
    data["game_id"] = f"{base['game_id']}~{digest}"
    data["facts"] = [f"variation after move {variation.branch}", f"{len(variation.moves)} moves of its own",
                     *data["facts"]]
    data["source"] = str(base.get("source_id") or base.get("file") or "")
    return data


# The position at a branch is the log replayed that far: kept, so that a rerun at the same branch (any
# click under the board) does not replay a long game again. Only the id and the branch are hashed.
@st.cache_resource(max_entries=8, show_spinner=False)
def _start(game_id: str, branch: int, _game_row: dict[str, Any], _log_text: str) -> V.Variation:
    return V.start(_log_of(_game_row, _log_text), branch)


def active(game_id: str) -> V.Variation | None:
    """The variation this session keeps for ``game_id``, if any."""
    held = st.session_state.get(KEY)
    return held if isinstance(held, V.Variation) and held.log.game_id == game_id else None


def branch_at(step: int) -> None:
    """The viewer's "Try a move here" was pressed at ``step``: the panel's branch point moves there."""
    st.session_state["whatif_branch"] = step
    st.session_state["whatif_from_viewer"] = True


def show(game_row: dict[str, Any], log_text: str, step: int | None, viewer: Viewer | None = None) -> None:
    """The what-if controls under the viewer. In a view that may not see the seat to act's decisions
    (another seat's hand in San Juan: ``GameView.sees_decisions``), no decision of that seat is listed
    and a line says why."""
    viewer = viewer or Viewer.everything()
    game_id = str(game_row["game_id"])
    names = [str(n) for n in game_row["players"]]
    total = int(game_row["moves"])
    variation = active(game_id)
    st.subheader("What if?")
    if variation is None:
        # The widget's value lives in the session: a new game or a new step in the URL sets it, and so
        # does the board's "Try a move here" (``branch_at``); otherwise it stays where the user put it.
        seed = (game_id, min(total, step if step is not None else 0))
        if st.session_state.pop("whatif_from_viewer", False):
            st.session_state["whatif_seed"] = seed
        elif st.session_state.get("whatif_seed") != seed or "whatif_branch" not in st.session_state:
            st.session_state["whatif_seed"] = seed
            st.session_state["whatif_branch"] = seed[1]
        st.session_state["whatif_branch"] = min(total, max(0, int(st.session_state["whatif_branch"])))
        branch = st.number_input(
            "Try another move at the position after move", min_value=0, max_value=total, key="whatif_branch",
            help="0 is the start of the game. \"Try a move here\" on the board sets it to the move shown.",
        )
        start = _start(game_id, int(branch), game_row, log_text)
        if start.over:
            st.caption("The game is over at that position: nothing to try.")
            return
        _choose(start, names, "Play this instead", viewer)
        return
    ui.caption(
        f"Variation after move {variation.branch}: {len(variation.moves)} move(s) of its own. Cards come off the "
        "game's recorded deck; recorded reshuffles are used while they fit."
    )
    for note in variation.notes:
        ui.caption(note)
    if not variation.over:
        _choose(variation, names, "Play", viewer)
    else:
        ui.caption("The variation is over: " + ", ".join(
            f"{names[i]} {s.total}" for i, s in enumerate(variation.engine.scores(variation.state))))
    cols = st.columns(3)
    if cols[0].button("Let the bots finish", disabled=variation.over, key="whatif_finish"):
        st.session_state[KEY] = V.finish(variation, seed=variation.seed)
        st.rerun()
    # A log holds every hand and the deck's order: only the view that sees everything offers it.
    whole = viewer.sees_everything
    cols[1].download_button(
        "Download the variation (.json)", data=V.to_text(variation) if variation.over and whole else "",
        file_name=f"variation-{game_id[:12]}-after-{variation.branch}.json", mime="application/json",
        disabled=not variation.over or not whole, key="whatif_download",
        help="A complete log of the format (governor validate accepts it); finish the game first."
        if whole else "A log holds every hand: choose the view everything to download it.",
    )
    if cols[2].button("Back to the game", key="whatif_back"):
        st.session_state.pop(KEY, None)
        st.rerun()


def _choose(variation: V.Variation, names: list[str], label: str, viewer: Viewer) -> None:
    seat = variation.seat
    who = names[seat] if seat is not None else ""
    if seat is not None and not view_for(variation.log.game).sees_decisions(seat, viewer):
        # Which moves are legal names the cards of a hidden hand: never listed outside its seat's view.
        if viewer.seat is not None:
            mine = names[viewer.seat]
            ui.caption(f"In {mine}'s seat view, What if? offers {mine}'s own decisions only: at this "
                       f"position {who} is to act, and {who}'s moves would show {who}'s hidden hand.")
        else:
            ui.caption(f"In the public view, What if? lists no decision of a hidden hand: {who} is to act "
                       f"here. Choose everything or {who}'s seat to try a move.")
        return
    choices = V.choices(variation)
    frame = pd.DataFrame({"group": [c.group for c in choices], "move": [c.words for c in choices]})
    groups = list(dict.fromkeys(frame["group"]))
    ui.caption(f"{who} has {len(choices)} legal move(s).")
    cols = st.columns([1, 3])
    group = cols[0].selectbox("Kind", groups, key=f"whatif_group_{variation.branch}_{len(variation.moves)}")
    options = [i for i, c in enumerate(choices) if c.group == group]
    pick = cols[1].selectbox("Move", options, format_func=lambda i: choices[i].words,
                             key=f"whatif_move_{variation.branch}_{len(variation.moves)}_{group}")
    if st.button(label, key=f"whatif_play_{variation.branch}_{len(variation.moves)}"):
        st.session_state[KEY] = V.play(variation, choices[int(pick)].move)
        st.rerun()
