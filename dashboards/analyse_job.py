"""The Games page's "Analyse the rest": every stored game without an analysis under the default settings
(``analysis.batch``, what ``governor analyse --all`` runs), analysed in a process of its own while the
dashboard goes on. One job per database, shared by every session: the page left and opened again, in
any tab, finds it running and shows its progress. "Stop" ends it as Ctrl-C ends the command: every game
stored stays, and the next job does only the rest.

The job is a child process (``python -m dashboards.analyse_job DB WORKERS SETTINGS``), not a thread of the
server: its pool of worker processes must not be forked from a server that runs threads. It writes its
progress as JSON lines, which a thread of the server reads; it stops on SIGTERM, and by itself once the
server is gone (its standard input, a pipe from the server, closes).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from replay import exits

#: How long a stopped job may take to end (the game being stored finishes or is rolled back) before it
#: is killed.
STOP_GRACE = 30.0
#: The lines of games that could not be analysed a job keeps to show.
FAILURES_SHOWN = 20


@dataclass
class BatchJob:
    """A job running (or ended) for one database: its tally as the child last said it, the games that
    failed, and how it ended (``outcome``: ``done``, ``stopped`` or ``error``, with ``error`` saying why)."""

    db: str
    process: subprocess.Popen[str]
    total: int | None = None
    analysed: int = 0
    skipped: int = 0
    failed: int = 0
    started: float = field(default_factory=time.monotonic)
    failures: list[str] = field(default_factory=list)
    outcome: str | None = None
    error: str | None = None
    stopping: bool = False
    ended: threading.Event = field(default_factory=threading.Event)

    @property
    def finished(self) -> bool:
        return self.ended.is_set()

    @property
    def done(self) -> int:
        return self.analysed + self.skipped + self.failed

    def take(self, message: dict[str, Any]) -> None:
        """One line of the child's."""
        kind = message.get("kind")
        if kind in ("progress", "done", "stopped"):
            self.total = int(message["total"])
            self.analysed, self.skipped, self.failed = (int(message[k]) for k in ("analysed", "skipped", "failed"))
        if kind == "failed" and len(self.failures) < FAILURES_SHOWN:
            self.failures.append(str(message["line"]))
        if kind in ("done", "stopped", "error"):
            self.outcome = str(kind)
            self.error = str(message.get("error") or "") or None


_JOBS: dict[str, BatchJob] = {}
_LOCK = threading.Lock()


def _key(db: str) -> str:
    return os.path.realpath(db)


def job_for(db: str) -> BatchJob | None:
    """The job this server runs or last ran on ``db``, None when there is none."""
    with _LOCK:
        return _JOBS.get(_key(db))


def forget(db: str) -> None:
    """Drop an ended job of ``db`` (what it stored is in the database); a running one stays."""
    with _LOCK:
        job = _JOBS.get(_key(db))
        if job is not None and job.finished:
            del _JOBS[_key(db)]


def start(db: str, workers: int | None = None, settings: dict[str, Any] | None = None) -> BatchJob:
    """Start analysing the rest of ``db`` on ``workers`` processes (default every core), with the default
    settings of ``analysis.decisions.Options`` or those ``settings`` names (its fields: ``rollouts``,
    ``sampling``...), or return the job running on it already: one at a time per database. Raises
    ``OSError`` when the process cannot be started."""
    with _LOCK:
        running = _JOBS.get(_key(db))
        if running is not None and not running.finished:
            return running
        process = subprocess.Popen(
            [sys.executable, "-m", "dashboards.analyse_job", db, str(workers or os.cpu_count() or 1),
             json.dumps(settings or {})],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            start_new_session=True)  # Ctrl-C at the server's terminal is the server's, not the job's
        job = BatchJob(db, process)
        _JOBS[_key(db)] = job
    threading.Thread(target=_watch, args=(job,), name="analyse the rest", daemon=True).start()
    return job


def stop(job: BatchJob) -> None:
    """Ask the job to stop (SIGTERM: the game being stored is stored whole or not at all); killed if it
    has not ended within ``STOP_GRACE`` seconds."""
    job.stopping = True
    if job.process.poll() is None:
        job.process.terminate()

        def kill_late() -> None:
            if not job.ended.wait(STOP_GRACE) and job.process.poll() is None:
                job.process.kill()

        threading.Thread(target=kill_late, name="analyse the rest: stop", daemon=True).start()


def _watch(job: BatchJob) -> None:
    """Read the child's lines until it ends (a thread of the server)."""
    assert job.process.stdout is not None
    try:
        for line in job.process.stdout:
            try:
                job.take(json.loads(line))
            except (ValueError, KeyError, TypeError):
                continue  # not a line of ours: nothing to show
    finally:
        code = job.process.wait()
        if job.outcome is None:
            job.outcome = "stopped" if job.stopping else "error"
            if not job.stopping:
                job.error = f"the analysis ended unexpectedly (status {code})"
        job.ended.set()


# -- the child process ---------------------------------------------------------------------------------


def _leave_when_orphaned() -> None:
    """Stop (as on SIGTERM) once standard input closes: the server that started this job is gone."""

    def watch() -> None:
        # The descriptor, not ``sys.stdin``: a thread blocked in ``sys.stdin.read()`` holds its lock, which
        # every worker forked meanwhile inherits held, and a new worker closes its standard input first.
        while True:
            try:
                if not os.read(0, 4096):
                    break
            except InterruptedError:
                continue
            except OSError:
                break
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="server gone", daemon=True).start()


def child(db: str, workers: int, settings: dict[str, Any], send: Callable[[dict[str, Any]], None],
          held: list[Any]) -> int:
    """The job itself: analyse the rest of ``db`` with the default settings but for ``settings``, each
    game stored as it is done, saying each step with ``send``; ``held`` gets the run's tally. Returns
    the exit status. Raises ``KeyboardInterrupt`` when stopped."""
    from analysis.batch import Tally

    held.append(Tally())
    return _analyse(db, workers, settings, send, held[0])


def _analyse(db: str, workers: int, settings: dict[str, Any], send: Callable[[dict[str, Any]], None],
             tally: Any) -> int:
    from analysis.batch import GameOutcome, Tally, run_games
    from analysis.batch_cli import select_games
    from analysis.batch_store import store_in_db
    from analysis.decisions import Options
    from ingest.db import DatabaseError
    from replay.errors import printable

    options = Options(**settings, workers=1)

    def store(outcome: GameOutcome, stored: Callable[[], None]) -> None:
        store_in_db(db, outcome, stored)

    try:
        games = select_games(db, None)
        send({"kind": "progress", **Tally(total=len(games)).to_json()})
        run_games(db, games, options, store, workers=workers, tally=tally,
                  say=lambda line: send({"kind": "failed", "line": line}),
                  on_game=lambda t: send({"kind": "progress", **t.to_json()}))
    except DatabaseError as err:
        send({"kind": "error", **tally.to_json(), "error": printable(str(err))})
        return exits.ENVIRONMENT
    send({"kind": "done", **tally.to_json()})
    return exits.OK


def main(argv: list[str]) -> int:
    """``python -m dashboards.analyse_job DB WORKERS SETTINGS``: the child; one JSON object a line on
    standard output."""
    # First: a stop that comes while the modules load is a stop too.
    exits.stop_on_sigterm()
    held: list[Any] = []  # the run's tally, once its module is loaded

    def send(message: dict[str, Any]) -> None:
        try:
            print(json.dumps(message), flush=True)
        except OSError:
            pass  # the server is gone: the job stops by itself (``_leave_when_orphaned``)

    try:
        _leave_when_orphaned()
        return child(argv[0], int(argv[1]), json.loads(argv[2]), send, held)
    except KeyboardInterrupt:
        # SIGTERM (Stop, or the server gone), at any moment: every game stored stays. No second stop
        # may cut this line short.
        exits.ignore_further_signals()
        counts = held[0].to_json() if held else {"total": 0, "analysed": 0, "skipped": 0, "failed": 0}
        send({"kind": "stopped", **counts})
        return exits.TERMINATED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
