"""``governor dashboard --lake DIR``: the dashboard's connection settings (locked configuration, memory
limit) apply to a lake's connection too, and every page reads the lake."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboards.sql_sandbox import READ_CONFIG
from ingest.db import reader
from ingest.importer import import_paths

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "dashboards" / "app.py"


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("dash_lake") / "lake"
    assert import_paths([ROOT / "sample_logs" / "san_juan"], str(target), lake=True, workers=1).imported == 30
    return target


def test_a_lake_reads_with_the_dashboards_locked_settings(lake: Path) -> None:
    with reader(lake, config=READ_CONFIG) as con:
        assert con.execute("SELECT count(*) FROM games").fetchall() == [(30,)]
        assert con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0].startswith("1.8")
        with pytest.raises(Exception, match="configuration has been locked"):
            con.execute("SET memory_limit = '8GB'")


def _alerts(at: AppTest) -> list[str]:
    out = []
    for element in at.html:
        found = re.match(r'<div class="gv-text gv-alert gv-alert-(\w+)" role="alert">(.*)</div>$', element.value, re.S)
        if found:
            out.append(f"{found.group(1)}: {html.unescape(found.group(2))}")
    return out


def test_every_page_reads_the_lake(lake: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOVERNOR_DB", str(lake))
    for page in ("views/games.py", "views/statistics.py", "views/sql.py", "views/players.py", "views/explorer.py"):
        at = AppTest.from_file(str(APP), default_timeout=120)
        at.run()
        at.switch_page(page)
        at.run()
        assert not at.exception, (page, [e.value for e in at.exception])
        problems = [a for a in _alerts(at) if a.startswith("error") or "cannot read the lake" in a]
        assert problems == [], page
        assert not [e.value for e in at.error], page
