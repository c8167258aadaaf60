"""The Review's pieces apart from the page: the drill's states (progress, answers judged against the
inaccuracy threshold, skip, solution), how far a review is and where it goes on, the stored analysis
read back as decisions, a move's own estimate, and the background job (stored as it goes, stopped,
continued)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from analysis.decisions import Options, analyse
from analysis.store import load, store
from dashboards import drill as D
from dashboards import review_job
from dashboards.review_data import decisions_from_rows, estimate_move, game_points, move_key, options_of, plan
from replay.logfile import parse_game
from replay.registry import engine_for

GAME_FILE = Path(__file__).resolve().parents[2] / "sample_logs" / "san_juan" / "san_juan-2p-seed2026-0000.json"


def _log():  # type: ignore[no-untyped-def]
    return parse_game(json.loads(GAME_FILE.read_text()), file=str(GAME_FILE))


def _option(name: str, estimate: float) -> D.Option:
    return D.Option(f"key {name}", name, f"plays {name}", estimate)


def _puzzle(step: int, best: float = 0.60) -> D.Puzzle:
    best_o, near, edge, played = _option("best", best), _option("near", 0.56), _option("edge", 0.55), _option("played", 0.30)
    return D.Puzzle(step, 1, "blunder", played, best_o, (best_o, near, edge, played))


def test_the_drill_accepts_a_move_within_the_inaccuracy_threshold_of_the_best() -> None:
    puzzle = _puzzle(12)
    # 4 points below the best: accepted; 5 points (0.60 - 0.55, an inaccuracy's threshold): not.
    assert (D.ACCEPT_BELOW, D.accepts(puzzle, 0.56), D.accepts(puzzle, 0.55)) == (0.05, True, False)
    assert D.accepts(puzzle, 0.75) and round(D.loss(puzzle, 0.42), 9) == 0.18
    drill = D.start(1, [puzzle, _puzzle(20), _puzzle(31)])
    assert (drill.progress(), drill.current, drill.finished) == ("1 of 3", puzzle, False)
    drill = D.answer(drill, puzzle.candidates[2])
    drill = D.answer(drill, puzzle.played)  # the move played again is never accepted
    assert [(a.option.text, a.analysed, a.accepted) for a in drill.attempts] == [("edge", True, False), ("played", True, False)]
    assert not drill.revealed and not drill.solved
    with pytest.raises(ValueError, match="find a move or show the solution first"):
        D.next_puzzle(drill)
    drill = D.answer(drill, puzzle.candidates[1])
    assert (drill.revealed, drill.solved) == (True, True)
    with pytest.raises(ValueError, match="the solution of this position is shown"):
        D.answer(drill, puzzle.best)
    drill = D.next_puzzle(drill)
    assert (drill.progress(), drill.outcomes, drill.attempts, drill.revealed) == ("2 of 3", ("solved",), (), False)
    # A move the analysis did not roll out, estimated for the drill above the best: accepted, and said so.
    drill = D.answer(drill, D.Option("key other", "other", "plays other", 0.70))
    assert [(a.analysed, a.accepted) for a in drill.attempts] == [(False, True)]
    drill = D.skip(drill)  # its solution was on the page: it counts as solved
    assert (drill.progress(), drill.outcomes) == ("3 of 3", ("solved", "solved"))


def test_skip_and_show_solution_count_as_such() -> None:
    drill = D.start(0, [_puzzle(3), _puzzle(8), _puzzle(9)])
    drill = D.show_solution(drill)
    assert drill.revealed and not drill.solved
    drill = D.next_puzzle(drill)
    drill = D.skip(drill)
    drill = D.skip(D.answer(drill, _option("bad", 0.1)))
    assert (drill.outcomes, drill.finished, drill.current, drill.progress()) == (("shown", "skipped", "skipped"), True, None, "3 of 3")
    assert D.summary(drill) == "Found a good move in 0 of 3 positions (1 solution shown, 2 skipped)."
    for action in (D.skip, D.show_solution, D.next_puzzle):
        with pytest.raises(ValueError, match="the drill is over"):
            action(drill)
    with pytest.raises(ValueError, match="the drill is over"):
        D.answer(drill, _option("x", 0.9))
    assert D.summary(D.Drill(0, (), outcomes=("solved",))) == "Found a good move in 1 of 0 positions."


def test_a_puzzle_is_made_of_a_tagged_decision_only() -> None:
    log = _log()
    # Moves 30 to 34 of the game, with move 33 a blunder at this seed and budget.
    decided = list(analyse(log, Options(rollouts=2, top=2, seed=0, steps=(30, 34))))
    engine = engine_for(log.game)
    tagged = next(d for d in decided if d.tag)
    puzzle = D.puzzle_of(tagged, [move_key(engine, c.move) for c in tagged.candidates])
    assert (puzzle.step, puzzle.seat, puzzle.tag) == (tagged.step, tagged.seat, tagged.tag)
    assert (puzzle.best.words, puzzle.best.estimate) == (tagged.best.words, tagged.best.estimate)
    assert (puzzle.played.words, puzzle.played.estimate) == (tagged.played.words, tagged.played.estimate)
    untagged = next(d for d in decided if d.tag is None)
    with pytest.raises(ValueError, match=f"the decision at move {untagged.step} is not a mistake"):
        D.puzzle_of(untagged, [])
    with pytest.raises(ValueError, match=f"1 keys for {len(tagged.candidates)} candidates"):
        D.puzzle_of(tagged, ["k"])


def test_a_review_goes_on_from_the_first_decision_not_stored() -> None:
    points = ((1, 0), (2, 0), (2, 1), (3, 1), (5, 0))
    half = plan(points, {(1, 0), (2, 0), (5, 0)})
    assert (half.total, half.stored, half.resume_from, half.kept, half.complete, half.last_step) == (5, 3, 2, 1, False, 5)
    whole = plan(points, set(points) | {(9, 9)})
    assert (whole.stored, whole.resume_from, whole.kept, whole.complete) == (5, None, 5, True)
    assert plan((), set()).last_step == 0


@pytest.mark.parametrize("source", ["san_juan/san_juan-2p-seed2026-0000.json", "puerto_rico/puerto_rico-3p-seed2026-0000.json"])
def test_the_stored_analysis_reads_back_as_the_decisions_analysed(source: str, tmp_path: Path) -> None:
    from ingest.db import writer

    path = GAME_FILE.parents[1] / source
    log = parse_game(json.loads(path.read_text()), file=source)
    options = Options(rollouts=2, top=3, seed=4, steps=(1, 12))
    decided = list(analyse(log, options))
    db = tmp_path / "a.duckdb"
    with writer(db):
        pass
    store(db, log.game_id, "1.0", decided, options)
    again = decisions_from_rows(load(db, log.game_id).to_pandas(), log)
    assert [d.to_json() for d in again] == [d.to_json() for d in decided]
    # The score shares come back too, so that the Review panel's accuracy is the analysis' own.
    shares = [(c.share, c.share_sd) for d in decided for c in d.candidates]
    assert [(c.share, c.share_sd) for d in again for c in d.candidates] == shares
    assert all(share is not None for share, _ in shares)
    if log.game == "san_juan":
        assert any(d.mover is not None for d in decided)  # a part of another seat's move is among them
    # A review going on is made as the stored one was, its sampling included.
    going_on = options_of(load(db, log.game_id).to_pandas(), Options(sampling="fixed"))
    assert (going_on.rollouts, going_on.top, going_on.seed, going_on.sampling) == (2, 3, 4, "adaptive")
    fixed = Options(rollouts=2, top=3, seed=4, steps=(13, 14), sampling="fixed")
    store(db, log.game_id, "1.0", list(analyse(log, fixed)), fixed)
    rows = load(db, log.game_id).to_pandas()
    assert options_of(rows[rows["step"] >= 13], Options()).sampling == "fixed"


def test_a_blunders_loss_the_analysis_was_not_sure_of_reads_back_a_mistake(tmp_path: Path) -> None:
    """Adaptive sampling tags a loss of 20 points or more a mistake when its rollouts are not sure of
    it (``Decision.sure``): read back from the database, the decision is a mistake still, and one it
    was sure of a blunder."""
    from dataclasses import replace

    from ingest.db import writer

    log = _log()
    options = Options(rollouts=2, top=3, seed=4, steps=(1, 2))
    first, second = list(analyse(log, options))[:2]

    def losing(decision, sure):  # type: ignore[no-untyped-def]
        # The first candidate (not the move played) won 30 rollouts of 48, the move played 15.
        candidates = [replace(c, wins=30.0 if i == 0 else 15.0, rollouts=48) for i, c in enumerate(decision.candidates)]
        if candidates[0].played:
            candidates[0], candidates[1] = replace(candidates[1], wins=30.0), replace(candidates[0], wins=15.0)
        return replace(decision, candidates=tuple(candidates), sure=sure)

    decided = [losing(first, False), losing(second, True)]
    assert [d.tag for d in decided] == ["mistake", "blunder"]
    db = tmp_path / "a.duckdb"
    with writer(db):
        pass
    store(db, log.game_id, "1.0", decided, options)
    again = decisions_from_rows(load(db, log.game_id).to_pandas(), log)
    assert [(d.tag, d.loss) for d in again] == [("mistake", 0.3125), ("blunder", 0.3125)]


def test_a_move_is_estimated_in_the_worlds_of_its_decision() -> None:
    """An analysed candidate estimated alone gets exactly its analysed wins: the same rollouts."""
    log = _log()
    from analysis import variation as V

    (decision,) = [d for d in analyse(log, Options(rollouts=3, top=3, seed=5, steps=(2, 2)))]
    state = V.start(log, 1).state
    for candidate in decision.candidates:
        assert estimate_move(log.game, state, 2, decision.seat, candidate.move, 3, 5, decision.rollout_bot) == (
            candidate.wins, candidate.rollouts)


class _StopAfter(threading.Event):
    """Says "stop" from its ``calls``-th question on (the analysis asks before each decision)."""

    def __init__(self, calls: int) -> None:
        super().__init__()
        self.calls = calls

    def is_set(self) -> bool:
        self.calls -= 1
        return self.calls < 0 or super().is_set()


def test_a_stopped_review_keeps_its_part_and_goes_on_from_there(dash_db_copy: Path) -> None:
    log = _log()
    text = GAME_FILE.read_text()
    db = str(dash_db_copy)
    # The first 20 moves or so stand for the game (a review's steps end at its plan's last one).
    every = game_points(log)
    points = tuple(p for p in every if p[0] <= every[19][0])
    options = Options(rollouts=2, top=2, seed=0)
    runs: list = []
    job = review_job.start(db, log.game_id, text, options, plan(points, set()), spawn=runs.append)
    # Another start while it runs gets the same job.
    assert review_job.start(db, log.game_id, text, options, plan(points, set()), spawn=runs.append) is job
    assert len(runs) == 1
    job.cancel = _StopAfter(6)
    runs[0]()
    stored = {(int(r["step"]), int(r["seat"])) for r in load(db, log.game_id).to_pylist()}
    # Six decisions analysed, every step of them whole: all six kept.
    assert (job.finished, job.error, len(job.decisions), job.done) == (True, None, 6, 6)
    assert stored == set(points[:6])
    first = {(r["step"], r["seat"], r["rank"]): r["analysed_at"] for r in load(db, log.game_id).to_pylist()}
    review_job.forget(db, log.game_id)
    assert review_job.job_for(db, log.game_id) is None
    again = plan(points, stored)
    assert (again.resume_from, again.kept) == (points[6][0], 6)
    job = review_job.start(db, log.game_id, text, options, again, spawn=lambda run: run())
    rows = load(db, log.game_id).to_pylist()
    assert (job.finished, job.error, job.done, job.total) == (True, None, len(points), len(points))
    assert plan(points, {(int(r["step"]), int(r["seat"])) for r in rows}).complete
    # The part kept was not analysed again.
    now = {(r["step"], r["seat"], r["rank"]): r["analysed_at"] for r in rows}
    assert {k: now[k] for k in first} == first
    with pytest.raises(ValueError, match="every decision of this game is analysed already"):
        review_job.start(db, log.game_id, text, options, plan(points, set(points)))
    review_job.forget(db, log.game_id)


def test_a_step_left_short_by_a_stop_is_not_stored(dash_db_copy: Path) -> None:
    log = _log()
    points = game_points(log)
    # The first step with two decisions: stop between them.
    split = next(i for i in range(1, len(points)) if points[i][0] == points[i - 1][0])
    runs: list = []
    job = review_job.start(str(dash_db_copy), log.game_id, GAME_FILE.read_text(), Options(rollouts=2, top=2),
                           plan(points, set()), spawn=runs.append)
    job.cancel = _StopAfter(split)
    runs[0]()
    stored = {(int(r["step"]), int(r["seat"])) for r in load(dash_db_copy, log.game_id).to_pylist()}
    assert len(job.decisions) == split and stored == set(points[:split - 1])
    review_job.forget(str(dash_db_copy), log.game_id)


def test_a_failing_review_says_why_in_one_line(tmp_path: Path) -> None:
    log = _log()
    points = game_points(log)
    job = review_job.start(str(tmp_path / "missing" / "x.duckdb"), log.game_id, GAME_FILE.read_text(),
                           Options(rollouts=2, top=2), plan(points[:3], set()), spawn=lambda run: run())
    assert job.finished and job.error is not None and "\n" not in job.error
    assert job.error.startswith("DatabaseError: ") and "does not exist" in job.error
    review_job.forget(str(tmp_path / "missing" / "x.duckdb"), log.game_id)


def test_the_seats_people_played_and_the_moves_taken_back_come_from_the_log() -> None:
    from dataclasses import replace

    from dashboards.review_data import human_seats, takebacks

    log = _log()
    assert (human_seats(log), takebacks(log)) == ([], 0)
    played = replace(log, meta={"generator": "governor play", "takebacks": 2,
                                "agents": [{"seat": 0, "name": "heuristic", "spec": "heuristic", "version": "1"}]})
    assert (human_seats(played), takebacks(played)) == ([1], 2)
    arena = replace(log, meta={"agents": [{"seat": 0}, {"seat": 1}], "takebacks": True})
    assert (human_seats(arena), takebacks(arena)) == ([], 0)
