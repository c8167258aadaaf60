"""The Replay page's "Winning chances": each decision's estimated winning chance (``governor analyse``),
shown from the ``analysis`` table at once when the game was analysed, or computed here on every core
with a progress bar and Cancel, the chart filling in as decisions come back, then stored.

The estimates come from ``analysis.decisions``; this module shows them and runs the job in a thread.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis.calibration import Calibration, stored_figure, stored_results
from analysis.decisions import THRESHOLDS, Candidate, Decision, Options, analyse, significant
from dashboards import data, ui
from dashboards.charts import chart_text, chart_texts
from dashboards.plain import NAME_CHARS, isolate
from dashboards.stats import plural
from replay.logfile import parse_game
from replay.protocol import Viewer
from replay.registry import game_title, rollout_bot, view_for

TAG_SYMBOLS = {"inaccuracy": "diamond", "mistake": "square", "blunder": "x"}
#: The tagged moves' table: a row holds four lines of words (a move's words and its chance wrap:
#: Streamlit wraps a cell's text in rows taller than 4rem), and the table at most so high.
ROW_HEIGHT = 84
TABLE_HEIGHT = 460
#: Set when a row of the table moved the board: the Replay page brings the board into view once.
REVEAL_KEY = "analysis_reveal"
#: One colour per seat, distinct in light and dark themes (plotly's D3 set).
SEAT_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd")


@dataclass
class Job:
    """An analysis running in a thread of this session: decisions so far, and how it ended."""

    game_id: str
    total: int
    options: Options
    decisions: list[Decision] = field(default_factory=list)
    cancel: threading.Event = field(default_factory=threading.Event)
    done: bool = False
    error: str | None = None
    stored: int = 0


def tags_by_step(rows: pd.DataFrame) -> dict[int, str]:
    """The tag of each analysed move that has one (for the viewer's move list), from a game's stored
    analysis (``data.OpenedGame.analysis``, by step then as stored). A step may hold two decisions (a
    part of a move another seat decides, such as refraining from a draw, is that seat's): the first tag of a step is kept."""
    if rows.empty:
        return {}
    out: dict[int, str] = {}
    for r in rows.itertuples():
        if isinstance(r.tag, str):
            out.setdefault(int(r.step), str(r.tag))
    return out


def verdict(row: Any) -> str:
    """A decision's tag, ``not significant`` when the loss reaches an inaccuracy but the rollouts do not
    tell the two moves apart (``analysis.decisions.significant``), else empty."""
    if isinstance(row.tag, str):
        return str(row.tag)
    smallest = THRESHOLDS[-1][1]
    if float(row.loss) >= smallest:
        best = Candidate(None, "", "", False, float(row.best_wins), int(row.best_rollouts))
        played = Candidate(None, "", "", True, float(row.wins), int(row.rollouts))
        if not significant(best, played):
            return "not significant"
    return ""


def mover_of(row: Any) -> int | None:
    """The seat that made the move of a decision that is a part of another seat's move (refraining
    from a draw the move offers is the other seat's decision inside the chooser's move), else None: a
    row of ``data.STORED_ANALYSIS_SQL`` (its ``mover`` column; a row without one is its seat's own)."""
    mover = getattr(row, "mover", None)
    if mover is None or pd.isna(mover):  # no such column, or a step without a move row
        return None
    return None if int(mover) == int(row.seat) else int(mover)


def hidden_seats(game: str, seats: int, viewer: Viewer) -> set[int]:
    """The seats whose decisions ``viewer`` may not see (``GameView.sees_decisions``): their moves are
    not named in the analysis this view is shown."""
    seen = view_for(game)
    return {seat for seat in range(seats) if not seen.sees_decisions(seat, viewer)}


def for_viewer(rows: pd.DataFrame, game: str, seats: int, viewer: Viewer) -> list[list[Any]]:
    """The stored analysis as the viewer's move list and chart take it, one list per decision:
    ``[step, seat, estimate, low, high, tag or verdict, played words, best words, best estimate,
    best low, best high, mover]`` (chances as shares; ``mover`` the seat whose move the decision is a
    part of, ``mover_of``, else None). A seat whose decisions ``viewer`` may not see keeps its chances
    and tags, but its moves are None (and so are those of a part of such a seat's move)."""
    if rows.empty:
        return []
    hidden = hidden_seats(game, seats, viewer)
    out = []
    for r in rows.itertuples():
        seat, mover = int(r.seat), mover_of(r)
        # A part of another seat's move is worded as that move: it is named only if both seats are seen.
        shown = seat not in hidden and mover not in hidden
        out.append([int(r.step), seat, round(float(r.estimate), 4), round(float(r.ci_low), 4), round(float(r.ci_high), 4),
                    verdict(r) or None, str(r.words) if shown else None,
                    str(r.best_words) if shown and isinstance(r.best_words, str) else None,
                    round(float(r.best_estimate), 4), round(float(r.best_low), 4), round(float(r.best_high), 4), mover])
    return out


def _frame(decisions: list[Decision]) -> pd.DataFrame:
    return pd.DataFrame([
        {"step": d.step, "seat": d.seat, "player": d.player, "candidate": d.played.text, "estimate": d.played.estimate,
         "ci_low": d.played.low, "ci_high": d.played.high, "loss": d.loss, "tag": d.tag, "best": d.best.text}
        for d in decisions
    ])


def chart(rows: pd.DataFrame, names: list[str]) -> go.Figure:
    """Each seat's estimated winning chance after each of its decisions, tagged moves marked. Every
    string from the game (names in the legend, moves in the hover labels) goes through
    ``charts.chart_text``: Plotly reads its labels as HTML, and a name is text."""
    fig = go.Figure()
    for seat, name in enumerate(names):
        mine = rows[rows["seat"] == seat]
        if mine.empty:
            continue
        symbols = [TAG_SYMBOLS.get(t, "circle") if isinstance(t, str) else "circle" for t in mine["tag"]]
        fig.add_trace(go.Scatter(
            x=mine["step"], y=mine["estimate"] * 100, mode="lines+markers", name=chart_text(name, NAME_CHARS),
            line={"color": SEAT_COLOURS[seat % len(SEAT_COLOURS)]},
            marker={"symbol": symbols, "size": [11 if isinstance(t, str) else 5 for t in mine["tag"]]},
            customdata=list(zip(chart_texts(mine["candidate"]), mine["tag"].fillna(""), [chart_text(name, NAME_CHARS)] * len(mine))),
            hovertemplate="%{customdata[2]}, move %{x}: %{customdata[0]}<br>%{y:.0f}% %{customdata[1]}<extra></extra>",
        ))
    # The legend sits above the plot: under it, five names in two rows would cover the axis title.
    fig.update_layout(height=320, margin={"l": 10, "r": 10, "t": 30, "b": 10}, yaxis_title="winning chance (%)",
                      xaxis_title="move", yaxis_range=[0, 100],
                      legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0})
    return fig


def _run(job: Job, log_text: str, db: str) -> None:
    from analysis.store import store
    from replay.registry import engine_for

    try:
        log = parse_game(json.loads(log_text), file="dashboard")
        for decision in analyse(log, job.options, cancelled=job.cancel.is_set):
            job.decisions.append(decision)
        if not job.cancel.is_set():
            job.stored = store(db, log.game_id, engine_for(log.game).version, job.decisions, job.options)
            st.cache_data.clear()
    except Exception as err:  # shown on the page; the thread must not die silently
        job.error = f"{type(err).__name__}: {err}"
    finally:
        job.done = True


def show(game_row: dict[str, Any], log_text: str, rows: pd.DataFrame, viewer: Viewer | None = None) -> None:
    """The winning-chance chart, the tagged moves and the analyse controls under the viewer; ``rows``
    is the game's stored analysis (``data.OpenedGame.analysis``). The tagged moves name the moves
    played and the best ones: ``viewer`` sees those of the seats whose decisions it may see only
    (``GameView.sees_decisions``)."""
    viewer = viewer or Viewer.everything()
    game_id = str(game_row["game_id"])
    names = [str(n) for n in game_row["players"]]
    st.subheader("Winning chances")
    calibration_help(str(game_row["game"]))
    job = st.session_state.get("analysis_job")
    if isinstance(job, Job) and job.game_id == game_id and not job.done:
        _progress(job, names)
        return
    if isinstance(job, Job) and job.game_id == game_id and job.done:
        if job.error:
            ui.alert("error", f"The analysis failed: {job.error}")
        elif job.cancel.is_set():
            ui.alert("info", f"Analysis cancelled after {len(job.decisions)} of {job.total} decisions; nothing was stored.")
        st.session_state.pop("analysis_job", None)
    if not rows.empty:
        first = rows.iloc[0]
        ui.caption(
            f"{len(rows)} decisions analysed, {int(first.rollouts_asked)} rollouts per candidate by the "
            f"{first.rollout_bot} bot, seed {int(first.seed)}: "
            "the share of rollouts the acting seat wins after its move, with its 95% interval (docs/analysis.md). "
            "The chart under the board's VP chart follows the board; N and P go to the next and previous "
            "inaccuracy or worse (of the viewed seat in a seat's view)."
        )
        hidden = hidden_seats(str(game_row["game"]), len(names), viewer)
        if hidden:
            ui.caption("Moves of " + ", ".join(isolate(names[s]) for s in sorted(hidden)) + " are left out of the "
                       "table below: their candidates would name cards of a hand this view does not see.")
            rows = rows[[r.seat not in hidden and mover_of(r) not in hidden for r in rows.itertuples()]]
        _tagged(rows, game_row, log_text, viewer)
    else:
        ui.caption("This game has not been analysed yet.")
    _controls(game_row, log_text)


def help_text(game: str, results: dict[str, Any] | None) -> str:
    """What a winning chance of ``game`` means, and how closely such chances matched the results of
    games between bots (``results``: the game's ``analysis.calibration.stored_results``; None when it
    ships none or it cannot be read)."""
    bot = rollout_bot(game)
    text = (f"A winning chance here is the chance to win if every seat played like the {bot} bot from here "
            f"(the bot {game_title(game)}'s analysis rolls out with), not against any player: "
            "the share of rollouts from redeals of what the seat could not see that it won after its move.")
    if results is None:
        return text + " Its calibration has not been measured for this game."
    populations = {name: Calibration.from_json(obj) for name, obj in results["populations"].items()}
    own_name = next(iter(populations))
    own = populations[own_name]
    others = "; ".join(f"{name}: {c.ece:.3f} on {c.positions:,} positions" for name, c in list(populations.items())[1:])
    return (text + f" Measured on {own.positions:,} positions of games between {own_name}, against each game's "
            f"result: expected calibration error {own.ece:.3f} (the mean gap between a bin's estimate and the "
            f"share won), Brier score {own.brier:.3f} against {own.base_brier:.3f} for always saying the "
            f"base rate ({own.base_rate:.0%}). Between other bots the estimates are further off, since those "
            f"players do not play like the {bot} bot" + (f" ({others})" if others else "") + ". Each point "
            "is the positions whose estimate fell in a tenth of the scale: its estimate on average, and the "
            "share of them won with its 95% interval; on the diagonal, the chances come true (docs/analysis.md, "
            "\"Calibration\").")


def calibration_help(game: str) -> None:
    """The help of the winning chances: what one means (``help_text``) and the reliability diagram of
    ``game`` that the calibration benchmark measured (``analysis.calibration``)."""
    with st.expander("What does a winning chance mean?"):
        try:
            results = stored_results(game)
        except (OSError, ValueError) as err:
            results = None
            ui.caption(f"The calibration measured for the analysis cannot be read: {err}")
        ui.text(help_text(game, results))
        if results is not None:
            st.plotly_chart(stored_figure(results), use_container_width=True, key="analysis_calibration")


def _chance(estimate: float, low: float, high: float) -> str:
    return f"{estimate * 100:.0f}% ({low * 100:.0f}\u2013{high * 100:.0f}%)"


def who_decided(row: Any, names: list[str]) -> str:
    """Who made a decision, isolated: the seat's player, and for a part of another seat's move
    (``mover_of``) whose move it is: ``Bruno, in Ana's move`` (its words are that move's)."""
    mover = mover_of(row)
    player = isolate(row.player)
    if mover is None:
        return player
    return f"{player}, in {isolate(names[mover]) if 0 <= mover < len(names) else f'seat {mover}'}'s move"


def review_table(rows: pd.DataFrame, names: list[str] | None = None) -> pd.DataFrame:
    """The tagged moves, and the moves whose loss reaches an inaccuracy without being significant, in
    the move list's words: who decided (``who_decided``), the move played and the best, each followed
    by its chance and 95% interval, the loss and the tag; ``seat`` (the deciding seat,
    not shown) tells two decisions of one step apart."""
    verdicts = [verdict(r) for r in rows.itertuples()]
    keep = rows[[bool(v) for v in verdicts]]
    return pd.DataFrame({
        "move": keep["step"].astype(int).to_numpy(), "seat": keep["seat"].astype(int).to_numpy(),
        "player": [who_decided(r, names or []) for r in keep.itertuples()],
        "played": [f"{r.words} \u00b7 {_chance(r.estimate, r.ci_low, r.ci_high)}" for r in keep.itertuples()],
        "best": [f"{r.best_words} \u00b7 {_chance(r.best_estimate, r.best_low, r.best_high)}" for r in keep.itertuples()],
        "loss": (keep["loss"] * 100).round(0).to_numpy(), "tag": [v for v in verdicts if v],
    })


def _tagged(rows: pd.DataFrame, game_row: dict[str, Any] | None = None, log_text: str | None = None,
            viewer: Viewer | None = None) -> None:
    tagged = rows[rows["tag"].notna()]
    counts = ", ".join(f"{int((tagged['tag'] == name).sum())} {name}" for name, _ in reversed(THRESHOLDS))
    ui.caption(f"Tagged moves: {counts} (inaccuracy >= 5, mistake >= 10, blunder >= 20 points of winning chance "
               "lost, when the rollouts tell the moves apart; a loss they do not is shown \"not significant\"). "
               "Select a row to show the move on the board.")
    names = [str(n) for n in game_row["players"]] if game_row is not None else []
    table = review_table(rows, names)
    if table.empty:
        return
    # Every column within the page's width at 1400 px (the columns add up to 900 px, stretched to the
    # page's): the moves' words wrap, four lines a row, instead of pushing the chances, the loss and
    # the tag out of sight.
    picked = st.dataframe(table, hide_index=True, width="stretch", key="analysis_table", row_height=ROW_HEIGHT,
                          height=min(TABLE_HEIGHT, 40 + ROW_HEIGHT * len(table)),
                          on_select="rerun", selection_mode="single-row",
                          column_order=["move", "player", "played", "best", "loss", "tag"], column_config={
                              "move": st.column_config.NumberColumn("move", format="%d", width=56),
                              "player": st.column_config.TextColumn("player", width=140),
                              "played": st.column_config.TextColumn("played · chance (95% interval)", width=250),
                              "best": st.column_config.TextColumn("best · chance (95% interval)", width=250),
                              "loss": st.column_config.NumberColumn("loss", width=64, help="Points of winning chance lost"),
                              "tag": st.column_config.TextColumn("tag", width=110)})
    chosen = list(getattr(getattr(picked, "selection", None), "rows", []) or [])
    if not chosen:
        return
    picked_row = table.iloc[int(chosen[0])]
    step, seat = int(picked_row["move"]), int(picked_row["seat"])
    if game_row is not None and log_text is not None:
        _engine_line(game_row, log_text, rows, step, seat, viewer or Viewer.everything())
    # The board moves in place: the URL's step changes and the viewer is sent there on this rerun,
    # and brought into view (the table is far under it).
    target = str(step)
    if st.query_params.get("step") != target or st.session_state.get("analysis_went") != target:
        st.session_state["analysis_went"] = target
        # A new value each time: the same move chosen again comes into view again.
        st.session_state[REVEAL_KEY] = f"{target}|{seat}|{st.session_state.get('analysis_reveals', 0)}"
        st.session_state["analysis_reveals"] = int(st.session_state.get("analysis_reveals", 0)) + 1
        st.query_params["step"] = target
        st.rerun()


@dataclass(frozen=True)
class EngineLine:
    """The best candidate's continuation as the page shows it: each move in words, the indices of the
    moves among the legal ones (a ``whatif_panel.Line``'s picks), and how many moves the rollouts'
    line had (the real game may stop following it sooner: a move that needed cards the deciding seat
    could not see)."""

    words: tuple[str, ...]
    picks: tuple[int, ...]
    sampled: int


@st.cache_data(max_entries=64, show_spinner=False)
def engine_line_of(game_id: str, step: int, seat: int, best_move: str, seed: int, _log_text: str,
                   bot: str | None = None) -> EngineLine:
    """The engine line of the decision of ``seat`` at ``step`` (``analysis.rollouts.engine_line``, the
    stored seed and the bot that rolled the analysis out, ``bot``; None: the game's declared rollout
    bot), played in the real game from the position before the move: the best move (its stored JSON),
    then the line's moves while each is legal there. Raises ``ValueError`` for a step out of the game."""
    from analysis import variation as V
    from analysis.rollouts import engine_line

    log = parse_game(json.loads(_log_text), file="game")
    variation = V.start(log, step - 1)
    choices = V.choices(variation)
    wanted = json.loads(best_move)
    first = next((i for i, c in enumerate(choices) if c.move.to_json() == wanted), None)
    if first is None:
        return EngineLine((), (), 0)
    typed = engine_line(log.game, variation.state, seat, choices[first].move, seed, step, bot=bot)
    words, picks = [choices[first].words], [first]
    variation = V.play(variation, choices[first].move)
    for move in typed:
        if variation.over:
            break
        choices = V.choices(variation)
        found = next((i for i, c in enumerate(choices) if c.move.to_json() == move.to_json()), None)
        if found is None:
            break
        words.append(choices[found].words)
        picks.append(found)
        variation = V.play(variation, choices[found].move)
    return EngineLine(tuple(words), tuple(picks), len(typed))


def _engine_line(game_row: dict[str, Any], log_text: str, rows: pd.DataFrame, step: int, seat: int,
                 viewer: Viewer) -> None:
    """The engine line of the decision of ``seat`` at ``step`` (a step may hold two decisions: the
    line is the chosen row's, not the step's first)."""
    from dashboards import whatif_panel

    if not viewer.sees_everything:
        ui.caption("The engine line is shown in the view everything only: its moves would name cards of hidden hands.")
        return
    row = rows[(rows["step"] == step) & (rows["seat"] == seat)].iloc[0]
    line = engine_line_of(str(game_row["game_id"]), step, int(row["seat"]), str(row["best_move"]), int(row["seed"]),
                          log_text, str(row["rollout_bot"]))
    if not line.words:
        return
    ui.caption(f"Engine line of {who_decided(row, [str(n) for n in game_row['players']])} from move {step} (the best "
               f"move, then what the rollouts' bots played most, {plural(len(line.words), 'move')}): "
               + " \u2192 ".join(line.words))
    if st.button("Open the engine line as a variation", key=f"analysis_line_{step}_{seat}"):
        whatif_panel.add_line(str(game_row["game_id"]), whatif_panel.Line(step - 1, line.picks))
        st.rerun()


def _controls(game_row: dict[str, Any], log_text: str) -> None:
    cols = st.columns([1, 1, 2])
    rollouts = cols[0].number_input("Rollouts per candidate", 4, 1000, 30, step=10, key="analysis_rollouts")
    top = cols[1].number_input("Candidates per decision", 2, 10, 4, key="analysis_top")
    cols[2].caption("Every core works on it; the chart fills in as decisions come back. 100 rollouts are the CLI's default.")
    if st.button("Analyse this game", key="analysis_start"):
        decisions = sum(1 for _ in json.loads(log_text).get("moves", []))
        options = Options(rollouts=int(rollouts), top=int(top), seed=0, workers=os.cpu_count() or 1)
        job = Job(str(game_row["game_id"]), decisions, options)
        st.session_state["analysis_job"] = job
        threading.Thread(target=_run, args=(job, log_text, data.db_path()), daemon=True).start()
        st.rerun()


@st.fragment(run_every=1.0)
def _progress(job: Job, names: list[str]) -> None:
    done = len(job.decisions)
    st.progress(min(1.0, done / max(1, job.total)), text=f"Analysing: {done} decisions done (of at most {job.total} moves)")
    if st.button("Cancel", key="analysis_cancel"):
        job.cancel.set()
    if done:
        st.plotly_chart(chart(_frame(job.decisions), names), use_container_width=True, key="analysis_live_chart")
    if job.done:
        st.rerun()
