"""The Play page's games: the one ``play.store.Store`` of the dashboard's database, and the storing
of a finished game in that database.

The games in progress live in ``<db>.play/`` beside the database (``play.store.play_folder``), one
journal each: every move is on disk before the page shows it. A finished game is stored in the
database through the product's one import (``Store.finish``) in a process of its own, as the Import
page does: DuckDB refuses, within one process, a connection that writes next to the dashboard's
read-only ones, and the dashboard's readers (and ``governor query``) open the file for each query and
retry while a writer holds it. The writing process is short-lived: the database is free again as soon
as the game is in it. When another program holds the database, the game stays in its journal and the
page says so and offers to try again.
"""

from __future__ import annotations

from multiprocessing.connection import Connection

import streamlit as st

from dashboards.child import run_in_child
from dashboards.data import db_path
from play.store import Store, play_folder

#: How long storing a finished game may take before its process is stopped (the import waits for a
#: lock held by another program up to its own limit, longer than this).
STORE_TIMEOUT = 60.0


@st.cache_resource(show_spinner=False)
def _store(folder: str) -> Store:
    return Store(folder)


def store() -> Store:
    """The store of the games played on the dashboard's database (one per server and database)."""
    return _store(str(play_folder(db_path())))


def _finish(pipe: Connection, folder: str, game_id: str, db: str) -> None:
    """The storing process: the game's id in the database, or why it could not be stored."""
    from play.errors import PlayError

    try:
        with Store(folder) as games:
            pipe.send(("done", games.finish(game_id, db)))
    except PlayError as err:
        pipe.send(("error", err.message))
    except Exception as err:  # said on the page, not lost in a process nobody watches
        pipe.send(("error", f"{type(err).__name__}: {err}"))
    finally:
        pipe.close()


class NotStored(Exception):
    """A finished game could not be stored (the message says why); it stays in its journal."""


def store_finished(game_id: str, db: str | None = None, timeout: float = STORE_TIMEOUT) -> str:
    """Store the finished game ``game_id`` in ``db`` (default: the dashboard's) in a process of its own
    and return its id in the database; the dashboard's cached reads are dropped, so Games and
    Statistics show it at once. Storing a game already stored stores nothing. Raises ``NotStored``."""
    target = db or db_path()
    folder = str(play_folder(target))
    message = run_in_child(_finish, (folder, game_id, target), "governor-play-store", timeout)
    if message is None:
        raise NotStored(f"{target}: the game could not be stored within {timeout:g} s (another program may be "
                        "writing the database); it is kept, try again")
    if message[0] != "done":
        raise NotStored(str(message[1]))
    # Every page's reads are cached under the database's stamp; dropped here too, so that nothing a
    # page read in the same instant as the write is shown again.
    st.cache_data.clear()
    return str(message[1])
