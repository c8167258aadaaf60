"""The table ``luck`` of a database: each move's change of every seat's learned win chance split into
chance's part (``luck``) and the decision's (``skill``), for every stored game (``governor winchance
--db --luck``; the split is ``analysis.winchance.luck``'s, the whole view of a finished game).

A game's rows are its moves' (step 1 is the first move) for every seat: a seat's luck over the game is
``sum(luck)`` of its rows, its skill ``sum(skill)``, both summing to 0 over the seats at every step.
A game takes about half a second (the deals of each move tried on the model), so the games are split
by the win-chance fill's machinery (``analysis.winchance.fill.fill``): on worker processes, a few games
a task, each worker loading the models once; the rows come back to this process, which commits them in
batches in the order of the games' ids, each batch's rows loaded through Arrow in one statement and
one transaction: a game has all its rows or none, so a run stopped anywhere continues with the games
still without rows. A game that cannot be replayed, or whose game and player count have no model, is
one line, and the others go on."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa

from analysis.winchance.fill import ChunkOutcome, DatabaseStore, FillSummary, Models, bug_line, fill
from analysis.winchance.luck import Split, game_split
from ingest.schema import LUCK
from replay.errors import GovernorError
from replay.logfile import parse_game

#: Games split and committed together: a batch is about ten seconds of one worker's work, so a stop
#: loses little.
BATCH_GAMES = 20
#: Games a worker splits in one task: about a second of work, beside which a task's cost (its logs and
#: splits sent between processes) is nothing, and short enough that the workers end together and the
#: progress line moves every second or so.
TASK_GAMES = 2

def table_of(found: Sequence[tuple[str, Split]]) -> pa.Table:
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


#: The words the models' line ends with, said of a fill of the win chances; here a game is left without luck.
_WIN_CHANCE_WORDS = "left without win chances"

_MODELS: dict[str | None, Models] = {}


def luck_task(logs: Sequence[tuple[str, str]], folder: str | None) -> ChunkOutcome[Split]:
    """A task of a worker (``ingest.executors``): the splits of the games of ``logs`` (``(game_id,
    stored log)``) with the models of ``folder`` (None: the shipped ones), loaded once per process.
    Never raises for a game's sake: a log that does not replay, a game without a model or a bug is an
    outcome of its own."""
    if folder not in _MODELS:
        _MODELS[folder] = Models(folder)
    models = _MODELS[folder]
    outcome: ChunkOutcome[Split] = ChunkOutcome()
    for game_id, text in logs:
        try:
            log = parse_game(json.loads(text))
            key = (log.game, len(log.players))
            model = models.get(*key)
            if model is None:
                outcome.missing[key] = models.problems[key].replace(_WIN_CHANCE_WORDS, "left without luck")
                outcome.unmodelled += 1
                continue
            outcome.found.append((game_id, game_split(model, log)))
        except (GovernorError, ValueError) as err:
            outcome.failed.append((game_id, str(err)))
        except Exception as err:  # a bug: this game's, said with it, and the rest goes on
            outcome.bugs.append((game_id, bug_line(err)))
    return outcome


def fill_luck(db: str, *, models_folder: str | Path | None = None, say: Callable[[str], None] = print,
              progress: Callable[[int, int], None] | None = None, batch_games: int | None = None,
              workers: int = 1) -> FillSummary:
    """Fill ``luck`` for every game of ``db`` without rows, on ``workers`` processes, committing every
    ``batch_games`` games (default ``BATCH_GAMES``) in the order of their ids; ``say`` gets a line per
    game left out (and per model missing), ``progress(done, total)`` is called after each task's games.
    The rows are the same whatever the workers. Raises ``ingest.db.DatabaseError`` when the database
    cannot be read or written, and ``KeyboardInterrupt`` when interrupted (the batches committed keep
    their rows)."""
    return fill(DatabaseStore(db, "luck"), models_folder=models_folder, say=say, progress=progress,
                batch_games=batch_games or BATCH_GAMES, workers=workers, task=luck_task, rows_of=table_of,
                task_games=TASK_GAMES, without="luck")
