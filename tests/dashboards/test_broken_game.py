"""A game's package that does not load (an entry point whose import fails, a declared board file that is
not there) is one line on the page that meets it, never a traceback: the installation is at fault,
not the page. Each case runs the app in a process of its own, with the broken package installed
beside Governor (its ``*.dist-info`` on ``PYTHONPATH``), since a page's modules stay imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.replay.distributions import install_distribution

ROOT = Path(__file__).resolve().parents[2]

#: Runs the app on one page and prints the page's error alerts and exceptions as JSON.
SCRIPT = textwrap.dedent("""
    import json, sys
    from streamlit.testing.v1 import AppTest
    from tests.dashboards.conftest import alerts
    at = AppTest.from_file("dashboards/app.py", default_timeout=60)
    at.run()
    if sys.argv[1] != "views/games.py":
        at.switch_page(sys.argv[1])
        at.run()
    print(json.dumps({"errors": alerts(at, "error"), "exceptions": [str(e.value) for e in at.exception]}))
""")

BOARDLESS = '''
from replay.game import GameDeclaration

GAME = GameDeclaration(
    name="noughts", title="Noughts and Crosses", min_players=2, max_players=2, engine="noughts.engine:ENGINE",
    view="noughts.view", catalogue="noughts.engine", bots=(), log_schema="nc_",
    log_schema_file="noughts:log.schema.json", board="noughts:board.js",
)
'''


def _page(folder: Path, db: Path, page: str) -> dict[str, list[str]]:
    env = {**os.environ, "GOVERNOR_DB": str(db),
           "PYTHONPATH": os.pathsep.join([str(folder), str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, "-c", SCRIPT, page], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, list[str]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_a_game_whose_package_does_not_import_is_one_line_on_every_page(tmp_path: Path, dash_db: Path) -> None:
    (tmp_path / "twin.py").write_text("raise RuntimeError('half installed')\n", encoding="utf-8")
    install_distribution(tmp_path, "twin_game", "[governor.games]\ntwin = twin:GAME\n")
    line = "entry point twin = twin:GAME of the distribution twin_game cannot be loaded: RuntimeError: half installed"
    for page in ("views/games.py", "views/replay.py", "views/statistics.py"):
        assert _page(tmp_path, dash_db, page) == {"errors": [line], "exceptions": []}, page


def test_a_declared_board_that_is_not_there_is_one_line_on_the_replay_page(tmp_path: Path, dash_db: Path) -> None:
    package = tmp_path / "noughts"
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent(BOARDLESS), encoding="utf-8")
    install_distribution(tmp_path, "noughts_game", "[governor.games]\nnoughts = noughts:GAME\n")
    found = _page(tmp_path, dash_db, "views/replay.py")
    assert found["exceptions"] == []
    assert len(found["errors"]) == 1 and found["errors"][0].startswith(
        "noughts:board.js: cannot be read as package data: FileNotFoundError: "), found
