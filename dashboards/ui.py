"""Pieces every page shares: the stylesheet, the message shown when there is nothing to read, and
the way every string that comes from a log, a file or a query is shown: as text.

Streamlit reads the text of ``st.markdown``, ``st.caption``, ``st.info`` and the like as Markdown, and
escaping Markdown is not enough there (``https://...`` still becomes a link, ``:material/x:`` an
icon), so a user-provided string is never put in them: ``text``, ``caption`` and ``alert`` escape it as
HTML and show it through ``st.html``, and ``cut`` shortens a long name with an ellipsis, the whole name
on hover.
"""

from __future__ import annotations

import json
import re
from html import escape
from pathlib import Path

import streamlit as st

from dashboards import data
from dashboards.plain import NAME_CHARS, cut, name_html  # noqa: F401  (shared with the pages)
from ingest.db import DatabaseError
from replay import registry

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


#: The theme choices of the sidebar's switch, and what Streamlit's front end calls each in the
#: browser's storage (where its own settings menu keeps the choice).
THEMES = {"system": "Follow the system", "light": "Light", "dark": "Dark"}
_STORED_THEME = {"system": "System", "light": "Light", "dark": "Dark"}
#: The cookie that tells the server the browser's choice when a new session starts (after a reload).
THEME_COOKIE = "governor_theme"
#: Page paths of the app: Streamlit keeps a theme choice per path the app was first loaded at.
_PAGE_PATHS = ("", "replay", "play", "statistics", "explorer", "players", "sql", "import", "games", "home")
_THEME_SCRIPT = """<script>
(() => {
  const choice = %(choice)s, stored = %(stored)s, pages = %(pages)s;
  const path = window.location.pathname;
  let base = path;
  for (const page of pages) {
    if (page && path.endsWith("/" + page)) { base = path.slice(0, -page.length); break; }
  }
  if (!base.endsWith("/")) base += "/";
  let changed = false;
  for (const page of pages) {
    const key = `stActiveTheme-${base}${page}-v2`;
    const now = window.localStorage.getItem(key);
    // Streamlit writes its own choice back when it loads ("System" when it follows the browser).
    if (choice === "system") {
      if (now !== null && now !== JSON.stringify(stored)) { window.localStorage.removeItem(key); changed = true; }
    } else if (now !== JSON.stringify(stored)) {
      window.localStorage.setItem(key, JSON.stringify(stored));
      changed = true;
    }
  }
  document.cookie = `%(cookie)s=${choice}; path=/; max-age=31536000; SameSite=Lax`;
  // Streamlit reads the theme when the page loads: a new choice takes a reload (the URL keeps the filters).
  if (changed) window.location.reload();
})();
</script>"""


def theme_choice() -> str:
    """The theme chosen in this session, else the one the browser's cookie remembers, else "system"."""
    chosen = st.session_state.get("gv_theme")
    if chosen in THEMES:
        return str(chosen)
    try:
        remembered = st.context.cookies.get(THEME_COOKIE)
    except (AttributeError, RuntimeError):  # no browser behind this session (a headless test)
        remembered = None
    return remembered if remembered in THEMES else "system"


def theme_switch() -> str:
    """The sidebar's light / dark / follow-the-system switch: the choice is kept in the browser (where
    Streamlit's own settings menu keeps it, for every page path, and in a cookie the server reads on
    a new session), so it survives page switches and reloads; the charts follow Streamlit's theme.
    Returns the choice."""
    st.session_state["gv_theme"] = theme_choice()
    choice = str(st.radio("Theme", list(THEMES), format_func=THEMES.__getitem__, key="gv_theme", horizontal=True))
    st.html(_THEME_SCRIPT % {"choice": json.dumps(choice), "stored": json.dumps(_STORED_THEME[choice]),
                             "pages": json.dumps(list(_PAGE_PATHS)), "cookie": THEME_COOKIE},
            unsafe_allow_javascript=True)
    return choice


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


def game_title(game: str) -> str:
    """The display name of a game type (a name no game declares is written from its words)."""
    return registry.game_title(game)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|:$~&=\"'])")


def md_text(text: str) -> str:
    """``text`` made safe to put in a Streamlit message or markdown: every character markdown,
    Streamlit's directives (``:red[...]``, ``:material/...:``), math (``$``) or HTML could read is
    escaped, and line breaks become spaces, so the text shows exactly as it is."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))
