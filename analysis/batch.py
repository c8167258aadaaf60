"""Analysing every stored game that has no analysis under the settings asked (``governor analyse --all``,
``--where``, and the Games page's "Analyse the rest"): a game a task, run on local processes or a Dask or
Ray cluster (``ingest.executors``), each game stored whole as soon as it is back.

What identifies an analysis (``Identity``): the engine's version, the rollout bot and the version it
declares (a bot whose play changed declares a new one), the rollouts asked, the seed, the candidates
(``top``) and the sampling, all columns of the ``analysis`` table. A game counts
as analysed only when every one of its decisions (``decision_points``) is stored under those settings and
nothing of it under others; any other game is analysed whole and its rows replaced in one transaction
(``analysis.store.store_game``), so a game stopped half-way (a review left short) is done again, never
stored twice. A run stopped and started again does only what is missing.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, TextIO

import pyarrow as pa

from analysis.decisions import Options, analyse, decision_points, rollout_kind
from analysis.store import analysis_table
from ingest.progress import Progress
from replay.errors import GovernorError, printable
from replay.logfile import parse_game
from replay.registry import bot_version, engine_for

#: Games whose logs (and stored analysis) are read at once: the reads stay small whatever the database.
READ_CHUNK = 64
#: Tasks in flight per worker: each is a whole game, long enough that one more each keeps them busy.
DEPTH = 2


@dataclass(frozen=True)
class Identity:
    """What identifies a game's analysis: ``analysis`` columns that must all match."""

    engine_version: str
    rollout_bot: str
    rollouts: int
    seed: int
    top: int
    sampling: str
    rollout_bot_version: str


def identity(game: str, options: Options) -> Identity:
    """The identity of an analysis of a game of type ``game`` made with ``options``. Raises
    ``KeyError`` for a game that is not installed and ``ValueError`` for a rollout bot it lacks."""
    bot = rollout_kind(game, options)
    return Identity(engine_for(game).version, bot, options.rollouts, options.seed, options.top, options.sampling,
                    bot_version(game, bot))


@dataclass(frozen=True)
class GameTask:
    """One game to analyse: its log's text, the ``(step, seat)`` of its decisions stored under the
    settings asked and how many stored rows are not (``others``); ``failure`` when it cannot be analysed
    at all (its game not installed), said without analysing it."""

    game_id: str
    log: str
    stored: frozenset[tuple[int, int]]
    others: int
    options: Options
    failure: str | None = None


@dataclass(frozen=True)
class GameOutcome:
    """What became of a game: ``analysed`` (``rows`` to store), ``skipped`` (analysed already),
    ``failed`` (``message`` says why) or ``bug`` (a bug in governor met on it)."""

    game_id: str
    status: str
    decisions: int = 0
    rows: pa.Table | None = None
    message: str = ""


def analyse_task(task: GameTask, shared: Any = None) -> GameOutcome:
    """Analyse one game in this process (a worker's task), or find it analysed already. Never raises
    for the game's sake: a bad log, a game not installed or a bug is an outcome of its own."""
    if task.failure is not None:
        return GameOutcome(task.game_id, "failed", message=task.failure)
    try:
        log = parse_game(json.loads(task.log), file="its stored log")
        engine = engine_for(log.game)
        points = {(point.step, point.seat) for point, _ in decision_points(log)}
        if points == set(task.stored) and not task.others:
            return GameOutcome(task.game_id, "skipped", len(points))
        # One game, one process: the pool's parallelism is over games, and the result is the same
        # on any number of workers (a game's rollouts are seeded by the options alone).
        decisions = list(analyse(log, replace(task.options, workers=1)))
        rows = analysis_table(task.game_id, engine.version, decisions, task.options)
        return GameOutcome(task.game_id, "analysed", len(decisions), rows)
    except GovernorError as err:
        return GameOutcome(task.game_id, "failed", message=err.message)
    except (KeyError, ValueError) as err:
        return GameOutcome(task.game_id, "failed", message=str(err.args[0]) if err.args else type(err).__name__)
    except Exception as err:  # a bug: one game's, reported with it, and the rest goes on
        where = traceback.extract_tb(err.__traceback__)[-1]
        return GameOutcome(task.game_id, "bug", message=f"internal: {type(err).__name__}: {err} "
                           f"({where.filename}:{where.lineno})")


# -- reading what to do ----------------------------------------------------------------------------


@dataclass
class Tally:
    """A run's counts so far."""

    total: int = 0
    analysed: int = 0
    skipped: int = 0
    failed: int = 0
    bugs: int = 0
    decisions: int = 0
    started: float = field(default_factory=time.monotonic)

    @property
    def done(self) -> int:
        return self.analysed + self.skipped + self.failed + self.bugs

    def line(self) -> str:
        """The run's summary: games analysed (with their decisions), skipped as analysed already, failed."""
        failed = self.failed + self.bugs
        return (f"{self.analysed} game{'s' * (self.analysed != 1)} analysed ({self.decisions} decisions), "
                f"{self.skipped} skipped (analysed already), {failed} failed, of {self.total} "
                f"in {time.monotonic() - self.started:.1f} s")

    def to_json(self) -> dict[str, Any]:
        return {"total": self.total, "analysed": self.analysed, "skipped": self.skipped,
                "failed": self.failed + self.bugs, "decisions": self.decisions}


def stored_points(rows: Iterable[tuple[Any, ...]], wanted: Callable[[str], Identity | None]
                  ) -> dict[str, tuple[set[tuple[int, int]], int]]:
    """From stored rows ``(game_id, game, step, seat, engine_version, rollout_bot, rollouts_asked,
    seed, top, sampling, rollout_bot_version)``: each game's ``(step, seat)`` stored under the identity
    ``wanted(game)`` returns, and how many rows are not."""
    out: dict[str, tuple[set[tuple[int, int]], int]] = {}
    for game_id, game, step, seat, *columns in rows:
        points, others = out.get(game_id, (set(), 0))
        want = wanted(game)
        if want is not None and tuple(columns) == (want.engine_version, want.rollout_bot, want.rollouts,
                                                   want.seed, want.top, want.sampling, want.rollout_bot_version):
            points.add((int(step), int(seat)))
        else:
            others += 1
        out[game_id] = (points, others)
    return out


#: The stored analysis of a chunk of games, one row per decision and settings.
STORED_SQL = (
    "SELECT DISTINCT a.game_id, g.game, a.step, a.seat, a.engine_version, a.rollout_bot, a.rollouts_asked, "
    "a.seed, a.top, a.sampling, a.rollout_bot_version FROM analysis a JOIN games g USING (game_id) "
    "WHERE a.game_id IN (SELECT unnest(?::VARCHAR[]))"
)
LOGS_SQL = "SELECT game_id, log FROM games WHERE game_id IN (SELECT unnest(?::VARCHAR[]))"


def tasks(db: str, games: list[tuple[str, str]], options: Options) -> Iterator[GameTask]:
    """The task of each of ``games`` (``(game_id, game)``), in their order, read ``READ_CHUNK`` at a time
    (a connection each, closed before the tasks are handed out: the same process stores between them).
    Raises ``ingest.db.DatabaseError``."""
    from ingest.db import reader

    identities: dict[str, Identity | str] = {}

    def wanted(game: str) -> Identity | str:
        if game not in identities:
            try:
                identities[game] = identity(game, options)
            except (KeyError, ValueError) as err:
                identities[game] = str(err.args[0]) if err.args else type(err).__name__
        return identities[game]

    def known(game: str) -> Identity | None:
        found = wanted(game)
        return found if isinstance(found, Identity) else None

    for start in range(0, len(games), READ_CHUNK):
        chunk = games[start:start + READ_CHUNK]
        ids = [game_id for game_id, _ in chunk]
        with reader(db) as con:
            logs = dict(con.execute(LOGS_SQL, [ids]).fetchall())
            stored = stored_points(con.execute(STORED_SQL, [ids]).fetchall(), known)
        for game_id, game in chunk:
            points, others = stored.get(game_id, (set(), 0))
            found = wanted(game)
            failure = found if isinstance(found, str) else None
            if game_id not in logs:
                failure = "no longer in the database"
            yield GameTask(game_id, logs.get(game_id) or "", frozenset(points), others, options, failure)


# -- progress ----------------------------------------------------------------------------------------


class BatchProgress(Progress):
    """The bar of a run over games: games done of all, how many analysed, skipped and failed, and the
    time left at the pace of the games analysed so far (skipped ones take no time)."""

    def __init__(self, tally: Tally, enabled: bool, stream: TextIO | None = None) -> None:
        super().__init__(tally.total, enabled, stream)
        self.tally = tally

    def step(self) -> None:
        """Draw the tally (at most ten times a second, and at the last game)."""
        self.update(self.tally.done, self.tally.failed + self.tally.bugs, self.tally.skipped)

    def _draw(self, now: float) -> None:
        tally, width = self.tally, 30
        total = max(tally.total, 1)
        filled = int(width * min(tally.done / total, 1.0))
        self.stream.write(f"\r[{'#' * filled}{'-' * (width - filled)}] {tally.done}/{tally.total} games  "
                          f"{tally.analysed} analysed, {tally.skipped} skipped, {tally.failed + tally.bugs} failed  "
                          f"ETA {eta(tally, now)} ")
        self.stream.flush()


def eta(tally: Tally, now: float) -> str:
    """The time left, at the pace of the games analysed so far: ``?`` before the first."""
    left = tally.total - tally.done
    if left <= 0:
        return "0 s"
    if tally.analysed == 0:
        return "?"
    seconds = (now - tally.started) / tally.analysed * left
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds // 60:.0f} min {seconds % 60:02.0f} s"
    return f"{seconds // 3600:.0f} h {seconds % 3600 // 60:02.0f} min"


# -- the run -----------------------------------------------------------------------------------------


#: Keeps a game analysed, and calls its second argument once the game is kept.
Store = Callable[[GameOutcome, Callable[[], None]], None]


def run_games(db: str, games: list[tuple[str, str]], options: Options, store: Store, *, workers: int = 1,
              cluster: str | None = None, progress: bool = False, say: Callable[[str], None] | None = None,
              tally: Tally | None = None, on_game: Callable[[Tally], None] | None = None) -> Tally:
    """Analyse ``games`` of ``db`` (a database file or a lake) that are not analysed under ``options``
    on ``workers`` processes (or ``cluster``: ``ingest.executors.executor``), handing each game analysed
    to ``store`` as it is back, in the games' order; ``say`` gets a line per game that failed;
    ``on_game`` the tally after each game. Returns the tally. Raises ``KeyboardInterrupt`` when
    interrupted (the games stored so far stay), ``ingest.db.DatabaseError`` and
    ``ingest.executors.ExecutorError``."""
    from ingest.executors import executor

    tally = tally or Tally()
    tally.total = len(games)
    bar = BatchProgress(tally, progress)
    write = bar.printer(say or (lambda text: print(text, file=sys.stderr, flush=True)))
    assert write is not None
    try:
        with executor(cluster, workers, None, DEPTH) as run:
            for outcome in run(analyse_task, tasks(db, games, options)):
                if outcome.status == "analysed":

                    def stored(outcome: GameOutcome = outcome) -> None:
                        tally.analysed += 1
                        tally.decisions += outcome.decisions

                    store(outcome, stored)
                elif outcome.status == "skipped":
                    tally.skipped += 1
                else:
                    if outcome.status == "bug":
                        tally.bugs += 1
                    else:
                        tally.failed += 1
                    write(f"failed: game {printable(outcome.game_id)}: {printable(outcome.message)}")
                bar.step()
                if on_game is not None:
                    on_game(tally)
    finally:
        if bar.enabled and bar.last_draw:
            bar.stream.write("\n")
            bar.stream.flush()
    return tally
