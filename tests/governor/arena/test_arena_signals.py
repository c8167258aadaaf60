"""Ctrl-C and SIGTERM stop the arena within about a second whatever its agents do (stuck in C code,
swallowing every exception), with one line, exit status 130 or 143, no file left and no agent process
left running.

The arena runs as a child in a session of its own; a signal goes to its process group (as a terminal
sends Ctrl-C) or to its process alone (as ``kill PID`` does)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hostile import ROOT

#: Seconds the arena may take to stop: about one on an idle machine; the rest is the slack of a machine
#: shared by parallel test runs. Unstopped, these arenas run for hours.
STOP_WITHIN = 8.0

AGENTS = '''
import os, signal, time
from pathlib import Path
from governor.arena import Agent


def stuck():
    Path(os.environ["STUCK_DIR"], str(os.getpid())).write_text("")


class StuckInC(Agent):
    """Deaf to the alarm (as C code that never returns to Python is), for ever."""
    name = "stuck-in-c"
    def act(self, observation, legal_moves):
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM, signal.SIGTERM, signal.SIGINT])
        stuck()
        while True:
            time.sleep(1)


class Swallows(Agent):
    """Swallows everything, for ever."""
    name = "swallows"
    def act(self, observation, legal_moves):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        stuck()
        while True:
            try:
                time.sleep(1)
            except BaseException:
                pass
'''


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize(("agent", "workers", "sig", "group", "status", "word"), [
    ("StuckInC", "1", signal.SIGTERM, False, 143, "terminated"),
    ("Swallows", "1", signal.SIGINT, True, 130, "interrupted"),
    ("StuckInC", "2", signal.SIGINT, True, 130, "interrupted"),
    ("Swallows", "2", signal.SIGTERM, False, 143, "terminated"),
])
def test_a_signal_stops_the_arena_whatever_its_agents_do(tmp_path: Path, agent: str, workers: str, sig: int,
                                                         group: bool, status: int, word: str) -> None:
    module = tmp_path / "deaf.py"
    module.write_text(AGENTS, encoding="utf-8")
    stuck = tmp_path / "stuck"
    stuck.mkdir()
    out = tmp_path / "out"
    env = {**os.environ, "TMPDIR": str(tmp_path), "STUCK_DIR": str(stuck)}
    child = subprocess.Popen([sys.executable, "-m", "governor.cli", "arena", "--game", "san_juan", "--players", "2",
                              "--agents", "random", f"{module}:{agent}", "--games", "40", "--budget", "1000",
                              "--workers", workers, "--out", str(out)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env,
                             start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        # Every worker's agent is stuck (each worker plays a game with it from the start).
        while len(list(stuck.iterdir())) < int(workers) and time.monotonic() < deadline:
            assert child.poll() is None, child.communicate()
            time.sleep(0.05)
        agents = [int(p.name) for p in stuck.iterdir()]
        assert len(agents) == int(workers)
        sent = time.monotonic()
        if group:
            os.killpg(child.pid, sig)
        else:
            child.send_signal(sig)
        stdout, stderr = child.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        if child.poll() is None:  # not left running when it did not stop
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()
    assert (child.returncode, stdout, stderr) == (status, "", f"governor arena: {word}\n")
    assert took < STOP_WITHIN
    assert list(out.iterdir()) == []
    # Killed (SIGKILL is sent before the arena exits; its delivery is the kernel's).
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in agents) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in agents if _alive(pid)] == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deaf.py", "out", "stuck"]
