"""The Review's analysis, run in a thread of the dashboard's server: one job per game and database,
shared by every session (a page reopened, in any tab, finds the job running and shows its progress).

The steps analysed are stored (``analysis.store.store``) every few seconds (``STORE_EVERY``), so that
the finished part is kept whatever happens to the page or the server; a review started again goes on
from the first decision not stored (``review_data.plan``). "Stop" ends a job after the decision in
progress; what was stored stays.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from analysis.decisions import Decision, Options, analyse
from analysis.store import store
from dashboards.review_data import Plan
from replay.errors import printable
from replay.logfile import parse_game
from replay.registry import engine_for

#: How often (seconds) a review stores the steps it has analysed: each store is a write transaction
#: (a tenth of a second or so), which a small review's steps would otherwise spend most of their time
#: on; a stopped page or server loses at most this much of the work.
STORE_EVERY = 2.0


@dataclass
class ReviewJob:
    """A review running (or just ended) for one game: the plan it started from, the decisions it has
    analysed and how many of them are stored, and how it ended."""

    db: str
    game_id: str
    options: Options
    plan: Plan
    decisions: list[Decision] = field(default_factory=list)
    stored: int = 0
    cancel: threading.Event = field(default_factory=threading.Event)
    finished: bool = False
    error: str | None = None

    @property
    def done(self) -> int:
        """Decisions of the game analysed and stored so far: those the review kept, and this run's."""
        return self.plan.kept + self.stored

    @property
    def total(self) -> int:
        return self.plan.total


_JOBS: dict[tuple[str, str], ReviewJob] = {}
_LOCK = threading.Lock()


def job_for(db: str, game_id: str) -> ReviewJob | None:
    """The review of ``game_id`` in ``db`` this server runs or last ran, None when there is none."""
    with _LOCK:
        return _JOBS.get((db, game_id))


def forget(db: str, game_id: str) -> None:
    """Drop an ended job of ``game_id`` (its stored part is in the database); a running one stays."""
    with _LOCK:
        job = _JOBS.get((db, game_id))
        if job is not None and job.finished:
            del _JOBS[(db, game_id)]


def start(db: str, game_id: str, log_text: str, options: Options, plan: Plan,
          spawn: Callable[[Callable[[], None]], None] | None = None) -> ReviewJob:
    """Start reviewing ``game_id`` from ``plan.resume_from`` with ``options``, in a thread (``spawn``
    runs the job otherwise: tests run it inline); the job running for the game already, if any, is
    returned instead of a second one. Raises ``ValueError`` when the plan has nothing left to do."""
    if plan.resume_from is None:
        raise ValueError("every decision of this game is analysed already")
    with _LOCK:
        running = _JOBS.get((db, game_id))
        if running is not None and not running.finished:
            return running
        job = ReviewJob(db, game_id, replace(options, steps=(plan.resume_from, plan.last_step)), plan)
        _JOBS[(db, game_id)] = job
    if spawn is None:
        threading.Thread(target=run, args=(job, log_text), name=f"review {game_id[:40]}", daemon=True).start()
    else:
        spawn(lambda: run(job, log_text))
    return job


def run(job: ReviewJob, log_text: str, every: float = STORE_EVERY) -> None:
    """Analyse the job's steps, storing the steps analysed whole at least every ``every`` seconds and
    at the end (a step may hold several decisions: ``analysis.store.store`` replaces a step's rows as
    a whole, so a step is stored only once all of its decisions are in). A stop stores the steps
    analysed whole and drops a step left short. Any failure is kept as one line in ``job.error``."""
    try:
        log = parse_game(json.loads(log_text), file="review")
        version = engine_for(log.game).version
        whole: list[Decision] = []  # steps analysed whole, not stored yet
        step: list[Decision] = []  # the step in progress
        last = time.monotonic()
        for decision in analyse(log, job.options, cancelled=job.cancel.is_set):
            if step and step[0].step != decision.step:
                whole += step
                step = []
                if time.monotonic() - last >= every:
                    _store(job, version, whole)
                    whole, last = [], time.monotonic()
            step.append(decision)
            job.decisions.append(decision)
        # A stop between two decisions of a step leaves the step in progress short of some: kept only
        # when every decision of its step is in.
        if step and len(step) == sum(1 for at, _ in job.plan.points if at == step[0].step):
            whole += step
        if whole:
            _store(job, version, whole)
    except Exception as err:  # shown on the page as one line; the thread must not die silently
        job.error = printable(f"{type(err).__name__}: {err}")
    finally:
        job.finished = True


def _store(job: ReviewJob, version: str, decisions: list[Decision]) -> None:
    store(job.db, job.game_id, version, decisions, job.options)
    job.stored += len(decisions)
