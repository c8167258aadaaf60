"""Playing a game of the Play page on the server, as its pages do, without a page: the tests that
drive a page through a whole game make most of its moves here and the page's last ones themselves."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from play import journal
from play.session import Session
from play.store import Store

#: How a test chooses the person's move in a position: by default the first of the listed choices, as
#: a page's first legal-move button does.
Chooser = Callable[[Session], Any]


def first_choice(session: Session) -> Any:
    return session.choices()[0]


def advance(games: Store | Callable[[], Store], session: Session, decisions: int | None = None,
            choose: Chooser = first_choice, limit: int = 3000) -> tuple[Session, list[Session]]:
    """``session`` played on for ``decisions`` more of the person's moves (``choose`` picks each), or
    to the end of the game, the bots moving in between; the session it came to, and the session at
    each of the person's decisions it made, before the move. ``games`` may be a function giving a new
    store for each move (a page reloaded, a server restarted). Fails after ``limit`` moves."""
    fresh = games if callable(games) else (lambda: games)
    asked: list[Session] = []
    for _ in range(limit):
        if session.over or len(asked) == decisions:
            return session, asked
        if session.human_to_act:
            asked.append(session)
            session = fresh().act(session.id, choose(session), session.version)
        else:
            stepped = fresh().bot_step(session.id, session.version)
            assert stepped is not None, "a bot is to move but made no move"
            session = stepped
    raise AssertionError(f"the game did not end within {limit} moves")


def rest_of(games: Store, session: Session, scratch: Path, choose: Chooser = first_choice) -> list[Session]:
    """The person's decisions from ``session`` to the end of its game, each chosen by ``choose``, as
    played on a copy of the game's journal in ``scratch``: the game itself does not move."""
    scratch.mkdir(parents=True, exist_ok=True)
    name = session.id + journal.SUFFIX
    shutil.copyfile(games.folder / name, scratch / name)
    with Store(scratch) as copy:
        return advance(copy, copy.load(session.id), choose=choose)[1]


def to_near_end(games: Store, session: Session, left: int, scratch: Path,
                choose: Chooser = first_choice) -> Session:
    """``session`` played on (``choose`` picking the person's moves) until ``left`` decisions of the
    person's remain, when the rest is played the same way (fewer are left when a page plays them
    otherwise)."""
    whole = len(rest_of(games, session, scratch, choose))
    return advance(games, session, max(0, whole - left), choose)[0]
