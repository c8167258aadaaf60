"""An interrupted command's exit is bounded (``replay.exits.end_within``)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: A program whose exit would wait forever: a thread (not a daemon) blocked on a lock no one frees, as a
#: process pool's own thread was.
_STUCK = """
import sys, threading
from replay import exits
lock = threading.Lock()
lock.acquire()
threading.Thread(target=lock.acquire).start()
print("said", flush=False)
print("governor analyse: terminated", file=sys.stderr)
exits.end_within({seconds}, 143)
"""


def test_an_exit_stuck_on_a_thread_is_cut_short_with_the_status_and_the_output_flushed() -> None:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", _STUCK.format(seconds=0.5)], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    took = time.monotonic() - started
    assert (done.returncode, done.stdout, done.stderr) == (143, "said\n", "governor analyse: terminated\n")
    assert took < 30


def test_an_exit_that_ends_in_time_is_not_delayed() -> None:
    program = "from replay import exits\nexits.end_within(30, 143)\nprint('done')"
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "done\n", "")
    assert time.monotonic() - started < 25
