"""A game's ``encode_seats`` (``replay/<game>/spaces.py``: every seat's observation vector at once, for
the win chance's whole view) is byte for byte each seat's ``encode_state`` at every step of games of
every player count, including a finished game's last state."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy", reason="missing optional dependency: the env extra (pip install 'governor[env]')")

import numpy as np  # noqa: E402

from replay.logfile import parse_game  # noqa: E402
from replay.registry import spaces_for  # noqa: E402
from replay.replayer import iter_replay  # noqa: E402
from replay.simulate import simulate_game  # noqa: E402

GAMES = [("san_juan", p) for p in (2, 3, 4)] + [("puerto_rico", p) for p in (3, 4, 5)]


@pytest.mark.parametrize(("game", "players"), GAMES)
@pytest.mark.parametrize("bot", ["heuristic", "mixed"])
def test_every_seats_vector_at_once_is_each_seats_vector(game: str, players: int, bot: str) -> None:
    codec = spaces_for(game)
    log = parse_game(simulate_game(game, players, 31 * players + len(bot), bot))
    steps = 0
    for steps, (state, _) in enumerate(iter_replay(log, describe=False, steps=False)):
        together = codec.encode_seats(state)
        alone = np.stack([codec.encode_state(state, seat) for seat in range(players)])
        assert together.dtype == np.float32 and together.shape == (players, codec.SIZE)
        assert together.tobytes() == alone.tobytes(), f"step {steps}"
        assert together.flags.writeable  # a new array, as encode_state's
    assert steps > 50
