"""The Replay page's server side: what it sends to the browser, checked against the database, and how
it reads the URL (game, step, view). The stepping itself runs in the browser (test_replay_browser.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dashboards.replay_data import parse_step, parse_view
from replay.san_juan.view import public_words as san_juan_public_words

from .conftest import alerts


@pytest.fixture(scope="module")
def game(dash_db: Path, sql) -> dict:
    game_id, names, moves = sql(
        dash_db, "SELECT game_id, players, moves FROM games WHERE game = 'san_juan' AND player_count = 3 ORDER BY game_id LIMIT 1"
    )[0]
    return {"id": game_id, "names": list(names), "moves": moves}


def viewer(at) -> dict:
    """What the page handed to the browser component."""
    (element,) = at.get("bidi_component")
    return json.loads(element.proto.json)


def expand(runs: list, total: int) -> list:
    """A column's runs (``[[step, value], ...]``) as one value per step."""
    out, value, i = [], None, 0
    for step in range(total + 1):
        while i < len(runs) and runs[i][0] <= step:
            value = runs[i][1]
            i += 1
        out.append(value)
    return out


def test_the_whole_game_goes_to_the_browser(dash_db: Path, game: dict, open_page, sql) -> None:
    at = open_page(dash_db, "views/replay.py", game=game["id"], step="30")
    sent = viewer(at)
    assert sent["step"] == 30 and sent["view"] is None and sent["request"] == f"{game['id']}|30|None"
    payload = sent["game"]
    assert payload["game_id"] == game["id"] and payload["names"] == game["names"] and payload["total"] == game["moves"]
    total = game["moves"]
    # Every step's VP, hand and piles, as stored.
    for seat in range(3):
        rows = sql(dash_db, "SELECT vp, hand, buildings FROM san_juan_player_states WHERE game_id = ? AND seat = ? ORDER BY step",
                   [game["id"], seat])
        assert expand(payload["seats"][seat]["vp"], total) == [r[0] for r in rows]
        assert expand(payload["seats"][seat]["hand"], total) == [list(r[1]) for r in rows]
        assert expand(payload["seats"][seat]["buildings"], total) == [list(r[2]) for r in rows]
    piles = sql(dash_db, "SELECT draw_pile, round FROM san_juan_states WHERE game_id = ? ORDER BY step", [game["id"]])
    assert expand(payload["table"]["draw_pile"], total) == [r[0] for r in piles]
    assert expand(payload["table"]["round"], total) == [r[1] for r in piles]
    words = sql(dash_db, "SELECT step, round, words FROM moves WHERE game_id = ? ORDER BY step", [game["id"]])
    assert payload["moves"]["step"] == [r[0] for r in words] == list(range(1, total + 1))
    assert payload["moves"]["words"] == [r[2] for r in words]
    firsts = dict(sql(dash_db, "SELECT round::VARCHAR, min(step) FROM moves WHERE game_id = ? GROUP BY 1", [game["id"]]))
    assert payload["round_first"] == firsts
    # A step's changes name what moved; step 0 has none.
    assert payload["changes"][0] == [] and len(payload["changes"]) == total + 1
    # Everything is seen: the whole game in one window, every move's raw text.
    assert (payload["view"], payload["lo"], payload["hi"]) == ("all", 0, total)
    assert payload["moves"]["text"] == [r[0] for r in sql(dash_db, "SELECT text FROM moves WHERE game_id = ? ORDER BY step",
                                                           [game["id"]])]
    assert payload["catalogue"]["cards"]["Library"] == {"cost": 5, "vp": 3, "cls": "violet", "good": None, "vp_text": "3 VP"}
    # The final scoring under the board is the game's own table, its totals and tie-breaks the stored ones.
    scores = sql(dash_db, "SELECT score, tiebreak FROM players WHERE game_id = ? ORDER BY seat", [game["id"]])
    assert [row[3:] for row in payload["scoring"]["rows"]] == [list(r) for r in scores]
    assert payload["scoring"]["columns"][-1] == "tie-break (hand + goods)"


def test_a_view_gets_the_public_form_of_hidden_moves_and_no_raw_text(dash_db: Path, game: dict, open_page, sql) -> None:
    public = viewer(open_page(dash_db, "views/replay.py", game=game["id"], view="public"))["game"]
    seat1 = viewer(open_page(dash_db, "views/replay.py", game=game["id"], view="seat1"))["game"]
    assert (public["view"], seat1["view"]) == ("public", "seat1")
    builds = sql(dash_db, "SELECT step, seat, player, words, text, details FROM moves WHERE game_id = ? AND kind = 'build' "
                 "AND details LIKE '%\"pay\": [\"%' ORDER BY step", [game["id"]])
    assert {seat for _, seat, *_ in builds} >= {0, 1}
    for step, seat, player, words, text, details in builds:
        move = json.loads(details)
        paid = len(move["pay"])
        assert public["moves"]["words"][step - 1].startswith(f"{player} builds {move['building']}, paying {paid} card")
        assert public["moves"]["words"][step - 1] != words and public["moves"]["text"][step - 1] is None
        # A seat sees its own payments whole, and another seat's as the table does.
        mine = seat == 1
        assert seat1["moves"]["words"][step - 1] == (words if mine else public["moves"]["words"][step - 1])
        assert seat1["moves"]["text"][step - 1] == (text if mine else None)
    roles = sql(dash_db, "SELECT step, words, text FROM moves WHERE game_id = ? AND kind = 'role'", [game["id"]])
    for step, words, text in roles:  # a role choice hides nothing
        assert (public["moves"]["words"][step - 1], public["moves"]["text"][step - 1]) == (words, text)
    # The hands: a seat's own only, none in the public view; the next tile in neither.
    assert ["hand" in seat for seat in seat1["seats"]] == [False, True, False]
    assert ["hand" in seat for seat in public["seats"]] == [False, False, False]
    assert "next_tile" not in public["table"] and "next_tile" not in seat1["table"]
    hands = sql(dash_db, "SELECT hand FROM san_juan_player_states WHERE game_id = ? AND seat = 1 ORDER BY step", [game["id"]])
    assert expand(seat1["seats"][1]["hand"], game["moves"]) == [list(h) for (h,) in hands]
    assert expand(public["seats"][0]["hand_size"], game["moves"]) == [r[0] for r in sql(
        dash_db, "SELECT hand_size FROM san_juan_player_states WHERE game_id = ? AND seat = 0 ORDER BY step", [game["id"]])]


def test_public_words_of_san_juan_moves() -> None:
    assert san_juan_public_words({"kind": "chapel", "card": "Well"}, "Ana") == "Ana tucks a card under the chapel"
    assert san_juan_public_words({"kind": "build", "building": "Smithy", "pay": ["Well"]}, "Ana") == "Ana builds Smithy, paying 1 card"
    assert san_juan_public_words(
        {"kind": "build", "building": "Palace", "pay": ["Well", "Hero"], "goods": ["indigo"], "replace": "Crane"}, "Bo"
    ) == "Bo builds Palace over Crane (crane), paying 2 cards and 1 indigo (black market)"
    assert san_juan_public_words({"kind": "councillor", "keep": ["Well"]}, "Ana") == "Ana keeps 1 card (councillor)"
    assert san_juan_public_words({"kind": "councillor", "discard": ["A", "B"]}, "Ana") == "Ana discards 2 cards (archive)"
    assert san_juan_public_words({"kind": "hand_limit", "discard": ["A"]}, "Ana") == "Ana discards 1 card to the hand limit"
    assert san_juan_public_words({"kind": "draft", "keep": ["A", "B", "C", "D"]}, "Ana") == "Ana keeps 4 cards (draft)"
    assert san_juan_public_words({"kind": "role", "role": "builder"}, "Ana") is None
    assert san_juan_public_words({"kind": "gold_mine", "keep": "Well"}, "Ana") is None  # the 4 cards are turned up


def test_steps_and_views_from_the_url() -> None:
    assert parse_step(None, 100) == (None, None)
    assert parse_step("40", 100) == (40, None)
    assert parse_step("-1", 100) == (100, None)
    assert parse_step("-101", 100) == (0, None)
    assert parse_step("-5", 100) == (96, None)
    assert parse_step("150", 100) == (100, "Step 150 is past the end of this game (100 moves): showing the last move.")
    assert parse_step("-150", 100) == (0, "Step -150 is before the start of this game (100 moves): showing the start.")
    assert parse_step("x1", 100) == (0, "Step 'x1' is not a number: showing the start of the game.")
    assert parse_view(None, 4) == ("all", None)
    assert parse_view("public", 4) == ("public", None)
    assert parse_view("seat3", 4) == ("seat3", None)
    assert parse_view("seat4", 4) == ("all", "Unknown view 'seat4': showing everything (views: all, public, seat0, seat1, seat2, seat3).")


def test_the_url_picks_game_step_and_view(dash_db: Path, game: dict, open_page) -> None:
    at = open_page(dash_db, "views/replay.py", game=game["id"], step="-1", view="seat2")
    sent = viewer(at)
    assert (sent["step"], sent["view"]) == (game["moves"], "seat2") and not alerts(at, "info")
    at = open_page(dash_db, "views/replay.py", game=game["id"], step="99999", view="nobody")
    sent = viewer(at)
    assert (sent["step"], sent["view"]) == (game["moves"], "all")
    assert alerts(at, "info") == [
        f"Step 99999 is past the end of this game ({game['moves']} moves): showing the last move.",
        "Unknown view 'nobody': showing everything (views: all, public, seat0, seat1, seat2).",
    ]


def test_an_unknown_game_gets_a_message_and_the_newest_game(dash_db: Path, open_page, sql) -> None:
    at = open_page(dash_db, "views/replay.py", game="[x](https://example.com) :red[y]", step="5")
    assert alerts(at, "warning") == [
        "No game with id [x](https://example.com) :red[y] in the database; showing the newest game instead."
    ]
    sent = viewer(at)
    newest = sql(dash_db, "SELECT game_id FROM games ORDER BY played_at DESC NULLS LAST, imported_at DESC, file, file_index LIMIT 1")
    assert sent["game"]["game_id"] == newest[0][0] and sent["step"] is None
    assert at.query_params["game"] in (newest[0][0], [newest[0][0]])


def test_opening_a_game_reads_it_through_one_connection_and_its_log_after_the_board(
    dash_db: Path, open_page, sql, monkeypatch: pytest.MonkeyPatch
) -> None:
    import streamlit as st

    from dashboards import data, replay_component

    st.cache_data.clear()
    game_id, moves = sql(dash_db, "SELECT game_id, moves FROM games WHERE player_count = 4 ORDER BY game_id DESC LIMIT 1")[0]
    at = open_page(dash_db, "views/games.py")  # the app's start: its checks are cached from here on
    events: list[str] = []
    real_reader, real_viewer = data.reader, replay_component.replay_viewer

    def counting(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        events.append(f"open {Path(path).name}")
        return real_reader(path, *args, **kwargs)

    def viewer_sent(*args, **kwargs):  # type: ignore[no-untyped-def]
        events.append("board sent")
        return real_viewer(*args, **kwargs)

    monkeypatch.setattr(data, "reader", counting)
    monkeypatch.setattr(replay_component, "replay_viewer", viewer_sent)
    at.query_params["game"] = game_id
    at.switch_page("views/replay.py").run()
    assert not at.exception
    # The game's row, moves, states and stored analysis through one open of the file; the log (for
    # the what-if and analysis panels) once the board is on its way.
    assert events == ["open dash.duckdb", "board sent", "open dash.duckdb"]
    assert viewer(at)["game"]["total"] == moves
    assert data.game_log(game_id) == sql(dash_db, "SELECT log FROM games WHERE game_id = ?", [game_id])[0][0]
    with pytest.raises(KeyError, match="no game with id nothing"):
        data.game_log("nothing", 0)


def test_back_through_the_sidebar_returns_to_the_same_game(dash_db: Path, game: dict, open_page) -> None:
    at = open_page(dash_db, "views/replay.py", game=game["id"], step="30")
    at.switch_page("views/games.py").run()
    at.query_params.clear()
    at.switch_page("views/replay.py").run()
    sent = viewer(at)
    # The game comes from the session; the step from the browser tab's memory (step None).
    assert sent["game"]["game_id"] == game["id"] and sent["step"] is None and sent["view"] is None


def test_a_puerto_rico_game_hides_vp_chips_until_the_end(mixed_db: Path, open_page, sql) -> None:
    game_id, moves = sql(mixed_db, "SELECT game_id, moves FROM games WHERE game = 'puerto_rico' ORDER BY game_id LIMIT 1")[0]
    payload = viewer(open_page(mixed_db, "views/replay.py", game=game_id, step="25", view="public"))["game"]
    rows = sql(mixed_db, "SELECT p.step, p.vp, p.vp_chips, s.stage, p.city, p.city_occupancy FROM puerto_rico_player_states p "
               "JOIN puerto_rico_states s USING (game_id, step) WHERE game_id = ? AND seat = 1 ORDER BY step", [game_id])

    def face_down(chips: int, city: list, workers: list) -> int:  # the chips and an occupied customs house's bonus
        return chips + (chips // 4 if any(b == "Customs house" and w for b, w in zip(city, workers)) else 0)

    public = expand(payload["seats"][1]["vp"], moves)
    assert public == [vp if stage == "over" else vp - face_down(chips, city, workers)
                      for _, vp, chips, stage, city, workers in rows]
    # The chips themselves are sent once they are turned up, at the end, and never before.
    assert expand(payload["seats"][1]["vp_chips"], moves) == [chips if stage == "over" else None
                                                             for _, _, chips, stage, _, _ in rows]
    assert payload["chart"][1] == [[s, v] for s, v in zip(range(moves + 1), public)
                                   if s == 0 or public[s - 1] != v]
    assert rows[-1][3] == "over" and any(chips for _, _, chips, *_ in rows)
    assert expand(payload["seats"][1]["doubloons"], moves)[25] == sql(
        mixed_db, "SELECT doubloons FROM puerto_rico_player_states WHERE game_id = ? AND step = 25 AND seat = 1", [game_id])[0][0]
    assert payload["catalogue"]["cards"]["Coffee roaster"]["circles"] == 2


def test_events_and_changes_in_words(dash_db: Path, game: dict, open_page, sql) -> None:
    payload = viewer(open_page(dash_db, "views/replay.py", game=game["id"]))["game"]
    events = sql(dash_db, "SELECT events FROM moves WHERE game_id = ? ORDER BY step", [game["id"]])
    assert payload["moves"]["events"] == [list(e) for (e,) in events]
    assert any(payload["moves"]["events"])
    # A build: the builder's change names the building and the hand, never a column; the public
    # view of it leaves the hand's cards out.
    step, seat, building = next(
        (s, seat, json.loads(d)["building"]) for s, seat, d in
        sql(dash_db, "SELECT step, seat, details FROM moves WHERE game_id = ? AND kind = 'build' ORDER BY step", [game["id"]])
    )
    (item,) = [i for i in payload["changes"][step] if i[0] == seat]
    assert f"+{building}" in item[1] and not any("hand_size" in p or "buildings" in p for p in item[1])
    assert any(p.startswith("hand cards") for p in item[1])
    public = viewer(open_page(dash_db, "views/replay.py", game=game["id"], view="public"))["game"]
    (item,) = [i for i in public["changes"][step] if i[0] == seat]
    assert f"+{building}" in item[1] and not any(p.startswith("hand cards") for p in item[1])
