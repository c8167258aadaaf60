"""The shipped models: one for every player count of each built-in game, small, made for the games'
current features (a change of an observation vector without rebuilding them fails here)."""

from __future__ import annotations

import pytest

from analysis.winchance.model import load, shipped_path
from replay.registry import game_of

SHIPPED = [(game, players) for game in ("san_juan", "puerto_rico")
           for players in range(game_of(game).min_players, game_of(game).max_players + 1)]


@pytest.mark.parametrize(("game", "players"), SHIPPED)
def test_every_shipped_model_loads_and_is_small(game: str, players: int) -> None:
    path = shipped_path(game, players)
    assert path.stat().st_size < 2_500_000
    model = load(game, players)
    assert (model.header["game"], model.header["players"], model.header["source"]) == (game, players, "self-play")
    assert (model.header["games"], model.header["seed"], model.header["bot"]) == (1000, 1, "expert")
