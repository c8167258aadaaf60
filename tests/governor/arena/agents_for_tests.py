"""Agents written by a user, as the arena loads them from a file: one that plays well enough to be
ranked, and one that breaks every rule of the protocol on its first three decisions of each game."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from governor.arena import Agent


class LastMoveAgent(Agent):
    """Plays the last legal move: a deterministic agent of ten lines."""

    name = "last-move"
    version = "0.1"

    def act(self, observation: dict[str, Any], legal_moves: Sequence[Any]) -> Any:
        assert observation["seat"] == observation["to_act"]
        return legal_moves[-1]


class FaultyAgent(Agent):
    """Raises, then sleeps far past any budget, then returns garbage; then plays the first move."""

    name = "faulty"

    def on_game_start(self, game: str, seat: int, players: Sequence[str], seed: int) -> None:
        self.decisions = 0

    def act(self, observation: dict[str, Any], legal_moves: Sequence[Any]) -> Any:
        self.decisions += 1
        if self.decisions == 1:
            raise RuntimeError("agent crashed\x1b[31m")
        if self.decisions == 2:
            time.sleep(30)
        if self.decisions == 3:
            return {"garbage": list(range(10_000))}
        return legal_moves[0]


class SeededRandomAgent(Agent):
    """Plays a random legal move, drawn from the game's seed; says on its standard output (the arena's
    standard error) which kinds of move it had a choice among in each game."""

    name = "seeded-random"

    def on_game_start(self, game: str, seat: int, players: Sequence[str], seed: int) -> None:
        self.rng = random.Random(seed * 10 + seat)
        self.chosen: set[str] = set()

    def act(self, observation: dict[str, Any], legal_moves: Sequence[Any]) -> Any:
        if len(legal_moves) > 1:
            self.chosen.update(type(move).__name__ for move in legal_moves)
        return self.rng.choice(legal_moves)

    def on_game_end(self, observation: dict[str, Any], result: dict[str, Any]) -> None:
        print("chose among:", " ".join(sorted(self.chosen)))
