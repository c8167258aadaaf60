"""The table ``win_chance`` of a database: every seat's win chance at every step of every stored game
(``governor winchance --db``), from the shipped models' whole view (the stored games are seen
afterwards, as a post-game analysis sees them: every card), the result itself at a finished game's
last step.

Games are read, replayed and written in batches, each batch's rows loaded through Arrow in one
statement and committed at once: a game has all its rows or none, so an interrupted run continues
where it stopped (only games without rows are filled). A game that cannot be replayed, or whose game
and player count have no model, is one line, and the others go on."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from analysis.winchance.model import ModelError, WinModel, load
from analysis.winchance.predict import result_shares
from ingest.schema import WIN_CHANCE
from replay.errors import GovernorError, printable
from replay.logfile import parse_game
from replay.registry import engine_for
from replay.replayer import iter_replay

#: Games read, replayed and committed together.
BATCH_GAMES = 500

PENDING_SQL = ("SELECT game_id FROM games g WHERE NOT EXISTS (SELECT 1 FROM win_chance w WHERE w.game_id = g.game_id) "
               "ORDER BY game_id")


@dataclass
class FillSummary:
    """What a fill did: games filled, rows written, games left out (each said in one line)."""

    games: int = 0
    rows: int = 0
    failed: int = 0


class Models:
    """The models asked for so far, by game and player count (None for one that cannot be loaded)."""

    def __init__(self, folder: str | Path | None, say: Callable[[str], None]) -> None:
        self.folder = Path(folder) if folder is not None else None
        self.say = say
        self.found: dict[tuple[str, int], WinModel | None] = {}

    def get(self, game: str, players: int) -> WinModel | None:
        """The model of ``game`` with ``players`` seats, or None (said once) when there is none."""
        key = (game, players)
        if key not in self.found:
            path = self.folder / f"{game}-{players}.json.gz" if self.folder is not None else None
            try:
                self.found[key] = load(game, players, path)
            except (ModelError, KeyError) as err:
                self.say(f"{printable(str(err).strip(chr(34)))}: its games are left without win chances")
                self.found[key] = None
        return self.found[key]


def game_chances(models: Models, text: str) -> tuple[str, np.ndarray] | None:
    """The chances of every seat at every step of the stored log ``text``: its game id and an array
    (steps + 1, players). None when its game has no model. Raises ``GovernorError`` (and
    ``ValueError`` for text that is not JSON) for a log that does not replay."""
    log = parse_game(json.loads(text))
    model = models.get(log.game, len(log.players))
    if model is None:
        return None
    engine = engine_for(log.game)
    states = [state for state, _ in iter_replay(log, require_complete=False, describe=False, steps=False)]
    out = np.zeros((len(states), model.players))
    playing: list[int] = []
    rows: list[np.ndarray] = []
    for step, state in enumerate(states):
        if engine.is_over(state):
            out[step] = result_shares(engine, state)
        else:
            playing.append(step)
            rows.append(model.features.everything(state))
    if rows:
        out[playing] = model.views["everything"].chances(np.concatenate(rows), model.players)
    return log.game_id, out


def table_of(found: list[tuple[str, np.ndarray]]) -> pa.Table:
    """The ``win_chance`` rows of the games' chances, built as Arrow columns."""
    ids: list[str] = []
    steps: list[np.ndarray] = []
    seats: list[np.ndarray] = []
    values: list[np.ndarray] = []
    for game_id, chances in found:
        count, players = chances.shape
        ids.extend([game_id] * (count * players))
        steps.append(np.repeat(np.arange(count, dtype=np.int32), players))
        seats.append(np.tile(np.arange(players, dtype=np.int8), count))
        values.append(chances.ravel())
    if not found:
        return WIN_CHANCE.empty_table()
    return pa.Table.from_arrays(
        [pa.array(ids, pa.string()), pa.array(np.concatenate(steps)), pa.array(np.concatenate(seats)),
         pa.array(np.concatenate(values))], schema=WIN_CHANCE)


def fill(db: str, *, models_folder: str | Path | None = None, say: Callable[[str], None] = print,
         progress: Callable[[int, int], None] | None = None, batch_games: int = BATCH_GAMES) -> FillSummary:
    """Fill ``win_chance`` for every game of ``db`` without rows, in batches; ``progress(done, total)``
    after each. Raises ``ingest.db.DatabaseError`` when the database cannot be read or written."""
    from ingest.db import reader, writer

    with writer(db) as con:  # the writer makes the table in a database made before it
        pending = [row[0] for row in con.execute(PENDING_SQL).fetchall()]
    models = Models(models_folder, say)
    summary = FillSummary()
    for start in range(0, len(pending), batch_games):
        ids = pending[start:start + batch_games]
        with reader(db) as con:
            texts: list[tuple[Any, ...]] = con.execute(
                "SELECT game_id, log FROM games WHERE list_contains(?, game_id) ORDER BY game_id", [ids]).fetchall()
        found: list[tuple[str, np.ndarray]] = []
        for game_id, text in texts:
            try:
                chances = game_chances(models, text)
            except (GovernorError, ValueError) as err:
                say(f"game {printable(game_id)}: {printable(str(err))}; left without win chances")
                summary.failed += 1
                continue
            if chances is None:
                summary.failed += 1
                continue
            found.append((game_id, chances[1]))
        rows = table_of(found)
        with writer(db) as con:
            con.execute("BEGIN")
            # A game filled meanwhile by another run keeps its rows: only those still missing are added.
            con.execute("INSERT INTO win_chance SELECT r.* FROM rows r WHERE NOT EXISTS "
                        "(SELECT 1 FROM win_chance w WHERE w.game_id = r.game_id)")
            con.execute("COMMIT")
        summary.games += len(found)
        summary.rows += rows.num_rows
        if progress is not None:
            progress(start + len(ids), len(pending))
    return summary
