"""The Review on the Replay page (AppTest): started with a tiny rollout budget, its progress while it
runs, then each seat's accuracy and counts, each mistake with its better move, and one pass of
"Learn from your mistakes" (its position, its legal moves, the solution)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from analysis.accuracy import seat_summaries
from analysis.decisions import own_choices
from analysis.store import load
from dashboards import drill_panel, review_job
from dashboards.review_data import decisions_from_rows, game_points, mistakes
from replay.logfile import parse_game
from replay.registry import engine_for

from .conftest import alerts

GAME_FILE = Path(__file__).resolve().parents[2] / "sample_logs" / "san_juan" / "san_juan-2p-seed2026-0000.json"


def _texts(at) -> list[str]:  # type: ignore[no-untyped-def]
    import html
    import re

    out = []
    for element in at.html:
        found = re.match(r'<div class="gv-text(?: gv-caption)?">(.*)</div>$', element.value, re.S)
        if found:
            out.append(html.unescape(found.group(1)))
    return out


def _beside(at) -> dict:  # type: ignore[no-untyped-def]
    """The Review the page sent to the board's viewer, for its side column."""
    (sent,) = [json.loads(e.proto.json) for e in at.get("bidi_component") if "game" in json.loads(e.proto.json)]
    return sent["review"]


def _wait(db: Path, game_id: str) -> review_job.ReviewJob:
    deadline = time.monotonic() + 120  # a bound against a hang, not a measure of speed
    while True:
        job = review_job.job_for(str(db), game_id)
        assert job is not None
        if job.finished or time.monotonic() > deadline:
            return job
        time.sleep(0.05)


def test_a_review_runs_in_the_background_then_shows_accuracy_mistakes_and_the_drill(
        open_page: Callable, dash_db_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = parse_game(json.loads(GAME_FILE.read_text()), file=str(GAME_FILE))
    # The job waits until the page has shown its progress once (else a fast machine could finish first).
    go = threading.Event()
    real_run = review_job.run

    def held_run(job: review_job.ReviewJob, text: str, every: float = review_job.STORE_EVERY) -> None:
        go.wait(60)
        real_run(job, text, every)

    monkeypatch.setattr(review_job, "run", held_run)
    at = open_page(dash_db_copy, "views/replay.py", game=log.game_id)
    assert [b.label for b in at.button][:1] == ["Review this game"]
    at.number_input(key="review_rollouts").set_value(2)
    at.number_input(key="review_top").set_value(2)
    at.button(key="review_start").click().run()
    total = len(game_points(log))
    assert [p.proto.text for p in at.get("progress")] == [f"Reviewing: 0 of {total} decisions analysed"]
    assert "Stop the review" in [b.label for b in at.button]
    go.set()
    job = _wait(dash_db_copy, log.game_id)
    assert (job.finished, job.error, job.done) == (True, None, total)
    at.run()
    assert not at.exception and not at.get("progress")
    review_job.forget(str(dash_db_copy), log.game_id)

    decided = decisions_from_rows(load(dash_db_copy, log.game_id).to_pandas(), log)
    names = list(log.players)
    (table,) = [d.value for d in at.dataframe if "accuracy" in d.value.columns]
    assert table.to_dict("records") == [
        {"player": f"\u2068{s.player}\u2069", "accuracy": round(s.accuracy, 1), "inaccuracies": s.inaccuracies,
         "mistakes": s.mistakes, "blunders": s.blunders, "avg loss": round(s.avg_loss * 100, 1), "moves": s.moves}
        for s in seat_summaries(decided, names)]
    texts = _texts(at)
    found = mistakes(decided)
    assert found
    for d in found:
        assert f"Move {d.step} \u00b7 \u2068{d.player}\u2069 \u00b7 {d.tag}, {round(d.loss * 100)} points lost" in texts
        assert f"Better: {d.best.words} \u00b7 {d.best.estimate * 100:.0f}%" in texts
    assert [b.label for b in at.button].count("Play the better move") == len(found)
    # Beside the board (the viewer's side column, on wide screens): the same accuracy and mistakes.
    side = _beside(at)
    assert side["seats"] == [{"player": s.player, "accuracy": round(s.accuracy, 1), "inaccuracies": s.inaccuracies,
                              "mistakes": s.mistakes, "blunders": s.blunders} for s in seat_summaries(decided, names)]
    assert side["mistakes"] == [{"step": d.step, "player": d.player, "tag": d.tag, "loss": round(d.loss * 100),
                                 "better": d.best.words, "chance": round(d.best.estimate * 100)} for d in found]
    assert side["unlisted"] == 0

    # The drill of the first seat with a mistake, at its first one: the board in that seat's view.
    first = found[0]
    at.selectbox(key="drill_seat").set_value(first.seat).run()
    at.button(key="drill_start").click().run()
    assert not at.exception
    assert (at.query_params["step"], at.query_params["view"]) == (str(first.step - 1), f"seat{first.seat}")
    ours = drill_panel.drill_mistakes(log.game, decided, first.seat)
    texts = _texts(at)
    assert f"1 of {len(ours)} \u00b7 move {first.step} \u00b7 {first.tag} by \u2068{first.player}\u2069" in texts
    assert f"Played: {first.played.words} ({first.played.estimate * 100:.0f}% winning chance). Find a better move." in texts
    # Its legal moves, as their text forms.
    engine = engine_for(log.game)
    from analysis import variation as V

    state = V.start(log, first.step - 1).state
    expected = [m.text() for m in own_choices(engine, state, first.seat, first.played.move)]
    (buttons,) = [json.loads(e.proto.json) for e in at.get("bidi_component") if "moves" in json.loads(e.proto.json)]
    assert buttons["moves"] == expected
    at.button(key="drill_solution").click().run()
    gained = round((first.best.estimate - first.played.estimate) * 100)
    assert (f"Best: {first.best.words} \u00b7 {first.best.estimate * 100:.0f}% winning chance, {gained} points more "
            f"than the move played ({first.played.estimate * 100:.0f}%).") in _texts(at)
    for i in range(len(ours)):
        if i:
            at.button(key="drill_solution").click().run()
        at.button(key="drill_next").click().run()
    assert f"Found a good move in 0 of {len(ours)} positions ({len(ours)} solution{'s' if len(ours) > 1 else ''} shown)." in _texts(at)
    assert not alerts(at, "error")

    # The other seat's view: the same accuracy rows, but no move of this seat is named (its better
    # moves would name its hand), and its drill asks for its own view first.
    other = 1 - first.seat
    at = open_page(dash_db_copy, "views/replay.py", game=log.game_id, view=f"seat{other}")
    assert [d.value for d in at.dataframe if "accuracy" in d.value.columns][0].equals(table)
    texts = _texts(at)
    hidden = [d for d in found if d.seat == first.seat]
    assert not [t for t in texts if t.startswith(f"Move {first.step} ")]
    assert (f"\u2068{names[first.seat]}\u2069: {len(hidden)} mistake{'s' if len(hidden) > 1 else ''} not listed in this "
            "view, whose better moves would name cards it does not see.") in texts
    side = _beside(at)
    assert [m["step"] for m in side["mistakes"]] == [d.step for d in found if d.seat != first.seat]
    assert side["unlisted"] == len(hidden) and len(side["seats"]) == 2
    # A drill of the reviewed seat moves the board to that seat's view; back in the other seat's view,
    # it lists no move and offers to switch.
    at.selectbox(key="drill_seat").set_value(first.seat).run()
    at.button(key="drill_start").click().run()
    assert at.query_params["view"] == f"seat{first.seat}"
    at.query_params["view"] = f"seat{other}"
    at.run()
    who = f"\u2068{names[first.seat]}\u2069"
    assert f"The drill shows {who}'s position in {who}'s view: this view does not see that hand." in _texts(at)
    assert not [e for e in at.get("bidi_component") if "moves" in json.loads(e.proto.json)]
    at.button(key="drill_view").click().run()
    assert at.query_params["view"] == f"seat{first.seat}"
    assert [e for e in at.get("bidi_component") if "moves" in json.loads(e.proto.json)]


def test_a_drill_of_a_thousand_legal_moves_narrows_its_buttons_by_a_filter(open_page: Callable, tmp_path: Path) -> None:
    """A Puerto Rico mayor with 1,644 placements: 60 buttons at most, the filter narrows them."""
    import duckdb

    from analysis.decisions import Options, analyse, decision_points
    from analysis.store import store
    from ingest.importer import import_paths

    source = tmp_path / "puerto_rico-5p-seed2026-0002.json"
    game = json.loads((GAME_FILE.parents[1] / "puerto_rico" / source.name).read_text())
    game["meta"] = {**game.get("meta", {}), "takebacks": 1}  # a game with a move taken back says so
    source.write_text(json.dumps(game))
    db = tmp_path / "pr.duckdb"
    assert import_paths([source], db, workers=1).imported == 1
    log = parse_game(json.loads(source.read_text()), file=str(source))
    engine = engine_for(log.game)
    point = max((p for p, _ in decision_points(log)),
                key=lambda p: len(own_choices(engine, p.state, p.seat, p.played)))
    options = Options(rollouts=2, top=2, seed=0, steps=(point.step, point.step))
    store(db, log.game_id, "1.0", list(analyse(log, options)), options)
    # The move played made a blunder: the best candidate won every rollout, the move played none.
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE analysis SET wins = CASE WHEN played THEN 0 ELSE rollouts END, "
                    "rank = CASE WHEN played THEN 2 ELSE 1 END")
    at = open_page(db, "views/replay.py", game=log.game_id)
    assert "1 move was taken back in this game: it is left out of the ratings." in _texts(at)
    at.button(key="drill_start").click().run()
    assert not at.exception
    texts = [m.text() for m in own_choices(engine, point.state, point.seat, point.played)]
    assert len(texts) == 1644

    def shown() -> list[str]:
        (found,) = [json.loads(e.proto.json) for e in at.get("bidi_component") if "moves" in json.loads(e.proto.json)]
        return found["moves"]  # type: ignore[no-any-return]

    assert shown() == texts[:60]
    assert "The first 60 of 1,644 moves: type part of a move to narrow them." in _texts(at)
    at.text_input(key="drill_filter_0").set_value("Coffee roaster 2, Hacienda 1").run()
    assert shown() == [t for t in texts if "coffee roaster 2, hacienda 1" in t.lower()][:60] and shown()

