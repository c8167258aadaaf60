"""Climb's heuristic bot (the random bot is Governor's ``replay.engine_base.RandomPlayer``)."""

from __future__ import annotations

import random
from typing import Any

from toy_game import rules
from toy_game.cards import HAND_START
from toy_game.moves import Climb, Draw, Rest, Stay, ToyMove
from toy_game.state import Stage, ToyState


class HeuristicPlayer:
    """Draws while its hand is small and rounds remain to play the card; climbs with its lowest card
    that climbs (keeping the ladder low, so more cards fit on it), but in the last round with its
    highest (a card left in hand counts against it)."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: ToyState) -> ToyMove:
        """The bot's move in ``state``. Raises ``IndexError`` when the game is over."""
        legal = rules.legal_moves(state)
        if not legal:
            raise IndexError("the game is over: no move to choose")
        seat = state.current_seat
        assert seat is not None
        if state.stage is Stage.DRAW:
            wants = len(state.players[seat].hand) < HAND_START and rules.rounds_left(state) >= 1
            return Draw() if wants and Draw() in legal else Stay()
        climbs = [m for m in legal if isinstance(m, Climb)]
        if not climbs:
            return Rest()
        return climbs[-1] if rules.rounds_left(state) == 0 else climbs[0]

    def choose_working(self, game: Any) -> ToyMove:
        """The move in a working game (``replay.protocol.Working``)."""
        return self.choose(game.snapshot())
