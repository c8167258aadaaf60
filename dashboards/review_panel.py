"""The Replay page's "Review": the game analysed in the background (``dashboards.review_job``: every
decision's candidates rolled out, each step stored as soon as it is done), then each seat's accuracy
and its inaccuracies, mistakes and blunders (``analysis.accuracy``), each mistake with the better
move and its winning chance, playable on the board as a variation (``dashboards.whatif_panel``), and
"Learn from your mistakes" (``dashboards.drill_panel``).

The board's winning-chance chart (under its VP chart) shows the stored analysis with the tagged
moves marked; a click on it goes to that move. A seat's view names no move of a seat whose decisions
it may not see (``GameView.sees_decisions``): their chances and counts are shown, their moves not.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from typing import Any

import pandas as pd
import streamlit as st

from analysis.accuracy import seat_summaries
from analysis.decisions import Decision, Options
from analysis.store import LOAD_SQL
from dashboards import data, drill_panel, review_job, ui, whatif_panel
from dashboards import review_data as R
from dashboards.plain import isolate
from dashboards.review_data import Plan, decisions_from_rows, game_points, mistakes, move_key, options_of, plan
from dashboards.stats import plural
from replay.logfile import GameLog, parse_game
from replay.protocol import Viewer
from replay.registry import engine_for, view_for

#: Rollouts per candidate and candidates per decision a review asks for unless told otherwise: a
#: 2-player game of the smaller of the built-in games in about a minute on 2 cores; ``governor analyse`` defaults to 100 and 6.
ROLLOUTS = 30
TOP = 4
#: Below this many rollouts per candidate the review runs in the server's thread alone: starting
#: worker processes would take longer than the rollouts.
POOL_FROM = 10
#: Where the panel keeps the seat it reviews (per game).
SEAT_KEY = "review_seat"


@st.cache_resource(max_entries=16, show_spinner=False)
def game_log(game_id: str, _log_text: str) -> GameLog:
    """The game's log, parsed once (only the id is hashed). Raises as ``parse_game``."""
    return parse_game(json.loads(_log_text), file="game")


@st.cache_resource(max_entries=16, show_spinner=False)
def points(game_id: str, _log: GameLog) -> tuple[tuple[int, int], ...]:
    """The game's decisions (``review_data.game_points``), replayed once."""
    return game_points(_log)


def stored_rows(game_id: str) -> pd.DataFrame:
    """Every stored candidate of the game's analysis (``analysis.store.LOAD_SQL``), empty when none;
    read again only when the database changed (``data.frame``)."""
    if "analysis" not in data.tables():
        return pd.DataFrame()
    return data.frame(LOAD_SQL, (game_id,))


@st.cache_resource(max_entries=8, show_spinner=False)
def _decisions(game_id: str, stamp: tuple[int, ...], _rows: pd.DataFrame, _log: GameLog) -> list[Decision]:
    return decisions_from_rows(_rows, _log)


def decisions(game_id: str, rows: pd.DataFrame, log: GameLog) -> list[Decision]:
    """The stored analysis as ``Decision`` values, made again only when the database changed."""
    return _decisions(game_id, data.db_stamp(data.db_path()), rows, log)


def accuracy_table(decided: list[Decision], names: list[str]) -> pd.DataFrame:
    """One row per seat: player, accuracy (0-100, ``analysis.accuracy``), inaccuracies, mistakes,
    blunders, the average winning chance lost per move (points) and the moves analysed."""
    rows = []
    for s in seat_summaries(decided, names):
        rows.append({"player": isolate(s.player), "accuracy": None if s.accuracy is None else round(s.accuracy, 1),
                     "inaccuracies": s.inaccuracies, "mistakes": s.mistakes, "blunders": s.blunders,
                     "avg loss": round(s.avg_loss * 100, 1), "moves": s.moves})
    return pd.DataFrame(rows)


def visible_seats(game: str, seats: int, viewer: Viewer) -> list[int]:
    """The seats whose decisions ``viewer`` may see (their moves may be named)."""
    seen = view_for(game)
    return [s for s in range(seats) if seen.sees_decisions(s, viewer)]


def shown(decision: Decision, seen: list[int]) -> bool:
    """Whether a decision's moves may be named: its seat's and its mover's decisions are seen."""
    return decision.seat in seen and decision.mover_seat in seen


def beside(game_row: dict[str, Any], log_text: str, analysed: pd.DataFrame, viewer: Viewer) -> dict[str, Any] | None:
    """The Review's results as the viewer's side column shows them beside the board (wide screens; the
    panel under the board shows them on every screen): each seat's accuracy and counts, and the
    mistakes and blunders whose moves ``viewer`` may see named (``mistakes``: step, player, tag,
    points lost, the better move's words and winning chance; ``unlisted``: how many others). None
    when the game has no stored analysis. Raises nothing the panel's own reads do not."""
    game_id = str(game_row["game_id"])
    if analysed.empty or os.path.isdir(data.db_path()):
        return None
    rows = stored_rows(game_id)
    if rows.empty:
        return None
    log = game_log(game_id, log_text)
    names = [str(n) for n in game_row["players"]]
    decided = decisions(game_id, rows, log)
    seats = [{"player": s.player, "accuracy": None if s.accuracy is None else round(s.accuracy, 1),
              "inaccuracies": s.inaccuracies, "mistakes": s.mistakes, "blunders": s.blunders}
             for s in seat_summaries(decided, names)]
    seen = visible_seats(str(game_row["game"]), len(names), viewer)
    found = mistakes(decided)
    listed = [{"step": d.step, "player": d.player, "tag": d.tag, "loss": round(d.loss * 100), "better": d.best.words,
               "chance": round(d.best.estimate * 100)} for d in found if shown(d, seen)]
    return {"seats": seats, "mistakes": listed, "unlisted": len(found) - len(listed)}


def show(game_row: dict[str, Any], log_text: str, analysed: pd.DataFrame, viewer: Viewer | None = None,
         drill_slot: Any = None) -> None:
    """The Review under the board: its controls and progress while it runs, then its results.
    ``analysed`` is the game's stored analysis as the page read it (``data.OpenedGame.analysis``, a
    row per decision): every candidate is read only when there is one. A drill in progress is drawn
    in ``drill_slot`` (a container above the board) when given."""
    viewer = viewer or Viewer.everything()
    game_id = str(game_row["game_id"])
    names = [str(n) for n in game_row["players"]]
    st.subheader("Review", anchor="review")
    db = data.db_path()
    if os.path.isdir(db):
        ui.caption("A review stores its analysis in the database: this dashboard reads a Parquet lake, which it "
                   "does not write. Open a DuckDB database to review a game.")
        return
    log = game_log(game_id, log_text)
    rows = stored_rows(game_id) if not analysed.empty else pd.DataFrame()
    where = plan(points(game_id, log), {(int(s), int(t)) for s, t in zip(rows.get("step", []), rows.get("seat", []))})
    job = review_job.job_for(db, game_id)
    if job is not None and not job.finished:
        _progress(job)
    else:
        if job is not None:
            if job.error:
                ui.alert("error", f"The review stopped: {job.error}. What was analysed before is kept.")
            elif job.cancel.is_set():
                ui.alert("info", f"Review stopped: {job.done} of {job.total} decisions analysed and kept. "
                                 "Continue it at any time.")
            review_job.forget(db, game_id)
        _controls(game_id, log_text, rows, where, db)
    if where.stored:
        _results(game_row, log, decisions(game_id, rows, log), viewer, names, where, options_of(rows, Options()),
                 drill_slot)


def _controls(game_id: str, log_text: str, rows: pd.DataFrame, where: Plan, db: str) -> None:
    if where.total == 0:
        ui.caption("This game has no decision with a choice to review.")
        return
    if where.complete:
        return
    if where.stored:
        ui.caption(f"Reviewed {where.stored} of {plural(where.total, 'decision')} so far. Continue from move "
                   f"{where.resume_from}: what is analysed is kept.")
        if st.button("Continue the review", key="review_continue", type="primary"):
            _start(game_id, log_text, where, db, _options(rows, ROLLOUTS, TOP))
        return
    ui.caption("Review analyses every decision of the game: the winning chance of each move the seat could make, "
               "estimated by bots playing the game to its end many times. Then you see each player's accuracy, "
               "their mistakes with the better move, and can retry your own mistakes. The page stays usable while "
               "it runs, and each analysed move is kept.")
    cols = st.columns([1, 1, 2])
    rollouts = int(cols[0].number_input("Rollouts per move", 2, 1000, ROLLOUTS, step=10, key="review_rollouts",
                                        help="More rollouts: surer estimates, a longer review."))
    top = int(cols[1].number_input("Moves compared per decision", 2, 10, TOP, key="review_top"))
    if st.button("Review this game", key="review_start", type="primary"):
        _start(game_id, log_text, where, db, _options(rows, rollouts, top))


def _options(rows: pd.DataFrame, rollouts: int, top: int) -> Options:
    """The options of a review: those of the stored part when it goes on (the same rollouts,
    candidates, seed and bot), else ``rollouts`` and ``top`` with seed 0."""
    found = options_of(rows, Options(rollouts=rollouts, top=top, seed=0))
    return replace(found, workers=1 if found.rollouts < POOL_FROM else (os.cpu_count() or 1))


def _start(game_id: str, log_text: str, where: Plan, db: str, options: Options) -> None:
    review_job.start(db, game_id, log_text, options, where)
    st.rerun()


@st.fragment(run_every=1.0)
def _progress(job: review_job.ReviewJob) -> None:
    """The review's progress, every second, while the rest of the page stays as it is."""
    done = min(job.total, job.plan.kept + len(job.decisions))
    st.progress(done / max(1, job.total), text=f"Reviewing: {done} of {plural(job.total, 'decision')} analysed")
    ui.caption("You can step through the game meanwhile. Each analysed move is kept: leave the page and come back "
               "to see the review go on, or continue it later.")
    if st.button("Stop the review", key="review_stop"):
        job.cancel.set()
    if job.finished:
        # The whole page again: the board's chart, the accuracy and the mistakes read what was stored.
        st.rerun(scope="app")


def _results(game_row: dict[str, Any], log: GameLog, decided: list[Decision], viewer: Viewer, names: list[str],
             where: Plan, options: Options, drill_slot: Any) -> None:
    game = str(game_row["game"])
    if not where.complete:
        ui.caption(f"Results so far: {where.stored} of {plural(where.total, 'decision')} analysed.")
    taken = R.takebacks(log)
    if taken:
        ui.caption(f"{plural(taken, 'move was', 'moves were')} taken back in this game: it is left out of the ratings.")
    table = accuracy_table(decided, names)
    # Narrow number columns: the whole table fits a phone's width but for the player's name.
    st.dataframe(table, hide_index=True, width="stretch", key="review_accuracy", column_config={
        "player": st.column_config.TextColumn("player", width="small"),
        "accuracy": st.column_config.NumberColumn("accuracy", format="%.1f", width="small",
                                                  help="0 to 100, from the winning chance each move lost (docs/analysis.md)"),
        "inaccuracies": st.column_config.NumberColumn("?!", width=40, help="Inaccuracies: 5 points of winning chance lost or more"),
        "mistakes": st.column_config.NumberColumn("?", width=40, help="Mistakes: 10 points or more"),
        "blunders": st.column_config.NumberColumn("??", width=40, help="Blunders: 20 points or more"),
        "avg loss": st.column_config.NumberColumn("avg loss", format="%.1f", width="small",
                                                  help="Points of winning chance lost per move, on average"),
        "moves": st.column_config.NumberColumn("moves", width="small", help="Decisions analysed"),
    })
    ui.caption("Accuracy is 100 when every move was as good as the best one found; an inaccuracy (?!) loses 5 points "
               "of winning chance or more, a mistake (?) 10, a blunder (??) 20. The winning-chance chart under the board marks "
               "them: click a point to go to that move (N and P step through them).")
    seen = visible_seats(game, len(names), viewer)
    _mistake_list(game_row, log, decided, seen, names, viewer)
    drill_panel.show(game_row, log, decided, viewer, names, options, drill_slot)


def _mistake_list(game_row: dict[str, Any], log: GameLog, decided: list[Decision], seen: list[int],
                  names: list[str], viewer: Viewer) -> None:
    found = mistakes(decided)
    st.markdown("**Mistakes and blunders**")
    if not found:
        ui.caption("No mistake or blunder: every move was within 10 points of winning chance of the best one found.")
        return
    hidden = [d for d in found if not shown(d, seen)]
    if hidden:
        who = sorted({d.seat for d in hidden})
        ui.caption(", ".join(isolate(names[s]) for s in who) + f": {plural(len(hidden), 'mistake')} not listed in "
                   "this view, whose better moves would name cards it does not see.")
    engine = engine_for(log.game)
    for d in (d for d in found if shown(d, seen)):
        with st.container(border=True, key=f"review_mistake_{d.step}_{d.seat}"):
            ui.text(f"Move {d.step} \u00b7 {isolate(d.player)} \u00b7 {d.tag}, {round(d.loss * 100)} points lost")
            ui.caption(f"Played: {d.played.words} \u00b7 {d.played.estimate * 100:.0f}%")
            ui.text(f"Better: {d.best.words} \u00b7 {d.best.estimate * 100:.0f}%")
            row = st.container(horizontal=True)
            if row.button("Go to the move", key=f"review_go_{d.step}_{d.seat}"):
                st.query_params["step"] = str(d.step - 1)
                st.rerun()
            pick = drill_panel.pick_of(log, d.step, move_key(engine, d.best.move))
            if pick is not None and row.button("Play the better move", key=f"review_play_{d.step}_{d.seat}",
                                                   help="Opens it on the board as a variation (What if?)"):
                if not whatif_panel.add_line(str(game_row["game_id"]), whatif_panel.Line(d.step - 1, (pick,))):
                    ui.caption(f"The game holds {whatif_panel.MAX_LINES} variations already: delete one under What if?")
                else:
                    st.rerun()
