"""One arena game: agents in seats, every move checked, timed and recorded as a Governor log.

A user's agent plays from its agent host (``play.hosted``). When it raises, answers after
its time budget, returns anything but one of the legal moves, or its process ends, it commits a
fault: the seat plays a random legal move instead (drawn from the game's seed, so the arena goes on
and stays reproducible; for the rest of the game when its process ended) and the fault is counted and
written into the log's ``meta``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from play.agents import EngineAgent
from play.hosted import HostedAgent
from play.views import seat_view
from replay.registry import engine_for
from replay.simulate import play_out

#: The documented key order of a log (as ``governor simulate`` writes it).
LOG_ORDER = ("format", "version", "game", "source_id", "meta", "players", "options", "setup", "moves", "result")


@dataclass(frozen=True)
class Fault:
    """One fault: the move number (1-based; 0 for ``on_game_start``, the number of moves played for
    ``on_game_end``), the seat, ``timeout`` / ``error`` / ``illegal`` / ``crash``, and what happened
    in words (plain text, cut to ``play.host.DETAIL_CHARS``)."""

    move: int
    seat: int
    kind: str
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"move": self.move, "seat": self.seat, "kind": self.kind, "detail": self.detail}


@dataclass
class GameRecord:
    """A finished arena game: its log, each seat's score, rank (1 = best; equal for a full tie) and
    win share (1/k for a k-way full tie), the faults, and each seat's time in its agent."""

    log: dict[str, Any]
    scores: list[int]
    ranks: list[int]
    shares: list[float]
    faults: list[Fault] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    decisions: list[int] = field(default_factory=list)


def play_game(game: str, agents: Sequence[EngineAgent | HostedAgent], names: Sequence[str], seed: int,
              budget: float, source_id: str, meta: dict[str, Any]) -> GameRecord | None:
    """Play one game with ``agents[i]`` in seat i, named ``names[i]``; None when it does not end within
    the simulation's move limit (random play can reach a dead end the rules have no exit for).

    ``budget`` is each decision's time in seconds (0: none), kept by each ``HostedAgent``. A hosted
    agent's misdeeds are faults, not errors; an exception of the engine or of a built-in agent (a
    bug) propagates."""
    engine = engine_for(game)
    log = engine.new_random_game(list(names), seed, {})
    state = engine.simulation_state(log, seed)
    fallback = random.Random(f"arena-fallback:{seed}")
    players = len(agents)
    faults: list[Fault] = []
    for seat, agent in enumerate(agents):
        if isinstance(agent, HostedAgent):
            fault = agent.begin(game, seat, list(names), seed)
            if fault is not None:
                faults.append(Fault(0, seat, *fault))
        else:
            agent.on_game_start(game, seat, list(names), seed)
    moves: list[dict[str, Any]] = []
    seconds = [0.0] * players
    decisions = [0] * players
    play = engine.working(state)
    clock = time.perf_counter
    choose: Callable[[int], Any]
    built_in = [agent.choose_working if isinstance(agent, EngineAgent) else None for agent in agents]
    if all(chosen is not None for chosen in built_in):
        # Built-in agents only: no view, no legal list, no fault to look for (one that fails is a
        # bug and propagates); each decision is timed all the same.
        chooses = [agent.choose_working for agent in agents]  # type: ignore[union-attr]

        def choose(seat: int) -> Any:
            began = clock()
            move = chooses[seat](play)
            seconds[seat] += clock() - began
            decisions[seat] += 1
            return move
    else:
        def choose(seat: int) -> Any:
            agent = agents[seat]
            if isinstance(agent, EngineAgent):
                began = clock()
                move = agent.choose_working(play)
                seconds[seat] += clock() - began
                decisions[seat] += 1
                return move
            state = play.snapshot()
            legal = engine.legal_moves(state)
            if agent.out:  # its process ended during this game
                return fallback.choice(legal)
            move, fault, spent = agent.decide(engine, seat_view(game, state, seat, names), legal)
            seconds[seat] += spent
            decisions[seat] += 1
            if fault is not None:
                faults.append(Fault(len(moves) + 1, seat, *fault))
                move = fallback.choice(legal)
            return move

    if not play_out(play, choose, moves):
        return None
    final = play.snapshot()
    obj = engine.finish_log(log, final, moves)
    obj["source_id"] = source_id
    obj["meta"] = {**meta, "seed": seed, **obj.get("meta", {})}
    lines = engine.scores(final)
    winners = list(engine.winners(final))
    result = obj.get("result", {"scores": [s.total for s in lines], "winners": winners})
    for seat, agent in enumerate(agents):
        if isinstance(agent, HostedAgent):
            fault = agent.end(seat_view(game, final, seat, names), result)
            if fault is not None:
                faults.append(Fault(len(moves), seat, *fault))
    if faults:
        obj["meta"]["faults"] = [f.to_json() for f in faults]
    obj = {k: obj[k] for k in LOG_ORDER if k in obj}
    keys = [(s.total, s.tiebreak) for s in lines]
    ranks = [1 + sum(1 for other in keys if other > mine) for mine in keys]
    shares = [1.0 / len(winners) if s in winners else 0.0 for s in range(players)]
    return GameRecord(obj, [s.total for s in lines], ranks, shares, faults, seconds, decisions)
