"""A long game goes to the browser as windows of steps (``dashboards.replay_data``): what a window
holds, where windows fall, and that a window's size does not grow with the game."""

from __future__ import annotations

import json

import pytest

from dashboards.replay_data import (
    CHART_POINTS,
    ROUND_POINTS,
    WINDOW,
    PreparedGame,
    game_payload,
    window,
    window_bounds,
)
from replay.protocol import Viewer


def long_game(moves: int) -> tuple[dict, list, list, list]:
    """Stored rows of a 2-player San Juan game of ``moves`` moves, made up: a round every 4 moves, Ana
    pays a card for a build every 10th move, the hands change at every step, VP every 100 steps."""
    row = {"game_id": "g", "game": "san_juan", "players": ["Ana", "Bruno"], "rounds": moves // 4 + 1, "winners": [0],
           "source_id": "long"}
    move_rows = []
    for step in range(1, moves + 1):
        seat = step % 2
        build = step % 10 == 0 and seat == 0
        details = {"kind": "build", "building": "Well", "pay": [f"Card{step}"]} if build else {"kind": "pass"}
        move_rows.append({"step": step, "round": (step - 1) // 4 + 1, "seat": seat, "player": row["players"][seat],
                          "words": f"move {step}" + (f" paying Card{step}" if build else ""),
                          "text": f"text {step}", "details": json.dumps(details), "events": []})
    table = [{"step": s, "round": max(1, (s - 1) // 4 + 1), "stage": "over" if s == moves else "phase",
              "draw_pile": 50, "next_tile": 3} for s in range(moves + 1)]
    seats = [{"step": s, "seat": seat, "vp": s // 100, "hand_size": 1, "hand": [f"Card{s}"]}
             for s in range(moves + 1) for seat in (0, 1)]
    return row, move_rows, table, seats


def test_windows_fall_on_half_windows_and_keep_the_step_inside() -> None:
    assert window_bounds(2999, 2000) == (0, 2999)
    assert window_bounds(10_000, 0) == (0, WINDOW)
    assert window_bounds(10_000, 1499) == (0, WINDOW)
    assert window_bounds(10_000, 1500) == (750, 750 + WINDOW)
    assert window_bounds(10_000, 2999) == (750, 750 + WINDOW)
    assert window_bounds(10_000, 10_000) == (10_000 - WINDOW, 10_000)
    for step in range(0, 10_001, 37):
        lo, hi = window_bounds(10_000, step)
        assert hi - lo == WINDOW and (lo <= step - WINDOW // 4 or lo == 0) and (step + WINDOW // 4 <= hi or hi == 10_000)


def test_a_window_of_a_long_game_holds_its_steps_and_the_whole_chart() -> None:
    moves = 20_000
    game = PreparedGame(*long_game(moves))
    public = game.payload(Viewer.public(), around=12_345)
    lo, hi = window_bounds(moves, 12_345)
    assert (public["lo"], public["hi"], public["total"]) == (lo, hi, moves) == (11_250, 14_250, 20_000)
    assert public["moves"]["step"] == list(range(lo + 1, hi + 1))
    assert len(public["changes"]) == hi - lo + 1
    # Runs start at the window's first step; no hand of either seat in the public view.
    assert public["table"]["draw_pile"] == [[lo, 50]] and "next_tile" not in public["table"]
    assert public["seats"][0]["vp"][0] == [lo, lo // 100] and "hand" not in public["seats"][0]
    # The window's first position says what changed at it, as the view sees it: the hands' cards only.
    assert public["changes"][0] == []
    # Ana's builds: a number of cards paid, no raw text.
    at = public["moves"]["step"].index(11_260)
    assert public["moves"]["words"][at] == "Ana builds Well, paying 1 card" and public["moves"]["text"][at] is None
    # The chart is the whole game's: VP every 100 steps.
    assert public["chart"][0] == [[s, s // 100] for s in range(0, moves + 1, 100)]
    # Every round of the window, and about 1,000 others of the game's 5,000.
    rounds = public["round_first"]
    assert rounds["1"] == 1 and all(rounds[str(r)] == 4 * r - 3 for r in range(lo // 4 + 2, hi // 4))
    assert len(rounds) <= (hi - lo) // 4 + 1 + ROUND_POINTS
    # The size of a window does not grow with the game but for the chart and the rounds, both bounded.
    small = PreparedGame(*long_game(2 * WINDOW)).payload(Viewer.public(), around=WINDOW)
    for payload in (public, small):
        assert all(len(line) <= CHART_POINTS + 1 for line in payload["chart"])

    def size(payload: dict) -> int:
        return len(json.dumps({**payload, "chart": None, "round_first": None}))

    assert size(public) < 1.1 * size(small)  # the step numbers have a digit more
    everything = game.payload(Viewer.everything(), around=12_345)
    assert everything["moves"]["text"][at] == "text 11260" and everything["seats"][0]["hand"][0] == [lo, [f"Card{lo}"]]
    assert everything["changes"][0] == game.payload(Viewer.everything())["changes"][lo] == [
        [seat, ["hand cards: +Card11250, \u2212Card11249"]] for seat in (0, 1)]


def test_a_game_that_fits_goes_whole_and_a_made_payload_can_be_cut() -> None:
    rows = long_game(1000)
    whole = game_payload(*rows, Viewer.of_seat(1))
    assert (whole["lo"], whole["hi"], whole["view"]) == (0, 1000, "seat1")
    assert window(whole, 500) is whole
    big = game_payload(*long_game(7000))
    cut = window(big, 6500)
    assert (cut["lo"], cut["hi"]) == (4000, 7000)
    assert cut["moves"]["step"] == list(range(4001, 7001))
    assert cut["seats"][1]["hand"][:2] == [[4000, ["Card4000"]], [4001, ["Card4001"]]]
    assert cut["changes"] == big["changes"][4000:7001]


def test_stored_rows_that_do_not_belong_together_are_refused() -> None:
    row, moves, table, seats = long_game(50)
    with pytest.raises(ValueError, match="game g: stored states do not cover steps 0 to 50"):
        PreparedGame(row, moves, table[:-1], seats)
    with pytest.raises(ValueError, match="game g: seat 1 has 50 stored states, not 51"):
        PreparedGame(row, moves, table, seats[:-1])
