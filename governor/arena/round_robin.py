"""A seat-balanced round robin of agents, each game recorded as a log and ranked.

The schedule is every combination of ``players`` agents out of those given (one, when there are as
many agents as seats), each in every rotation of the seats: over one cycle every agent sits in every
seat equally often and meets every other agent equally often. Game ``k`` is the cycle's seating
``k mod len(cycle)`` with the seed ``seed * 1_000_003 + k``, so the same arguments give the same logs
on any number of workers (as long as no agent overruns its time budget: a late answer is replaced).
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from governor.arena.agents import Agent, EngineAgent, load_agent
from governor.arena.leaderboard import Leaderboard
from governor.arena.play import GameRecord, play_game
from replay import exits
from replay.registry import engine_for

#: A game of built-in agents that reaches a dead end is played again from the next attempt seed (as
#: ``simulate`` does: random play can meet a position the rules have no exit for). A game with an
#: agent from outside is played once: agents that keep a game going forever would do so again.
MAX_ATTEMPTS = 20
_UNSAFE_NAME = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class ArenaError(Exception):
    """The arena cannot start: a bad player count, too few agents, an agent that cannot be built."""


@dataclass(frozen=True)
class Entry:
    """One agent given on the command line: its spec, its player name (unique in the arena: a spec
    given twice is ``name#2``), and its version."""

    spec: str
    name: str
    version: str


def schedule(agents: int, players: int) -> list[tuple[int, ...]]:
    """One cycle of seatings: per game, the entry index in each seat.

    Raises ``ArenaError`` when there are fewer agents than seats."""
    if agents < players:
        raise ArenaError(f"{players} seats need at least {players} agents, {agents} given "
                         "(give a spec twice to seat it twice)")
    cycle = []
    for group in itertools.combinations(range(agents), players):
        for shift in range(players):
            cycle.append(group[shift:] + group[:shift])
    return cycle


def _agent_name(agent: Any, spec: str) -> str:
    name = getattr(agent, "name", None)
    if not isinstance(name, str) or name in ("", "agent"):
        name = type(agent).__name__ if not spec.startswith(("random", "heuristic", "expert", "search")) else spec
    name = _UNSAFE_NAME.sub("?", name).strip() or "agent"
    return name[:60]


def make_entries(specs: Sequence[str], game: str) -> list[Entry]:
    """The entries of ``specs`` (each agent built once to learn its name and version).

    Raises ``ArenaError`` for a spec that names no usable agent."""
    from governor.arena.agents import AgentError

    entries: list[Entry] = []
    seen: dict[str, int] = {}
    for spec in specs:
        try:
            agent = load_agent(spec, game)
        except AgentError as err:
            raise ArenaError(str(err)) from None
        base = _agent_name(agent, spec)
        seen[base] = seen.get(base, 0) + 1
        name = base if seen[base] == 1 else f"{base}#{seen[base]}"
        version = str(getattr(agent, "version", "1"))[:40]
        entries.append(Entry(spec, name, _UNSAFE_NAME.sub("?", version)))
    return entries


@dataclass(frozen=True)
class ArenaConfig:
    """What every worker needs to play any game of the arena."""

    game: str
    players: int
    entries: tuple[Entry, ...]
    seed: int
    budget: float
    cycle: tuple[tuple[int, ...], ...]


_WORKER: dict[str, Any] = {}


def _init_worker(config: ArenaConfig) -> None:
    exits.worker_leaves_stopping_to_driver()
    _init(config)


def _init(config: ArenaConfig) -> None:
    _WORKER["config"] = config
    # One instance per entry per worker; agents are told each new game by ``on_game_start``.
    _WORKER["agents"] = [load_agent(e.spec, config.game) for e in config.entries]


def _play(index: int) -> tuple[int, GameRecord | None]:
    config: ArenaConfig = _WORKER["config"]
    agents: list[Agent] = _WORKER["agents"]
    seating = config.cycle[index % len(config.cycle)]
    seated = [agents[i] for i in seating]
    names = [config.entries[i].name for i in seating]
    meta = {
        "generator": "governor arena",
        "agents": [{"seat": s, "name": config.entries[i].name, "spec": config.entries[i].spec,
                    "version": config.entries[i].version} for s, i in enumerate(seating)],
        "budget_seconds": config.budget,
    }
    source_id = f"arena-{config.game}-{config.players}p-{config.seed}-{index:06d}"
    base = config.seed * 1_000_003 + index
    attempts = MAX_ATTEMPTS if all(isinstance(a, EngineAgent) for a in seated) else 1
    for attempt in range(attempts):
        record = play_game(config.game, seated, names, base + attempt * 1_000_000_007, config.budget,
                           source_id, meta)
        if record is not None:
            return index, record
    return index, None


def play_games(config: ArenaConfig, games: int, workers: int) -> Iterator[tuple[int, GameRecord | None]]:
    """Each game's index and record (None for a game that did not end within the move limit), in index order (on ``workers`` processes when more than one)."""
    if workers <= 1:
        _init(config)
        for index in range(games):
            yield _play(index)
        return
    # Fork: workers start at once and inherit the agents' modules (a file agent is loaded again by its spec).
    context = multiprocessing.get_context("fork") if hasattr(os, "fork") else multiprocessing.get_context()
    pool = None
    try:
        # An interruption waits until the pool is made, so that the pool is always ended.
        with exits.signals_held():
            pool = context.Pool(workers, initializer=_init_worker, initargs=(config,))
        started = pool
        yield from started.imap(_play, range(games), chunksize=max(1, min(16, games // (workers * 8) or 1)))
    finally:
        if pool is not None:
            pool.terminate()


def run_arena(game: str, players: int, specs: Sequence[str], games: int, seed: int, budget: float = 1.0,
              workers: int = 1, on_game: Callable[[int, GameRecord], None] | None = None,
              on_unfinished: Callable[[int, list[str]], None] | None = None) -> tuple[list[Entry], Leaderboard]:
    """Play ``games`` games and rank the agents; ``on_game`` sees every record in game order (to
    write its log or draw progress). A game that does not end within the simulation's move limit (agents
    that keep it going) is not recorded: it is counted against each of its agents (``unfinished``) and
    ``on_unfinished`` sees its index and the agents' names.

    Raises ``ArenaError`` when the arena cannot start (bad player count, too few agents, an agent
    that cannot be built)."""
    engine = engine_for(game)
    if not engine.min_players <= players <= engine.max_players:
        raise ArenaError(f"{game} is played by {engine.min_players} to {engine.max_players} players, not {players}")
    if games < 1:
        raise ArenaError("--games must be at least 1")
    entries = make_entries(specs, game)
    cycle = schedule(len(entries), players)
    config = ArenaConfig(game, players, tuple(entries), seed, budget, tuple(cycle))
    board = Leaderboard([(e.name, e.spec, e.version) for e in entries], players)
    for index, record in play_games(config, games, workers):
        seated = [entries[i].name for i in cycle[index % len(cycle)]]
        if record is None:
            board.unfinished(seated)
            if on_unfinished is not None:
                on_unfinished(index, seated)
            continue
        board.add(seated, record.scores, record.ranks, record.shares,
                  [(f.seat, f.kind) for f in record.faults], record.seconds, record.decisions)
        if on_game is not None:
            on_game(index, record)
    return entries, board
