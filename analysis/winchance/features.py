"""The features of a position, from the game's own observation vector (its declared ``spaces`` module:
``encode_state(state, seat)`` is what that seat may see, as ``view.py`` decides).

Two views:

- ``everything`` (a finished game, like a post-game analysis: every card): one row per seat whose
  chance is asked (the *target*), the observation of every seat, the target's first and then the
  others in turn order, so every hand is in the row;
- ``seat`` (a game in progress, or a seat's view of any game): one row, the observation of the viewing
  seat only; the model gives the chance of each seat counted from the viewer in turn order. Nothing
  else of the state is read, so a seat's row cannot change when another seat's hidden cards do.

Each row ends with the *standing* of the seats, made from the same observations: trees split on one
column at a time, so "my score less the best other's" is hard for them to build from raw counts. The
observation's per-seat blocks (fields ``seat+0``, ``seat+1``... of the ``LAYOUT``) give, for each
quantity of a block (a single value such as ``vp``, or the sum of a group such as every ``built ...``
count), each seat's value, its lead over the best other seat, and the most any seat has (how near the
game is to an end reached by a count). In the seat view the values are those the viewer sees (another
seat's hidden chips stay hidden); in the whole view each seat's value is read from its own
observation (its block ``seat+0``), so hidden values count there.

Nothing here names a game: the sizes and the features' names come from the game's ``LAYOUT``."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from replay.registry import spaces_for

#: Raised when the features change meaning (their order, or how a view is put together): a model made
#: for another version is refused.
FEATURES_VERSION = 3
#: The two views a model is made for.
VIEWS = ("everything", "seat")


@dataclass(frozen=True)
class Standing:
    """Where the seats' blocks lie in an observation and how a block becomes quantities: ``sums`` is a
    (block size, quantities) matrix of 0/1 (a block times it gives each quantity), ``starts`` the first
    index of the block of the seat ``k`` places after the observer, for each ``k``."""

    starts: tuple[int, ...]
    quantities: tuple[str, ...]
    sums: np.ndarray

    @classmethod
    def of(cls, fields: Sequence[Any]) -> Standing:
        """The standing of a layout's ``fields``: its fields ``seat+0``, ``seat+1``... (none: no
        standing). A block's labels are grouped by their first word (``built X`` and ``built Y``
        are one quantity, ``built``); ``present`` is left out (it is 1 for every seat)."""
        blocks = [f for f in fields if f.name.startswith("seat+") and f.name[5:].isdigit()]
        blocks.sort(key=lambda f: int(f.name[5:]))
        if not blocks or [int(f.name[5:]) for f in blocks] != list(range(len(blocks))):
            return cls((), (), np.zeros((0, 0), dtype=np.float32))
        labels = blocks[0].labels
        groups: dict[str, list[int]] = {}
        for offset, label in enumerate(labels):
            name = label.split(" ", 1)[0]
            if name != "present":
                groups.setdefault(name, []).append(offset)
        sums = np.zeros((len(labels), len(groups)), dtype=np.float32)
        for column, offsets in enumerate(groups.values()):
            sums[offsets, column] = 1
        return cls(tuple(f.start for f in blocks), tuple(groups), sums)

    def names(self, players: int) -> list[str]:
        """The standing's column names for ``players`` seats (counted from the row's first seat)."""
        return ([f"standing:{q}:seat+{k}" for q in self.quantities for k in range(players)]
                + [f"standing:{q}:lead+{k}" for q in self.quantities for k in range(players)]
                + [f"standing:{q}:most" for q in self.quantities])

    def values(self, observations: np.ndarray, players: int) -> np.ndarray:
        """Each seat's quantities as one observation sees them: (rows, players, quantities)."""
        size = self.sums.shape[0]
        blocks = np.stack([observations[:, start:start + size] for start in self.starts[:players]], axis=1)
        found: np.ndarray = blocks @ self.sums
        return found

    def columns(self, values: np.ndarray) -> np.ndarray:
        """The standing's columns of seats' ``values`` (rows, players, quantities), as ``names``
        orders them: each seat's value, its lead over the best other seat, the most of any seat."""
        rows, players, count = values.shape
        if not count:
            return np.zeros((rows, 0), dtype=np.float32)
        leads = np.empty_like(values)
        for k in range(players):
            others = np.delete(values, k, axis=1)
            leads[:, k] = values[:, k] - (others.max(axis=1) if players > 1 else 0)
        most = values.max(axis=1)
        return np.concatenate([values.transpose(0, 2, 1).reshape(rows, -1),
                               leads.transpose(0, 2, 1).reshape(rows, -1), most], axis=1).astype(np.float32)


@dataclass(frozen=True)
class Features:
    """How the positions of ``game`` with ``players`` seats become rows of numbers."""

    game: str
    players: int
    size: int
    encode: Callable[[Any, int], np.ndarray]
    labels: tuple[str, ...]
    standing: Standing

    def names(self, view: str) -> list[str]:
        """The name of each column of ``view``'s rows. Raises ``ValueError`` for another view."""
        if view == "everything":
            return ([f"seat+{k}:{label}" for k in range(self.players) for label in self.labels]
                    + self.standing.names(self.players))
        if view == "seat":
            return [f"viewer:{label}" for label in self.labels] + self.standing.names(self.players)
        raise ValueError(f"unknown view {view!r} (known: {', '.join(VIEWS)})")

    def digest(self, view: str) -> str:
        """A hash of ``view``'s columns and ``FEATURES_VERSION``: what a model records, and what must
        match when it is loaded. Raises ``ValueError`` for another view."""
        text = "\n".join([str(FEATURES_VERSION), self.game, str(self.players), view, *self.names(view)])
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def everything(self, state: Any) -> np.ndarray:
        """The rows of the whole view of ``state``: row ``t`` is about seat ``t``, an array of shape
        (players, players * size)."""
        return self.whole_rows(np.stack([self.encode(state, seat) for seat in range(self.players)])[None])

    def whole_rows(self, seen: np.ndarray) -> np.ndarray:
        """The whole view's rows of many positions from every seat's observation vector at each (an
        array (positions, players, size), as a game's ``encode_seats`` gives them): for each position,
        row ``t`` is seat ``t``'s vector then each other seat's in turn order, then the standing with
        each seat's quantities read from its own vector; an array (positions * players, columns)."""
        positions, n, size = seen.shape
        # order[t, k] = the seat k places after t: one gather for every position at once.
        order = (np.arange(n)[:, None] + np.arange(n)[None, :]) % n
        raw = np.take(seen, order, axis=1).reshape(positions * n, n * size)
        own = self.standing.values(seen.reshape(positions * n, size), 1).reshape(positions, n, -1)
        standing = self.standing.columns(np.take(own, order, axis=1).reshape(positions * n, n, -1))
        return np.concatenate([raw, standing.astype(raw.dtype, copy=False)], axis=1)

    def seat(self, state: Any, viewer: int) -> np.ndarray:
        """The row of what seat ``viewer`` may see of ``state`` (its observation, and the standing
        made from it alone), an array of shape (1, columns). Raises ``IndexError`` for a seat the game
        does not have."""
        seen = self.encode(state, viewer).reshape(1, -1)
        return np.concatenate([seen, self.standing.columns(self.standing.values(seen, self.players))], axis=1)

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
    return Features(game, players, int(spaces.SIZE), spaces.encode_state, labels, Standing.of(spaces.LAYOUT.fields))
