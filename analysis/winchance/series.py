"""The win chance a viewer of a game may be shown, step by step (the Replay page's graph, the Play page).

What a viewer is shown is made only of what it may know (docs/analysis.md, after "Luck and skill"):

- the viewer who sees everything (a post-game analysis): the model's whole view, every card;
- a seat: the model's seat view, whose features are that seat's own observation and nothing else of
  the state, so no hidden card of another seat (nor the piles' order) changes a number it is shown;
- the public view (the table, no seat's secrets): nothing, since neither model is made of only what
  the table sees.

A finished game's last step is its result (1 for a sole winner) in every view: the result is public."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from analysis.winchance.model import WinModel
from analysis.winchance.predict import chances
from replay.protocol import Viewer
from replay.registry import AnyEngine


def meaning(model: WinModel) -> str:
    """What ``model``'s numbers mean, as the pages say it beside the graph (the bot and the games it
    learned from, as its header records them)."""
    bot, games = model.header.get("bot", "the strongest"), model.header.get("games")
    learned = f"{games} games" if isinstance(games, int) else "games"
    return (f"the chance to win if every seat played like the {bot} bot from here, learned from {learned} of "
            f"that bot against itself")


def shown_to(viewer: Viewer) -> tuple[str, int | None] | None:
    """The model's view (``everything`` or ``seat`` with its viewing seat) ``viewer`` may be shown,
    or None when it may be shown no win chance (the public view)."""
    if viewer.sees_everything:
        return "everything", None
    if viewer.kind == Viewer.SEAT and viewer.seat is not None:
        return "seat", viewer.seat
    return None


def viewer_series(model: WinModel, engine: AnyEngine, states: Sequence[Any], viewer: Viewer) -> np.ndarray | None:
    """Each seat's chance to win at each of ``states`` (an array (states, players), rows summing to 1)
    as ``viewer`` may be shown it (``shown_to``), or None when it may be shown none. Raises
    ``IndexError`` for a seat the game does not have."""
    view = shown_to(viewer)
    if view is None:
        return None
    name, seat = view
    if seat is not None and not 0 <= seat < model.players:
        raise IndexError(f"no seat {seat} in a game of {model.players} players")
    return chances(model, engine, states, name, seat)
