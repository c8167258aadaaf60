"""The features of a position: a seat's view reads nothing that seat cannot see."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from analysis.winchance.features import features_for
from replay.logfile import parse_game
from replay.registry import engine_for, game_of, view_for
from replay.replayer import iter_replay
from replay.simulate import simulate_game


@pytest.mark.parametrize("game", ["san_juan", "puerto_rico"])
def test_a_seat_view_never_changes_with_another_seats_hidden_cards(game: str) -> None:
    """Each state is redrawn as the viewing seat cannot tell it apart (``determinise``: every card it
    cannot see dealt again); its rows stay identical, while the whole view's change (the redraw did
    change hidden cards, so the check is not empty)."""
    players = game_of(game).max_players
    engine = engine_for(game)
    view = view_for(game)
    features = features_for(game, players)
    log = parse_game(simulate_game(game, players, 11, "heuristic"))
    states = [state for state, _ in iter_replay(log, describe=False, steps=False)]
    changed = 0
    for step in range(0, len(states) - 1, 7):
        state = states[step]
        for viewer in range(players):
            redrawn = view.determinise(state, viewer, random.Random(step * 10 + viewer))
            assert np.array_equal(features.seat(state, viewer), features.seat(redrawn, viewer))
            changed += not np.array_equal(features.everything(state), features.everything(redrawn))
    # A game that hides hands: the redraw changed what the whole view sees (the check is not empty).
    assert changed > 10 or game == "puerto_rico"
    assert not engine.is_over(states[0])


def test_a_seat_view_never_changes_with_another_seats_face_down_chips() -> None:
    """Puerto Rico hides each seat's VP chips from the others: another seat's chips changed, the
    viewer's rows stay identical, the owner's and the whole view's change."""
    players = 4
    features = features_for("puerto_rico", players)
    log = parse_game(simulate_game("puerto_rico", players, 13, "heuristic"))
    states = [state for state, _ in iter_replay(log, describe=False, steps=False)]
    state = states[len(states) // 2]
    other = 2
    seats = list(state.players)
    seats[other] = replace(seats[other], vp_chips=seats[other].vp_chips + 7)
    changed = replace(state, players=tuple(seats))
    for viewer in (0, 1, 3):
        assert np.array_equal(features.seat(state, viewer), features.seat(changed, viewer))
    assert not np.array_equal(features.seat(state, other), features.seat(changed, other))
    assert not np.array_equal(features.everything(state), features.everything(changed))


def test_the_rows_have_one_row_per_seat_and_name_every_column() -> None:
    features = features_for("san_juan", 3)
    log = parse_game(simulate_game("san_juan", 3, 5, "heuristic"))
    state = next(iter_replay(log, describe=False, steps=False))[0]
    assert features.everything(state).shape == (3, len(features.names("everything")))
    # The seat view is one row: the viewer's observation, nothing else.
    assert features.seat(state, 1).shape == (1, len(features.names("seat"))) == (1, features.size)
    with pytest.raises(ValueError, match="unknown view 'public'"):
        features.names("public")
