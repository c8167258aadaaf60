"""The table ``win_chance`` of a database or a lake: every seat's win chance at every step of every
stored game (``governor winchance``, ``governor import --win-chance``), from the shipped models' whole
view (the stored games are seen afterwards, as a post-game analysis sees them: every card), the result
itself at a finished game's last step.

The games are handed to worker processes (or a Dask or Ray cluster: ``ingest.executors``) a few at a
time; a worker replays each game once, makes every seat's observation vector of each of its steps at
once (the game's ``encode_seats`` when its ``spaces`` declares one) and asks the trees for many
positions of several games in one call. The rows come back to this process, which commits them in
batches (``BATCH_GAMES``): a game has all its rows or none, so an interrupted run continues where it
stopped (only games without rows are filled). A game that cannot be replayed, or whose game and player
count have no model, is one line, and the others go on."""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analysis.winchance.model import ModelError, WinModel, load
from analysis.winchance.predict import result_shares
from ingest.schema import WIN_CHANCE
from replay.errors import GovernorError, printable
from replay.logfile import parse_game
from replay.registry import engine_for, spaces_for
from replay.replayer import iter_replay

#: Games committed together (one transaction, or one lake batch), or those done within ``BATCH_SECONDS``
#: of the first waiting one: a stopped run loses at most that much.
BATCH_GAMES = 500
BATCH_SECONDS = 30.0
#: Games a worker computes in one task: enough that a task's cost (its logs and rows sent between
#: processes) is small beside the work, few enough that every worker has some.
TASK_GAMES = 16
#: Tasks in flight per worker.
DEPTH = 2
#: The most rows of a view the trees are asked for at once (memory: a 5-seat row holds thousands of floats).
PREDICT_ROWS = 4096

#: The games without rows in a table keyed by ``game_id`` (``{table}``).
PENDING_OF = ("SELECT game_id FROM games g WHERE NOT EXISTS (SELECT 1 FROM {table} w WHERE w.game_id = g.game_id) "
              "ORDER BY game_id")
PENDING_SQL = PENDING_OF.format(table="win_chance")
LOGS_SQL = "SELECT game_id, log FROM games WHERE game_id IN (SELECT unnest(?::VARCHAR[])) ORDER BY game_id"


@dataclass
class FillSummary:
    """What a fill did: games filled, rows written, games left out (each said in one line), games that
    met a bug in governor (said too)."""

    games: int = 0
    rows: int = 0
    failed: int = 0
    bugs: int = 0
    total: int = 0


class Models:
    """The models asked for so far, by game and player count (None for one that cannot be loaded, and
    why in ``problems``)."""

    def __init__(self, folder: str | Path | None, say: Callable[[str], None] | None = None) -> None:
        self.folder = Path(folder) if folder is not None else None
        self.say = say
        self.found: dict[tuple[str, int], WinModel | None] = {}
        self.problems: dict[tuple[str, int], str] = {}

    def get(self, game: str, players: int) -> WinModel | None:
        """The model of ``game`` with ``players`` seats, or None (its problem kept, and said once)
        when there is none."""
        key = (game, players)
        if key not in self.found:
            path = self.folder / f"{game}-{players}.json.gz" if self.folder is not None else None
            try:
                self.found[key] = load(game, players, path)
            except (ModelError, KeyError) as err:
                self.problems[key] = f"{printable(str(err).strip(chr(34)))}: its games are left without win chances"
                if self.say is not None:
                    self.say(self.problems[key])
                self.found[key] = None
        return self.found[key]


# -- one worker's share ---------------------------------------------------------------------------


Found = TypeVar("Found")


@dataclass
class ChunkOutcome(Generic[Found]):
    """What became of a task's games: each filled game's result (here its chances, an array
    (steps + 1, players); the luck fill's a ``Split``), each game left out with its line, the models
    missing (their line, said once by the caller)."""

    found: list[tuple[str, Found]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    bugs: list[tuple[str, str]] = field(default_factory=list)
    missing: dict[tuple[str, int], str] = field(default_factory=dict)
    unmodelled: int = 0


class _Pending:
    """The positions of games waiting for the trees of one model: each game's chances so far (the
    finished positions filled in), where its positions in play are, and their vectors (every seat's
    at each position, ``encode_seats``) or their rows."""

    def __init__(self, model: WinModel) -> None:
        self.model = model
        self.parts: list[tuple[np.ndarray | None, np.ndarray | None]] = []
        self.games: list[tuple[str, np.ndarray, list[int]]] = []
        self.count = 0

    def add(self, game_id: str, out: np.ndarray, playing: list[int], seen: np.ndarray | None,
            rows: np.ndarray | None) -> None:
        """One game: ``seen`` (positions, players, size) or ``rows`` (its whole view's rows) of its
        positions ``playing``."""
        self.games.append((game_id, out, playing))
        if seen is not None or rows is not None:
            self.parts.append((seen, rows))
            self.count += len(playing) * self.model.players

    def flush(self, into: list[tuple[str, np.ndarray]]) -> None:
        """Ask the trees for every position waiting (one call) and hand the games over to ``into``."""
        model = self.model
        if self.parts:
            if all(seen is not None for seen, _ in self.parts):
                # The vectors are a seat's share of the rows: joined first, then made rows at once.
                rows = model.features.whole_rows(np.concatenate([seen for seen, _ in self.parts if seen is not None]))
            else:
                rows = np.concatenate([model.features.whole_rows(seen) if seen is not None else rows
                                       for seen, rows in self.parts if seen is not None or rows is not None])
            chances = model.views["everything"].chances(rows, model.players)
            start = 0
            for _, out, playing in self.games:
                out[playing] = chances[start:start + len(playing)]
                start += len(playing)
        into.extend((game_id, out) for game_id, out, _ in self.games)
        self.parts, self.games, self.count = [], [], 0


class Encoder:
    """The whole view's rows of many positions of one game and player count: the game's
    ``encode_seats`` (every seat's vector at once) when its ``spaces`` declares it and it gives the
    very rows of ``Features.everything`` (checked on the first position: a change of the features
    that it does not follow falls back to them), else ``Features.everything`` position by position."""

    def __init__(self, model: WinModel) -> None:
        self.features = model.features
        self.seats: Callable[[Any], np.ndarray] | None = getattr(spaces_for(model.features.game), "encode_seats", None)
        self.checked = self.seats is None

    def vectors(self, states: Sequence[Any]) -> np.ndarray | None:
        """Every seat's vector at each of ``states`` (an array (positions, players, size)), or None
        when the game's own encoding is not to be used (then ``rows``). Raises what the game's encoding
        raises."""
        if self.seats is not None and not self.checked:
            self.checked = True
            fast = self.features.whole_rows(self.seats(states[0])[None])
            if fast.dtype != np.float32 or fast.tobytes() != self.features.everything(states[0]).astype(np.float32).tobytes():
                self.seats = None
        if self.seats is None:
            return None
        return np.stack([self.seats(state) for state in states])

    def rows(self, states: Sequence[Any]) -> np.ndarray:
        """The whole view's rows of ``states`` (an array (positions * players, players * size)).
        Raises what the game's encoding raises."""
        seen = self.vectors(states)
        if seen is not None:
            return self.features.whole_rows(seen)
        return np.concatenate([self.features.everything(state) for state in states])


class Worker:
    """A worker's models and encoders, kept between its tasks."""

    def __init__(self, folder: str | None) -> None:
        self.models = Models(folder)
        self.encoders: dict[tuple[str, int], Encoder] = {}

    def chunk(self, logs: Sequence[tuple[str, str]]) -> ChunkOutcome[np.ndarray]:
        """The chances of every game of ``logs`` (``(game_id, stored log)``). Never raises for a game's
        sake: a log that does not replay, a game without a model or a bug is an outcome of its own."""
        outcome: ChunkOutcome[np.ndarray] = ChunkOutcome()
        waiting: dict[tuple[str, int], _Pending] = {}
        for game_id, text in logs:
            try:
                log = parse_game(json.loads(text))
                key = (log.game, len(log.players))
                model = self.models.get(*key)
                if model is None:
                    outcome.missing[key] = self.models.problems[key]
                    outcome.unmodelled += 1
                    continue
                engine = engine_for(log.game)
                out = np.zeros((len(log.moves) + 1, model.players))
                playing: list[int] = []
                states: list[Any] = []
                step = 0
                for step, (state, _) in enumerate(iter_replay(log, require_complete=False, describe=False,
                                                               steps=False)):
                    if engine.is_over(state):
                        out[step] = result_shares(engine, state)
                    else:
                        playing.append(step)
                        states.append(state)
                out = out[:step + 1]
                if key not in self.encoders:
                    self.encoders[key] = Encoder(model)
                encoder = self.encoders[key]
                seen = encoder.vectors(states) if states else None
                rows = encoder.rows(states) if states and seen is None else None
            except (GovernorError, ValueError) as err:
                outcome.failed.append((game_id, str(err)))
                continue
            except Exception as err:  # a bug: this game's, said with it, and the rest goes on
                outcome.bugs.append((game_id, bug_line(err)))
                continue
            pending = waiting.setdefault(key, _Pending(model))
            pending.add(game_id, out, playing, seen, rows)
            if pending.count >= PREDICT_ROWS:
                _flush(pending, outcome)
        for pending in waiting.values():
            _flush(pending, outcome)
        return outcome


def bug_line(err: Exception) -> str:
    """What a game's line says of a bug it met: the error and where it was raised."""
    where = traceback.extract_tb(err.__traceback__)[-1]
    return f"internal: {type(err).__name__}: {err} ({where.filename}:{where.lineno})"


def _flush(pending: _Pending, outcome: ChunkOutcome[np.ndarray]) -> None:
    """``pending.flush`` into ``outcome``; should the trees fail (a bug), each of its games is one."""
    try:
        pending.flush(outcome.found)
    except Exception as err:  # a bug: said with each game it held, and the other games go on
        message = bug_line(err)
        outcome.bugs.extend((game_id, message) for game_id, _, _ in pending.games)
        pending.parts, pending.games, pending.count = [], [], 0


_WORKERS: dict[str | None, Worker] = {}


def chances_task(logs: Sequence[tuple[str, str]], folder: str | None) -> ChunkOutcome[np.ndarray]:
    """A task of a worker (``ingest.executors``): the chances of the games of ``logs`` with the models
    of ``folder`` (None: the shipped ones), loaded once per process."""
    if folder not in _WORKERS:
        _WORKERS[folder] = Worker(folder)
    return _WORKERS[folder].chunk(logs)


def game_chances(models: Models, text: str) -> tuple[str, np.ndarray] | None:
    """The chances of every seat at every step of the stored log ``text``: its game id and an array
    (steps + 1, players). None when its game has no model. Raises ``GovernorError`` (and
    ``ValueError`` for text that is not JSON) for a log that does not replay."""
    log = parse_game(json.loads(text))
    model = models.get(log.game, len(log.players))
    if model is None:
        return None
    worker = Worker(None)
    worker.models = models
    outcome = worker.chunk([(log.game_id, text)])
    if outcome.failed or outcome.bugs:
        raise ValueError((outcome.failed or outcome.bugs)[0][1])
    return outcome.found[0]


# -- storing ---------------------------------------------------------------------------------------


def table_of(found: Sequence[tuple[str, np.ndarray]]) -> pa.Table:
    """The ``win_chance`` rows of the games' chances, built as Arrow columns."""
    if not found:
        return WIN_CHANCE.empty_table()
    counts = [chances.size for _, chances in found]
    ids = pa.array([game_id for game_id, _ in found], pa.string())
    # Each game's id repeated over its rows, taken from the short array of ids (no list of strings).
    game_ids = ids.take(pa.array(np.repeat(np.arange(len(found)), counts)))
    steps = np.concatenate([np.repeat(np.arange(c.shape[0], dtype=np.int32), c.shape[1]) for _, c in found])
    seats = np.concatenate([np.tile(np.arange(c.shape[1], dtype=np.int8), c.shape[0]) for _, c in found])
    values = np.concatenate([c.ravel() for _, c in found])
    return pa.Table.from_arrays([game_ids, pa.array(steps), pa.array(seats), pa.array(values)], schema=WIN_CHANCE)


class Store(Protocol):
    """Where the games are read and their rows kept: a database file or a lake."""

    def pending(self) -> list[str]:
        """The ids of the games without rows, in order."""
        ...

    def logs(self, ids: Sequence[str]) -> list[tuple[str, str]]:
        """The stored logs of ``ids`` (those still stored), as ``(game_id, log)``."""
        ...

    def add(self, rows: pa.Table, ids: Sequence[str]) -> tuple[int, int]:
        """Keep the rows of the games ``ids`` at once, but of any game that has rows by now (another
        run's): the games and rows kept."""
        ...


def stored_logs(source: str, ids: Sequence[str]) -> list[tuple[str, str]]:
    """``(game id, log)`` of each of ``ids`` stored in ``source`` (a database file or a lake's folder),
    in order. Raises ``ingest.db.DatabaseError``."""
    from ingest.db import reader

    with reader(source) as con:
        return [(str(a), str(b)) for a, b in con.execute(LOGS_SQL, [list(ids)]).fetchall()]


class DatabaseStore:
    """A database file: the logs read ``READ_GAMES`` at a time, each batch's rows inserted into
    ``table`` (``win_chance``, or the luck fill's ``luck``: a table keyed by ``game_id``) in one
    statement and one transaction."""

    def __init__(self, db: str, table: str = "win_chance") -> None:
        self.db = db
        self.table = table

    def pending(self) -> list[str]:
        """Raises ``ingest.db.DatabaseError``."""
        from ingest.db import writer

        with writer(self.db) as con:  # the writer makes the table in a database made before it
            return [row[0] for row in con.execute(PENDING_OF.format(table=self.table)).fetchall()]

    def logs(self, ids: Sequence[str]) -> list[tuple[str, str]]:
        """Raises ``ingest.db.DatabaseError``."""
        return stored_logs(self.db, ids)

    def add(self, rows: pa.Table, ids: Sequence[str]) -> tuple[int, int]:
        """Raises ``ingest.db.DatabaseError``."""
        from ingest.db import writer

        if not ids:
            return 0, 0
        with writer(self.db) as con:
            con.execute("BEGIN")
            # A game filled meanwhile by another run keeps its rows. The ids come in order: the range
            # lets the look-up skip the row groups of other games.
            taken = {row[0] for row in con.execute(
                f"SELECT DISTINCT game_id FROM {self.table} WHERE game_id BETWEEN ? AND ? "
                "AND game_id IN (SELECT unnest(?::VARCHAR[]))", [min(ids), max(ids), list(ids)]).fetchall()}
            if taken:
                rows = rows.filter(pc.invert(pc.is_in(rows.column("game_id"), value_set=pa.array(sorted(taken), pa.string()))))
            con.register("new_rows", rows)
            con.execute(f"INSERT INTO {self.table} SELECT * FROM new_rows")
            con.unregister("new_rows")
            con.execute("COMMIT")
        return len(set(ids) - taken), rows.num_rows


#: Games whose logs are read at once (one connection each: the writes go between them).
READ_GAMES = 512


def _tasks(store: Store, pending: list[str], summary: FillSummary, games: int) -> Iterator[list[tuple[str, str]]]:
    """The stored logs of ``pending``, ``games`` a task."""
    for start in range(0, len(pending), READ_GAMES):
        ids = pending[start:start + READ_GAMES]
        logs = store.logs(ids)
        # A game removed meanwhile has nothing to fill: counted as done.
        summary.total -= len(ids) - len(logs)
        for first in range(0, len(logs), games):
            yield logs[first:first + games]


#: A task of ``fill``: a worker's results of some games' logs (``(game_id, stored log)``) with the models
#: of a folder (None: the shipped ones); never raises for a game's sake.
FillTask = Callable[[Sequence[tuple[str, str]], str | None], ChunkOutcome[Found]]


def fill(target: str | Store, *, models_folder: str | Path | None = None, say: Callable[[str], None] = print,
         progress: Callable[[int, int], None] | None = None, batch_games: int | None = None, workers: int = 1,
         cluster: str | None = None, task: FillTask[Any] = chances_task,
         rows_of: Callable[[Sequence[tuple[str, Any]]], pa.Table] = table_of, task_games: int | None = None,
         without: str = "win chances") -> FillSummary:
    """Fill ``win_chance`` for every game without rows of ``target`` (a database file, or a ``Store``
    such as ``analysis.winchance.lake.LakeStore``), on ``workers`` processes (or ``cluster``:
    ``ingest.executors.executor``), ``task_games`` games a task (default ``TASK_GAMES``), committing
    ``batch_games`` games at a time (default ``BATCH_GAMES``, or fewer once ``BATCH_SECONDS`` have
    passed) in the order of their ids; ``say`` gets a line per game left out (and per model missing),
    ``progress(done, total)`` is called after each task's games. The rows are the same whatever the
    workers. Another table is filled the same way with its own ``task``, ``rows_of`` (its rows of the
    games' results), ``Store`` and the words of what a game left out is ``without`` (the luck fill,
    ``analysis.winchance.luck_fill``). Raises ``ingest.db.DatabaseError`` when the database cannot be
    read or written, ``ingest.lake_files.LakeError`` for a lake, ``ingest.executors.ExecutorError``, and
    ``KeyboardInterrupt`` when interrupted (the batches committed keep their rows)."""
    from ingest.executors import executor

    store: Store = DatabaseStore(target) if isinstance(target, str) else target
    pending = store.pending()
    summary = FillSummary(total=len(pending))
    folder = str(models_folder) if models_folder is not None else None
    said: set[tuple[str, int]] = set()
    found: list[tuple[str, Any]] = []
    done = 0
    first = 0.0

    def commit() -> None:
        nonlocal found
        found.sort(key=lambda item: item[0])  # a task's games come back by model: stored in order
        games, rows = store.add(rows_of(found), [game_id for game_id, _ in found])
        summary.games += games
        summary.rows += rows
        found = []

    with executor(cluster, workers, folder, DEPTH) as run:
        for outcome in run(task, _tasks(store, pending, summary, task_games or TASK_GAMES)):
            for key, line in outcome.missing.items():
                if key not in said:
                    said.add(key)
                    say(line)
            for game_id, message in outcome.failed + outcome.bugs:
                say(f"game {printable(game_id)}: {printable(message)}; left without {without}")
            summary.failed += len(outcome.failed) + outcome.unmodelled
            summary.bugs += len(outcome.bugs)
            done += len(outcome.found) + len(outcome.failed) + len(outcome.bugs) + outcome.unmodelled
            if outcome.found and not found:
                first = time.monotonic()
            found.extend(outcome.found)
            if len(found) >= (batch_games or BATCH_GAMES) or (found and time.monotonic() - first >= BATCH_SECONDS):
                commit()
            if progress is not None:
                progress(done, summary.total)
        if found:
            commit()
        if progress is not None and not done:
            progress(done, summary.total)
    return summary
