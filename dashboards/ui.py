"""Pieces every page shares: the stylesheet, the message shown when there is nothing to read, and
the way every string that comes from a log, a file or a query is shown: as text.

Streamlit reads the text of ``st.markdown``, ``st.caption``, ``st.info`` and the like as Markdown, and
escaping Markdown is not enough there (``https://...`` still becomes a link, ``:material/x:`` an
icon), so a user-provided string is never put in them: ``text``, ``caption`` and ``alert`` escape it as
HTML and show it through ``st.html``, and ``cut`` shortens a long name with an ellipsis, the whole name
on hover.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

import streamlit as st

from dashboards import data
from dashboards.plain import NAME_CHARS, cut, name_html  # noqa: F401  (shared with the pages)
from ingest.db import DatabaseError

CSS = (Path(__file__).resolve().parent / "style.css").read_text(encoding="utf-8")

ALERT_KINDS = ("info", "warning", "error")


def text(value: str, css_class: str = "gv-text") -> None:
    """Show ``value`` as it is: no Markdown, no HTML (line breaks kept)."""
    st.html(f'<div class="{css_class}">{escape(str(value))}</div>')


def caption(value: str) -> None:
    """``text`` in the small grey type of a caption."""
    text(value, "gv-text gv-caption")


def alert(kind: str, value: str) -> None:
    """An info, warning or error box holding ``value`` as plain text (``st.warning`` would read it as
    Markdown). Raises ``ValueError`` for another kind."""
    if kind not in ALERT_KINDS:
        raise ValueError(f"unknown alert kind {kind!r} (known: {', '.join(ALERT_KINDS)})")
    st.html(f'<div class="gv-text gv-alert gv-alert-{kind}" role="alert">{escape(str(value))}</div>')


def inject_css() -> None:
    """Add the dashboard's stylesheet to the page."""
    st.html(f"<style>{CSS}</style>")


def require_games() -> None:
    """Stop the page with a hint when the database is missing, unreadable or holds no games."""
    path = data.db_path()
    if not data.db_exists():
        alert("info", f"No database at {path} yet. Import logs on the Import page or with: governor import PATH --db {path}")
        st.page_link("views/import_logs.py", label="Import logs", icon=":material/upload_file:")
        st.stop()
    try:
        present = data.tables()
        count = int(data.frame("SELECT count(*) AS n FROM games")["n"].iloc[0]) if "games" in present else 0
    except DatabaseError as err:
        alert("error", str(err))
        st.stop()
    if count == 0:
        st.info("The database holds no games yet. Import logs on the **Import** page.")
        st.page_link("views/import_logs.py", label="Import logs", icon=":material/upload_file:")
        st.stop()


GAME_TITLES = {"san_juan": "San Juan", "puerto_rico": "Puerto Rico"}


def game_title(game: str) -> str:
    """The display name of a game type."""
    return GAME_TITLES.get(game, game.replace("_", " ").title())


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|:$~&=\"'])")


def md_text(text: str) -> str:
    """``text`` made safe to put in a Streamlit message or markdown: every character markdown,
    Streamlit's directives (``:red[...]``, ``:material/...:``), math (``$``) or HTML could read is
    escaped, and line breaks become spaces, so the text shows exactly as it is."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))
