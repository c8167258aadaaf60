"""Games already stored, and how a copy of one is checked instead of being skipped unseen.

A game's id hashes what makes it the same game (players, options, setup, moves), so a copy replays
exactly as the stored game did: the importer need not replay it again, but the copy's own claims (its
recorded result, its source id) must still agree with the stored game, else it is reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ingest.db import DatabaseError, reader
from replay.errors import DuplicateMismatchError, GovernorError
from replay.logfile import GameLog
from replay.replayer import result_error


@dataclass(frozen=True)
class StoredGame:
    """What a copy of a stored game is checked against: the replay's final scores and winners, the
    stored source id and the file it came from."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    source_id: str | None
    file: str


def stored_games(db: str | Path) -> dict[str, StoredGame]:
    """Every stored game by id (none when the database does not exist yet)."""
    if not Path(db).exists():
        return {}
    try:
        with reader(db) as con:
            tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
            if "games" not in tables:
                return {}
            return stored_in(con)
    except DatabaseError:
        return {}


def stored_in(con: Any) -> dict[str, StoredGame]:
    """Every game of an open connection (a database or a lake's views) by id."""
    rows = con.execute(
        "SELECT g.game_id, g.source_id, g.file, g.winners, list(p.score ORDER BY p.seat) "
        "FROM games g JOIN players p USING (game_id) GROUP BY ALL"
    ).fetchall()
    return {
        game_id: StoredGame(tuple(scores), tuple(winners or ()), source_id, file)
        for game_id, source_id, file, winners, scores in rows
    }


def copy_error(log: GameLog, stored: StoredGame) -> GovernorError | None:
    """Why a copy of a stored game is refused, or None when it agrees with it: a recorded result the
    replay does not give (the very message ``validate`` prints) or another source id."""
    error = result_error(log, list(stored.scores), list(stored.winners))
    if error is not None:
        return error
    return source_conflict(log.source_id, stored, file=log.file, game_index=log.index, game_id=log.game_id)


def source_conflict(
    source_id: str | None, stored: StoredGame, *, file: str | None, game_index: int | None, game_id: str
) -> DuplicateMismatchError | None:
    """The error when a copy names another source id than the stored game (both given), or None."""
    if source_id is None or stored.source_id is None or source_id == stored.source_id:
        return None
    return DuplicateMismatchError(
        f"this game is already stored with source id '{stored.source_id}' (from {stored.file}), not '{source_id}'",
        file=file, game_index=game_index, path="source_id", game_id=game_id,
    )

