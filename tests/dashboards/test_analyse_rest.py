"""The Games page's "Analyse the rest": each game says whether it has a stored analysis; the button starts
one background job per database (``dashboards.analyse_job``), whose progress the page shows and which
"Stop" ends keeping every game stored; a job started again does only the rest."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboards import analyse_job
from governor.cli import main
from tests.dashboards.conftest import APP, ROOT, query

GAMES = [ROOT / "sample_logs" / "san_juan" / f"san_juan-2p-seed2026-000{k}.json" for k in (0, 3, 6)]
#: Settings that keep the jobs fast (every choice a candidate, one rollout by the fastest bot).
FAST = {"rollouts": 1, "sampling": "fixed", "top": 1000, "rollout_bot": "heuristic"}
FAST_ARGS = ["--rollouts", "1", "--sampling", "fixed", "--top", "1000", "--rollout-bot", "heuristic"]


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from ingest.importer import import_paths

    db = tmp_path_factory.mktemp("rest") / "three.duckdb"
    assert import_paths(GAMES, db, workers=1).imported == 3
    return db


@pytest.fixture
def db(three: Path, tmp_path: Path) -> Iterator[Path]:
    import shutil

    target = tmp_path / "games.duckdb"
    shutil.copy(three, target)
    yield target
    job = analyse_job.job_for(str(target))
    if job is not None:  # never left running by a failed test
        if job.process.poll() is None:
            job.process.kill()
        job.ended.wait(30)
        analyse_job.forget(str(target))


def stored(db: Path) -> list[str]:
    return [r[0] for r in query(db, "SELECT DISTINCT game_id FROM analysis ORDER BY 1")]


def wait(condition: Callable[[], bool], what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {seconds:.0f} s"
        time.sleep(0.02)


def test_the_job_analyses_the_rest_one_at_a_time_and_a_stop_keeps_what_is_done(db: Path) -> None:
    job = analyse_job.start(str(db), workers=1, settings=FAST)
    assert analyse_job.start(str(db), workers=1, settings=FAST) is job  # one job per database
    wait(lambda: job.analysed >= 1, "a game analysed")
    analyse_job.stop(job)
    assert job.ended.wait(60)
    assert job.outcome == "stopped" and job.error is None and job.process.returncode == 143
    kept = stored(db)
    assert job.analysed == len(kept) and 1 <= len(kept) <= 3 and job.total == 3
    analyse_job.forget(str(db))
    again = analyse_job.start(str(db), workers=1, settings=FAST)
    assert again is not job
    assert again.ended.wait(120)
    assert (again.outcome, again.total, again.analysed, again.skipped, again.failed) == (
        "done", 3, 3 - len(kept), len(kept), 0)
    assert query(db, "SELECT count(*), count(DISTINCT game_id) FROM analysis") == [(2319, 3)]


def test_a_job_whose_server_is_gone_stops_by_itself(db: Path) -> None:
    job = analyse_job.start(str(db), workers=1, settings=FAST)
    assert job.process.stdin is not None
    job.process.stdin.close()  # what the server's end does to the pipe
    assert job.ended.wait(60)
    assert job.outcome == "stopped" and job.process.returncode == 143


@pytest.fixture
def open_games(monkeypatch: pytest.MonkeyPatch) -> Callable[[Path], AppTest]:
    def _open(db: Path) -> AppTest:
        monkeypatch.setenv("GOVERNOR_DB", str(db))
        at = AppTest.from_file(str(APP), default_timeout=60)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    return _open


def texts(at: AppTest) -> str:
    return " ".join(str(h.proto.body) for h in at.get("html"))


def test_the_page_says_which_games_are_analysed_and_starts_the_rest(
        db: Path, open_games: Callable[[Path], AppTest], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    first = query(db, "SELECT min(game_id) FROM games")[0][0]
    at = open_games(db)
    assert "0 of 3 games analysed." in texts(at)
    assert not any(at.dataframe[0].value["analysed"])
    assert main(["analyse", "--db", str(db), "--where", f"game_id = '{first}'", *FAST_ARGS, "--workers", "1",
                 "--progress", "never"]) == 0
    capsys.readouterr()
    at = open_games(db)
    assert "1 of 3 games analysed. \u201cAnalyse the rest\u201d analyses the others in the background" in texts(at)
    table = at.dataframe[0].value
    assert {g: bool(a) for g, a in zip(table["game_id"], table["analysed"])} == {
        g: g == first for g in table["game_id"]}
    started: list[str] = []
    monkeypatch.setattr(analyse_job, "start", lambda path: started.append(path))
    at.button(key="analyse_rest").click().run()
    assert started == [str(db)]


def test_the_page_shows_a_running_job_stops_it_and_says_how_it_ended(
        db: Path, open_games: Callable[[Path], AppTest]) -> None:
    sleeper = subprocess.Popen(["sleep", "60"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    job = analyse_job.BatchJob(str(db), sleeper, total=3, analysed=1, skipped=0, failed=1,
                               failures=["failed: game x: <b>bold</b> [a](http://e.com) :red[y]"])
    analyse_job._JOBS[analyse_job._key(str(db))] = job
    try:
        at = open_games(db)
        assert at.get("progress")[0].proto.text == (
            "Analysing the rest: 2 of 3 games done: 1 analysed, 0 skipped (analysed already), 1 failed")
        at.button(key="analyse_rest_stop").click().run()
        assert job.stopping and sleeper.wait(30) == -15
        job.outcome = "stopped"
        job.ended.set()
        at = open_games(db)
        shown = texts(at)
        assert ("Analysis stopped: 1 game analysed, 0 skipped (analysed already), 1 failed; every game analysed is "
                "kept. Analyse the rest at any time.") in shown
        # A failure's line is plain text: no Markdown, no HTML.
        assert "failed: game x: &lt;b&gt;bold&lt;/b&gt; [a](http://e.com) :red[y]" in shown
        assert analyse_job.job_for(str(db)) is None
    finally:
        if sleeper.poll() is None:
            sleeper.kill()
        sleeper.wait()
