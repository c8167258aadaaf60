"""Ctrl-C (SIGINT) and SIGTERM stop ``governor import`` with one line and a documented status (130,
143), without a traceback from any worker; the store stays consistent and a rerun completes it. Paths
are bytes: a folder named with any bytes holds a database or a lake; ``--db`` refuses a URL and a
MotherDuck name."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ingest.db import reader

ROOT = Path(__file__).resolve().parents[2]


def _governor(*args: str | bytes, timeout: float = 600) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "governor.cli", *args], capture_output=True, timeout=timeout, cwd=ROOT)


def _counts(target: Path | bytes) -> tuple[int, ...]:
    with reader(os.fsdecode(target)) as con:
        return tuple(con.execute(f'SELECT count(*) FROM "{t}"').fetchall()[0][0]
                     for t in ("games", "moves", "san_juan_player_states", "openings", "player_rating_history"))


@pytest.fixture(scope="module")
def clean_counts(tmp_path_factory: pytest.TempPathFactory) -> Callable[[bool], tuple[int, ...]]:
    """``clean_counts(lake)``: the row counts of one clean import of the samples into a database or a
    lake, made once per module."""
    found: dict[bool, tuple[int, ...]] = {}

    def counts(lake: bool) -> tuple[int, ...]:
        if lake not in found:
            clean = tmp_path_factory.mktemp("clean") / ("lake" if lake else "clean.duckdb")
            made = _governor("import", str(ROOT / "sample_logs"), "--lake" if lake else "--db", str(clean),
                             "--workers", "2")
            assert made.returncode == 0, made.stderr.decode()
            found[lake] = _counts(clean)
        return found[lake]

    return counts


@pytest.mark.parametrize(("signum", "word", "status"), [(signal.SIGINT, "interrupted", 130),
                                                        (signal.SIGTERM, "terminated", 143)])
@pytest.mark.parametrize("lake", [False, True], ids=["duckdb", "lake"])
def test_a_signal_stops_the_import_with_one_line(signum: int, word: str, status: int, lake: bool,
                                                 tmp_path: Path, clean_counts: Callable[[bool], tuple[int, ...]]) -> None:
    target = tmp_path / ("lake" if lake else "g.duckdb")
    option = "--lake" if lake else "--db"
    args = [sys.executable, "-m", "governor.cli", "import", str(ROOT / "sample_logs"), option, str(target),
            "--workers", "2"]
    run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    deadline = time.monotonic() + 120
    while not target.exists() and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.05)
    time.sleep(0.5)  # the workers are replaying
    run.send_signal(signum)
    out, err = run.communicate(timeout=30)
    assert (run.returncode, err.decode(), out) == (status, f"governor import: {word}\n", b""), err.decode()
    again = _governor("import", str(ROOT / "sample_logs"), option, str(target), "--workers", "2")
    assert again.returncode == 0, again.stderr.decode()
    assert _counts(target) == clean_counts(lake)


def test_a_folder_named_with_any_bytes_holds_a_database_and_a_lake(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))  # where the links are made (ingest.paths)
    folder = os.fsencode(tmp_path) + b"/out\xff\xfe"
    logs = os.fsencode(tmp_path) + b"/logs\xff"
    os.makedirs(folder)
    os.makedirs(logs)
    for path in sorted((ROOT / "sample_logs" / "san_juan").glob("*.json"))[:3]:
        shutil.copy(path, logs + b"/" + os.fsencode(path.name).replace(b".json", b"\xff.json"))
    db = folder + b"/g.duckdb"
    run = _governor("import", logs, "--db", db, "--workers", "1")
    shown = os.fsdecode(folder).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    assert run.returncode == 0, run.stderr
    assert run.stderr.decode().startswith(f"{shown}/g.duckdb: 3 imported, 0 duplicates skipped, 0 rejected")
    assert _counts(db)[0] == 3
    lake = folder + b"/lake\xff"
    run = _governor("import", logs, "--lake", lake, "--workers", "2")
    assert run.returncode == 0, run.stderr
    assert run.stderr.decode().startswith(f"{shown}/lake\\xff: 3 imported")
    assert len(list((cache / "governor" / "links").iterdir())) == 2  # the database's folder, the lake
    query = _governor("query", "--lake", lake, "--format", "csv", "SELECT count(*) AS n FROM games")
    assert (query.returncode, query.stdout.splitlines()) == (0, [b"n", b"3"]), query.stderr
    # DuckDB itself takes only a file name that is UTF-8 text: said in one line, exit 2.
    run = _governor("import", logs, "--db", folder + b"/g\xff.duckdb", "--workers", "1")
    assert (run.returncode, run.stderr.decode()) == (2, (
        f"governor import: {shown}/g\\xff.duckdb: cannot open for writing: DuckDB takes only a file name that "
        "is UTF-8 text (the folder may be named with any bytes); rename the file\n"))


@pytest.mark.parametrize(("db", "message"), [
    ("file:///tmp/x.duckdb", "file:///tmp/x.duckdb: --db takes a database file, not a URL (a lake at a URL is --lake URL)"),
    ("md:my_db", "md:my_db: --db takes a database file; MotherDuck databases are not supported"),
])
def test_db_refuses_a_url_and_motherduck(db: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    from governor import cli

    code = cli.main(["import", str(ROOT / "sample_logs" / "san_juan"), "--db", db, "--workers", "1"])
    assert (code, *capsys.readouterr()) == (2, "", f"governor import: {message}\n")


def test_an_interruption_python_swallowed_still_stops_the_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C that comes while a worker is forked runs its handler inside the interpreter's after-fork
    hook, which prints "Exception ignored" and goes on: the signal is noted all the same, and the import
    stops at the next chunk with its one line and 130; a rerun completes it, and the caller that ran the
    command in its own process goes on with no interruption left over."""
    from governor import cli
    from ingest.progress import Progress
    from replay import exits

    update = Progress.update
    swallowed: list[int] = []

    def update_then_swallow(self: Progress, *args: int) -> None:
        update(self, *args)
        if not swallowed:  # the handler runs where its exception cannot come out
            swallowed.append(1)
            try:
                exits._raise_interrupted(signal.SIGINT, None)
            except KeyboardInterrupt:
                pass

    db = tmp_path / "g.duckdb"
    monkeypatch.setattr(Progress, "update", update_then_swallow)
    assert cli.main(["import", str(ROOT / "sample_logs"), "--db", str(db), "--workers", "1"]) == 130
    assert capsys.readouterr().err == "governor import: interrupted\n"
    assert _counts(db)[0] < 60
    monkeypatch.setattr(Progress, "update", update)
    assert not exits.signalled()
    assert cli.main(["import", str(ROOT / "sample_logs"), "--db", str(db), "--workers", "1"]) == 0
    assert _counts(db)[0] == 60


#: Runs ``governor`` with SIGTERM sent to itself as soon as its pool of workers is made, while the
#: workers are still starting (each waits a second before it begins): the pool then ends workers that
#: have not yet taken their own way of stopping. Each used to get the command's handler and print a
#: traceback ("replay.exits.Terminated") above the command's one line. The same for a pool of
#: ``concurrent.futures`` (the arena's: its workers start at the first task sent).
_SIGNAL_AS_THE_WORKERS_START = """
import os, signal, sys, time
from concurrent.futures import process as futures_process
from multiprocessing import pool

start = pool.worker
made = pool.Pool.__init__

def start_late(*args, **kwargs):
    time.sleep(1)
    start(*args, **kwargs)

def made_then_signal(self, *args, **kwargs):
    made(self, *args, **kwargs)
    os.kill(os.getpid(), signal.SIGTERM)

pool.worker = start_late
pool.Pool.__init__ = made_then_signal

start_futures = futures_process._process_worker
submit = futures_process.ProcessPoolExecutor.submit

def start_futures_late(*args, **kwargs):
    time.sleep(1)
    start_futures(*args, **kwargs)

def submit_then_signal(self, *args, **kwargs):
    future = submit(self, *args, **kwargs)
    if not getattr(self, "signalled", False):
        self.signalled = True
        os.kill(os.getpid(), signal.SIGTERM)
    return future

futures_process._process_worker = start_futures_late
futures_process.ProcessPoolExecutor.submit = submit_then_signal
from governor.cli import main
sys.argv[0] = "governor"
sys.exit(main())
"""


@pytest.mark.parametrize("command", ["import", "arena"])
def test_a_signal_while_the_workers_start_is_one_line(command: str, tmp_path: Path) -> None:
    if command == "import":
        args = ["import", str(ROOT / "sample_logs" / "san_juan"), "--db", str(tmp_path / "g.duckdb"), "--workers", "2"]
    else:
        args = ["arena", "--game", "san_juan", "--players", "2", "--agents", "random", "heuristic", "--games", "8",
                "--out", str(tmp_path / "logs"), "--workers", "2"]
    run = subprocess.run([sys.executable, "-c", _SIGNAL_AS_THE_WORKERS_START, *args], capture_output=True,
                         timeout=120, cwd=ROOT)
    assert (run.returncode, run.stderr.decode(), run.stdout) == (143, f"governor {command}: terminated\n", b"")


def test_a_database_error_after_a_signal_is_the_interruption(tmp_path: Path) -> None:
    """SIGTERM raised while DuckDB reads an Arrow table being stored comes back as DuckDB's own error
    ("Invalid Input Error: reading the schema of the Python object 'empty' failed: Terminated"): once
    a signal arrived, the writer reports the interruption (143), not a database problem (2)."""
    from ingest.db import DatabaseError, writer
    from replay import exits

    db = tmp_path / "g.duckdb"
    with pytest.raises(DatabaseError, match=r"g\.duckdb: Catalog Error: Table with name nowhere does not exist"):
        with writer(db) as con:
            con.execute("SELECT * FROM nowhere")
    exits._terminated.set()
    try:
        with pytest.raises(KeyboardInterrupt) as caught:
            with writer(db) as con:
                con.execute("SELECT * FROM nowhere")
        assert exits.interruption(caught.value) == ("terminated", 143)
    finally:
        exits._terminated.clear()


#: Runs ``governor`` (as ``python -m``, the way the ``governor`` script does) on the arguments after the
#: first, which says when the process sends itself SIGINT: "exit" while the interpreter takes itself down
#: after the command (after it has put back the default handlers), "atexit" in an exit hook, "run" inside
#: a ``__del__`` as the import commits its batch, "pool" inside a ``__del__`` as the import ends its pool
#: of workers. Inside a ``__del__`` (or an exit hook) Python cannot pass the interruption on: it prints
#: "Exception ignored in ..." with a traceback, and goes on.
_SIGNALLED_AT = """\
import atexit, os, signal, sys, time
from multiprocessing import pool

from ingest.progress import Progress

when = sys.argv[1]
pid = os.getpid()


def signal_now():
    os.kill(pid, signal.SIGINT)
    time.sleep(0.05)  # Python runs the handler here when it still has one


class Late:
    def __del__(self):
        signal_now()


def after(method):
    def call(*args, **kwargs):
        method(*args, **kwargs)
        Late()  # dropped at once: its __del__ runs here
    return call


if when == "exit":
    late = Late()  # a global of __main__: dropped as the interpreter takes itself down
elif when == "atexit":
    atexit.register(signal_now)
elif when == "run":
    Progress.update = after(Progress.update)
elif when == "pool":
    pool.Pool.terminate = after(pool.Pool.terminate)
from governor.cli import main

sys.argv[1:] = sys.argv[2:]
sys.exit(main())
"""


def _signalled_at(when: str, lake: Path, tmp_path: Path) -> subprocess.CompletedProcess[bytes]:
    (tmp_path / "signalled_at.py").write_text(_SIGNALLED_AT)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "signalled_at", when, "import", str(ROOT / "sample_logs" / "san_juan"),
                           "--lake", str(lake), "--workers", "2"], capture_output=True, cwd=tmp_path, env=env,
                          timeout=120)


@pytest.mark.parametrize("when", ["exit", "atexit"])
def test_ctrl_c_once_the_import_is_done_changes_nothing(when: str, tmp_path: Path) -> None:
    """Ctrl-C as the process exits, once the import has said what it did: the status stands (0), with no
    other line. It used to die by SIGINT (-2: the interpreter had put back the default handler), or to
    print a traceback from the exit hook it interrupted."""
    lake = tmp_path / "lake"
    done = _signalled_at(when, lake, tmp_path)
    lines = done.stderr.decode().splitlines()
    assert (done.returncode, len(lines), done.stdout) == (0, 1, b""), done.stderr.decode()
    assert lines[0].startswith(f"{lake}: 30 imported, 0 duplicates skipped, 0 rejected (30 games in 30 files")
    assert _counts(lake)[0] == 30


@pytest.mark.parametrize("when", ["run", "pool"])
def test_ctrl_c_python_swallows_stops_the_import_with_one_line(when: str, tmp_path: Path) -> None:
    """Ctrl-C met inside a ``__del__`` (as the batch is committed, as the pool of workers ends): Python
    printed "Exception ignored in ..." and a traceback and went on, and the import either stopped at its
    next step or, met as the pool ended, after its last one, finished as if no Ctrl-C had come (0). Now:
    one line, 130, and a rerun completes the lake."""
    lake = tmp_path / "lake"
    done = _signalled_at(when, lake, tmp_path)
    assert (done.returncode, done.stderr.decode(), done.stdout) == (130, "governor import: interrupted\n", b"")
    again = _governor("import", str(ROOT / "sample_logs" / "san_juan"), "--lake", str(lake), "--workers", "2")
    assert again.returncode == 0, again.stderr.decode()
    assert _counts(lake)[0] == 30
