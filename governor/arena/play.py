"""One arena game: agents in seats, every move checked, timed and recorded as a Governor log.

An agent that raises, answers after its time budget or returns anything but one of the legal moves
commits a fault: the seat plays a random legal move instead (drawn from the game's seed, so the
arena goes on and stays reproducible) and the fault is counted and written into the log's ``meta``.
"""

from __future__ import annotations

import random
import reprlib
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from governor.arena.agents import Agent, EngineAgent
from governor.arena.views import seat_view
from replay.registry import engine_for
from replay.simulate import play_out

#: The documented key order of a log (as ``governor simulate`` writes it).
LOG_ORDER = ("format", "version", "game", "source_id", "meta", "players", "options", "setup", "moves", "result")
#: How much of an agent's exception or garbage answer a fault keeps.
DETAIL_CHARS = 200


class Timeout(BaseException):
    """Raised inside an agent's ``act`` when its time budget runs out (a BaseException, so that an
    agent's own ``except Exception`` does not swallow it)."""


@dataclass(frozen=True)
class Fault:
    """One fault: the move number (1-based), the seat, ``timeout`` / ``error`` / ``illegal``, and what
    happened in words (plain text, cut to ``DETAIL_CHARS``)."""

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


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Raise ``Timeout`` in this thread once ``seconds`` have passed (a real-time timer, main thread
    only; elsewhere the overrun is found when the agent answers)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise Timeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _short(text: str) -> str:
    # Plain text of bounded size: whatever an agent raises or returns is only ever shown escaped.
    return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 3] + "..."


def _described(value: Any) -> str:
    """A bounded text of anything an agent hands back (``reprlib`` cuts long containers; a ``__repr__``
    or ``__str__`` that raises is not the arena's problem)."""
    try:
        return _short(reprlib.repr(value) if not isinstance(value, BaseException) else f"{type(value).__name__}: {value}")
    except Exception:
        return f"<{type(value).__name__}>"


def _ask(agent: Agent, engine: Any, play: Any, game: str, seat: int, names: Sequence[str],
         budget: float) -> tuple[Any, str | None, str, float]:
    """The agent's move, its kind and detail when it is a fault, and the seconds the agent took (its
    own ``act`` only: listing the legal moves and the view is the arena's time)."""
    clock = time.perf_counter
    if isinstance(agent, EngineAgent):
        began = clock()
        return agent.choose_working(play), None, "", clock() - began
    state = play.snapshot()
    legal = engine.legal_moves(state)
    observation = seat_view(game, state, seat, names)
    began = clock()
    try:
        with _deadline(budget * 1.5 + 0.05 if budget > 0 else 0):
            move = agent.act(observation, legal)
    except Timeout:
        return None, "timeout", f"no answer within {budget:g} s", clock() - began
    except Exception as err:  # an agent's own code: any exception is its fault, never the arena's
        return None, "error", _described(err), clock() - began
    spent = clock() - began
    try:
        canonical = engine.canonical_move(move)
        ok = canonical in legal
    except Exception:  # garbage that is not even a move
        ok = False
    if not ok:
        return None, "illegal", "not a legal move: " + _described(move), spent
    return canonical, None, "", spent


def play_game(game: str, agents: Sequence[Agent], names: Sequence[str], seed: int, budget: float,
              source_id: str, meta: dict[str, Any]) -> GameRecord | None:
    """Play one game with ``agents[i]`` in seat i, named ``names[i]``; None when it does not end within
    the simulation's move limit (random play can reach a dead end the rules have no exit for).

    ``budget`` is each decision's time in seconds (0: none). Agents' exceptions are faults, not errors;
    an exception of the engine itself propagates."""
    engine = engine_for(game)
    log = engine.new_random_game(list(names), seed, {})
    state = engine.simulation_state(log, seed)
    fallback = random.Random(f"arena-fallback:{seed}")
    players = len(agents)
    for seat, agent in enumerate(agents):
        start = getattr(agent, "on_game_start", None)
        if start is None:
            continue
        if isinstance(agent, EngineAgent):
            start(game, seat, list(names), seed)  # a built-in agent that fails is a bug: it propagates
            continue
        try:
            start(game, seat, list(names), seed)
        except Exception:  # a user's hook failing is not a move fault; the game goes on
            pass
    moves: list[dict[str, Any]] = []
    faults: list[Fault] = []
    seconds = [0.0] * players
    decisions = [0] * players
    play = engine.working(state)
    clock = time.perf_counter
    choose: Callable[[int], Any]
    if all(isinstance(agent, EngineAgent) for agent in agents):
        # Built-in agents only: no view, no legal list, no fault to look for (one that fails is a
        # bug and propagates); each decision is timed all the same.
        chooses = [agent.choose_working for agent in agents]  # type: ignore[attr-defined]

        def choose(seat: int) -> Any:
            began = clock()
            move = chooses[seat](play)
            seconds[seat] += clock() - began
            decisions[seat] += 1
            return move
    else:
        def choose(seat: int) -> Any:
            move, fault, detail, spent = _ask(agents[seat], engine, play, game, seat, names, budget)
            seconds[seat] += spent
            decisions[seat] += 1
            if fault is None and budget > 0 and spent > budget and not isinstance(agents[seat], EngineAgent):
                fault, detail = "timeout", f"answered after {spent:.3f} s (budget {budget:g} s)"
            if fault is not None:
                faults.append(Fault(len(moves) + 1, seat, fault, detail))
                move = fallback.choice(engine.legal_moves(play.snapshot()))
            return move

    if not play_out(play, choose, moves):
        return None
    final = play.snapshot()
    obj = engine.finish_log(log, final, moves)
    obj["source_id"] = source_id
    obj["meta"] = {**meta, "seed": seed, **obj.get("meta", {})}
    if faults:
        obj["meta"]["faults"] = [f.to_json() for f in faults]
    obj = {k: obj[k] for k in LOG_ORDER if k in obj}
    lines = engine.scores(final)
    winners = list(engine.winners(final))
    keys = [(s.total, s.tiebreak) for s in lines]
    ranks = [1 + sum(1 for other in keys if other > mine) for mine in keys]
    shares = [1.0 / len(winners) if s in winners else 0.0 for s in range(players)]
    result = obj.get("result", {"scores": [s.total for s in lines], "winners": winners})
    for seat, agent in enumerate(agents):
        end = getattr(agent, "on_game_end", None)
        if end is not None and not isinstance(agent, EngineAgent):
            try:
                end(seat_view(game, final, seat, names), result)
            except Exception:  # as on_game_start: the result stands
                pass
    return GameRecord(obj, [s.total for s in lines], ranks, shares, faults, seconds, decisions)
