"""`governor dashboard` starts on a fresh machine: no streamlit credentials, no terminal, not headless
(the README's main command), serves the app and a Replay link's board drawn first, and says nothing
but where it serves."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import duckdb
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_dashboard_starts_without_prompting(dash_db: Path, tmp_path: Path) -> None:
    port = _free_port()
    env = dict(os.environ, HOME=str(tmp_path), BROWSER="true")  # BROWSER: opening a browser does nothing
    proc = subprocess.Popen(
        [sys.executable, "-m", "governor.cli", "dashboard", "--db", str(dash_db), "--port", str(port)],
        cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 90
        health = ""
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as response:
                    health = response.read().decode()
                    break
            except OSError:
                time.sleep(0.5)
        assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
        assert health == "ok"
        with duckdb.connect(str(dash_db), read_only=True) as con:
            [(game_id,)] = con.execute("SELECT game_id FROM games ORDER BY game_id LIMIT 1").fetchall()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/replay?game={game_id}&step=3", timeout=60) as response:
            page = response.read().decode()
        assert 'id="gv-first-data"' in page
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    said = proc.stdout.read().decode().splitlines() if proc.stdout else []
    # Streamlit's own lines (where it serves, the stop), none of its warnings.
    assert [line for line in said if "No runtime found" in line or "WARNING" in line.upper()] == [], said


def test_the_server_runs_the_code_the_command_came_from(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's import path starts with the checkout that holds the launcher (a worktree's own code,
    not the one an editable install points at), keeps what the user set, and names it once."""
    from dashboards import launch

    code = str(Path(launch.__file__).resolve().parent.parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["/opt/extra", code]))
    env = launch.server_environment("/data/g.duckdb")
    assert env["PYTHONPATH"] == os.pathsep.join([code, "/opt/extra"])
    assert env["GOVERNOR_DB"] == "/data/g.duckdb"
    monkeypatch.delenv("PYTHONPATH")
    assert launch.server_environment("g.duckdb")["PYTHONPATH"] == code
