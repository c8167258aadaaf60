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
    # The seat view is one row: the viewer's observation, then the standing made from it alone.
    row = features.seat(state, 1)
    assert row.shape == (1, len(features.names("seat")))
    assert np.array_equal(row[0, :features.size], features.encode(state, 1))
    with pytest.raises(ValueError, match="unknown view 'public'"):
        features.names("public")


@pytest.mark.parametrize(("game", "players"), [("san_juan", 3), ("puerto_rico", 4)])
def test_the_standing_gives_each_seats_score_and_lead_as_the_view_sees_them(game: str, players: int) -> None:
    """The standing's ``vp`` columns: in the whole view each seat's score as its own observation
    holds it (row ``t`` starting from seat ``t``), in the seat view the scores the viewer sees; each
    lead is the seat's score less the best other's, and ``most`` the highest."""
    features = features_for(game, players)
    engine = engine_for(game)
    log = parse_game(simulate_game(game, players, 21, "expert"))
    states = [state for state, _ in iter_replay(log, describe=False, steps=False)]
    state = states[len(states) * 3 // 4]
    whole = dict(zip(features.names("everything"), features.everything(state).T))
    own = [float(features.encode(state, seat)[features.names("seat").index("viewer:seat+0:vp")])
           for seat in range(players)]
    # San Juan hides no score: a seat's own score is its score in the game.
    if game == "san_juan":
        assert own == [float(score.total) for score in engine.scores(state)]
    for target in range(players):
        scores = [own[(target + k) % players] for k in range(players)]
        assert [whole[f"standing:vp:seat+{k}"][target] for k in range(players)] == scores
        assert [whole[f"standing:vp:lead+{k}"][target] for k in range(players)] == [
            s - max(scores[:k] + scores[k + 1:]) for k, s in enumerate(scores)]
        assert whole["standing:vp:most"][target] == max(scores)
    viewer = 1
    seen = dict(zip(features.names("seat"), features.seat(state, viewer)[0]))
    shown = [seen[f"viewer:seat+{k}:vp"] for k in range(players)]
    assert [seen[f"standing:vp:seat+{k}"] for k in range(players)] == shown
    assert seen["standing:vp:lead+0"] == shown[0] - max(shown[1:])
