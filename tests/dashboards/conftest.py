"""Fixtures of the dashboard tests: an imported sample database and an AppTest on a chosen page."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "dashboards" / "app.py"
SAMPLE_LOGS = ROOT / "sample_logs"


@pytest.fixture(scope="session")
def dash_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The San Juan sample logs (30 games, 10 per player count) imported once; read only."""
    from ingest.importer import import_paths

    db = tmp_path_factory.mktemp("dash_db") / "dash.duckdb"
    summary = import_paths([SAMPLE_LOGS / "san_juan"], db, workers=1)
    assert summary.imported == 30 and summary.rejected == 0
    return db


@pytest.fixture(scope="session")
def mixed_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """San Juan and Puerto Rico sample logs in one database (60 games; a fixture that cannot be built
    fails the tests that use it)."""
    from ingest.importer import import_paths

    db = tmp_path_factory.mktemp("mixed_db") / "mixed.duckdb"
    summary = import_paths([SAMPLE_LOGS / "san_juan", SAMPLE_LOGS / "puerto_rico"], db, workers=1)
    assert (summary.imported, summary.rejected) == (60, 0)
    assert query(db, "SELECT game, count(*) FROM games GROUP BY game ORDER BY game") == [
        ("puerto_rico", 30), ("san_juan", 30)]
    return db


@pytest.fixture
def dash_db_copy(dash_db: Path, tmp_path: Path) -> Path:
    """A copy of the sample database that a test may write."""
    target = tmp_path / "copy.duckdb"
    shutil.copy(dash_db, target)
    return target


def query(db: Path, sql: str, params: list | None = None) -> list[tuple]:
    """Rows of one query on a short read-only connection with the dashboard's configuration."""
    from dashboards.sql_sandbox import READ_CONFIG

    con = duckdb.connect(str(db), read_only=True, config=READ_CONFIG)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


@pytest.fixture(scope="session")
def sql() -> Callable[..., list[tuple]]:
    """``sql(db, text, params)``: rows of one read-only query, to check pages against the database."""
    return query


@pytest.fixture
def open_page(monkeypatch: pytest.MonkeyPatch) -> Callable[..., AppTest]:
    """``open_page(db, "views/replay.py", game=..., step=...)``: the app run on one page."""

    def _open(db: Path, page: str, **params: str) -> AppTest:
        monkeypatch.setenv("GOVERNOR_DB", str(db))
        at = AppTest.from_file(str(APP), default_timeout=60)
        at.run()
        for key, value in params.items():
            at.query_params[key] = str(value)
        at.switch_page(page)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    return _open


@pytest.fixture(scope="session")
def dated_db(tmp_path_factory: pytest.TempPathFactory, dash_db: Path) -> Path:
    """The San Juan sample with a date on every game (2024-01-01 onwards, by game id) and one 2-player
    game turned into a full tie (both seats score the same and win)."""
    target = tmp_path_factory.mktemp("dated_db") / "dated.duckdb"
    shutil.copy(dash_db, target)
    con = duckdb.connect(str(target))
    try:
        con.execute("UPDATE games SET played_at = d FROM (SELECT game_id AS gid, strftime(DATE '2024-01-01' + "
                    "(row_number() OVER (ORDER BY game_id) - 1)::INT, '%Y-%m-%d') AS d FROM games) WHERE game_id = gid")
        (tied,) = con.execute("SELECT min(game_id) FROM games WHERE player_count = 2").fetchone()
        (top, tiebreak) = con.execute("SELECT max(score), max(tiebreak) FROM players WHERE game_id = ?", [tied]).fetchone()
        con.execute("UPDATE players SET score = ?, tiebreak = ?, won = true, rank = 1 WHERE game_id = ?",
                    [top, tiebreak, tied])
        con.execute("UPDATE games SET winners = [0, 1], winner_names = players WHERE game_id = ?", [tied])
    finally:
        con.close()
    return target


@pytest.fixture(scope="session")
def bots_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three games of governor arena's agents (``heuristic`` seated twice, ``rand``) and two of people,
    one of whom is named ``heuristic``."""
    import json

    from ingest.importer import import_paths

    logs = [json.loads(p.read_text()) for p in sorted((SAMPLE_LOGS / "san_juan").glob("san_juan-3p-*.json"))[:5]]
    for i, log in enumerate(logs[:3]):
        log["players"] = [{"name": "heuristic"}, {"name": "heuristic#2"}, {"name": "rand"}]
        log["source_id"] = f"arena-san_juan-3p-1-{i:06d}"
        log["meta"] = {"generator": "governor arena", "agents": [
            {"seat": s, "name": n, "spec": "x", "version": "1"} for s, n in enumerate(["heuristic", "heuristic#2", "rand"])]}
    for log in logs[3:]:
        log["players"] = [{"name": "heuristic"}, {"name": "Ana"}, {"name": "Bo"}]
    folder = tmp_path_factory.mktemp("bots")
    (folder / "games.jsonl").write_text("".join(json.dumps(log) + "\n" for log in logs))
    db = folder / "bots.duckdb"
    assert import_paths([folder / "games.jsonl"], db, workers=1).imported == 5
    return db


def alerts(at: AppTest, kind: str) -> list[str]:
    """The text of the info, warning or error boxes ``dashboards.ui.alert`` showed (HTML unescaped)."""
    import html
    import re

    out = []
    for element in at.html:
        found = re.match(rf'<div class="gv-text gv-alert gv-alert-{kind}" role="alert">(.*)</div>$', element.value, re.S)
        if found:
            out.append(html.unescape(found.group(1)))
    return out


@pytest.fixture(scope="module")
def dash_site(dash_db: Path, served: Callable[[Path], str], chromium: Any) -> tuple[str, Any]:
    """A dashboard on ``dash_db`` and a headless Chromium: ``(url, browser)``. The dashboard is the
    one every test module of this process that reads the sample database through a browser shares."""
    return served(dash_db), chromium
