"""Every game at every player count played to its end on the Play page (run headless, ``AppTest``):
the game is started on the page, played on the server (as from another tab) until a few of the
person's decisions are left, and the page follows it there and plays it to its end. The page's own
code moves the bots and makes the person's moves, as it does in a browser; only the
board component is stood in for (``play_board``: it records what the page sends and answers, one
move per run of the page, with a move it lists, as a click on a button does, or a move assembled part
by part as the browser sends it). The finished game is stored in the database the dashboard serves
(its players, scores and moves as played, the bots as bots) and the log the page offers for download
is a valid game, with the result the page showed."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import duckdb
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from dashboards import play_component
from play.agents import built_in_agent
from play.session import game_log
from play.store import Store, play_folder
from replay.log_reader import read_records
from replay.replayer import final_state
from tests.dashboards.conftest import APP, alerts
from tests.play.driving import to_near_end

#: Runs of the page at most for one game (each makes one move of the person's; the bots' in between).
MAX_RUNS = 400
#: The person's decisions left to the page (the rest of the game is played on the server).
LEFT = 6


def heuristic_choice(session: Any) -> Any:
    """The move the heuristic bot would make in the person's seat (a short game); the first choice
    for the person's part of another seat's move."""
    if session.asked is not None:
        return session.choices()[0]
    agent = built_in_agent("heuristic", session.setup.game)
    assert agent is not None
    agent.reset(0)
    return agent.choose_working(session.engine.working(session.state))


class Board:
    """The board component stood in for: what the page sent, and the person's answer: the move the
    heuristic bot would make in the person's seat (a short game), else one of the listed moves."""

    def __init__(self, games: Store, seed: int) -> None:
        self.games = games
        self.rng = random.Random(seed)
        self.sent: list[dict[str, Any]] = []
        self.answer = False

    def __call__(self, data: dict[str, Any], key: str = "play_board") -> play_component.Reply:
        self.sent.append(data)
        texts = [m["text"] for m in data["legal"]["moves"]]
        if not self.answer or data["over"] or data["to_act"] != data["seat"]:
            return play_component.Reply()
        # One answer per run of the test: the page runs again after it (``st.rerun``), as after a click.
        self.answer = False
        session = self.games.load(data["id"])
        agent = built_in_agent("heuristic", session.setup.game)
        assert agent is not None
        agent.reset(self.rng.randrange(2**31))
        chosen = agent.choose_working(session.engine.working(session.state)) if session.asked is None else None
        if chosen is not None and chosen.text() in texts:
            move = chosen.text()
        elif chosen is not None and chosen.to_json()["kind"] in data["legal"]["parts"]:
            move = json.dumps(chosen.to_json())  # a move of very many variants, assembled as the browser does
        else:
            move = self.rng.choice(texts)
        return play_component.Reply({"id": data["id"], "version": data["version"], "move": move})


@pytest.mark.parametrize(("game", "players", "seed"), [
    ("san_juan", 2, 4), ("san_juan", 3, 1), ("san_juan", 4, 3),
    ("puerto_rico", 3, 1), ("puerto_rico", 4, 1), ("puerto_rico", 5, 1),
])
def test_every_game_and_player_count_is_played_to_its_end_stored_and_downloadable(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, game: str, players: int, seed: int) -> None:
    db = tmp_path / "games.duckdb"
    board = Board(Store(play_folder(db)), seed)
    monkeypatch.setattr(play_component, "play_board", board)
    # What a download button's click would serve: its deferred data, as the runtime was handed it.
    deferred: dict[str, Any] = {}
    register = MediaFileManager.add_deferred

    def add_deferred(self: MediaFileManager, data: Any, *args: Any, **kwargs: Any) -> str:
        deferred[file_id := register(self, data, *args, **kwargs)] = data
        return file_id

    monkeypatch.setattr(MediaFileManager, "add_deferred", add_deferred)
    monkeypatch.setenv("GOVERNOR_DB", str(db))
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    at.query_params.update({"game": game, "players": str(players), "seat": "1", "bots": "heuristic",
                            "seed": str(seed), "name": "Tester"})
    at.switch_page("views/play.py")
    at.run()
    at.button(key="play_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    game_id = at.query_params["id"]
    # Played on the server (another tab, as it were) until LEFT of the person's decisions are left.
    near = to_near_end(board.games, board.games.load(game_id), LEFT, tmp_path / "scratch", heuristic_choice)
    assert not near.over and near.version > 1
    for _ in range(MAX_RUNS):
        if board.sent[-1]["over"]:
            break
        board.answer = True
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        assert alerts(at, "error") == []
    sent = board.sent[-1]
    assert sent["over"], f"not over after {MAX_RUNS} moves of the person's"
    session = Store(play_folder(db)).load(game_id)
    assert session.over and sent["version"] == session.version and len(sent["names"]) == players
    assert [p.seat for p in session.moves if not p.bot] and all(p.seat == 1 for p in session.moves if not p.bot)
    # The page made the person's last moves itself.
    assert len([p for p in session.moves if not p.bot]) >= len([p for p in near.moves if not p.bot]) + 2
    text = " ".join(h.value for h in at.html)
    assert "The game is stored in the database" in text
    # The log offered for download: a valid game, with the scores the page showed.
    (download,) = [b for b in at.get("download_button") if b.proto.label == "Download the game's log (JSON)"]
    path = tmp_path / "downloaded.json"
    path.write_bytes(deferred[download.proto.deferred_file_id]())
    (record,) = list(read_records(path))
    assert record.error is None and record.log is not None
    scores = session.engine.scores(final_state(record.log))
    names = list(session.setup.names)
    assert names[1] == "Tester" and [p["name"] for p in json.loads(path.read_text())["players"]] == names
    assert f"{names[1]} {scores[1].total} VP (tie-break {scores[1].tiebreak})" in text
    # In the database the dashboard serves: the game as played, its players in their seats with their
    # scores, the bots as bots.
    with duckdb.connect(str(db), read_only=True) as con:
        games = con.execute("SELECT game_id, game, player_count, players, moves FROM games").fetchall()
        seats = con.execute("SELECT seat, name, score, tiebreak, bot FROM players ORDER BY seat").fetchall()
    assert games == [(game_log(session).game_id, game, players, names, len(record.log.moves))]
    assert [(s, score, tiebreak, bot) for s, _, score, tiebreak, bot in seats] == \
        [(s, scores[s].total, scores[s].tiebreak, s != 1) for s in range(players)]
    assert seats[1][1] == "Tester" and all(name.startswith("heuristic") for _, name, *_ in seats[:1] + seats[2:])
