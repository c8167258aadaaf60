"""Luck and skill: each move's change of the win chance split into chance's part and the decision's,
summing to 0 over the seats, and adding up to each seat's result."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from analysis.cli import with_luck
from analysis.winchance.luck import Split, game_split, split
from analysis.winchance.model import ModelError, load
from analysis.winchance.predict import result_shares
from replay.log_reader import read_game
from replay.logfile import GameLog
from replay.registry import engine_for
from replay.replayer import final_state

ROOT = Path(__file__).resolve().parents[3]
LOGS = [ROOT / "sample_logs" / "san_juan" / "san_juan-2p-seed2026-0000.json",
        ROOT / "sample_logs" / "puerto_rico" / "puerto_rico-3p-seed2026-0000.json"]

#: A hand-built 3-seat game of four moves: seat 0 decides, the game deals (no seat), seat 1 decides, seat
#: 2 decides and wins. Each row sums to 1.
CHANCES = np.array([[0.4, 0.3, 0.3], [0.5, 0.25, 0.25], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [0.0, 0.0, 1.0]])
DECIDERS = (0, None, 1, 2)
#: What each decision alone would have changed (the mean over deals), not quite summing to 0 (an
#: estimate); the second row, a move of no seat, is ignored.
DECIDED = np.array([[0.06, -0.03, -0.03], [9.0, 9.0, 9.0], [-0.1, 0.2, -0.1], [-0.2, -0.5, 0.73]])


def test_split_of_a_hand_built_game() -> None:
    found = split(CHANCES, DECIDERS, DECIDED)
    change = np.diff(CHANCES, axis=0)
    assert np.allclose(found.luck + found.skill, change)
    # The move of no seat is all chance; each decision's part is centred to sum to 0.
    assert np.allclose(found.skill[1], 0.0) and np.allclose(found.luck[1], [-0.2, 0.05, 0.15])
    assert np.allclose(found.skill[0], [0.06, -0.03, -0.03]) and np.allclose(found.luck[0], [0.04, -0.02, -0.02])
    assert np.allclose(found.skill[3], [-0.21, -0.51, 0.72])
    assert np.allclose(found.luck[3], [0.01, 0.01, -0.02])
    luck, skill = found.seat_luck(), found.seat_skill()
    assert sum(luck) == pytest.approx(0.0, abs=1e-12) and sum(skill) == pytest.approx(0.0, abs=1e-12)
    assert np.allclose(np.array(luck), [-0.15, 0.04, 0.11])
    assert np.allclose(np.array(skill), [-0.25, -0.34, 0.59])
    # Start + luck + skill is the result.
    assert np.allclose(CHANCES[0] + np.array(luck) + np.array(skill), [0.0, 0.0, 1.0])
    # Seat 0's best luck came with its own decision (move 1), its worst with the deal (move 2).
    assert found.extremes(0) == (1, 2)
    assert found.extremes(2) == (2, 4)


def test_extremes_none_when_chance_never_moved_a_seat() -> None:
    flat = Split(np.array([[0.5, 0.5], [0.5, 0.5]]), (0,), np.zeros((1, 2)), np.zeros((1, 2)))
    assert flat.extremes(1) == (None, None)


def test_split_refuses_shapes_that_do_not_match() -> None:
    with pytest.raises(ValueError) as err:
        split(CHANCES, DECIDERS[:3], DECIDED)
    assert str(err.value) == "4 moves, but 3 deciders and decisions of shape (4, 3)"


def _log(path: Path) -> GameLog:
    record, _ = read_game(str(path), 1)
    assert record is not None and record.log is not None
    return record.log


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_a_sample_game_sums_to_zero_and_ends_at_its_result(path: Path) -> None:
    log = _log(path)
    model = load(log.game, len(log.players))
    found = game_split(model, log)
    engine = engine_for(log.game)
    result = result_shares(engine, final_state(log))
    # The finished game ends at 1 for its winner; every step's chances sum to 1.
    assert found.chances[-1].tolist() == result and 1.0 in result
    assert np.allclose(found.chances.sum(axis=1), 1.0)
    assert len(found.deciders) == len(log.moves) == found.chances.shape[0] - 1
    luck, skill = np.array(found.seat_luck()), np.array(found.seat_skill())
    assert abs(luck.sum()) < 1e-9 and abs(skill.sum()) < 1e-9
    assert np.allclose(found.chances[0] + luck + skill, result)
    # Chance moved something, and the split is the same every time.
    assert np.abs(found.luck).max() > 0.01
    again = game_split(model, log)
    assert np.array_equal(again.luck, found.luck) and np.array_equal(again.skill, found.skill)


def test_with_luck_fills_the_summaries(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from analysis.accuracy import SeatSummary

    log = _log(LOGS[0])
    summaries = [SeatSummary(0, "Ana", None, 0, 0, 0, 0.0, 0), SeatSummary(1, "Bruno", None, 0, 0, 0, 0.0, 0)]
    found = game_split(load(log.game, 2), log)
    filled = with_luck(summaries, log)
    assert [(s.luck, s.skill) for s in filled] == list(zip(found.seat_luck(), found.seat_skill(), strict=True))
    assert filled[0].to_json()["luck"] == round(found.seat_luck()[0], 4)

    def no_model(game: str, players: int) -> None:
        raise ModelError(f"m.json.gz: no win-chance model of {game} with {players} players")

    monkeypatch.setattr("analysis.winchance.model.load", no_model)
    assert with_luck(summaries, log) == summaries
    assert capsys.readouterr().err == ("governor analyse: m.json.gz: no win-chance model of san_juan with 2 players; "
                                       "luck and skill left out\n")
    assert summaries[0].to_json()["luck"] is None and summaries[0].to_json()["skill"] is None
