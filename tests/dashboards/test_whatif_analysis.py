"""The Replay page's What if? and Winning chances panels (AppTest), and the variation module."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from analysis import variation as V
from analysis.decisions import Options, analyse
from analysis.store import store
from replay.logfile import parse_game
from replay.replayer import final_state

from .conftest import query

GAME_FILE = Path(__file__).resolve().parents[2] / "sample_logs" / "san_juan" / "san_juan-2p-seed2026-0000.json"


def _log():
    return parse_game(json.loads(GAME_FILE.read_text()), file=str(GAME_FILE))


def test_a_variation_is_kept_as_a_valid_log() -> None:
    log = _log()
    variation = V.start(log, 10, seed=4)
    choices = V.choices(variation)
    played = log.moves[10]
    other = next(c for c in choices if c.move.to_json() != {k: v for k, v in played.items() if k != "seat"})
    variation = V.finish(V.play(variation, other.move), seed=2)
    assert variation.over and variation.moves[0] == other.move
    obj = V.to_log(variation)
    assert obj["moves"][:10] == list(log.moves[:10])
    assert obj["meta"]["variation_of"] == log.game_id and obj["meta"]["branch_after_move"] == 10
    state = final_state(parse_game(obj, file="variation.json"))  # what governor validate checks
    assert [s.total for s in variation.engine.scores(state)] == obj["result"]["scores"]
    # The mainline is untouched.
    assert _log().moves == log.moves


def test_variation_out_of_range() -> None:
    with pytest.raises(ValueError, match="the game has 117 moves; a variation starts after 0 to 117 of them"):
        V.start(_log(), 118)


def test_replay_page_branches_plays_and_goes_back(open_page: Callable, dash_db: Path) -> None:
    game_id = _log().game_id
    at = open_page(dash_db, "views/replay.py", game=game_id, step=10)
    assert at.number_input(key="whatif_branch").value == 10
    branch = V.start(_log(), 10)
    groups = list(dict.fromkeys(c.group for c in V.choices(branch)))
    assert at.selectbox(key="whatif_group_10_0").options == groups
    at.button(key="whatif_play_10_0").click().run()
    assert not at.exception
    (held,) = at.session_state["whatif_lines"][game_id]
    assert held.branch == 10 and len(held.picks) == 1 and not held.finished
    assert at.session_state["whatif_active"][game_id] == 0
    at.button(key="whatif_finish").click().run()
    assert not at.exception
    assert at.session_state["whatif_lines"][game_id][0].finished
    assert at.button(key="whatif_finish").disabled
    at.button(key="whatif_back").click().run()
    # Back to the game: the variation stays in the list (and the URL), the viewer shows the game.
    assert at.session_state["whatif_active"][game_id] is None
    assert len(at.session_state["whatif_lines"][game_id]) == 1


def test_stored_analysis_shows_at_once(open_page: Callable, dash_db_copy: Path) -> None:
    log = _log()
    options = Options(rollouts=2, top=2, seed=3, steps=(1, 8))
    decisions = list(analyse(log, options))
    rows = store(dash_db_copy, log.game_id, "1.0", decisions, options)
    assert rows == sum(len(d.candidates) for d in decisions)
    at = open_page(dash_db_copy, "views/replay.py", game=log.game_id)
    texts = [h.body for h in at.get("html")]
    from replay.registry import rollout_bot

    bot = rollout_bot(log.game)
    assert any(f"{len(decisions)} decisions analysed, 2 rollouts per candidate by the {bot} bot, seed 3" in t
               for t in texts)
    assert query(dash_db_copy, "SELECT count(*) FROM analysis WHERE game_id = ? AND played", [log.game_id]) == [(len(decisions),)]
    # The stored tags go to the viewer's move list, by step.
    (element,) = at.get("bidi_component")
    moves = json.loads(element.proto.json)["game"]["moves"]
    tags = dict(query(dash_db_copy, "SELECT step, tag FROM analysis WHERE game_id = ? AND played AND tag IS NOT NULL",
                      [log.game_id]))
    assert moves.get("tag", [None] * len(moves["step"])) == [tags.get(s) for s in moves["step"]]


def test_analysis_stored_before_the_rollout_bot_was_recorded_shows(open_page: Callable, dash_db_copy: Path) -> None:
    """A database of schema 7 (its analysis has no ``rollout_bot``) opens as it is: the dashboard never
    migrates, and an analysis of then was rolled out by the heuristic bot."""
    import duckdb

    log = _log()
    options = Options(rollouts=2, top=2, seed=3, steps=(1, 8))
    decisions = list(analyse(log, options))
    store(dash_db_copy, log.game_id, "1.0", decisions, options)
    con = duckdb.connect(str(dash_db_copy))
    con.execute("ALTER TABLE analysis DROP COLUMN rollout_bot")
    con.execute("UPDATE governor_meta SET value = '7' WHERE key = 'schema_version'")
    con.close()
    at = open_page(dash_db_copy, "views/replay.py", game=log.game_id)
    assert not at.exception
    texts = [h.body for h in at.get("html")]
    assert any(f"{len(decisions)} decisions analysed, 2 rollouts per candidate by the heuristic bot, seed 3" in t
               for t in texts)


def test_unanalysed_game_offers_the_analysis(open_page: Callable, dash_db: Path) -> None:
    at = open_page(dash_db, "views/replay.py", game=_log().game_id)
    texts = [h.body for h in at.get("html")]
    assert any("This game has not been analysed yet." in t for t in texts)
    assert at.button(key="analysis_start").label == "Analyse this game"


def test_a_seat_view_offers_the_seats_own_decisions_only(open_page: Callable, dash_db: Path) -> None:
    log = _log()
    names = list(log.players)
    # The first position where seat 0 is to act and the first where seat 1 is.
    acting = {}
    for branch in range(len(log.moves)):
        acting.setdefault(V.start(log, branch).seat, branch)
        if len(acting) == 2:
            break
    mine, other = acting[1], acting[0]
    at = open_page(dash_db, "views/replay.py", game=log.game_id, step=mine, view="seat1")
    assert at.selectbox(key=f"whatif_group_{mine}_0").options == list(dict.fromkeys(
        c.group for c in V.choices(V.start(log, mine))))
    # A finished variation's log holds every hand: not offered in a seat's view.
    at.button(key=f"whatif_play_{mine}_0").click().run()
    at.button(key="whatif_finish").click().run()
    assert not at.exception and at.session_state["whatif_lines"][log.game_id][0].finished
    # The panel's button and the variation list's: both refused in a seat's view.
    downloads = [b for b in at.get("download_button") if b.proto.label == "Download the variation (.json)"]
    assert len(downloads) == 2
    for download in downloads:
        assert download.proto.disabled and download.proto.help == "A log holds every hand: choose the view everything to download it."
    at.button(key="whatif_back").click().run()
    at = open_page(dash_db, "views/replay.py", game=log.game_id, step=other, view="seat1")
    texts = [h.body for h in at.get("html")]
    assert any(f"In {names[1]}&#x27;s seat view, What if? offers {names[1]}&#x27;s own decisions only: at this "
               f"position {names[0]} is to act" in t for t in texts), texts
    assert not [s for s in at.selectbox if s.key and s.key.startswith("whatif_")]
    at = open_page(dash_db, "views/replay.py", game=log.game_id, step=mine, view="public")
    texts = [h.body for h in at.get("html")]
    assert any(f"In the public view, What if? lists no decision of a hidden hand: {names[1]} is to act here." in t
               for t in texts)
    assert not [s for s in at.selectbox if s.key and s.key.startswith("whatif_")]


def test_back_to_the_game_returns_where_the_user_branched(open_page: Callable, dash_db: Path) -> None:
    """The page was opened at move 4 and the user branched at move 10: "Back to the game" shows move
    10 (it used to show the URL's move 4)."""
    game_id = _log().game_id
    at = open_page(dash_db, "views/replay.py", game=game_id, step=4)
    at.number_input(key="whatif_branch").set_value(10).run()
    at.button(key="whatif_play_10_0").click().run()
    assert at.session_state["whatif_active"][game_id] == 0
    at.button(key="whatif_back").click().run()
    assert not at.exception
    assert at.session_state["whatif_active"][game_id] is None
    assert at.query_params["step"] in ("10", ["10"])
