"""Adaptive sampling (``analysis.racing`` and its use by ``analysis.decisions``): the best candidate
stays in the race, a clearly worse one leaves early, the cap holds, the same seed gives the same
output byte for byte on any number of workers, and ``--sampling fixed`` is the analysis of before."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from analysis import decisions, racing
from analysis.choices import one_sensible_move, own_choices, same_state_groups
from analysis.decisions import Options, analyse, analyse_state, decision_points
from analysis.racing import Race, drop_z, paired, schedule, t_quantile
from analysis.rollouts import RolloutResult, RolloutTask, run_task
from replay.log_reader import read_records
from replay.logfile import GameLog
from replay.san_juan.cards import Role
from replay.san_juan.moves import Build, Pass
from replay.san_juan.state import Stage
from tests.replay.san_juan.positions import IP, TS, position, seat

ROOT = Path(__file__).resolve().parents[2]
SJ_LOG = ROOT / "sample_logs" / "san_juan" / "san_juan-2p-seed2026-0000.json"


def _log(path: Path) -> GameLog:
    record = next(iter(read_records(path)))
    assert record.log is not None
    return record.log


def _run(race: Race, draw: list[list[float | None]]) -> Race:
    """Feed ``race`` the results ``draw[candidate][rollout]`` until it is done."""
    while not race.done:
        first, count, running = race.next_round()
        race.record({i: draw[i][first:first + count] for i in running})
    return race


def _bernoulli(rng: random.Random, chances: list[float], n: int) -> list[list[float | None]]:
    return [[float(rng.random() < p) for _ in range(n)] for p in chances]


# -- the race on its own -------------------------------------------------------------------------


def test_schedule_and_bonferroni_level() -> None:
    assert schedule(200) == (8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 200)
    assert schedule(100) == (8, 12, 16, 24, 32, 48, 64, 96, 100)
    assert schedule(64) == (8, 12, 16, 24, 32, 48, 64)
    assert schedule(8) == (8,)
    assert schedule(5) == (5,)
    # 5 % over 5 other candidates at 6 looks: one-sided 5 % / 30 per test.
    assert round(drop_z(6, 6), 3) == 2.935
    assert round(drop_z(1, 1), 3) == 1.645
    # Student's t quantiles (tables: 2.571 for 5 degrees of freedom at 97.5 %, 1.796 for 11 at 95 %,
    # 2.042 for 30 at 97.5 %) from the normal ones.
    assert t_quantile(1.959964, 5) == pytest.approx(2.571, abs=0.005)
    assert t_quantile(1.644854, 11) == pytest.approx(1.796, abs=0.001)
    assert t_quantile(1.959964, 30) == pytest.approx(2.042, abs=0.001)
    assert t_quantile(1.96, 0) == float("inf")


def test_paired_difference_counts_only_rollouts_both_ended() -> None:
    diff = paired([1.0, 0.0, None, 1.0], [0.0, 0.0, 1.0, None], 4)
    assert diff.pairs == 2 and diff.mean == 0.5
    # Variance of (1, 0) about 0.5 plus one observation of variance 1: (0.5 + 1) / 3, over 2 pairs.
    assert diff.se == pytest.approx(((0.5 + 1) / 3 / 2) ** 0.5)
    assert paired([None], [1.0], 1) == racing.Paired(0.0, 1.0, 0)


def test_a_clearly_worse_candidate_leaves_at_the_first_look() -> None:
    # The move played (0) wins every rollout, candidate 1 loses every one: far below the leader.
    race = _run(Race(2, 0, 200), [[1.0] * 200, [0.0] * 200])
    assert race.done and race.alive == [True, False]
    assert [len(r) for r in race.results] == [8, 8]


def test_a_candidate_that_cannot_make_the_move_played_a_blunder_leaves() -> None:
    # Candidate 1 wins exactly as the move played does, rollout for rollout: it is not far below the
    # leader, but it cannot be 20 points better than the move played, which it shows from 12 rollouts.
    draw = [[float(k % 3 == 0) for k in range(100)]] * 2
    race = _run(Race(2, 0, 100), draw)
    assert race.alive == [True, False]
    assert [len(r) for r in race.results] == [racing.FUTILE_FROM] * 2


def test_a_blunder_ends_the_race_once_its_loss_is_settled() -> None:
    # The move played loses every rollout, candidate 2 wins every one, candidate 1 wins every other:
    # 1 leaves below the leader at 16 rollouts, and the played move's loss is settled at 48.
    draw = [[0.0] * 200, [float(k % 2) for k in range(200)], [1.0] * 200]
    race = _run(Race(3, 0, 200), draw)
    assert race.alive == [True, False, True]
    assert [len(r) for r in race.results] == [racing.SETTLE_FROM, 16, racing.SETTLE_FROM]


def test_a_loss_at_a_blunders_edge_goes_to_the_cap() -> None:
    # The move played wins 3 rollouts in 10, the other the same 3 and 2 more: a loss of 20 points,
    # neither unable to make the move played a blunder nor settled before the cap.
    draw = [[float(k % 10 < 3) for k in range(100)], [float(k % 10 < 5) for k in range(100)]]
    race = _run(Race(2, 0, 100), draw)
    assert [len(r) for r in race.results] == [100, 100] and race.alive == [True, True]


def test_a_blunder_needs_the_rollouts_to_be_sure_of_it() -> None:
    """The move played wins 3 rollouts in 10, the other the same 3 and 3 more (then 4 more): a loss
    of 31 points after 48 rollouts (settled, the race ends) whose one-sided 99 % paired lower bound is
    14.5 points, under a blunder's 20: not sure; 42 points, bound 24: sure."""
    played = [float(k % 10 < 3) for k in range(100)]
    race = _run(Race(2, 0, 100), [played, [float(k % 10 < 6) for k in range(100)]])
    assert [len(r) for r in race.results] == [racing.SETTLE_FROM] * 2 and race.alive == [True, True]
    diff = paired(race.results[1], race.results[0], racing.SETTLE_FROM)
    assert diff.mean == 0.3125
    assert diff.mean - racing._bound(racing.Z_SURE, diff) * diff.se == pytest.approx(0.1455, abs=1e-4)
    assert not race.sure(1)
    race = _run(Race(2, 0, 100), [played, [float(k % 10 < 7) for k in range(100)]])
    assert [len(r) for r in race.results] == [racing.SETTLE_FROM] * 2 and race.sure(1)
    # At the cap: 20 points exactly, with a bound of 10.3.
    race = _run(Race(2, 0, 100), [played, [float(k % 10 < 5) for k in range(100)]])
    assert [len(r) for r in race.results] == [100, 100] and not race.sure(1)
    # A candidate that left the race is compared over the rollouts both had.
    race = _run(Race(3, 0, 100), [[0.0] * 100, [1.0] * 100, [0.0] * 100])
    assert [len(r) for r in race.results] == [racing.SETTLE_FROM, racing.SETTLE_FROM, racing.FIRST_LOOK]
    assert race.sure(1) and not race.sure(2)


def test_a_move_that_wins_outright_is_never_dropped_and_the_cap_holds() -> None:
    """300 races of a move that wins every rollout among five that win a third at most, the move
    played any of the six: the winning move is in the race at its end every time, and no candidate
    gets more rollouts than the cap."""
    rng = random.Random(2026)
    chances = [0.30, 1.0, 0.33, 0.28, 0.35, 0.25]
    for trial in range(300):
        cap = (20, 64, 100)[trial % 3]
        race = _run(Race(len(chances), trial % len(chances), cap), _bernoulli(rng, chances, cap))
        assert race.alive[1], trial
        assert all(len(r) <= cap for r in race.results)


def test_the_drop_test_keeps_its_level_when_every_candidate_is_equal() -> None:
    """With every candidate equal, any of them is a true best: the test below the leader drops a given
    one in at most ALPHA of the races (with the other rule off: nothing is then unable to make the
    move played a blunder). Without Student's t the first looks' small samples dropped it in 7 %."""
    rng = random.Random(7)
    races = 1000
    dropped = sum(not _run(Race(4, 0, 64, futile=-1.0), _bernoulli(rng, [0.5] * 4, 64)).alive[1]
                  for _ in range(races))
    assert 0 < dropped / races <= racing.ALPHA


def test_a_search_race_keeps_a_move_a_little_better_than_the_prior_and_plays_it() -> None:
    """The move played wins every other rollout; a candidate wins those and one more in ten (10 points
    better), another loses one more in ten. The analysis' race drops the better one at 48 rollouts (it
    cannot make the move played a blunder) and the move played is left alone. A search's race keeps
    it, drops the worse one at 32, ends at 96 once the leader is settled better, and the leader beats
    the move played; neither the worse one nor the move played itself does."""
    played = [float(k % 2 == 0) for k in range(100)]
    better = [1.0 if k % 2 == 0 or k % 10 == 1 else 0.0 for k in range(100)]
    worse = [0.0 if k % 10 == 0 else x for k, x in enumerate(played)]
    analysis = _run(Race(3, 0, 100), [played, better, worse])
    assert ([len(r) for r in analysis.results], analysis.alive) == ([48, 48, 12], [True, False, False])
    search = _run(Race(3, 0, 100, futile=0.0, settle=0.0), [played, better, worse])
    assert ([len(r) for r in search.results], search.alive, search.leader()) == ([96, 96, 32], [True, True, False], 1)
    assert [search.beats_played(i) for i in range(3)] == [False, True, False]


def test_a_search_race_does_not_play_a_leader_ahead_by_chance() -> None:
    """Six equal candidates (each wins half its rollouts, independently, the worst case: a search's
    candidates share their worlds and bot seeds): the leader at the end beats the prior's move beyond
    chance in 79 races of 400 (20 %: one-sided 95 % per race, the leader being the best of five, looked
    at up to nine times), where playing it costs nothing; taking the leader whenever it leads would
    play another move than the prior's in 5 races of 6."""
    rng = random.Random(11)
    races = 400
    played_instead = 0
    for _ in range(races):
        race = _run(Race(6, 0, 100, futile=0.0, settle=0.0), _bernoulli(rng, [0.5] * 6, 100))
        played_instead += race.beats_played(race.leader())
    assert played_instead == 79


def test_a_race_rejects_a_round_it_did_not_ask_for() -> None:
    race = Race(2, 1, 10)
    with pytest.raises(ValueError, match=r"^a round of 8 rollouts of candidates \[0, 1\] was expected$"):
        race.record({0: [1.0] * 8})
    _run(race, [[0.0] * 10, [1.0] * 10])
    with pytest.raises(ValueError, match="^the race is over$"):
        race.next_round()
    with pytest.raises(ValueError, match="^played 2 is not one of 2 candidates$"):
        Race(2, 2, 10)


# -- in the analysis -----------------------------------------------------------------------------


def _endgame():  # type: ignore[no-untyped-def]
    """Building the Statue wins outright; passing or building an Indigo plant loses (the forced win of
    ``test_analysis``)."""
    state = position(
        [seat(hand=["Statue", IP, IP], buildings=[IP] * 11), seat(hand=[IP, "Statue"], buildings=[IP] * 10 + [TS])],
        stage=Stage.PHASE, role=None, chooser=0,
    )
    return replace(state, role=Role.BUILDER, roles_taken=((Role.BUILDER, 0),))


def test_the_winning_move_stays_and_the_losing_ones_stop_early() -> None:
    decision = analyse_state("san_juan", _endgame(), ["Ana", "Bruno"], Pass(), Options(rollouts=200, seed=1))
    by_text = {c.text: c for c in decision.candidates}
    best = decision.best
    assert best.move == Build("Statue", (IP, IP), ())
    assert best.estimate == 1.0 and decision.played.estimate == 0.0 and decision.tag == "blunder"
    # The race ended long before the cap: the other losing move left at the first look, far below the
    # winning one, and the blunder was settled as soon as the rule may.
    assert best.rollouts == decision.played.rollouts == racing.SETTLE_FROM
    assert by_text["build Indigo plant pay []"].rollouts == schedule(200)[0]
    fixed = analyse_state("san_juan", _endgame(), ["Ana", "Bruno"], Pass(),
                          Options(rollouts=200, seed=1, sampling="fixed"))
    assert [c.rollouts for c in fixed.candidates] == [200, 200, 200]


def _scripted(wins_of: dict[str, Callable[[int], bool]]) -> Callable[[RolloutTask], RolloutResult]:
    """A ``run_task`` whose rollout k of a move wins when ``wins_of[its first word or two](k)``: every
    rollout ends, the move played and the others in the same worlds."""

    def run(task: RolloutTask) -> RolloutResult:
        outcomes = []
        for move in task.candidates:
            key = next(key for key in wins_of if move.text().startswith(key))
            outcomes.append(tuple(float(wins_of[key](k)) for k in range(task.first, task.first + task.count)))
        return RolloutResult(task.step, tuple(sum(o) for o in outcomes), tuple(len(o) for o in outcomes),
                             tuple(outcomes))

    return run


def test_a_loss_of_a_blunders_size_the_rollouts_are_not_sure_of_is_a_mistake(monkeypatch: pytest.MonkeyPatch) -> None:
    """Building the Statue wins 6 rollouts in 10 where passing (the move played) wins the same 3, and
    building an Indigo plant those 3 too: the race settles the loss at 48 rollouts, 31 points, but its
    99 % lower bound is under 20 points: a mistake. With 7 in 10, 42 points and sure: a blunder.
    Fixed sampling tags as before (every candidate 100 rollouts, 30 points: a blunder)."""
    state, names = _endgame(), ["Ana", "Bruno"]

    def analysed(statue: Callable[[int], bool], sampling: str = "adaptive") -> decisions.Decision:
        wins_of = {"build Statue": statue, "build Indigo": lambda k: k % 10 < 3, "pass": lambda k: k % 10 < 3}
        monkeypatch.setattr(decisions, "run_task", _scripted(wins_of))
        return analyse_state("san_juan", state, names, Pass(), Options(rollouts=100, seed=1, sampling=sampling))

    unsure = analysed(lambda k: k % 10 < 6)
    assert unsure.best.text.startswith("build Statue") and unsure.loss == 0.3125
    assert unsure.sure is False and unsure.tag == "mistake" and unsure.to_json()["tag"] == "mistake"
    spent = {"build Statue pay [Indigo plant, Indigo plant]": 48, "pass": 48, "build Indigo plant pay []": 12}
    assert {c.text: c.rollouts for c in unsure.candidates} == spent
    sure = analysed(lambda k: k % 10 < 7)
    assert sure.sure is True and sure.tag == "blunder" and round(sure.loss, 4) == 0.4167
    assert {c.text: c.rollouts for c in sure.candidates} == spent
    fixed = analysed(lambda k: k % 10 < 6, "fixed")
    assert fixed.sure is None and fixed.tag == "blunder" and round(fixed.loss, 4) == 0.3
    assert [c.rollouts for c in fixed.candidates] == [100, 100, 100]
    # Nothing better than the move played: nothing to be sure of.
    level = analysed(lambda k: k % 10 < 3)
    assert level.best.played and level.sure is None and level.tag is None


def test_the_tag_of_a_loss_and_how_sure_it_is() -> None:
    assert decisions.tag_for(0.25, True) == decisions.tag_for(0.25, True, True) == "blunder"
    assert decisions.tag_for(0.25, True, False) == "mistake"
    assert decisions.tag_for(0.12, True, False) == decisions.tag_for(0.12, True) == "mistake"
    assert decisions.tag_for(0.07, True, False) == "inaccuracy"
    assert decisions.tag_for(0.25, False, True) is None


def test_a_candidate_with_fewer_rollouts_has_exactly_its_first_ones() -> None:
    """A candidate that left the race has rollouts 0..n-1, the same as running them alone (the
    dashboard's estimate of a move relies on it)."""
    log = _log(SJ_LOG)
    options = Options(rollouts=64, seed=5, top=6, steps=(2, 2))
    ((point, _),) = list(decision_points(log, options.steps))
    (decision,) = analyse(log, options)
    counts = {c.rollouts for c in decision.candidates}
    assert len(counts) > 1 and max(counts) <= 64
    for candidate in decision.candidates:
        # ``rollouts`` counts those that ended: the candidate left after one of the looks.
        alone = [run_task(RolloutTask("san_juan", point.step, point.seat, point.state, (candidate.move,), 5, 0,
                                      look, "expert")) for look in schedule(64)]
        assert (candidate.wins, candidate.rollouts) in [(r.wins[0], r.played[0]) for r in alone]


def test_the_cap_holds_for_every_candidate() -> None:
    log = _log(SJ_LOG)
    for cap in (1, 9, 20):
        for decision in analyse(log, Options(rollouts=cap, seed=2, steps=(1, 6))):
            assert all(c.rollouts <= cap for c in decision.candidates), (cap, decision.step)


def test_the_same_seed_gives_the_same_output_byte_for_byte_on_any_workers() -> None:
    args = [sys.executable, "-m", "governor.cli", "analyse", str(SJ_LOG), "--rollouts", "40", "--steps", "1:6",
            "--seed", "11", "--json"]
    runs = [subprocess.run([*args, "--workers", workers], capture_output=True, text=True, timeout=300, cwd=ROOT)
            for workers in ("1", "1", "2")]
    assert all(run.returncode == 0 for run in runs), [run.stderr for run in runs]
    assert runs[0].stdout == runs[1].stdout == runs[2].stdout
    lines = [json.loads(x) for x in runs[0].stdout.splitlines()]
    assert [x["step"] for x in lines] == [1, 2, 3, 4, 5, 6]
    # Rounds happened: some candidate left before the cap of 40.
    assert any(c["rollouts"] < 40 for x in lines for c in x["candidates"])
    assert "(at most 40 rollouts per candidate by the expert bot, seed 11): " in runs[0].stderr


def test_the_move_played_is_best_unless_something_is_significantly_better() -> None:
    log = _log(SJ_LOG)
    for decision in analyse(log, Options(rollouts=32, seed=3, steps=(1, 12))):
        best, played = decision.best, decision.played
        assert decision.candidates[0] is best
        if best is not played:
            assert decisions.significant(best, played)
        others = decision.candidates[1:]
        assert [c.estimate for c in others] == sorted((c.estimate for c in others), reverse=True)


def test_the_move_played_is_listed_whatever_top() -> None:
    log = _log(SJ_LOG)
    for decision in analyse(log, Options(rollouts=16, seed=3, top=1, steps=(1, 8))):
        assert any(c.played for c in decision.candidates)
        assert len(decision.candidates) <= 2


# -- one sensible move ----------------------------------------------------------------------------


class _Engine:
    """An engine whose moves lead to the states of a table."""

    def __init__(self, table: dict[str, object]) -> None:
        self.table = table

    def apply(self, state: object, move: str) -> object:
        return self.table[move]


def test_moves_to_the_same_state_are_one_group() -> None:
    engine = _Engine({"a": 1, "b": 2, "c": 1, "d": 3, "e": 2})
    assert same_state_groups(engine, None, ["a", "b", "c", "d", "e"]) == [0, 1, 0, 3, 1]


def test_one_sensible_move_is_when_every_move_leads_to_one_state() -> None:
    assert one_sensible_move(_Engine({"a": 1, "c": 1}), None, ["a", "c", "a"])
    assert not one_sensible_move(_Engine({"a": 1, "b": 2, "c": 1}), None, ["a", "b", "c"])
    # It stops at the first move that leads elsewhere.
    assert not one_sensible_move(_Engine({"a": 1, "b": 2}), None, ["a", "b", "never looked at"])
    assert not one_sensible_move(_Engine({}), None, [])


def test_a_decision_whose_choices_all_lead_to_one_state_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    log = _log(SJ_LOG)
    steps = [point.step for point, _ in decision_points(log, (1, 5))]
    assert steps == [1, 2, 3, 4, 5]
    real = decisions.one_sensible_move

    def one_state_at_step_3(engine, state, moves):  # type: ignore[no-untyped-def]
        return state.step == 2 or real(engine, state, moves)

    monkeypatch.setattr(decisions, "one_sensible_move", one_state_at_step_3)
    assert [point.step for point, _ in decision_points(log, (1, 5))] == [1, 2, 4, 5]


def test_moves_to_the_same_state_are_rolled_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    log = _log(SJ_LOG)
    options = Options(rollouts=16, seed=4, steps=(2, 2))
    ((point, _),) = list(decision_points(log, options.steps))
    real_groups = same_state_groups
    ran: list[int] = []

    def first_two_alike(engine, state, moves):  # type: ignore[no-untyped-def]
        groups = real_groups(engine, state, moves)
        return [0 if i == 1 else g for i, g in enumerate(groups)] if state == point.state else groups

    def counting(task: RolloutTask):  # type: ignore[no-untyped-def]
        ran.append(len(task.candidates))
        return run_task(task)

    monkeypatch.setattr(decisions, "same_state_groups", first_two_alike)
    monkeypatch.setattr(decisions, "run_task", counting)
    (decision,) = analyse(log, options)
    candidates = decisions.choose_candidates(decisions.engine_for("san_juan"), point, options, run_task)
    first, second = (next(c for c in decision.candidates if c.move == m) for m in candidates[:2])
    assert (first.wins, first.rollouts) == (second.wins, second.rollouts)
    assert ran[0] == len(candidates) - 1


# -- the pre-ranking, halved --------------------------------------------------------------------


def test_the_halved_pre_ranking_ranks_the_kept_moves_by_a_whole_pre_ranking() -> None:
    """36 moves to pre-rank (a seat's 37 choices but the move played): adaptive sampling rolls each out
    twice and the 12 best of those twice more, and the 12 rank first, by exactly the wins of a whole
    pre-ranking (4 rollouts each): 36 x 2 + 12 x 2 rollouts instead of 36 x 4."""
    log = _log(SJ_LOG)
    ((point, legal),) = list(decision_points(log, (117, 117)))
    engine = decisions.engine_for("san_juan")
    moves = [m for m in own_choices(engine, point.state, point.seat, point.played)
             if not decisions.same_move(engine, m, point.played)]
    assert legal == len(moves) + 1 == 37
    asked: list[int] = []

    def counting(task: RolloutTask):  # type: ignore[no-untyped-def]
        asked.append(task.count * len(task.candidates))
        return run_task(task)

    def wins(first: int, count: int) -> tuple[float, ...]:
        return run_task(RolloutTask("san_juan", point.step, point.seat, point.state, tuple(moves), 8 ^ 0x5EED,
                                    first, count, "expert")).wins

    order = decisions._prerank(engine, point, moves, Options(seed=8), "expert", counting)
    assert asked == [36 * 2, 12 * 2]
    whole, first_two = wins(0, 4), wins(0, 2)
    assert sorted(order[:12]) == sorted(sorted(range(36), key=lambda i: (-first_two[i], i))[:12])
    assert order[:12] == sorted(order[:12], key=lambda i: (-whole[i], i))
    # Fixed sampling pre-ranks as before: every move 4 times, ranked by those wins.
    asked.clear()
    fixed = decisions._prerank(engine, point, moves, Options(seed=8, sampling="fixed"), "expert", counting)
    assert asked == [36 * 4] and fixed == sorted(range(36), key=lambda i: (-whole[i], i))
