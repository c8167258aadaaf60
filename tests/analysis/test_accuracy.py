"""Accuracy: lichess's curve on win chance lost (scaled for these games), noise counts as no loss,
a seat's accuracy blends the volatility-weighted and harmonic means, stored rows give the same
numbers as the decisions, and ``governor analyse --summary`` prints them."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from analysis.accuracy import (
    SeatSummary,
    at_stake,
    counted_loss,
    decision_loss,
    move_accuracy,
    scored_from_rows,
    seat_summaries,
    share_loss,
    summarise,
    volatility_weights,
)
from analysis.decisions import Candidate, Decision, Options, analyse
from analysis.rollouts import score_share, share_stats
from analysis.store import analysis_table
from analysis.winchance.luck import game_split
from analysis.winchance.model import load
from ingest.accuracy_sql import SHARE_TO_WIN
from replay.log_reader import read_records

ROOT = Path(__file__).resolve().parents[2]
SJ_LOG = ROOT / "sample_logs" / "san_juan" / "san_juan-2p-seed2026-0000.json"


class _Move:
    """A stand-in move: accuracy reads only the candidates' estimates."""

    def __init__(self, text: str) -> None:
        self._text = text

    def text(self) -> str:
        return self._text

    def to_json(self) -> dict[str, Any]:
        return {"move": self._text}


def _c(text: str, wins: float, rollouts: int, played: bool = False) -> Candidate:
    return Candidate(_Move(text), text, text, played, wins, rollouts)


def _s(text: str, wins: float, rollouts: int, share: float, share_sd: float, played: bool = False) -> Candidate:
    """A candidate with its score share (mean and standard deviation over its rollouts)."""
    return Candidate(_Move(text), text, text, played, wins, rollouts, share, share_sd)


#: Score shares. Ana, out of the race (every candidate lost all 40 rollouts), plays a move whose
#: score share is 3 points below the best one's (spread 2 points each: significant). Bruno, in the
#: race, plays the move of the highest share though another won more rollouts; then a move 1 point of
#: share below the best with a spread of 5 points over 12 rollouts (within the noise). Ana again:
#: every candidate has the same share (nothing at stake).
SHARED = [
    Decision(1, 0, "Ana", 3, (_s("a", 0, 40, 0.30, 0.02), _s("b", 0, 40, 0.27, 0.02, True),
                              _s("c", 0, 40, 0.25, 0.02))),
    Decision(2, 1, "Bruno", 2, (_s("a", 28, 40, 0.34, 0.04), _s("b", 20, 40, 0.35, 0.04, True))),
    Decision(3, 1, "Bruno", 2, (_s("a", 6, 12, 0.31, 0.05), _s("b", 6, 12, 0.30, 0.05, True))),
    Decision(4, 0, "Ana", 2, (_s("a", 0, 12, 0.20, 0.01, True), _s("b", 0, 12, 0.20, 0.01))),
]


#: Ana: the best move (80 %), then a 60-point blunder (90 % -> 30 %). Bruno: a 5-point loss within
#: the noise (100 rollouts each: not significant, so no loss), then a significant 7.5-point
#: inaccuracy (400 rollouts each). Carla: no decision.
DECISIONS = [
    Decision(1, 0, "Ana", 3, (_c("a", 80, 100, True), _c("b", 70, 100))),
    Decision(2, 1, "Bruno", 2, (_c("a", 60, 100), _c("b", 55, 100, True))),
    Decision(3, 0, "Ana", 4, (_c("a", 90, 100), _c("b", 30, 100, True))),
    Decision(4, 1, "Bruno", 5, (_c("a", 300, 400), _c("b", 270, 400, True))),
]


def test_move_accuracy_is_lichess_curve_at_twice_the_points() -> None:
    assert move_accuracy(0.0) == 100.0
    assert move_accuracy(-0.1) == 100.0
    # The tags' thresholds: an inaccuracy's and a mistake's smallest losses get chess's accuracies.
    assert round(move_accuracy(0.05), 4) == 63.5798
    assert round(move_accuracy(0.10), 4) == 40.0168
    assert round(move_accuracy(0.20), 4) == 14.9090
    assert round(move_accuracy(0.075), 4) == 50.5208
    assert round(move_accuracy(0.38), 4) == 0.6028
    assert move_accuracy(0.41) == 0.0
    assert move_accuracy(1.0) == 0.0


def test_a_loss_within_the_noise_counts_as_none() -> None:
    assert counted_loss(_c("a", 60, 100), _c("b", 55, 100, True)) == 0.0
    assert round(counted_loss(_c("a", 300, 400), _c("b", 270, 400, True)), 6) == 0.075
    best = _c("a", 80, 100, True)
    assert counted_loss(best, best) == 0.0


def test_volatility_weights_follow_lichess_windows() -> None:
    # Two moves: windows of 2, the standard deviation of each pair, kept within 0.5..12.
    assert volatility_weights([80.0, 80.0, 30.0], 2) == [0.5, 12.0]
    assert volatility_weights([60.0, 55.0, 67.5], 2) == [2.5, 6.25]
    # 30 moves: windows of 3, the first repeated once so that each move has one.
    values = [float(v % 7) for v in range(31)]
    weights = volatility_weights(values, 30)
    assert len(weights) == 30 and weights[0] == weights[1]
    assert volatility_weights([], 0) == []


def test_seat_summaries_exact() -> None:
    ana, bruno, carla = seat_summaries(DECISIONS, ["Ana", "Bruno", "Carla"])
    # Ana: accuracies 100 and 0 (60 points lost), weights 0.5 and 12: weighted 4.0, harmonic
    # 2 / (1/100 + 1/1) = 1.980198, blended 2.990099.
    assert ana == SeatSummary(0, "Ana", ana.accuracy, 0, 0, 1, ana.avg_loss, 2)
    assert ana.accuracy is not None and round(ana.accuracy, 6) == 2.990099
    assert round(ana.avg_loss, 6) == 0.3
    # Bruno: accuracies 100 and 50.5208, weights 2.5 and 6.25: weighted 64.6577, harmonic 67.1281.
    assert bruno.accuracy is not None and round(bruno.accuracy, 4) == 65.8929
    assert (bruno.inaccuracies, bruno.mistakes, bruno.blunders, bruno.moves) == (1, 0, 0, 2)
    assert round(bruno.avg_loss, 6) == 0.0375
    assert carla == SeatSummary(2, "Carla", None, 0, 0, 0, 0.0, 0)
    assert [s.to_json() for s in (ana, carla)] == [
        {"seat": 0, "player": "Ana", "accuracy": 2.99, "inaccuracies": 0, "mistakes": 0, "blunders": 1,
         "avg_loss": 0.3, "luck": None, "skill": None},
        {"seat": 2, "player": "Carla", "accuracy": None, "inaccuracies": 0, "mistakes": 0, "blunders": 0,
         "avg_loss": 0.0, "luck": None, "skill": None},
    ]


def test_a_perfect_game_is_100() -> None:
    perfect = [Decision(k, 0, "Ana", 2, (_c("a", 50 + k, 100, True), _c("b", 10, 100))) for k in range(1, 30)]
    (ana,) = seat_summaries(perfect, ["Ana"])
    assert ana.accuracy is not None and round(ana.accuracy, 9) == 100.0
    assert ana.avg_loss == 0.0 and ana.moves == 29


def test_a_decision_with_nothing_at_stake_is_left_out() -> None:
    # Ana out of contention (every candidate lost every rollout) at moves 2 and 3, and sure to win
    # (every candidate won every rollout) at move 4: only move 1, a 7.5-point inaccuracy, counts.
    decisions = [
        Decision(1, 0, "Ana", 2, (_c("a", 300, 400), _c("b", 270, 400, True))),
        Decision(2, 0, "Ana", 3, (_c("a", 0, 100, True), _c("b", 0, 100), _c("c", 0, 100))),
        Decision(3, 0, "Ana", 2, (_c("b", 0, 100, True), _c("a", 0, 100))),
        Decision(4, 0, "Ana", 2, (_c("a", 100, 100), _c("b", 100, 100, True))),
    ]
    (ana,) = seat_summaries(decisions, ["Ana"])
    assert ana.moves == 1 and ana.inaccuracies == 1
    assert ana.accuracy is not None and round(ana.accuracy, 4) == round(move_accuracy(0.075), 4) == 50.5208
    assert round(ana.avg_loss, 6) == 0.075
    table = analysis_table("g1", "1", decisions, Options(rollouts=100))
    assert [m.at_stake for m in scored_from_rows(table.to_pylist())] == [True, False, False, False]
    # All of a seat's decisions with nothing at stake: no accuracy, as for a seat with no decision.
    (none,) = seat_summaries(decisions[1:], ["Ana"])
    assert none == SeatSummary(0, "Ana", None, 0, 0, 0, 0.0, 0)


def test_stored_rows_give_the_same_summaries() -> None:
    table = analysis_table("g1", "1", DECISIONS, Options(rollouts=100))
    moves = scored_from_rows(table.to_pylist())
    assert [(m.step, m.seat) for m in moves] == [(1, 0), (2, 1), (3, 0), (4, 1)]
    assert summarise(moves, ["Ana", "Bruno", "Carla"]) == seat_summaries(DECISIONS, ["Ana", "Bruno", "Carla"])


def _run(*extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "governor.cli", "analyse", str(SJ_LOG), "--rollouts", "3", "--top", "3",
         "--steps", "1:12", "--workers", "1", "--seed", "4", "--summary", *extra],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )


@pytest.fixture(scope="module")
def analysed() -> list[Decision]:
    record = next(iter(read_records(SJ_LOG)))
    assert record.log is not None
    return list(analyse(record.log, Options(rollouts=3, top=3, steps=(1, 12), seed=4)))


@pytest.fixture(scope="module")
def expected(analysed: list[Decision]) -> list[SeatSummary]:
    return seat_summaries(analysed, ["Ana", "Bruno"])


def test_cli_summary_json(analysed: list[Decision], expected: list[SeatSummary]) -> None:
    run = _run("--json")
    assert run.returncode == 0, run.stderr
    rows = [json.loads(line) for line in run.stdout.splitlines()]
    record = next(iter(read_records(SJ_LOG)))
    assert record.log is not None
    found = game_split(load(record.log.game, 2), record.log)
    # Luck and skill are over the whole game (not only the steps analysed), by the shipped model.
    assert rows == [replace(s, luck=found.seat_luck()[s.seat], skill=found.seat_skill()[s.seat]).to_json()
                    for s in expected]
    assert [list(r) for r in rows] == [["seat", "player", "accuracy", "inaccuracies", "mistakes", "blunders",
                                        "avg_loss", "luck", "skill"]] * 2
    assert rows[0]["luck"] == -rows[1]["luck"] != 0 and rows[0]["skill"] == -rows[1]["skill"] != 0
    assert int(run.stderr.split(" decisions analysed")[0]) == len(analysed)
    # Every decision with something at stake counts, in its seat's summary.
    assert sum(s.moves for s in expected) == sum(at_stake(d.candidates) for d in analysed) > 0


def test_cli_summary_text(expected: list[SeatSummary]) -> None:
    run = _run()
    assert run.returncode == 0, run.stderr
    ana = expected[0]
    assert ana.accuracy is not None
    assert run.stdout.splitlines()[0] == (
        f"Ana: accuracy {ana.accuracy:.1f}, {ana.inaccuracies} inaccurac{'y' if ana.inaccuracies == 1 else 'ies'}, "
        f"{ana.mistakes} mistake{'' if ana.mistakes == 1 else 's'}, {ana.blunders} blunder{'' if ana.blunders == 1 else 's'}, "
        f"average win chance lost {100 * ana.avg_loss:.1f} points over {ana.moves} moves"
    )
    assert len(run.stdout.splitlines()) == 2


def test_score_share_is_the_seats_part_of_all_scores() -> None:
    assert score_share([30, 20, 50], 1) == 0.2
    # A negative score counts 0; when every score is 0 the seats share equally.
    assert score_share([-5, 10, 10], 0) == 0.0
    assert score_share([0, 0, 0, 0], 2) == 0.25
    mean, sd = share_stats([0.2, None, 0.4])
    assert (round(mean, 12), round(sd, 12)) == (0.3, 0.141421356237)
    assert share_stats([0.5]) == (0.5, 0.0)
    assert share_stats([None]) == (None, None)


def test_a_lost_position_still_charges_a_bad_move() -> None:
    lost = SHARED[0]
    # The win chances say nothing (every candidate 0 %): the old rule left this decision out.
    assert [c.estimate for c in lost.candidates] == [0.0, 0.0, 0.0] and counted_loss(lost.best, lost.played) == 0.0
    # The score share lost, 3 points, is beyond the noise (Welch: 1.96 x 0.45 points), and counts as
    # SHARE_TO_WIN times as much win chance: 24 points, a blunder's worth.
    assert SHARE_TO_WIN == 8.0
    assert round(share_loss(lost.candidates, lost.played), 9) == 0.03
    assert at_stake(lost.candidates)
    assert round(decision_loss(lost), 9) == 0.24
    (ana,) = seat_summaries([lost], ["Ana"])
    assert ana.moves == 1 and round(ana.avg_loss, 9) == 0.24
    assert ana.accuracy is not None and round(ana.accuracy, 4) == round(move_accuracy(0.24), 4) == 9.592
    # The same decision without the shares (an analysis stored before them): nothing at stake.
    old = Decision(1, 0, "Ana", 3, (_c("a", 0, 40), _c("b", 0, 40, True), _c("c", 0, 40)))
    assert seat_summaries([old], ["Ana"]) == [SeatSummary(0, "Ana", None, 0, 0, 0, 0.0, 0)]


def test_the_share_decides_and_its_noise_counts_as_no_loss() -> None:
    bruno_best, bruno_noise, ana_flat = SHARED[1:]
    # The highest share was played: no loss, whatever the win chances say.
    assert decision_loss(bruno_best) == 0.0
    # 1 point of share below the best, standard error 2 points: within the noise.
    assert share_loss(bruno_noise.candidates, bruno_noise.played) == 0.0
    assert not at_stake(ana_flat.candidates)
    ana, bruno = seat_summaries(SHARED, ["Ana", "Bruno"])
    assert (ana.moves, bruno.moves) == (1, 2)
    assert bruno.accuracy == 100.0 and bruno.avg_loss == 0.0
    # Stored and read back, the rows give the same summaries.
    table = analysis_table("g1", "1", SHARED, Options(rollouts=40))
    assert summarise(scored_from_rows(table.to_pylist()), ["Ana", "Bruno"]) == [ana, bruno]
