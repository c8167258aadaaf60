"""The features of a position, from the game's own observation vector (its declared ``spaces`` module:
``encode_state(state, seat)`` is what that seat may see, as ``view.py`` decides).

Two views:

- ``everything`` (a finished game, like a post-game analysis: every card): one row per seat whose
  chance is asked (the *target*), the observation of every seat, the target's first and then the
  others in turn order, so every hand is in the row;
- ``seat`` (a game in progress, or a seat's view of any game): one row, the observation of the viewing
  seat only; the model gives the chance of each seat counted from the viewer in turn order. Nothing
  else of the state is read, so a seat's row cannot change when another seat's hidden cards do.

Nothing here names a game: the sizes and the features' names come from the game's ``LAYOUT``."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from replay.registry import spaces_for

#: Raised when the features change meaning (their order, or how a view is put together): a model made
#: for another version is refused.
FEATURES_VERSION = 2
#: The two views a model is made for.
VIEWS = ("everything", "seat")


@dataclass(frozen=True)
class Features:
    """How the positions of ``game`` with ``players`` seats become rows of numbers."""

    game: str
    players: int
    size: int
    encode: Callable[[Any, int], np.ndarray]
    labels: tuple[str, ...]

    def names(self, view: str) -> list[str]:
        """The name of each column of ``view``'s rows. Raises ``ValueError`` for another view."""
        if view == "everything":
            return [f"seat+{k}:{label}" for k in range(self.players) for label in self.labels]
        if view == "seat":
            return [f"viewer:{label}" for label in self.labels]
        raise ValueError(f"unknown view {view!r} (known: {', '.join(VIEWS)})")

    def digest(self, view: str) -> str:
        """A hash of ``view``'s columns and ``FEATURES_VERSION``: what a model records, and what must
        match when it is loaded. Raises ``ValueError`` for another view."""
        text = "\n".join([str(FEATURES_VERSION), self.game, str(self.players), view, *self.names(view)])
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def everything(self, state: Any) -> np.ndarray:
        """The rows of the whole view of ``state``: row ``t`` is about seat ``t``, an array of shape
        (players, players * size)."""
        n = self.players
        seen = [self.encode(state, seat) for seat in range(n)]
        return np.stack([np.concatenate([seen[(target + k) % n] for k in range(n)]) for target in range(n)])

    def seat(self, state: Any, viewer: int) -> np.ndarray:
        """The row of what seat ``viewer`` may see of ``state`` (its observation only), an array of
        shape (1, size). Raises ``IndexError`` for a seat the game does not have."""
        return self.encode(state, viewer).reshape(1, -1)

    def rows(self, state: Any, view: str, viewer: int | None = None) -> np.ndarray:
        """``everything(state)`` or ``seat(state, viewer)`` by ``view``'s name. Raises ``ValueError``
        for another view or a seat view without a viewer."""
        if view == "everything":
            return self.everything(state)
        if view == "seat" and viewer is not None:
            return self.seat(state, viewer)
        raise ValueError(f"the view {view!r} needs {'a viewing seat' if view == 'seat' else 'a known view'}")


def features_for(game: str, players: int) -> Features:
    """The features of ``game`` with ``players`` seats, from its declared observation vector. Raises
    ``KeyError`` for a game the registry does not know or one without an observation vector."""
    spaces: ModuleType = spaces_for(game)
    labels = tuple(f"{field.name}:{label}" for field in spaces.LAYOUT.fields for label in field.labels)
    return Features(game, players, int(spaces.SIZE), spaces.encode_state, labels)
