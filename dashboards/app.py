"""The Governor dashboard: the entry script ``streamlit run`` starts (``governor dashboard``).

The database comes from ``--db FILE`` after ``--`` on the streamlit command line or from
``$GOVERNOR_DB``; each page reads it through ``dashboards.data``.
"""

from __future__ import annotations

import importlib
import threading

import streamlit as st
from streamlit.runtime import Runtime

from dashboards import ui, url_state
from dashboards.data import db_path
from dashboards.upload_route import cap_held_uploads
from replay.game import GameDeclarationError
from replay.registry import game_names

st.set_page_config(page_title="Governor", page_icon="\U0001f3db", layout="wide")

PAGES = [
    # The default page lives at "/": Streamlit serves it there only, yet reserves its own path, so that
    # path is "home" (served nowhere) and "/games" is an alias below.
    st.Page("views/games.py", title="Games", icon=":material/table_view:", default=True, url_path="home"),
    st.Page("views/replay.py", title="Replay", icon=":material/play_circle:", url_path="replay"),
    st.Page("views/play.py", title="Play", icon=":material/sports_esports:", url_path="play"),
    st.Page("views/statistics.py", title="Statistics", icon=":material/monitoring:", url_path="statistics"),
    st.Page("views/explorer.py", title="Explorer", icon=":material/account_tree:", url_path="explorer"),
    st.Page("views/players.py", title="Players", icon=":material/groups:", url_path="players"),
    st.Page("views/sql.py", title="SQL", icon=":material/terminal:", url_path="sql"),
    st.Page("views/import_logs.py", title="Import", icon=":material/upload_file:", url_path="import"),
]


def _to_games() -> None:
    """``/games``, the name the menu shows, leads to the Games page at "/"."""
    st.switch_page(PAGES[0])


# Hidden: not in the menu, only a path that would otherwise be "Page not found".
ALIASES = [st.Page(_to_games, title="Games", url_path="games", visibility="hidden")]

#: Pages whose filters live in the URL and come back after a visit to another page (the Replay page
#: keeps its game, step and view by itself). The default page's path is "".
KEEPS_URL = {"", "statistics", "explorer", "players", "sql", "import"}

if Runtime.exists():
    # Streamlit holds every uploaded file in memory until the page reads it: bound what it holds.
    cap_held_uploads(Runtime.instance().uploaded_file_mgr)

#: What the Replay page imports beyond the other pages (its panels, the analysis, the component):
#: 0.3 s or more of a first open, paid by a link opened in a new tab on a server that has not
#: shown a game yet.
REPLAY_MODULES = ("dashboards.replay_component", "dashboards.analysis_panel", "dashboards.whatif_panel")


def _import_replay_modules() -> None:
    for name in REPLAY_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the Replay page reports it when it imports the module itself
            return


@st.cache_resource(show_spinner=False)
def _preload_replay_page() -> threading.Thread:
    """Import the Replay page's modules once per server, in the background, when the first page of
    any session runs (Python's import lock makes the page wait for a module half imported)."""
    thread = threading.Thread(target=_import_replay_modules, name="governor-preload", daemon=True)
    thread.start()
    return thread


_preload_replay_page()
page = st.navigation(PAGES + ALIASES)
with st.sidebar:
    ui.inject_css()
    ui.caption(f"Database: {db_path()}")
    ui.theme_switch()
keeps_url = page.url_path in KEEPS_URL
if keeps_url:
    url_state.restore(page.url_path or "home")
try:
    # The games are found before any page runs: a game's package that does not load is its one line.
    game_names()
    page.run()
except GameDeclarationError as err:
    # A game's package is broken or half installed (the installation's fault, not the page's): the
    # one line that names it, instead of a traceback.
    ui.alert("error", str(err))
    st.stop()
if keeps_url:
    # What the page wrote to its URL itself (Explorer, Players). Not after a switch of page: the URL
    # then belongs to the page switched to.
    url_state.remember()
