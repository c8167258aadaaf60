"""The pages with San Juan and Puerto Rico games in one database."""

from __future__ import annotations

import json
from pathlib import Path


def test_every_page_runs_with_both_games(mixed_db: Path, open_page) -> None:
    for page in ("views/games.py", "views/statistics.py", "views/sql.py", "views/import_logs.py"):
        at = open_page(mixed_db, page)
        assert not at.exception, page
    at = open_page(mixed_db, "views/games.py")
    assert set(at.dataframe[0].value["game"]) == {"San Juan", "Puerto Rico"}


def test_statistics_for_puerto_rico(mixed_db: Path, open_page, sql) -> None:
    at = open_page(mixed_db, "views/statistics.py")
    at.selectbox(key="stats_game").set_value("puerto_rico").run()
    assert not at.exception
    (games,) = sql(mixed_db, "SELECT count(*) FROM games WHERE game = 'puerto_rico'")[0]
    assert at.metric[0].value == f"{games:,}"
    at.session_state["stats_tab"] = "VP curves"
    at.run()
    assert not at.exception


def test_replay_of_a_puerto_rico_game(mixed_db: Path, open_page, sql) -> None:
    game_id, names, moves = sql(
        mixed_db, "SELECT game_id, players, moves FROM games WHERE game = 'puerto_rico' ORDER BY game_id LIMIT 1")[0]
    at = open_page(mixed_db, "views/replay.py", game=game_id, step="25")
    assert not at.exception
    payload = json.loads(at.get("bidi_component")[0].proto.json)["game"]
    assert payload["game"] == "puerto_rico" and payload["names"] == list(names) and payload["total"] == moves
    ships = sql(mixed_db, "SELECT ships FROM puerto_rico_states WHERE game_id = ? AND step = 0", [game_id])[0][0]
    assert payload["table"]["ships"][0] == [0, list(ships)]
