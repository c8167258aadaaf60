"""SQL: run one read-only query against the database, with the schema and examples beside it."""

from __future__ import annotations

import streamlit as st

from dashboards import data, ui
from dashboards.sql_sandbox import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT, SandboxError, run_sandboxed

EXAMPLES = {
    "Win rate by seat": "SELECT game, player_count, seat, games, wins, round(win_rate, 3) AS win_rate\n"
    "FROM win_rate_by_seat\nORDER BY game, player_count, seat",
    "Highest scores": "SELECT g.game, p.name, p.score, g.player_count, g.game_id\nFROM players p JOIN games g USING (game_id)\n"
    "ORDER BY p.score DESC\nLIMIT 20",
    "Most built buildings": "SELECT building, count(*) AS times_built\nFROM buildings_built\nGROUP BY building\n"
    "ORDER BY times_built DESC",
    "VP after each round (one game)": "SELECT s.round, p.seat, max(p.vp) AS vp\n"
    "FROM san_juan_player_states p JOIN san_juan_states s USING (game_id, step)\n"
    "WHERE game_id = (SELECT min(game_id) FROM games WHERE game = 'san_juan')\nGROUP BY ALL ORDER BY s.round, p.seat",
    "Rejected logs": "SELECT file, game_index, move_number, player, message\nFROM rejections\nORDER BY rejected_at DESC",
}


def _use_example() -> None:
    name = st.session_state.get("sql_example")
    if name in EXAMPLES:
        st.session_state["sql_text"] = EXAMPLES[name]


st.title("SQL")
ui.require_games()
st.caption(
    f"One read-only statement (SELECT, WITH, FROM, VALUES, DESCRIBE, SHOW); at most {DEFAULT_MAX_ROWS:,} rows and "
    f"{DEFAULT_TIMEOUT:g} s. Files, the network, extensions and settings are off limits."
)

query_col, schema_col = st.columns([2.2, 1], gap="large")
with query_col:
    if "sql_text" not in st.session_state:
        st.session_state["sql_text"] = EXAMPLES["Win rate by seat"]
    st.selectbox("Examples", list(EXAMPLES), index=None, placeholder="Pick an example query",
                 key="sql_example", on_change=_use_example)
    sql = st.text_area("Query", key="sql_text", height=180)
    run = st.button("Run", type="primary", key="sql_run")
    if run or st.session_state.get("sql_last") == sql:
        st.session_state["sql_last"] = sql
        try:
            result = run_sandboxed(data.db_path(), sql)
        except SandboxError as err:
            ui.alert("error", str(err))  # it may quote the query: text, not Markdown
        else:
            note = f"{result.table.num_rows:,} rows in {result.seconds:.2f} s"
            if result.truncated:
                note += f" (cut at {DEFAULT_MAX_ROWS:,} rows; add a LIMIT or aggregate)"
            st.caption(note)
            st.dataframe(result.table, hide_index=True, width="stretch")

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
