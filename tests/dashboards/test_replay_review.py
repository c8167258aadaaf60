"""The stored analysis on the Replay page, as the move list, the winning-chance chart and the table
take it: the first tag of a step, estimates with their intervals in the move list's words, "not
significant" shown as such, and a seat's view naming no hidden move of another seat."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import duckdb
import pandas as pd

from analysis.decisions import Options, analyse
from analysis.store import store
from dashboards import analysis_panel
from replay.logfile import parse_game
from replay.protocol import Viewer

GAME_FILE = Path(__file__).resolve().parents[2] / "sample_logs" / "san_juan" / "san_juan-2p-seed2026-0000.json"


def _row(step: int, seat: int, tag: str | None, loss: float, wins: float, rollouts: int, best_wins: float) -> dict:
    return {"step": step, "seat": seat, "player": f"P{seat}", "candidate": "c", "words": f"move {step}/{seat}",
            "estimate": wins / rollouts, "ci_low": 0.1, "ci_high": 0.9, "wins": wins, "rollouts": rollouts,
            "loss": loss, "tag": tag, "rollouts_asked": rollouts, "seed": 0, "best": "b", "best_words": f"best {step}",
            "best_estimate": best_wins / rollouts, "best_low": 0.2, "best_high": 0.95, "best_wins": best_wins,
            "best_rollouts": rollouts}


def test_the_first_tag_of_a_step_is_kept() -> None:
    rows = pd.DataFrame([_row(4, 0, None, 0.0, 5, 10, 5), _row(5, 1, "mistake", 0.12, 3, 100, 15),
                         _row(5, 0, "blunder", 0.3, 1, 100, 31)])
    assert analysis_panel.tags_by_step(rows) == {5: "mistake"}


def test_a_loss_the_rollouts_cannot_tell_from_chance_is_not_significant() -> None:
    small = pd.DataFrame([_row(3, 0, None, 0.5, 0, 2, 1), _row(4, 0, None, 0.02, 49, 100, 51),
                          _row(6, 1, "blunder", 0.3, 10, 100, 40)])
    assert [analysis_panel.verdict(r) for r in small.itertuples()] == ["not significant", "", "blunder"]
    table = analysis_panel.review_table(small)
    assert table.to_dict("records") == [
        {"move": 3, "seat": 0, "player": "\u2068P0\u2069", "played": "move 3/0 \u00b7 0% (10\u201390%)",
         "best": "best 3 \u00b7 50% (20\u201395%)", "loss": 50.0, "tag": "not significant"},
        {"move": 6, "seat": 1, "player": "\u2068P1\u2069", "played": "move 6/1 \u00b7 10% (10\u201390%)",
         "best": "best 6 \u00b7 40% (20\u201395%)", "loss": 30.0, "tag": "blunder"},
    ]


def test_a_part_of_another_seats_move_says_whose_move_it_is() -> None:
    """A step with two decisions: the chooser's, then the other seat's part of that move (a refrain
    from the councillor's draw). The second row used to read as the other seat's move; it now says
    whose decision it is, in whose move."""
    rows = pd.DataFrame([{**_row(7, 0, "mistake", 0.12, 50, 100, 62), "mover": 0},
                         {**_row(7, 1, "mistake", 0.12, 40, 100, 52), "mover": 0, "words": "P0 chooses the councillor"}])
    table = analysis_panel.review_table(rows, ["Ana", "Bruno"])
    assert list(table["player"]) == ["\u2068P0\u2069", "\u2068P1\u2069, in \u2068Ana\u2069's move"]
    assert list(table["seat"]) == [0, 1]
    assert [d[11] for d in analysis_panel.for_viewer(rows, "san_juan", 2, Viewer.everything())] == [None, 0]
    # A part of a move is named only in a view that sees both seats' decisions.
    seat1 = analysis_panel.for_viewer(rows, "san_juan", 2, Viewer.parse("seat1", 2))
    assert [d[6] for d in seat1] == [None, None]
    # Rows read without a mover (an older reader's frame) are the seat's own decisions.
    assert analysis_panel.review_table(rows.drop(columns="mover"))["player"].tolist() == ["\u2068P0\u2069", "\u2068P1\u2069"]


def test_a_seat_view_names_no_hidden_move_of_another_seat() -> None:
    rows = pd.DataFrame([_row(3, 0, None, 0.5, 0, 2, 1), _row(6, 1, "blunder", 0.3, 10, 100, 40)])
    everything = analysis_panel.for_viewer(rows, "san_juan", 2, Viewer.everything())
    assert [d[6:8] for d in everything] == [["move 3/0", "best 3"], ["move 6/1", "best 6"]]
    seat1 = analysis_panel.for_viewer(rows, "san_juan", 2, Viewer.parse("seat1", 2))
    assert [d[:2] + d[5:8] for d in seat1] == [[3, 0, "not significant", None, None], [6, 1, "blunder", "move 6/1", "best 6"]]


def test_the_page_sends_the_analysis_in_words(open_page: Callable, dash_db_copy: Path) -> None:
    log = parse_game(json.loads(GAME_FILE.read_text()), file=str(GAME_FILE))
    options = Options(rollouts=2, top=2, seed=3, steps=(1, 8))
    decisions = list(analyse(log, options))
    store(dash_db_copy, log.game_id, "1.0", decisions, options)
    at = open_page(dash_db_copy, "views/replay.py", game=log.game_id)
    (element,) = at.get("bidi_component")
    sent = json.loads(element.proto.json)["game"]["analysis"]
    assert [(d[0], d[1], d[6], d[7]) for d in sent] == [(d.step, d.seat, d.played.words, d.best.words) for d in decisions]
    assert [d[2:5] for d in sent] == [[round(d.played.estimate, 4), round(d.played.low, 4), round(d.played.high, 4)]
                                      for d in decisions]
    # A tag stored by hand on a step: the table lists it in words, with both intervals.
    with duckdb.connect(str(dash_db_copy)) as con:
        con.execute("UPDATE analysis SET tag = 'blunder', loss = 0.4 WHERE game_id = ? AND step = ? AND played",
                    [log.game_id, decisions[0].step])
    at = open_page(dash_db_copy, "views/replay.py", game=log.game_id)
    (table,) = [d for d in at.dataframe if list(d.value.columns) == ["move", "seat", "player", "played", "best",
                                                                    "loss", "tag"]]
    first = table.value.iloc[0]
    d = decisions[0]
    chance = f"{d.played.estimate * 100:.0f}% ({d.played.low * 100:.0f}\u2013{d.played.high * 100:.0f}%)"
    best = f"{d.best.estimate * 100:.0f}% ({d.best.low * 100:.0f}\u2013{d.best.high * 100:.0f}%)"
    assert (int(first["move"]), first["played"], first["best"], first["tag"]) == (
        d.step, f"{d.played.words} \u00b7 {chance}", f"{d.best.words} \u00b7 {best}", "blunder")


def test_the_engine_line_opens_as_a_variation(open_page: Callable, dash_db_copy: Path) -> None:
    from analysis import variation as V
    from dashboards.whatif_panel import Line

    log = parse_game(json.loads(GAME_FILE.read_text()), file=str(GAME_FILE))
    options = Options(rollouts=2, top=2, seed=3, steps=(5, 5))
    (decision,) = [d for d in analyse(log, options) if d.step == 5]
    best = json.dumps(decision.best.move.to_json(), sort_keys=True)
    line = analysis_panel.engine_line_of(log.game_id, 5, decision.seat, best, 3, GAME_FILE.read_text())
    # It starts with the best move, in the move list's words, and is played in the real game.
    assert line.words[0] == decision.best.words and 1 <= len(line.words) <= 9
    # The line is the one of the bot that rolled the analysis out (the stored row's rollout_bot).
    from analysis.rollouts import engine_line

    start = V.start(log, 4)
    for bot in ("heuristic", "expert"):
        moves = engine_line(log.game, start.state, decision.seat, decision.best.move, 3, 5, bot=bot)
        shown = analysis_panel.engine_line_of(log.game_id, 5, decision.seat, best, 3, GAME_FILE.read_text(), bot)
        # Its moves after the best one are the first moves of that bot's line, as far as they are legal.
        variation = V.play(V.start(log, 4), V.choices(V.start(log, 4))[shown.picks[0]].move)
        for pick, move in zip(shown.picks[1:], moves):
            choice = V.choices(variation)[pick]
            assert choice.move.to_json() == move.to_json(), bot
            variation = V.play(variation, choice.move)
    variation = V.start(log, 4)
    for pick, words in zip(line.picks, line.words):
        choice = V.choices(variation)[pick]
        assert choice.words == words
        variation = V.play(variation, choice.move)
    # "Open as a variation" keeps it as a line: the link brings it back in the move list.
    code = Line(4, line.picks).code()
    at = open_page(dash_db_copy, "views/replay.py", game=log.game_id, var=code)
    (element,) = at.get("bidi_component")
    (listed,) = json.loads(element.proto.json)["game"]["variations"]
    assert (listed["branch"], listed["words"], listed["result"]) == (4, list(line.words), "unfinished")
