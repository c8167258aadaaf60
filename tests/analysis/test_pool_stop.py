"""An analysis on worker processes that is interrupted ends its workers at once instead of waiting for
the chunks of rollouts they are in (Ctrl-C near the end of ``governor analyse`` said "interrupted" and
then could wait on them, or on the pool's own shutdown, forever)."""

from __future__ import annotations

import os
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from analysis import decisions
from analysis.decisions import Options
from analysis.rollouts import RolloutResult, RolloutTask
from replay.log_reader import read_records
from replay.logfile import GameLog

ROOT = Path(__file__).resolve().parents[2]
SJ_LOG = ROOT / "sample_logs" / "san_juan" / "san_juan-2p-seed2026-0000.json"
#: How long a stuck task sleeps: far longer than a stop may take, short enough that the code before
#: this fix (which waited for the tasks) fails the test instead of hanging it.
STUCK = 30.0


def _folder(seed: int) -> Path:
    # The pre-ranking's tasks have the seed with its low bits changed (``seed ^ 0x5EED``).
    return Path(tempfile.gettempdir()) / f"governor-stuck-{seed >> 16}"


def stuck_task(task: RolloutTask) -> RolloutResult:
    """A rollout task that never ends in time, in a worker: it notes its process id in a folder named
    by the task's seed (the worker was forked from the pool's server, not from the test)."""
    folder = _folder(task.seed)
    folder.mkdir(exist_ok=True)
    (folder / str(os.getpid())).touch()
    time.sleep(STUCK)
    # Well formed (every rollout counted a loss), so that a stuck task that ends makes the test fail on
    # its own assertion, not inside the analysis.
    lost = tuple((0.0,) * task.count for _ in task.candidates)
    return RolloutResult(task.step, (0.0,) * len(task.candidates), (task.count,) * len(task.candidates), lost,
                         tuple((None,) * task.count for _ in task.candidates))


def _log() -> GameLog:
    record = next(iter(read_records(SJ_LOG)))
    assert record.log is not None
    return record.log


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def stuck(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[int, Path]]:
    """Every rollout task of the analysis is ``stuck_task``; the seed that names its folder. Ctrl-C is
    Python's own (raises ``KeyboardInterrupt``) and not blocked in this thread, as in a fresh process:
    what an earlier test of the same process left must not decide this one."""
    monkeypatch.setattr(decisions, "run_task", stuck_task)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    seed = (os.getpid() * 1000 + int(time.monotonic() * 1000) % 1000) << 16
    folder = _folder(seed)
    yield seed, folder
    for pid in (int(p.name) for p in folder.glob("*")):
        if _alive(pid):
            os.kill(pid, 9)  # not left sleeping when the test failed
    for p in folder.glob("*"):
        p.unlink()
    if folder.exists():
        folder.rmdir()
    signal.signal(signal.SIGINT, before)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _workers_seen(folder: Path, count: int) -> list[int]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(folder.glob("*"))) < count:
        time.sleep(0.05)
    return [int(p.name) for p in folder.glob("*")]


def _gone_soon(pids: list[int]) -> bool:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_alive(pid) for pid in pids):
        time.sleep(0.05)
    return not any(_alive(pid) for pid in pids)


def test_ctrl_c_ends_the_workers_at_once(stuck: tuple[int, Path]) -> None:
    seed, folder = stuck
    analysis = decisions.analyse(_log(), Options(workers=2, rollouts=25, seed=seed))
    started = time.monotonic()

    main = threading.main_thread().ident
    assert main is not None

    sent: list[tuple[float, int]] = []

    def ctrl_c_once_a_worker_is_stuck() -> None:
        seen = _workers_seen(folder, 1)
        # A signal to the main thread itself, as Ctrl-C comes: it breaks the wait for a result
        # (_thread.interrupt_main would only be seen once that wait ended).
        sent.append((time.monotonic() - started, len(seen)))
        signal.pthread_kill(main, signal.SIGINT)

    threading.Thread(target=ctrl_c_once_a_worker_is_stuck, daemon=True).start()
    try:
        next(analysis)
    except KeyboardInterrupt:
        pass
    else:
        said = (f"sent {sent[0][0]:.1f} s after the start, {sent[0][1]} stuck worker(s) seen" if sent
                else "never sent")
        pytest.fail(f"the analysis went on after Ctrl-C ({said})")
    # The first decision's pre-ranking: one task, on one worker, while the analysis waits for it.
    pids = _workers_seen(folder, 1)
    assert pids
    assert time.monotonic() - started < STUCK / 2, "the interruption waited for the workers' tasks"
    assert _gone_soon(pids), "a worker is still at its rollouts"
