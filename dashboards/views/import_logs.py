"""Import: upload log files and import them into the database.

The upload box (``dashboards.upload_component``) sends each file to the dashboard's route
``PUT /upload``, which writes it to this session's ``UploadBox`` (a folder of its own) as it arrives,
counting bytes and files against the limits (``dashboards.upload_box``): the server never holds a file
whole in memory. The page lists what the box holds, accepted or refused with the reason, and imports
it with ``ingest.importer.import_paths`` in a separate process, so the importer's write connection
never meets the dashboard's read-only ones in one process. File names and messages come from the
upload and are shown as text (``ui.alert``, tables), never as Markdown, each name isolated
(``plain.isolate``)."""

from __future__ import annotations

from html import escape

import streamlit as st

from dashboards import data, ui
from dashboards.plain import bdi, isolate, sql_names
from dashboards.upload_box import Unavailable, UploadBox, find_box
from dashboards.upload_component import upload_box
from dashboards.upload_files import MAX_FILE_BYTES, MAX_GAMES, MAX_UPLOAD_BYTES
from dashboards.uploads import import_box
from replay import registry

#: Session key of this session's upload box.
BOX_KEY = "import_box"


def session_box() -> UploadBox:
    """This session's upload box (a new one when it has none, or its box was closed)."""
    box = st.session_state.get(BOX_KEY)
    if not isinstance(box, UploadBox) or find_box(box.token) is not box:
        box = UploadBox()
        st.session_state[BOX_KEY] = box
    return box


#: Files listed at most (the rest are counted).
LISTED = 200
_TABLE_STYLE = """<style>
.gv-files { overflow-x: auto; }
.gv-files table { border-collapse: collapse; width: 100%; font-size: 14px; }
.gv-files th, .gv-files td { text-align: left; padding: 4px 10px 4px 0; vertical-align: top;
  border-bottom: 1px solid color-mix(in srgb, currentColor 15%, transparent); }
.gv-files th { font-weight: 600; opacity: .75; white-space: nowrap; }
.gv-files td.n { text-align: right; white-space: nowrap; }
.gv-files td.name { overflow-wrap: anywhere; min-width: 8em; }
.gv-files tr.refused td { background: color-mix(in srgb, #e5484d 12%, transparent); }
.gv-files tr.refused td.state { font-weight: 600; }
</style>"""


def files_table(held: list[tuple[str, int | None, int | None, str | None]]) -> str:
    """The box's files as an HTML table (name, state, games, MB once decompressed, why refused): every
    name escaped and isolated in ``<bdi>``; at most ``LISTED`` rows, the rest counted."""
    rows = []
    for name, size, games, reason in held[:LISTED]:
        rows.append(
            f'<tr class="{"refused" if reason else "ready"}"><td class="name">{bdi(name)}</td>'
            f'<td class="state">{"refused" if reason else "ready"}</td>'
            f'<td class="n">{"" if games is None else f"{games:,}"}</td>'
            f'<td class="n">{"" if size is None else f"{size / 2**20:.1f}"}</td>'
            f"<td>{escape(reason or '')}</td></tr>"
        )
    more = f'<div class="gv-caption">and {len(held) - LISTED:,} more files</div>' if len(held) > LISTED else ""
    return (f'{_TABLE_STYLE}<div class="gv-files"><table><thead><tr><th>File</th><th>State</th><th>Games</th>'
            f'<th>MB</th><th>Why refused</th></tr></thead><tbody>{"".join(rows)}</tbody></table>{more}</div>')


def _clear() -> None:
    box = st.session_state.get(BOX_KEY)
    if isinstance(box, UploadBox):
        try:
            box.take_all()
        except Unavailable:
            st.session_state["import_busy"] = True
            return
        box.clear()


st.title("Import")
# Every registered game by its title, in the registry's order ("A or B", "A, B or C").
_titles = [registry.game_title(game) for game in registry.game_names()]
_games = " or ".join(_titles) if len(_titles) < 3 else ", ".join(_titles[:-1]) + " or " + _titles[-1]
st.caption(
    f"Upload {_games} logs: .json (one game), .jsonl (one game a line), either gzipped (.gz); "
    f"at most {MAX_FILE_BYTES // 2**20} MB per file, and per upload at most {MAX_GAMES:,} games and "
    f"{MAX_UPLOAD_BYTES // 2**20} MB once decompressed (use `governor import` for more). Games already stored are "
    "skipped; bad games are listed with the reason and recorded in the rejections table."
)
ui.caption(f"Database: {isolate(data.db_path())}")

box = session_box()
upload_box(box.token, f"At most {MAX_FILE_BYTES // 2**20} MB per file: .json, .jsonl, .json.gz, .jsonl.gz")
held = box.files()
if held:
    accepted = [f for f in held if f[3] is None]
    refused = len(held) - len(accepted)
    ui.caption(
        f"In the upload: {len(accepted):,} file{'s' if len(accepted) != 1 else ''} ready, {box.games:,} games, "
        f"{box.size / 2**20:.1f} MB once decompressed (of {MAX_UPLOAD_BYTES // 2**20} MB)"
        + (f"; {refused:,} refused (not imported)" if refused else "") + "."
    )
    st.html(files_table(held))
if st.session_state.pop("import_busy", False):
    ui.alert("warning", "A file is still arriving: try again when it has arrived.")
buttons = st.container(horizontal=True)
run = buttons.button("Import", type="primary", disabled=not held, key="import_run")
buttons.button("Clear", key="import_clear", disabled=not held, on_click=_clear,
               help="Empty the upload: its files are deleted from the server.")
if run:
    try:
        with st.spinner("Importing..."):
            report = import_box(box, data.db_path())
    except Unavailable:
        ui.alert("warning", "A file is still arriving: try again when it has arrived.")
        st.stop()
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
