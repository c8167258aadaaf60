"""Every move of every sample log, in the form ``canonical_move`` gives it, is among the legal moves
``legal_moves`` lists before it: what-if, analysis and the bots see the same decisions a log holds."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from replay.log_reader import read_records
from replay.registry import engine_for
from replay.replayer import iter_replay
from replay.san_juan.cards import Good
from replay.san_juan.moves import Produce

LOGS = Path(__file__).resolve().parents[2] / "sample_logs"


@pytest.mark.parametrize("game", ["san_juan", "puerto_rico"])
def test_every_logged_move_is_listed_in_its_canonical_form(game: str) -> None:
    engine = engine_for(game)
    written_otherwise: Counter[str] = Counter()
    decisions = 0
    for path in sorted((LOGS / game).glob("*.json")):
        log = next(iter(read_records(path))).log
        assert log is not None
        before = None
        for state, step in iter_replay(log, describe=False):
            if step is not None and step.seat is not None and before is not None:
                legal = engine.legal_moves(before)
                canonical = engine.canonical_move(step.move)
                assert canonical in legal, f"{path.name} move {step.number}: {step.move.text()} not listed"
                decisions += 1
                if canonical != step.move:
                    written_otherwise[step.move.to_json()["kind"]] += 1
            before = state
    assert decisions > 1000
    # The sample San Juan logs name produced goods in city order, not always in catalogue order.
    assert dict(written_otherwise) == ({"produce": 247} if game == "san_juan" else {})


def test_produced_goods_in_any_order_are_one_decision() -> None:
    engine = engine_for("san_juan")
    written = Produce((Good.COFFEE, Good.INDIGO), ("Well",))
    assert engine.canonical_move(written) == Produce((Good.INDIGO, Good.COFFEE), ("Well",))
    listed = Produce((Good.INDIGO, Good.COFFEE))
    assert engine.canonical_move(listed) is listed
    assert written.canonical().text() == "produce indigo, coffee decline [Well]"
