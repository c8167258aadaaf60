"""The Games page's analysis panel: how many stored games have an analysis, and "Analyse the rest", a
background job (``dashboards.analyse_job``) whose progress the page shows while it runs; the page can
be left and opened again, and "Stop" keeps every game analysed so far."""

from __future__ import annotations

import os

import streamlit as st

from dashboards import analyse_job, data, ui
from dashboards.stats import plural

#: Games with a stored analysis (whole or in part), of all.
COUNTS_SQL = ("SELECT count(*) AS games, count(*) FILTER (WHERE game_id IN (SELECT game_id FROM analysis)) AS analysed "
              "FROM games")


def show() -> None:
    """The panel, above the games' table."""
    db = data.db_path()
    counts = data.frame(COUNTS_SQL).iloc[0]
    games, analysed = int(counts["games"]), int(counts["analysed"])
    summary = f"{analysed:,} of {plural(games, 'game')} analysed."
    if os.path.isdir(db):
        ui.caption(summary + " This dashboard reads a Parquet lake, which it does not write: analyse its games "
                   "with governor analyse --lake DIR --all.")
        return
    job = analyse_job.job_for(db)
    if job is not None and not job.finished:
        _progress(job)
        return
    if job is not None:
        _ended(job)
        analyse_job.forget(db)
    ui.caption(summary + (" \u201cAnalyse the rest\u201d analyses the others in the background with the default "
                          "settings (each decision's winning chances, at most 100 rollouts a move); each game is "
                          "kept as soon as it is done." if analysed < games else ""))
    if analysed < games and st.button("Analyse the rest", key="analyse_rest", icon=":material/analytics:"):
        analyse_job.start(db)
        st.rerun()


def _ended(job: analyse_job.BatchJob) -> None:
    """How the last job ended, once: its tally, and the games it could not analyse (plain text)."""
    tally = (f"{plural(job.analysed, 'game')} analysed, {job.skipped} skipped (analysed already), "
             f"{job.failed} failed")
    if job.outcome == "done":
        ui.alert("info", f"Analysis done: {tally}.")
    elif job.outcome == "stopped":
        ui.alert("info", f"Analysis stopped: {tally}; every game analysed is kept. Analyse the rest at any time.")
    else:
        ui.alert("error", f"The analysis stopped: {job.error or 'unknown error'}. {tally}; what was analysed is kept.")
    for line in job.failures:
        ui.caption(line)


@st.fragment(run_every=1.0)
def _progress(job: analyse_job.BatchJob) -> None:
    """The job's progress, every second, while the rest of the page stays as it is."""
    if job.total is None:
        st.progress(0.0, text="Analysing the rest: finding the games to analyse")
    else:
        st.progress(job.done / max(1, job.total),
                    text=f"Analysing the rest: {job.done} of {plural(job.total, 'game')} done: {job.analysed} "
                         f"analysed, {job.skipped} skipped (analysed already), {job.failed} failed")
    ui.caption("Each game is kept as soon as it is analysed: leave the page and come back, or stop and go on later.")
    if job.stopping:
        ui.caption("Stopping: the game being stored is kept whole or not at all.")
    elif st.button("Stop", key="analyse_rest_stop", icon=":material/stop_circle:"):
        analyse_job.stop(job)
    if job.finished:
        # The whole page again: the table's Analysed column reads what was stored.
        st.rerun(scope="app")
