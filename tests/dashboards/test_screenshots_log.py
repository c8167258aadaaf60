"""dashboards/screenshots.py's ``running_dashboard`` keeps the server's output in a file of no name:
nothing planted in the shared temporary folder is written through, and nothing is left there."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from dashboards import screenshots


def test_the_servers_output_never_goes_through_a_planted_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    shared = tmp_path / "tmp"
    shared.mkdir()
    port = screenshots.free_port()
    planted = shared / f"governor-dashboard-{port}.log"  # the name the output file used to have
    planted.symlink_to(victim)
    monkeypatch.setenv("TMPDIR", str(shared))
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    real = subprocess.Popen

    def server(args: list[str], **kwargs: object) -> subprocess.Popen[bytes]:
        return real([sys.executable, "-c", "print('no such database')"], **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(screenshots.subprocess, "Popen", server)
    with pytest.raises(RuntimeError) as info:
        with screenshots.running_dashboard(tmp_path / "missing.duckdb", port=port, timeout=30):
            pass
    assert str(info.value) == f"the dashboard did not start on http://127.0.0.1:{port}:\nno such database\n"
    assert victim.read_text() == "precious\n"
    assert sorted(p.name for p in shared.iterdir()) == [planted.name]


def test_the_explorer_shot_follows_the_most_common_first_decision(tmp_path: Path) -> None:
    """The Explorer's screenshot opens one decision deep, at the most common first decision the database
    holds for the game (no game's word written in the script); none without openings."""
    import duckdb

    db = tmp_path / "g.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("CREATE TABLE openings (game VARCHAR, decisions VARCHAR[])")
        con.execute("INSERT INTO openings VALUES ('g', ['B', 'x']), ('g', ['A']), ('g', ['B']), ('h', ['C']), ('g', [])")
    assert screenshots._first_decision(db, "g") == "B"
    assert screenshots._first_decision(db, "none") is None
    assert screenshots._first_decision(tmp_path / "missing.duckdb", "g") is None
