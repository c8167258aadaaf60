"""The Replay page's "Win chance (model)" graph: what each view is sent (the whole view's chances,
stored or computed; a seat's own view only; nothing for the table), and in a browser, that a seat's
view receives no number of the whole view (the web socket's frames are read)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from analysis.calibration import stored_results
from analysis.winchance.model import load
from analysis.winchance.series import viewer_series
from dashboards.model_chart import model_payload
from dashboards.screenshots import CHROMIUM
from replay.logfile import parse_game
from replay.protocol import Viewer
from replay.registry import engine_for
from replay.replayer import iter_replay


@pytest.fixture(scope="module")
def filled_db(dash_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The San Juan sample database with its win chances filled."""
    from analysis.winchance.fill import fill

    db = tmp_path_factory.mktemp("model_chart") / "filled.duckdb"
    shutil.copy(dash_db, db)
    assert fill(str(db), say=lambda line: None).games == 30
    return db


def _game(db: Path, sql) -> tuple[dict, str]:
    game_id, players, log_text = sql(db, "SELECT game_id, player_count, log FROM games WHERE player_count = 3 "
                                         "ORDER BY game_id LIMIT 1")[0]
    return {"game_id": game_id, "player_count": players, "game": "san_juan"}, log_text


def _expected(log_text: str, viewer: Viewer) -> list[list[float]]:
    log = parse_game(json.loads(log_text))
    states = [state for state, _ in iter_replay(log, describe=False, steps=False)]
    found = viewer_series(load(log.game, len(log.players)), engine_for(log.game), states, viewer)
    assert found is not None
    return [[round(float(v), 4) for v in found[:, seat]] for seat in range(found.shape[1])]


def test_each_view_is_sent_what_it_may_know(dash_db: Path, filled_db: Path, sql, monkeypatch: pytest.MonkeyPatch) -> None:
    row, log_text = _game(dash_db, sql)
    monkeypatch.setenv("GOVERNOR_DB", str(dash_db))
    whole = model_payload(row, log_text, Viewer.everything())
    assert whole is not None and whole["chances"] == _expected(log_text, Viewer.everything())
    assert whole["view"] == "all" and whole["game_id"] == row["game_id"]
    assert whole["meaning"].startswith("the chance to win if every seat played like the expert bot from here")
    seat = model_payload(row, log_text, Viewer.of_seat(1))
    assert seat is not None and seat["chances"] == _expected(log_text, Viewer.of_seat(1)) != whole["chances"]
    assert model_payload(row, log_text, Viewer.public()) is None
    # A finished game ends at 1 for its winner in every view.
    winner = sql(dash_db, "SELECT seat FROM players WHERE game_id = ? AND won", [row["game_id"]])[0][0]
    assert [c[-1] for c in whole["chances"]] == [c[-1] for c in seat["chances"]] == [
        1.0 if s == winner else 0.0 for s in range(3)]
    # With the table filled, the whole view is read from it (the same numbers, to the 4th place).
    monkeypatch.setenv("GOVERNOR_DB", str(filled_db))
    stored = model_payload(row, log_text, Viewer.everything())
    assert stored is not None
    assert np.allclose(np.array(stored["chances"]), np.array(whole["chances"]), atol=1e-4)


needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                        reason=f"missing optional dependency: {CHROMIUM} (apt-get install -y chromium)")


@pytest.mark.browser
@needs_chromium
def test_a_seat_view_receives_only_its_own_chances(dash_site, dash_db: Path, sql) -> None:
    from dashboards.screenshots import wait_for_app

    row, log_text = _game(dash_db, sql)
    seat_view, whole = _expected(log_text, Viewer.of_seat(1)), _expected(log_text, Viewer.everything())
    # Values only the whole view has (the seat's own view never gives them), written as JSON would.
    secret = {json.dumps(v) for c in whole for v in c} - {json.dumps(v) for c in seat_view for v in c}
    secret = {v for v in secret if len(v) >= 6}  # long enough not to occur by chance elsewhere
    # The page also draws the analysis' reliability diagram (the game's shipped calibration): its
    # numbers are the same for every game and view, so one that equals a chance is no leak.
    diagram = json.dumps(stored_results("san_juan"))
    secret = {v for v in secret if not re.search(rf"(?<![0-9]){re.escape(v)}(?![0-9])", diagram)}
    assert len(secret) > 20
    frames: list[str] = []
    url, browser = dash_site
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f if isinstance(f, str)
                                                                                   else f.decode("latin-1"))))
    page.goto(f"{url}/replay?game={row['game_id']}&step=20&view=seat1")
    wait_for_app(page)
    page.wait_for_selector(".modelbox:not([hidden])", state="attached", timeout=30_000)
    readout = page.locator(".model-readout").inner_text()
    page.close()
    received = "".join(frames)
    assert all(str(v) in received for v in seat_view[0][:30])
    leaked = [v for v in secret if re.search(rf"(?<![0-9]){re.escape(v)}(?![0-9])", received)]
    assert not leaked, leaked[:5]
    assert readout.startswith("move 20: ")
    assert [int(p) for p in re.findall(r"(\d+)%", readout)] == [round(c[20] * 100) for c in seat_view]
