"""Ctrl-C (SIGINT) and SIGTERM stop every long command within about a second, with one line and exit
status 130 or 143, no traceback, and nothing left behind (a query's spill folder, a partial output).

Each command runs as a child in a session of its own; the signal goes to its whole process group, as a
terminal sends Ctrl-C to a command and its workers."""

from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hostile import ROOT, SJ, line, sample

#: Seconds a command may take to stop: about one on an idle machine; the rest is the slack of a machine
#: shared by parallel test runs. Unstopped, each of these commands would run for minutes or hours.
STOP_WITHIN = 8.0


def _stopped(args: list[str], tmp_path: Path, sig: int, started: str | None = None, delay: float = 1.5) -> tuple[int, str, str, float]:
    """Run ``governor ARGS``, send ``sig`` once it runs (``delay`` seconds after a path matching the
    pattern ``started`` exists, when given), and return its status, stdout, stderr and the seconds it
    took to stop."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    child = subprocess.Popen([sys.executable, "-m", "governor.cli", *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env, start_new_session=True)
    deadline = time.monotonic() + 60
    while started is not None and not glob.glob(started) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(delay)
    assert child.poll() is None, child.communicate()
    sent = time.monotonic()
    os.killpg(child.pid, sig)
    try:
        out, err = child.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)  # not left running when it did not stop
        child.communicate()
        raise
    return child.returncode, out, err, time.monotonic() - sent


@pytest.mark.parametrize("sql", ["SELECT sum(range) FROM range(1000000000000)",
                                 "SELECT count(*) FROM moves a, moves b, moves c"])
@pytest.mark.parametrize(("sig", "status", "word"), [(signal.SIGINT, 130, "interrupted"),
                                                     (signal.SIGTERM, 143, "terminated")])
def test_a_long_query_stops_at_once(sample_db: Path, tmp_path: Path, sql: str, sig: int, status: int, word: str) -> None:
    """The signal comes once the query runs (its spill folder is made as it starts, before its
    libraries have all loaded: a second later it is inside DuckDB). Before, about one try in four died
    of SIGABRT ("terminate called ..."): the interpreter exited with DuckDB still at work in the query's
    thread."""
    out = tmp_path / "out.csv"
    code, stdout, stderr, took = _stopped(["query", sql, "--db", str(sample_db), "--format", "csv", "--out", str(out)],
                                          tmp_path, sig, started=str(tmp_path / "governor-query-*"), delay=1.0)
    assert (code, stdout, stderr) == (status, "", f"governor query: {word}\n")
    assert took < STOP_WITHIN
    # No partial output, and the query's spill folder is gone.
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == []


def _group_gone(pgid: int, within: float = 5.0) -> bool:
    """Whether no process of the group ``pgid`` is left (a worker, the pool's server) within ``within``
    seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize(("sig", "status", "word"), [(signal.SIGINT, 130, "interrupted"),
                                                     (signal.SIGTERM, 143, "terminated")])
def test_a_signal_stops_analyse_and_its_workers_at_once(tmp_path: Path, sig: int, status: int, word: str) -> None:
    """The workers are ended in the middle of their rollouts: waiting for the chunks they were in took
    tens of seconds early in a game, and at the end of a run could wait forever."""
    log = str(SJ / "san_juan-2p-seed2026-0000.json")
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    child = subprocess.Popen([sys.executable, "-m", "governor.cli", "analyse", log, "--workers", "2",
                              "--rollouts", "400"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             cwd=ROOT, env=env, start_new_session=True)
    try:
        time.sleep(3)
        assert child.poll() is None, child.communicate()
        sent = time.monotonic()
        os.killpg(child.pid, sig)
        _, stderr = child.communicate(timeout=60)
        took = time.monotonic() - sent
        assert (child.returncode, stderr) == (status, f"governor analyse: {word}\n")
        assert took < STOP_WITHIN
        assert _group_gone(child.pid), "a worker or the pool's server is left running"
    finally:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        child.communicate()


def test_sigterm_stops_simulate_and_keeps_only_whole_files(tmp_path: Path) -> None:
    out = tmp_path / "sim"
    code, stdout, stderr, took = _stopped(["simulate", "--game", "san_juan", "--games", "100000", "--out", str(out)],
                                          tmp_path, signal.SIGTERM, started=str(out))
    assert code == 143 and took < STOP_WITHIN
    files = sorted(out.iterdir())
    assert stderr == f"governor simulate: terminated; the {len(files)} file(s) written are complete\n"
    assert files and all(p.suffix == ".json" for p in files)
    code, _, _, _ = _stopped(["simulate", "--game", "san_juan", "--games", "100000", "--jsonl", "--out", str(out / "j")],
                             tmp_path, signal.SIGINT, started=str(out / "j"))
    assert code == 130 and list((out / "j").iterdir()) == []


@pytest.mark.parametrize(("sig", "status", "word"), [(signal.SIGINT, 130, "interrupted"),
                                                     (signal.SIGTERM, 143, "terminated")])
def test_a_signal_stops_validate_with_one_line(tmp_path: Path, sig: int, status: int, word: str) -> None:
    many = tmp_path / "many.jsonl"
    many.write_bytes(line(sample()) * 3000)  # a minute of work
    code, stdout, stderr, took = _stopped(["validate", str(many)], tmp_path, sig, delay=2.5)
    assert (code, stderr) == (status, f"governor validate: {word}\n") and took < STOP_WITHIN


def test_an_interruption_inside_a_caller_leaves_its_signal_handlers(monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """``main(argv)`` called by a program (a test, a notebook) leaves the caller's SIGINT and SIGTERM
    handlers as they were, whether the command ends or is interrupted (130): only the ``governor``
    process itself, which is ending, ignores further signals, and a process the caller forks later
    stops by SIGTERM as the caller expects."""
    from governor import cli
    from governor.commands import validate

    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    # A command that ends normally and one that is interrupted both leave the caller's handlers.
    assert cli.main(["validate", str(SJ / "san_juan-2p-seed2026-0000.json")]) == 0
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
    monkeypatch.setattr(validate, "run", interrupted)
    capsys.readouterr()
    assert cli.main(["validate", str(SJ)]) == 130
    assert capsys.readouterr().err == "governor validate: interrupted\n"
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize(("sig", "status", "word"), [(signal.SIGINT, 130, "interrupted"),
                                                     (signal.SIGTERM, 143, "terminated")])
def test_a_signal_stops_the_arena_with_one_line(tmp_path: Path, workers: str, sig: int, status: int, word: str) -> None:
    out = tmp_path / "arena"
    code, stdout, stderr, took = _stopped(
        ["arena", "--game", "san_juan", "--players", "2", "--agents", "random", "heuristic", "--games", "1000000",
         "--workers", workers, "--out", str(out)], tmp_path, sig, delay=2.5)
    assert (code, stdout, stderr) == (status, "", f"governor arena: {word}\n") and took < STOP_WITHIN


#: A child that runs ``governor`` (as ``python -m``) and sends itself a signal at the first call made
#: while a condition holds, before the handler that stops the command could otherwise run.
_SELF_SIGNALLED = """\
import os, sys
sig, when = int(sys.argv[1]), sys.argv[2]
state = {"loading": False, "armed": False, "sent": False}

def audit(event, args):
    if event == "import" and args[0] == "_duckdb":
        state["loading"] = True

def profile(frame, event, arg):
    if state["sent"] or event != "call":
        return
    name = frame.f_code.co_filename
    if (when == "duckdb" and state["loading"] and "enum" in name) or (when == "exec" and state["armed"] and name == "<string>"):
        state["sent"] = True
        os.kill(os.getpid(), sig)

sys.addaudithook(audit)
sys.setprofile(profile)
from governor import cli
state["armed"] = True
sys.argv[1:] = sys.argv[3:]  # the command's own arguments: main() reads them as the governor script does
sys.exit(cli.main())
"""


def _self_signalled(tmp_path: Path, sig: int, when: str, args: list[str]) -> subprocess.CompletedProcess[str]:
    (tmp_path / "self_signalled.py").write_text(_SELF_SIGNALLED)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}
    return subprocess.run([sys.executable, "-m", "self_signalled", str(sig), when, *args], capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=120)


@pytest.mark.parametrize(("sig", "status", "word"), [(signal.SIGINT, 130, "interrupted"),
                                                     (signal.SIGTERM, 143, "terminated")])
def test_a_signal_while_duckdb_loads_stops_the_query_with_one_line(sample_db: Path, tmp_path: Path, sig: int,
                                                                   status: int, word: str) -> None:
    """DuckDB's module builds its types through Python calls as it loads; an interruption raised inside
    one aborted the process ("Critical nanobind error", SIGABRT). The signal waits for the load."""
    done = _self_signalled(tmp_path, sig, "duckdb", ["query", "SELECT 1", "--db", str(sample_db)])
    assert (done.returncode, done.stdout, done.stderr) == (status, "", f"governor query: {word}\n")


def test_ctrl_c_met_inside_code_made_from_a_string_exits_130(tmp_path: Path) -> None:
    """Ctrl-C while a module loads, inside the code a dataclass is made of (``exec`` of a string):
    CPython took the interruption the command caught for an unhandled one, and ``python -m`` ended by
    SIGINT (status -2) after "interrupted"."""
    done = _self_signalled(tmp_path, signal.SIGINT, "exec", ["validate", str(SJ / "san_juan-2p-seed2026-0000.json")])
    assert (done.returncode, done.stderr) == (130, "governor validate: interrupted\n")
