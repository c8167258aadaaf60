"""What a Puerto Rico seat cannot see, and a determinisation for analysis rollouts.

Everything on a Puerto Rico table is open except the order of the face-down plantation stack (and
of the discarded plantations once they are reshuffled): a seat knows which tiles the stack holds
(every tile not on the table) but not their order. Victory-point chips are hidden at the table, but
their count only matters at the end and is kept as it is.
"""

from __future__ import annotations

import random
from dataclasses import replace

from replay.puerto_rico.catalogue import TILE_ORDER
from replay.puerto_rico.state import PuertoRicoState


def determinise(state: PuertoRicoState, seat: int, rng: random.Random) -> PuertoRicoState:
    """``state`` as ``seat`` might believe it to be: the plantation stack in a random order (its tiles
    sorted first, so the result depends only on what the seat sees and on ``rng``), and future
    reshuffles drawn from a fresh seed."""
    del seat  # every seat sees the same things in Puerto Rico
    stack = sorted(state.plantation_stack, key=TILE_ORDER.__getitem__)
    rng.shuffle(stack)
    return replace(state, plantation_stack=tuple(stack), reshuffles=(), shuffle_seed=rng.randrange(2**62))
