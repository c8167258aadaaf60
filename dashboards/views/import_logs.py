"""Import: upload log files and import them into the database.

Uploaded bytes are checked and bounded (``dashboards.uploads``), written under generated names in a
fresh temporary folder (an uploaded name never becomes a path) and imported by
``ingest.importer.import_paths`` in a separate process, so the importer's write connection never
meets the dashboard's read-only ones in one process. File names and messages come from the upload
and are shown as text (``ui.alert``, tables), never as Markdown."""

from __future__ import annotations

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.uploaded_file_manager import UploadedFile

from dashboards import data, ui
from dashboards.plain import isolate, sql_names
from dashboards.uploads import MAX_FILE_BYTES, MAX_GAMES, MAX_UPLOAD_BYTES, import_uploads

st.title("Import")
st.caption(
    f"Upload San Juan or Puerto Rico logs: .json (one game), .jsonl (one game a line), either gzipped (.gz); "
    f"at most {MAX_FILE_BYTES // 2**20} MB per file, and per upload at most {MAX_GAMES:,} games and "
    f"{MAX_UPLOAD_BYTES // 2**20} MB once decompressed (use `governor import` for more). Games already stored are "
    "skipped; bad games are listed with the reason and recorded in the rejections table."
)
ui.caption(f"Database: {isolate(data.db_path())}")



def _release(files: list[UploadedFile]) -> None:
    """Drop Streamlit's in-memory copies of imported files (they stay until the session ends otherwise)."""
    ctx = get_script_run_ctx()
    if ctx is None or not Runtime.exists():
        return
    # The in-memory manager (Streamlit's default) can remove one file; the protocol does not promise it.
    remove = getattr(Runtime.instance().uploaded_file_mgr, "remove_file", None)
    if remove is None:
        return
    for file in files:
        remove(ctx.session_id, file.file_id)


# A new key after each import: the box empties, and the files it held are released.
uploader_key = f"import_files_{st.session_state.get('import_round', 0)}"
files = st.file_uploader(
    "Log files", type=["json", "jsonl", "gz"], accept_multiple_files=True, key=uploader_key,
)
if st.button("Import", type="primary", disabled=not files, key="import_run"):
    chosen = list(files or [])
    with st.spinner("Importing..."):
        # Each file is read in chunks to disk with a running total (never whole into memory here).
        report = import_uploads(chosen, data.db_path())
    _release(chosen)
    st.session_state["import_round"] = st.session_state.get("import_round", 0) + 1
    if report.game_ids:
        report.games = data.frame(
            f"SELECT game, player_count, {sql_names('players')} AS players, "
            f"{sql_names('winner_names')} AS winner, rounds, moves, game_id, "
            "'replay?game=' || game_id AS replay FROM games WHERE game_id IN (SELECT unnest(?)) ORDER BY file, file_index",
            (list(report.game_ids),),
        )
    st.session_state["import_report"] = report
    st.rerun()  # with the emptied box

last_report = st.session_state.get("import_report")
if last_report is not None:
    report = last_report
    if report.error:
        ui.alert("error", report.error)
    cols = st.columns(4)
    cols[0].metric("Imported", report.imported)
    cols[1].metric("Duplicates skipped", report.duplicates)
    cols[2].metric("Rejected games", report.rejected)
    cols[3].metric("Files refused", len(report.refused))
    # File names and rejection messages (names, ids from the logs) are shown as text, never Markdown.
    if report.refused:
        st.markdown(f"**Files refused** ({len(report.refused)}): not imported")
        for name, reason in report.refused:
            ui.alert("warning", f"{isolate(name)}: {reason}")
    note = report.messages_note()
    if note:
        st.markdown("**Rejected games**")
        ui.caption(note)
        for message in report.messages:
            ui.alert("error", message)
    if report.games is not None and len(report.games):
        st.markdown("**Imported games**")
        st.dataframe(
            report.games, hide_index=True, width="stretch",
            column_order=["replay", "game", "player_count", "players", "winner", "rounds", "moves", "game_id"],
            column_config={
                "replay": st.column_config.LinkColumn("Replay", display_text="Open", width="small",
                                                      help="Open the game on the Replay page"),
                "game": st.column_config.TextColumn("Game", width="small"),
                "player_count": st.column_config.NumberColumn("Players", width="small"),
                "players": st.column_config.TextColumn("Names"),
                "winner": st.column_config.TextColumn("Winner"),
                "game_id": st.column_config.TextColumn("Game id"),
            },
        )
        st.page_link("views/games.py", label="See all games", icon=":material/table_view:")
