"""What a viewer is shown of the win chance: the whole view for the viewer who sees everything, only
the seat's own observation for a seat (another seat's hidden cards never change it), nothing for the
table; a finished game ends at its result in every view."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from analysis.winchance.model import WinModel, load
from analysis.winchance.predict import result_shares
from analysis.winchance.series import meaning, shown_to, viewer_series
from replay.log_reader import read_game
from replay.protocol import Viewer
from replay.registry import AnyEngine, engine_for
from replay.replayer import iter_replay

ROOT = Path(__file__).resolve().parents[3]
LOGS = [ROOT / "sample_logs" / "san_juan" / "san_juan-3p-seed2026-0001.json",
        ROOT / "sample_logs" / "puerto_rico" / "puerto_rico-3p-seed2026-0000.json"]


def _game(path: Path) -> tuple[WinModel, AnyEngine, list[Any]]:
    record, _ = read_game(str(path), 1)
    assert record is not None and record.log is not None
    log = record.log
    states = [state for state, _ in iter_replay(log, describe=False, steps=False)]
    return load(log.game, len(log.players)), engine_for(log.game), states


@pytest.mark.parametrize(("path", "hands"), [(LOGS[0], True), (LOGS[1], False)], ids=lambda p: getattr(p, "name", ""))
def test_a_seat_view_never_uses_hidden_cards(path: Path, hands: bool) -> None:
    """``hands``: the seats hold cards the others cannot see (in the other game, only the face-down
    stacks are hidden, and they are hidden from every seat, so the whole view does not see them either)."""
    model, engine, states = _game(path)
    playing = [s for s in states if not engine.is_over(s)][::7]
    for seat in range(model.players):
        viewer = Viewer.of_seat(seat)
        # The same positions with everything the seat cannot see dealt again: the seat is shown the same.
        dealt = [engine.determinise(s, seat, random.Random(k)) for k, s in enumerate(playing)]
        real = viewer_series(model, engine, playing, viewer)
        assert real is not None and np.array_equal(real, viewer_series(model, engine, dealt, viewer))
        # The whole view does see the hands (so the comparison above could fail).
        everything = Viewer.everything()
        assert hands is not np.array_equal(viewer_series(model, engine, playing, everything),
                                           viewer_series(model, engine, dealt, everything))


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_a_finished_game_ends_at_its_result_in_every_view(path: Path) -> None:
    model, engine, states = _game(path)
    result = result_shares(engine, states[-1])
    assert max(result) == 1.0
    for viewer in [Viewer.everything(), *(Viewer.of_seat(s) for s in range(model.players))]:
        shown = viewer_series(model, engine, states, viewer)
        assert shown is not None and shown.shape == (len(states), model.players)
        assert shown[-1].tolist() == result and np.allclose(shown.sum(axis=1), 1.0)
        assert 0 < shown[:-1].min() and shown[:-1].max() < 1


def test_the_table_is_shown_nothing() -> None:
    model, engine, states = _game(LOGS[0])
    assert shown_to(Viewer.public()) is None
    assert viewer_series(model, engine, states, Viewer.public()) is None
    assert shown_to(Viewer.of_seat(2)) == ("seat", 2) and shown_to(Viewer.everything()) == ("everything", None)
    with pytest.raises(IndexError) as err:
        viewer_series(model, engine, states, Viewer.of_seat(3))
    assert str(err.value) == "no seat 3 in a game of 3 players"


def test_meaning_names_the_bot_and_its_games() -> None:
    model, _, _ = _game(LOGS[0])
    assert meaning(model) == ("the chance to win if every seat played like the expert bot from here, learned "
                              "from 1000 games of that bot against itself")
