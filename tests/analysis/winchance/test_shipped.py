"""The shipped models: one for every player count of each built-in game, small, made for the games'
current features (a change of an observation vector without rebuilding them fails here)."""

from __future__ import annotations

import pytest

from analysis.winchance.model import load, shipped_path
from replay.registry import game_of

#: The chances of the sample position (see the last test), filled from the shipped models (the position
#: is of a game of the expert bots: a change of their moves moves it too).
WHOLE = [0.468011, 0.020856, 0.511133]
SEAT = [0.616858, 0.023126, 0.360016]

SHIPPED = [(game, players) for game in ("san_juan", "puerto_rico")
           for players in range(game_of(game).min_players, game_of(game).max_players + 1)]


@pytest.mark.parametrize(("game", "players"), SHIPPED)
def test_every_shipped_model_loads_and_is_small(game: str, players: int) -> None:
    path = shipped_path(game, players)
    assert path.stat().st_size < 2_500_000
    model = load(game, players)
    assert (model.header["game"], model.header["players"], model.header["source"]) == (game, players, "self-play")
    assert (model.header["games"], model.header["seed"], model.header["bot"]) == (1000, 1, "expert")
    assert model.header["targets"] == {"everything": "results", "seat": "16 rollouts by expert from 4 positions a game"}


def test_a_shipped_model_gives_the_same_chances_on_a_sample_position() -> None:
    """The shipped San Juan 3-player model on one position of a fixed game: the exact chances it was
    built to give (a change of the features, the trees or the calibration that moves them fails here;
    rebuilding the models with governor train means updating these numbers)."""
    from analysis.winchance.predict import chances
    from replay.logfile import parse_game
    from replay.registry import engine_for
    from replay.replayer import iter_replay
    from replay.simulate import simulate_game

    model = load("san_juan", 3)
    engine = engine_for("san_juan")
    log = parse_game(simulate_game("san_juan", 3, 2027, "expert"))
    state = [state for state, _ in iter_replay(log, describe=False, steps=False)][60]
    whole = chances(model, engine, [state])[0]
    seat = chances(model, engine, [state], "seat", 1)[0]
    assert [round(float(v), 6) for v in whole] == WHOLE
    assert [round(float(v), 6) for v in seat] == SEAT
    assert abs(sum(whole) - 1) < 1e-12 and abs(sum(seat) - 1) < 1e-12
