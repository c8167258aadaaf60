"""A seat-balanced round robin of agents, each game recorded as a log and ranked.

The schedule is every combination of ``players`` agents out of those given (one, when there are as
many agents as seats), each in every rotation of the seats: over one cycle every agent sits in every
seat equally often and meets every other agent equally often. Game ``k`` is the cycle's seating
``k mod len(cycle)`` with the seed ``seed * 1_000_003 + k``, so the same arguments give the same logs
on any number of workers (as long as no agent overruns its time budget: a late answer is replaced).
"""

from __future__ import annotations

import hashlib
import json
import math
import multiprocessing
import os
import signal
from collections import deque
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing
from dataclasses import dataclass
from typing import Any, overload

from governor.arena.leaderboard import Leaderboard
from governor.arena.play import GameRecord, play_game
from play.agents import AgentError, EngineAgent, built_in_agent
from play.entries import Entry, name_agents
from play.hosted import Host, HostedAgent, kill_all, kill_all_now
from replay import exits, pools
from replay.registry import engine_for

#: A game of built-in agents that reaches a dead end is played again from the next attempt seed (as
#: ``simulate`` does: random play can meet a position the rules have no exit for). A game with an
#: agent from outside is played once: agents that keep a game going forever would do so again.
MAX_ATTEMPTS = 20


class ArenaError(Exception):
    """The arena cannot start (a bad player count, too few agents, an agent that cannot be built) or
    cannot go on (a worker process killed from outside)."""


def _combination(rank: int, agents: int, players: int) -> tuple[int, ...]:
    """The ``rank``-th combination of ``players`` out of ``range(agents)`` in lexicographic order
    (``itertools.combinations``'s order), computed from ``rank`` alone."""
    chosen = []
    candidate = 0
    for place in range(players):
        while True:
            starting_here = math.comb(agents - candidate - 1, players - place - 1)
            if rank < starting_here:
                break
            rank -= starting_here
            candidate += 1
        chosen.append(candidate)
        candidate += 1
    return tuple(chosen)


class Schedule(Sequence[tuple[int, ...]]):
    """One cycle of seatings: every combination of ``players`` agents out of ``agents``, each in every
    rotation of the seats; item k is the entry index in each seat of the cycle's k-th game. Computed
    from k when asked (60 agents in 5 seats make 27 million seatings: none is stored)."""

    def __init__(self, agents: int, players: int) -> None:
        self.agents = agents
        self.players = players
        self.length = math.comb(agents, players) * players

    def __len__(self) -> int:
        return self.length

    @overload
    def __getitem__(self, index: int) -> tuple[int, ...]: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[tuple[int, ...]]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.length))]
        if index < 0:
            index += self.length
        if not 0 <= index < self.length:
            raise IndexError("seating out of the cycle")
        group = _combination(index // self.players, self.agents, self.players)
        shift = index % self.players
        return group[shift:] + group[:shift]


def schedule(agents: int, players: int) -> Schedule:
    """One cycle of seatings (``Schedule``).

    Raises ``ArenaError`` when there are fewer agents than seats."""
    if agents < players:
        raise ArenaError(f"{players} seats need at least {players} agents, {agents} given "
                         "(give a spec twice to seat it twice)")
    return Schedule(agents, players)


def arena_id(game: str, players: int, seed: int, specs: Sequence[str]) -> str:
    """What tells one arena from another in its logs' ``meta.arena``: a digest of the game, the seats,
    the seed and the agents' specs in order (the same command gives the same id)."""
    text = json.dumps([game, players, seed, list(specs)], ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:16]


def make_entries(specs: Sequence[str], game: str) -> tuple[list[Entry], dict[int, Host]]:
    """The entries of ``specs`` and the agent hosts started to name them (``play.entries.name_agents``).

    Raises ``ArenaError`` for a spec that names no usable agent, or one whose name or version is not
    a plain string a player's name may be (then no host is left running)."""
    try:
        return name_agents(specs, game)
    except AgentError as err:
        raise ArenaError(str(err)) from None


@dataclass(frozen=True)
class ArenaConfig:
    """What every worker needs to play any game of the arena."""

    game: str
    players: int
    entries: tuple[Entry, ...]
    seed: int
    budget: float
    cycle: Schedule
    arena: str


class _Table:
    """One process's agents: built-in ones in the process, users' ones each in its host."""

    def __init__(self, config: ArenaConfig, hosts: dict[int, Host] | None = None) -> None:
        self.config = config
        hosts = hosts if hosts is not None else {}
        self.agents: list[EngineAgent | HostedAgent] = []
        for index, entry in enumerate(config.entries):
            built = built_in_agent(entry.spec, config.game)
            # One instance per entry per process; agents are told each new game by ``on_game_start``.
            self.agents.append(built if built is not None else
                               HostedAgent(entry.spec, config.game, config.budget, hosts.pop(index, None)))

    def play(self, index: int) -> tuple[int, GameRecord | None]:
        config = self.config
        seating = config.cycle[index % len(config.cycle)]
        seated = [self.agents[i] for i in seating]
        names = [config.entries[i].name for i in seating]
        meta = {
            "generator": "governor arena",
            "arena": config.arena,
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

    def close(self) -> None:
        """Let every host end by itself (its agent's ``atexit`` runs), killing those that do not."""
        for agent in self.agents:
            if isinstance(agent, HostedAgent):
                agent.close()


_WORKER: dict[str, _Table] = {}


def _stop_worker(signum: int, frame: Any) -> None:
    # The driver ends the pool: the worker's hosts go with it, at once. Nothing that waits or takes
    # a lock: the signal may have come inside the very call that holds it.
    kill_all_now()
    os._exit(128 + signum)


def _init_worker(config: ArenaConfig) -> None:
    exits.worker_leaves_stopping_to_driver()
    signal.signal(signal.SIGTERM, _stop_worker)
    from multiprocessing.util import Finalize

    table = _WORKER["table"] = _Table(config)
    # Run when the pool lets the worker go: its hosts end by themselves.
    Finalize(table, table.close, exitpriority=10)


def _play_chunk(start: int, stop: int) -> list[tuple[int, GameRecord | None]]:
    table = _WORKER["table"]
    return [table.play(index) for index in range(start, stop)]


def _stop_pool(executor: ProcessPoolExecutor, finished: bool) -> None:
    """End the pool: let the workers go when every game was played; else end them at once (each
    kills its hosts)."""
    if finished:
        executor.shutdown(wait=True)
    else:
        pools.stop_now(executor)


def play_games(config: ArenaConfig, games: int, workers: int,
               hosts: dict[int, Host] | None = None, first: int = 0) -> Generator[tuple[int, GameRecord | None], None, None]:
    """Each game's index and record (None for a game that did not end within the move limit), in
    index order (on ``workers`` processes when more than one): the games ``first`` to ``first + games
    - 1`` of the arena. ``hosts``: agent hosts already loaded, by entry index (used with one worker;
    closed with more, each worker starting its own).

    Raises ``ArenaError`` when a worker process dies (killed from outside: an agent's own process
    ending is its fault, not a worker's death)."""
    if workers <= 1 or games <= 1:
        table = _Table(config, hosts)
        finished = False
        try:
            for index in range(first, first + games):
                yield table.play(index)
            finished = True
        finally:
            with exits.signals_held():
                if finished:
                    table.close()
                else:
                    kill_all()
        return
    for host in (hosts or {}).values():
        host.close()
    # Fork: workers start at once and inherit the engines' modules (users' agents start in hosts).
    context = multiprocessing.get_context("fork") if hasattr(os, "fork") else multiprocessing.get_context()
    executor = ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker, initargs=(config,))
    chunk = max(1, min(16, games // (workers * 8) or 1))
    pending: deque[Future[list[tuple[int, GameRecord | None]]]] = deque()
    submitted, stop = first, first + games
    finished = False
    try:
        while pending or submitted < stop:
            while submitted < stop and len(pending) < workers * 4:
                # Held signals: an interruption while a worker is forked would leave it unended.
                with exits.signals_held():
                    pending.append(executor.submit(_play_chunk, submitted, min(stop, submitted + chunk)))
                submitted += chunk
            try:
                results = pools.result(pending.popleft())
            except BrokenProcessPool:
                raise ArenaError("a worker process died (killed from outside?): the arena stopped, "
                                 "no log written") from None
            yield from results
        finished = True
    finally:
        with exits.signals_held():
            _stop_pool(executor, finished)


def run_arena(game: str, players: int, specs: Sequence[str], games: int, seed: int, budget: float = 1.0,
              workers: int = 1, on_game: Callable[[int, GameRecord], None] | None = None,
              on_unfinished: Callable[[int, list[str]], None] | None = None,
              first: int = 0) -> tuple[list[Entry], Leaderboard]:
    """Play ``games`` games and rank the agents; ``first`` is the index of the first (a later part of
    the same arena: its games are those of one longer run, so an arena can be played in parts and
    resumed); ``on_game`` sees every record in game order (to
    write its log or draw progress). A game that does not end within the simulation's move limit (agents
    that keep it going) is not recorded: it is counted against each of its agents (``unfinished``) and
    ``on_unfinished`` sees its index and the agents' names. Users' agents run in agent hosts, every
    one of them ended when this returns or raises.

    Raises ``ArenaError`` when the arena cannot start (bad player count, too few agents, an agent
    that cannot be built) or a worker process is killed from outside."""
    engine = engine_for(game)
    if not engine.min_players <= players <= engine.max_players:
        raise ArenaError(f"{game} is played by {engine.min_players} to {engine.max_players} players, not {players}")
    if games < 1:
        raise ArenaError("--games must be at least 1")
    if first < 0:
        raise ArenaError(f"the first game's index must be 0 or more, not {first}")
    cycle = schedule(len(specs), players)
    try:
        entries, hosts = make_entries(specs, game)
        config = ArenaConfig(game, players, tuple(entries), seed, budget, cycle, arena_id(game, players, seed, specs))
        board = Leaderboard([(e.name, e.spec, e.version) for e in entries], players)
        with closing(play_games(config, games, workers, hosts, first)) as played:
            for index, record in played:
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
    finally:
        with exits.signals_held():
            kill_all()
    return entries, board
