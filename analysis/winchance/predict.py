"""The win chance of positions: a model's calibrated chances, and the result itself once a game is over
(a finished game gives its sole winner 1, and each of k tied winners 1/k, as the analysis counts)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from analysis.winchance.model import WinModel
from replay.registry import AnyEngine


def result_shares(engine: AnyEngine, state: Any) -> list[float]:
    """Each seat's share of the win in a finished ``state``: 1/k for each of its k winners, 0 for the
    others."""
    winners = engine.winners(state)
    players = len(engine.scores(state))
    return [1.0 / len(winners) if seat in winners else 0.0 for seat in range(players)]


def chances(model: WinModel, engine: AnyEngine, states: Sequence[Any], view: str = "everything",
            viewer: int | None = None) -> np.ndarray:
    """The chance of each seat to win from each of ``states`` (an array (states, players), each row
    summing to 1): the model's for a game in progress, seen as ``view`` (``everything``, or ``seat``
    with ``viewer``, what that seat may know); the result for a game that is over. Raises
    ``ValueError`` for an unknown view or a seat view without a viewer."""
    n = model.players
    out = np.zeros((len(states), n), dtype=np.float64)
    playing = [i for i, state in enumerate(states) if not engine.is_over(state)]
    for i, state in enumerate(states):
        if engine.is_over(state):
            out[i] = result_shares(engine, state)
    if playing:
        rows = np.concatenate([model.features.rows(states[i], view, viewer) for i in playing])
        viewers = [viewer] * len(playing) if view == "seat" and viewer is not None else None
        out[playing] = model.views[view].chances(rows, n, viewers)
    return out
