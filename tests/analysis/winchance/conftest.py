"""A small win-chance model of each built-in game, trained once for the session (a few seconds each):
the tests check what every model must do, not how good a small one is."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.winchance.train import self_play, strongest_bot, train
from replay.registry import game_of

GAMES = ("san_juan", "puerto_rico")


def small_model(game: str, players: int, games: int = 30, seed: int = 3) -> bytes:
    """The model file of ``games`` self-play games, 10 positions each."""
    return train(game, players, self_play(game, players, games, seed, strongest_bot(game)), seed=seed,
                 source={"source": "self-play", "games": games}, per_game=10)


@pytest.fixture(scope="session")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a small model of each built-in game at its smallest player count."""
    folder = tmp_path_factory.mktemp("models")
    for game in GAMES:
        players = game_of(game).min_players
        (folder / f"{game}-{players}.json.gz").write_bytes(small_model(game, players))
    return folder
