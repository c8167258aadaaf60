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
