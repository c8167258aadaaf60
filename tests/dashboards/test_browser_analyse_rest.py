""""Analyse the rest" in a real browser, wide and on a phone's width: the count of games analysed, the
button, the job's progress bar while it runs, Stop, and how it ended; the job ends with the dashboard.
``GOVERNOR_SCREENSHOTS=DIR`` also writes a screenshot of each step there."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from dashboards.screenshots import CHROMIUM, dashboard_process, wait_for_app
from governor.cli import main
from tests.dashboards.conftest import ROOT, query

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)"),
]

GAMES = [ROOT / "sample_logs" / "san_juan" / f"san_juan-2p-seed2026-000{k}.json" for k in (0, 3, 6)]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _job_pids() -> set[int]:
    """The analyse-the-rest jobs running on this machine, by process id."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                words = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"dashboards.analyse_job" in words:
                found.add(int(entry.name))
    return found


@pytest.mark.parametrize("width", [1400, 390])
def test_analyse_the_rest_in_a_browser(chromium: Any, tmp_path: Path, width: int, capsys: pytest.CaptureFixture[str]) -> None:
    from ingest.importer import import_paths

    db = tmp_path / "rest.duckdb"
    assert import_paths(GAMES, db, workers=1).imported == 3
    first = query(db, "SELECT min(game_id) FROM games")[0][0]
    assert main(["analyse", "--db", str(db), "--where", f"game_id = '{first}'", "--rollouts", "1", "--sampling", "fixed",
                 "--top", "1000", "--rollout-bot", "heuristic", "--workers", "1", "--progress", "never"]) == 0
    capsys.readouterr()
    shots = os.environ.get("GOVERNOR_SCREENSHOTS")
    before = _job_pids()

    def shot(page, name: str) -> None:
        if shots:
            Path(shots).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(shots) / f"analyse_rest_{width}_{name}.png"), full_page=True)

    with dashboard_process(db) as (url, _server):
        page = chromium.new_page(viewport={"width": width, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda err: errors.append(str(err)))
        page.goto(url)
        wait_for_app(page)
        page.get_by_text("1 of 3 games analysed.", exact=False).wait_for(timeout=30_000)
        button = page.get_by_role("button", name="Analyse the rest")
        button.wait_for(timeout=30_000)
        assert button.bounding_box()["x"] + button.bounding_box()["width"] <= width
        shot(page, "before")
        button.click()
        page.get_by_text("Analysing the rest:", exact=False).first.wait_for(timeout=30_000)
        page.get_by_text("of 3 games done", exact=False).first.wait_for(timeout=60_000)
        shot(page, "running")
        jobs = _job_pids() - before  # the job and its worker processes
        assert jobs
        page.get_by_role("button", name="Stop").click()
        page.get_by_text("Analysis stopped:", exact=False).wait_for(timeout=60_000)
        shot(page, "stopped")
        assert not errors, errors
        assert page.locator('[data-testid="stException"]').count() == 0
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in jobs):
        assert time.monotonic() < deadline, "the job outlived its Stop"
        time.sleep(0.1)
