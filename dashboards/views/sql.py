"""SQL: run one read-only query against the database, with the schema and examples beside it.

The query text, the last result and a history of the session's queries live in session state (the
widget's own state is dropped when another page is shown), so they survive a change of page; the
query run last is in the URL too (``/sql?q=...``, up to ``URL_SQL_CHARS`` characters), so it survives
a reload and can be shared. A query stopped because the visitor left the page says so on return.
Ctrl+Enter in the query box submits the form; while a query runs the page shows the time so far and
a Cancel button, whose click reruns the page: Streamlit stops this run at its next update of the
running time, and ``run_sandboxed`` kills the query's process on the way out."""

from __future__ import annotations

import time
from typing import Any

import streamlit as st

from dashboards import data, ui, url_state
from dashboards.sql_check import MAX_SQL_CHARS, SandboxError
from dashboards.sql_downloads import result_csv, result_parquet
from dashboards.sql_sandbox import (
    DEFAULT_DOWNLOAD_BYTES,
    DEFAULT_MAX_ROWS,
    DEFAULT_MEMORY_MB,
    SandboxResult,
    page_timeout,
    run_sandboxed,
)
from dashboards.stats import plural
from ingest.db import DatabaseError
from replay import registry

_FIRST_GAME = registry.game_names()[0]
EXAMPLES = {
    "Win rate by seat": "SELECT game, player_count, seat, games, wins, round(win_rate, 3) AS win_rate\n"
    "FROM win_rate_by_seat\nORDER BY game, player_count, seat",
    "Highest scores": "SELECT g.game, p.name, p.score, g.player_count, g.game_id\nFROM players p JOIN games g USING (game_id)\n"
    "ORDER BY p.score DESC\nLIMIT 20",
    "Most built buildings": "SELECT building, count(*) AS times_built\nFROM buildings_built\nGROUP BY building\n"
    "ORDER BY times_built DESC",
    "Games by type and player count (PIVOT)": "PIVOT games ON player_count USING count(*) GROUP BY game",
    # Every game's state tables are <game>_states and <game>_player_states with round and vp columns:
    # the example reads the first declared game's, named by the registry.
    "VP after each round (one game)": "SELECT s.round, p.seat, max(p.vp) AS vp\n"
    f"FROM {_FIRST_GAME}_player_states p JOIN {_FIRST_GAME}_states s USING (game_id, step)\n"
    f"WHERE game_id = (SELECT min(game_id) FROM games WHERE game = '{_FIRST_GAME}')\nGROUP BY ALL ORDER BY s.round, p.seat",
    "Rejected logs": "SELECT file, game_index, move_number, player, message\nFROM rejections\nORDER BY rejected_at DESC",
}
#: Queries kept in the session's history, newest first.
HISTORY_SIZE = 20
#: The longest query kept in the URL (longer ones stay in the session only).
URL_SQL_CHARS = 4_000


def _use_example() -> None:
    name = st.session_state.get("sql_example")
    if name in EXAMPLES:
        st.session_state["sql_text"] = EXAMPLES[name]


def _use_history() -> None:
    pick = st.session_state.get("sql_history_pick")
    history = st.session_state.get("sql_history", [])
    if isinstance(pick, int) and 0 <= pick < len(history):
        st.session_state["sql_text"] = history[pick]["sql"]
    st.session_state["sql_history_pick"] = None


def _cancelled() -> None:
    """The Cancel button's callback, run at the start of the rerun its click causes."""
    sql = st.session_state.get("sql_running", "")
    st.session_state.pop("sql_pending", None)
    _remember({"sql": sql, "error": "The query was cancelled.", "at": time.time()})


def _note_interrupted() -> None:
    """A query whose run ended without an outcome (the visitor went to another page meanwhile, which
    stopped the run and killed the query) is recorded as stopped, so the page says what happened."""
    pending = st.session_state.pop("sql_pending", None)
    if pending is None:
        return
    seconds = max(0.0, time.time() - pending["at"])
    _remember({"sql": pending["sql"], "at": pending["at"],
               "error": f"The query was stopped after about {seconds:.0f} s because the page was left (or used) "
                        "while it ran; run it again to see its result."})


def _remember(outcome: dict[str, Any]) -> None:
    st.session_state["sql_outcome"] = outcome
    history: list[dict[str, Any]] = st.session_state.setdefault("sql_history", [])
    history.insert(0, {"sql": outcome["sql"], "at": outcome["at"], "summary": _summary(outcome)})
    del history[HISTORY_SIZE:]


def _summary(outcome: dict[str, Any]) -> str:
    result: SandboxResult | None = outcome.get("result")
    if result is None:
        return str(outcome.get("error", "")).split(".")[0]
    return f"{_row_count(result)}, {result.seconds:.2f} s"


def _row_count(result: SandboxResult) -> str:
    """``1 row``, ``7,000 rows`` or ``more than 5,000 rows``."""
    counted = plural(result.rows, "row")
    return counted if result.whole is not None or not result.truncated else f"more than {counted}"


def _history_label(index: int) -> str:
    entry = st.session_state.get("sql_history", [])[index]
    first = " ".join(entry["sql"].split())
    first = first if len(first) <= 70 else first[:69] + "…"
    return f"{time.strftime('%H:%M:%S', time.localtime(entry['at']))}  {first}  ({entry['summary']})"


def _run(sql: str) -> None:
    """Run ``sql`` with a running indicator and a Cancel button, and remember the outcome."""
    st.session_state["sql_running"] = sql
    st.session_state["sql_pending"] = {"sql": sql, "at": time.time()}
    indicator = st.empty()
    with indicator.container(border=True):
        clock = st.empty()
        st.button("Cancel", key="sql_cancel", on_click=_cancelled, icon=":material/stop_circle:")

    def tick(seconds: float) -> None:
        # Every update is also where Streamlit stops this run when Cancel (or another page) was clicked.
        clock.caption(f"Running... {seconds:.1f} s (the limit is {page_timeout():g} s)")

    tick(0.0)
    outcome: dict[str, Any] = {"sql": sql, "at": time.time()}
    try:
        outcome["result"] = run_sandboxed(data.db_path(), sql, timeout=page_timeout(), on_wait=tick)
    except SandboxError as err:
        outcome["error"] = str(err)
    indicator.empty()
    st.session_state.pop("sql_pending", None)
    _remember(outcome)


def _show(outcome: dict[str, Any], current_sql: str) -> None:
    if outcome["sql"].strip() != current_sql.strip():
        st.caption("Result of the query run last (the query box has changed since):")
        st.code(outcome["sql"], language="sql")
    error = outcome.get("error")
    if error:
        ui.alert("error", error)  # it may quote the query or stored values: text, not Markdown
        return
    result: SandboxResult = outcome["result"]
    note = f"{_row_count(result)} in {result.seconds:.2f} s"
    if result.truncated:
        note += f"; the first {DEFAULT_MAX_ROWS:,} are shown"
    st.caption(note)
    st.dataframe(result.table, hide_index=True, width="stretch")
    whole = result.whole
    if whole is None:
        st.caption(
            f"The whole result is larger than the download limit of {DEFAULT_DOWNLOAD_BYTES // 2**20} MB: "
            "aggregate, filter or add a LIMIT to download it."
        )
        return
    # A row of buttons as wide as their labels (columns cut the labels short on narrow screens).
    row = st.container(horizontal=True)
    row.download_button(
        "Download CSV", data=lambda: result_csv(whole), file_name="governor-query.csv", mime="text/csv",
        key="sql_csv", on_click="ignore", icon=":material/download:",
    )
    row.download_button(
        "Download Parquet", data=lambda: result_parquet(whole), file_name="governor-query.parquet",
        mime="application/vnd.apache.parquet", key="sql_parquet", on_click="ignore", icon=":material/download:",
    )


st.title("SQL")
path = data.db_path()
if not data.db_exists():
    ui.alert("info", f"No database at {path} yet. Import logs on the Import page or with: governor import PATH --db {path}")
    st.page_link("views/import_logs.py", label="Import logs", icon=":material/upload_file:")
    st.stop()
try:
    games = int(data.frame("SELECT count(*) AS n FROM games")["n"].iloc[0]) if "games" in data.tables() else 0
except DatabaseError as err:
    ui.alert("error", str(err))
    st.stop()
if games == 0:
    st.info("The database holds no games yet: the tables are empty, but their schema is here to query.")
st.caption(
    f"One read-only statement (SELECT, WITH, FROM, VALUES, PIVOT, UNPIVOT, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN); "
    f"Ctrl+Enter runs it. Limits: {page_timeout():g} s, {DEFAULT_MEMORY_MB:,} MB of memory, {DEFAULT_MAX_ROWS:,} rows "
    f"shown, downloads of results up to {DEFAULT_DOWNLOAD_BYTES // 2**20} MB. Files, the network, extensions and "
    "settings are off limits."
)

# The widget's state goes when another page is shown; the text is kept under a key of our own, and
# the URL has the query run last (a reload or a shared link).
if "sql_text" not in st.session_state:
    st.session_state["sql_text"] = (url_state.raw_param("q", URL_SQL_CHARS) or st.session_state.get("sql_saved")
                                    or EXAMPLES["Win rate by seat"])
_note_interrupted()

query_col, schema_col = st.columns([2.2, 1], gap="large")
with query_col:
    pick_col, history_col = st.columns(2)
    pick_col.selectbox("Examples", list(EXAMPLES), index=None, placeholder="Pick an example query",
                       key="sql_example", on_change=_use_example)
    # Filled after the query runs, so that the history includes it.
    history_slot = history_col.empty()
    with st.form("sql_form", border=False):
        sql = st.text_area("Query", key="sql_text", height=180, max_chars=MAX_SQL_CHARS,
                           help="Ctrl+Enter (Cmd+Enter) runs the query.")
        run = st.form_submit_button("Run", type="primary", key="sql_run")
    st.session_state["sql_saved"] = sql
    url_state.publish({"q": sql if len(sql) <= URL_SQL_CHARS and sql != EXAMPLES["Win rate by seat"] else None})
    if len(sql) > URL_SQL_CHARS:
        st.caption(f"This query is longer than {URL_SQL_CHARS:,} characters: it is kept in this session, not in "
                   "the URL.")
    if run:
        _run(sql)
    history = st.session_state.get("sql_history", [])
    history_slot.selectbox(
        f"History ({len(history)})", list(range(len(history))), index=None, format_func=_history_label,
        placeholder="Queries run in this session", key="sql_history_pick", on_change=_use_history,
        disabled=not history,
    )
    last = st.session_state.get("sql_outcome")
    if last is not None:
        _show(last, sql)

with schema_col:
    st.markdown("**Schema**")
    columns = data.schema_columns()
    for (table, kind), rows in columns.groupby(["table_name", "table_type"], sort=False):
        label = f"{table}" + (" (view)" if kind == "VIEW" else "")
        with st.expander(label):
            st.dataframe(
                rows[["column_name", "data_type"]].rename(columns={"column_name": "column", "data_type": "type"}),
                hide_index=True, width="stretch",
            )
