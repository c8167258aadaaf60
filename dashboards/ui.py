"""Pieces every page shares: the stylesheet, and the message shown when there is nothing to read."""

from __future__ import annotations

import re
from pathlib import Path

import streamlit as st

from dashboards import data
from ingest.db import DatabaseError

CSS = (Path(__file__).resolve().parent / "style.css").read_text(encoding="utf-8")


def inject_css() -> None:
    """Add the dashboard's stylesheet to the page."""
    st.html(f"<style>{CSS}</style>")


def require_games() -> None:
    """Stop the page with a hint when the database is missing, unreadable or holds no games."""
    path = data.db_path()
    if not data.db_exists():
        st.info(f"No database at `{path}` yet. Import logs on the **Import** page or with `governor import PATH --db {path}`.")
        st.page_link("views/import_logs.py", label="Import logs", icon=":material/upload_file:")
        st.stop()
    try:
        present = data.tables()
        count = int(data.frame("SELECT count(*) AS n FROM games")["n"].iloc[0]) if "games" in present else 0
    except DatabaseError as err:
        st.error(str(err))
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
