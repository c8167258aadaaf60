"""Kill the process playing a game at any moment (SIGKILL: nothing runs after it): nothing a call had
returned is lost, a line cut short is dropped, and the game goes on to the very log of a game never
interrupted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path

from play.session import Session, log_of
from play.setup import Setup
from play.store import Store
from tests.hostile import ROOT
from tests.play.driving import advance

SETUP = {"game": "san_juan", "players": "2", "seat": "0", "bots": "heuristic", "seed": "11", "name": "Tester"}

#: Plays the game of SETUP in the folder argv[1], the person always taking its first choice; prints the
#: version and number of moves after each call returned. With argv[2] = N, the N-th write of a move dies
#: half-way through the line (SIGKILL of itself).
PLAYER = textwrap.dedent("""
    import os, signal, sys
    from datetime import UTC, datetime
    from play import journal
    from play.setup import Setup
    from play.store import Store

    folder, cut = sys.argv[1], int(sys.argv[2])
    writes = 0
    real = journal._write_all

    def half_then_die(fd, data):
        global writes
        writes += 1
        if writes == cut:
            real(fd, data[: len(data) // 2])
            os.kill(os.getpid(), signal.SIGKILL)
        real(fd, data)

    journal._write_all = half_then_die
    store = Store(folder, clock=lambda: datetime(2026, 1, 2, tzinfo=UTC))
    session = store.start(Setup.from_query(SETUP_HERE))
    print("id", session.id, flush=True)
    while not session.over:
        if session.human_to_act:
            session = store.act(session.id, session.choices()[0], session.version)
        else:
            session = store.bot_step(session.id, session.version)
        print(session.version, len(session.moves), flush=True)
""").replace("SETUP_HERE", repr(SETUP))


def fixed() -> datetime:
    return datetime(2026, 1, 2, tzinfo=UTC)


def finish(store: Store, session: Session) -> Session:
    return advance(store, session)[0]


def uninterrupted(folder: Path) -> dict[str, object]:
    store = Store(folder, clock=fixed)
    return log_of(finish(store, store.start(Setup.from_query(SETUP))))


def start(folder: Path, cut: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", PLAYER, str(folder), str(cut)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_killed_between_calls_nothing_returned_is_lost(tmp_path: Path) -> None:
    child = start(tmp_path / "games", 0)
    assert child.stdout is not None
    game_id = child.stdout.readline().split()[1]
    returned = [tuple(int(n) for n in child.stdout.readline().split()) for _ in range(40)]
    child.send_signal(signal.SIGKILL)  # wherever it is now: between calls, or in the middle of one
    child.communicate()
    assert child.returncode == -signal.SIGKILL
    store = Store(tmp_path / "games", clock=fixed)
    session = store.load(game_id)
    version, moves = returned[-1]
    assert session.version >= version and len(session.moves) >= moves
    assert log_of(finish(store, session)) == uninterrupted(tmp_path / "reference")


def test_killed_in_the_middle_of_writing_a_move_the_line_is_dropped(tmp_path: Path) -> None:
    child = start(tmp_path / "games", 25)  # the header is write 1: the 24th change dies half-written
    out, err = child.communicate(timeout=120)
    assert child.returncode == -signal.SIGKILL, err
    lines = out.split("\n")
    game_id = lines[0].split()[1]
    assert lines[-2] == "23 " + lines[-2].split()[1] and lines[-1] == ""  # 23 changes returned, no more
    path = tmp_path / "games" / f"{game_id}.journal"
    assert not path.read_bytes().endswith(b"\n")
    store = Store(tmp_path / "games", clock=fixed)
    session = store.load(game_id)
    assert session.version == 23
    assert session.notes == (f"{path}: line 25 was cut short (written when the game stopped): dropped",)
    assert log_of(finish(store, session)) == uninterrupted(tmp_path / "reference")
    assert path.read_bytes().endswith(b"\n")
