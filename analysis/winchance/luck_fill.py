"""The table ``luck`` of a database: each move's change of every seat's learned win chance split into
chance's part (``luck``) and the decision's (``skill``), for every stored game (``governor winchance
--db --luck``; the split is ``analysis.winchance.luck``'s, the whole view of a finished game).

A game's rows are its moves' (step 1 is the first move) for every seat: a seat's luck over the game is
``sum(luck)`` of its rows, its skill ``sum(skill)``, both summing to 0 over the seats at every step.
Games are split one at a time (about half a second each, the deals of each move tried on the model)
and committed in batches, each batch's rows loaded through Arrow in one statement and one
transaction: a game has all its rows or none, so a run stopped anywhere continues with the games still
without rows. A game that cannot be replayed, or whose game and player count have no model, is one
line, and the others go on."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from analysis.winchance.fill import FillSummary, Models
from analysis.winchance.luck import Split, game_split
from ingest.schema import LUCK
from replay.errors import GovernorError, printable
from replay.logfile import parse_game

#: Games split and committed together: a batch is about ten seconds of work, so a stop loses little.
BATCH_GAMES = 20

PENDING_SQL = ("SELECT game_id FROM games g WHERE NOT EXISTS (SELECT 1 FROM luck l WHERE l.game_id = g.game_id) "
               "ORDER BY game_id")


def game_luck(models: Models, text: str) -> tuple[str, Split] | None:
    """The split of the stored log ``text``: its game id and its ``Split``; None when its game has no
    model. Raises ``GovernorError`` (and ``ValueError`` for text that is not JSON) for a log that does
    not replay."""
    log = parse_game(json.loads(text))
    model = models.get(log.game, len(log.players))
    if model is None:
        return None
    return log.game_id, game_split(model, log)


def table_of(found: list[tuple[str, Split]]) -> pa.Table:
    """The ``luck`` rows of the games' splits, built as Arrow columns: one row per move and seat."""
    if not found:
        return LUCK.empty_table()
    ids: list[str] = []
    steps: list[np.ndarray] = []
    seats: list[np.ndarray] = []
    luck: list[np.ndarray] = []
    skill: list[np.ndarray] = []
    for game_id, split in found:
        moves, players = split.luck.shape
        ids.extend([game_id] * (moves * players))
        steps.append(np.repeat(np.arange(1, moves + 1, dtype=np.int32), players))
        seats.append(np.tile(np.arange(players, dtype=np.int8), moves))
        luck.append(split.luck.ravel())
        skill.append(split.skill.ravel())
    return pa.Table.from_arrays(
        [pa.array(ids, pa.string()), pa.array(np.concatenate(steps)), pa.array(np.concatenate(seats)),
         pa.array(np.concatenate(luck), pa.float64()), pa.array(np.concatenate(skill), pa.float64())], schema=LUCK)


def fill_luck(db: str, *, models_folder: str | Path | None = None, say: Callable[[str], None] = print,
              progress: Callable[[int, int], None] | None = None, batch_games: int | None = None) -> FillSummary:
    """Fill ``luck`` for every game of ``db`` without rows, committing every ``batch_games`` games
    (default ``BATCH_GAMES``);
    ``progress(done, total)`` after each game. Raises ``ingest.db.DatabaseError`` when the database
    cannot be read or written."""
    from ingest.db import reader, writer

    with writer(db) as con:  # the writer makes the table in a database made before it
        pending = [row[0] for row in con.execute(PENDING_SQL).fetchall()]
    # The models' own line says what a game without a model is left without: here, its luck.
    models = Models(models_folder, lambda line: say(line.replace("left without win chances", "left without luck")))
    summary = FillSummary()
    batch_games = batch_games or BATCH_GAMES
    done = 0
    for start in range(0, len(pending), batch_games):
        ids = pending[start:start + batch_games]
        with reader(db) as con:
            texts: list[tuple[Any, ...]] = con.execute(
                "SELECT game_id, log FROM games WHERE list_contains(?, game_id) ORDER BY game_id", [ids]).fetchall()
        found: list[tuple[str, Split]] = []
        for game_id, text in texts:
            try:
                split = game_luck(models, text)
            except (GovernorError, ValueError) as err:
                say(f"game {printable(game_id)}: {printable(str(err))}; left without luck")
                summary.failed += 1
                split = None
            else:
                if split is None:
                    summary.failed += 1
                else:
                    found.append(split)
            done += 1
            if progress is not None:
                progress(done, len(pending))
        done = start + len(ids)  # a game removed meanwhile is counted as done too
        rows = table_of(found)
        with writer(db) as con:
            con.execute("BEGIN")
            # A game split meanwhile by another run keeps its rows: only those still missing are added.
            con.execute("INSERT INTO luck SELECT r.* FROM rows r WHERE NOT EXISTS "
                        "(SELECT 1 FROM luck l WHERE l.game_id = r.game_id)")
            con.execute("COMMIT")
        summary.games += len(found)
        summary.rows += rows.num_rows
    return summary
