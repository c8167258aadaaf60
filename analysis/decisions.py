"""Each decision of a game with every candidate's estimated winning chance, the loss of the move
played and its tag (inaccuracy, mistake, blunder), computed by rollouts (``analysis.rollouts``).

The candidates of a decision vary only what its seat decides: the acting seat's legal moves, each
with the parts other seats decide in it (another seat refraining from a draw the move offers)
following the move played where they apply, else the rules' default. When there are more than
``top``, the move played, the rollout bot's move and the best of a cheap pre-ranking (a few
rollouts each, over at most ``PRERANK_CAP`` moves) make up the ``top``. A part of a move that another
seat decides is that seat's decision, analysed for it at the same step (``Engine.deciders``).

What a decision is and how it is tagged (``Candidate``, ``Decision``, ``tag_for``...) live in
``analysis.verdicts`` and are named here too, where the analysis' users find them.
"""

from __future__ import annotations

import multiprocessing
import random
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from analysis.choices import one_sensible_move, same_move, same_state_groups, unlisted
from analysis.choices import own_choices as own_choices
from analysis.racing import Race
from analysis.rollouts import RolloutResult, RolloutTask, cutoff_model, run_task, share_stats, state_players
from analysis.verdicts import THRESHOLDS as THRESHOLDS
from analysis.verdicts import Z95 as Z95
from analysis.verdicts import Candidate as Candidate
from analysis.verdicts import Decision as Decision
from analysis.verdicts import interval as interval
from analysis.verdicts import significant as significant
from analysis.verdicts import tag_for as tag_for
from replay import exits, pools
from replay.logfile import GameLog
from replay.registry import bot_version, engine_for, game_of, make_bot, rollout_bot
from replay.replayer import iter_replay

#: Rollouts of each move in the pre-ranking, and the most moves pre-ranked.
PRERANK_ROLLOUTS = 4
PRERANK_CAP = 48
#: How the rollouts are spent: ``adaptive`` races the candidates (``analysis.racing``: a candidate
#: leaves once the rollouts have decided about it, up to ``rollouts`` each), ``fixed`` gives every
#: candidate exactly ``rollouts`` (the analysis as it was before racing).
SAMPLINGS = ("adaptive", "fixed")
#: What the race is for (adaptive sampling): ``analysis`` judges the move played (a candidate stays
#: only while it could make it a blunder), ``play`` chooses a move (the ``search`` agent: a candidate
#: stays while it could be better than the prior bot's move, and the leader is played only when it
#: beats it beyond chance; ``analysis.racing``).
PURPOSES = ("analysis", "play")
#: Adaptive sampling races every choice of a seat that has at most this many more than ``top`` and
#: lists the ``top`` best: a pre-ranking of 4 rollouts a move left out the best of 7 or 8 moves now
#: and then (a move the other seed's analysis found), and a race drops a poor move for a few rollouts.
ENTRANT_MARGIN = 2


@dataclass
class Options:
    """How to analyse: rollouts per candidate (adaptive sampling: at most), seed, at most ``top``
    candidates per decision, worker processes (1 runs inline), which steps (1-based move numbers;
    None for all), the kind of bot that plays the rollouts (None: the one the game declares,
    ``replay.registry.rollout_bot``), how rollouts are spent (``SAMPLINGS``) and after how many moves
    past the candidate a rollout still in play is valued by the win-chance model (``cutoff``; None:
    every rollout is played to the end; ``analysis.rollouts``), and what the race is for (``PURPOSES``)."""

    rollouts: int = 100
    seed: int = 0
    top: int = 6
    workers: int = 1
    steps: tuple[int, int] | None = None
    chunk: int = 25
    extra: dict[str, Any] = field(default_factory=dict)
    rollout_bot: str | None = None
    sampling: str = "adaptive"
    cutoff: int | None = None
    purpose: str = "analysis"

    def __post_init__(self) -> None:
        """Raises ``ValueError`` naming the known values for a ``sampling`` or ``purpose`` it does not
        know (a misspelt one would otherwise be taken for another)."""
        if self.sampling not in SAMPLINGS:
            raise ValueError(f"unknown sampling {self.sampling!r} (known: {', '.join(SAMPLINGS)})")
        if self.purpose not in PURPOSES:
            raise ValueError(f"unknown purpose {self.purpose!r} (known: {', '.join(PURPOSES)})")

    @property
    def adaptive(self) -> bool:
        return self.sampling != "fixed"


def rollout_kind(game: str, options: Options) -> str:
    """The kind of bot that plays the rollouts of ``game`` under ``options``: the one asked for, else
    the one the game declares. Raises ``ValueError`` naming the game's bots for a kind it does not
    declare, and ``KeyError`` naming the known games for an unknown game."""
    if options.rollout_bot is None:
        return rollout_bot(game)
    declared = game_of(game)
    if options.rollout_bot not in declared.bot_kinds:
        raise ValueError(f"{declared.title} has no {options.rollout_bot!r} bot (bots: {', '.join(declared.bot_kinds)})")
    return options.rollout_bot


def check_cutoff(game: str, players: int, options: Options) -> None:
    """Nothing when ``options`` play every rollout to the end; else load the win-chance model that
    values the cut rollouts of ``game`` with ``players`` seats, before any rollout. Raises
    ``ValueError`` for a cutoff below 1 move, ``analysis.winchance.model.ModelError`` (one line naming
    the file) when the game has no usable model for that many players, and ``KeyError`` for a game
    without an observation vector."""
    if options.cutoff is None:
        return
    if options.cutoff < 1:
        raise ValueError(f"a rollout is cut after 1 move or more, not {options.cutoff}")
    cutoff_model(game, players)


@dataclass(frozen=True)
class _Point:
    """A decision to analyse: its step, the seat deciding, the state before the move, the move
    played, and the seat making the move (``seat``, unless the decision is a part of its move)."""

    step: int
    seat: int
    state: Any
    played: Any
    mover: int


def decision_points(log: GameLog, steps: tuple[int, int] | None = None) -> Iterator[tuple[_Point, int]]:
    """Every decision of a replayed game, in game order: the state before the move, the seat, the
    move played, and the number of the seat's distinct choices (``own_choices``). At each step the
    decision of the seat to act comes first (when it had more than one choice), then, by seat, each
    other seat that decides a part of the move (``Engine.deciders``) and had more than one choice for
    it. Choices that all lead to the same state are one sensible move, not a decision. Raises as
    ``iter_replay`` when the log is bad."""
    engine = engine_for(log.game)
    before = None
    for state, step in iter_replay(log, describe=False):
        if step is not None and step.seat is not None:
            if before is not None and (steps is None or steps[0] <= step.number <= steps[1]):
                legal = engine.legal_moves(before)
                for seat in (step.seat, *engine.deciders(before, step.move)):
                    choices = own_choices(engine, before, seat, step.move, legal)
                    count = len(choices) - unlisted(engine, legal, step.move)
                    if count > 1 and not one_sensible_move(engine, before, choices):
                        yield _Point(step.number, seat, before, step.move, step.seat), count
        before = state


def choose_candidates(engine: Any, point: _Point, options: Options,
                      run: Callable[[RolloutTask], RolloutResult]) -> list[Any]:
    """The moves to estimate at a decision: the seat's choices (``own_choices``) when they are at most
    ``top`` (adaptive sampling: ``top + ENTRANT_MARGIN``, of which the race lists the ``top`` best),
    else the move played, the rollout bot's choice (``rollout_kind``) and the best of the
    pre-ranking up to ``top``, each varying only what the seat decides. The move played stands as the
    log wrote it, in place of the listed form of the same decision (never beside it). Raises as
    ``rollout_kind``."""
    legal = own_choices(engine, point.state, point.seat, point.played)
    if len(legal) <= options.top + (ENTRANT_MARGIN if options.adaptive else 0):
        return legal
    must = [point.played]
    bot = rollout_kind(engine.game, options)
    bot_move = engine.with_others_from(point.state, make_bot(engine.game, bot, options.seed).choose(point.state),
                                       point.seat, point.played)
    if not same_move(engine, bot_move, point.played):
        must.append(bot_move)
    rest = [m for m in legal if not any(same_move(engine, m, x) for x in must)]
    if len(rest) > PRERANK_CAP:
        rest = random.Random(f"prerank:{options.seed}:{point.step}").sample(rest, PRERANK_CAP)
    ranked = _prerank(engine, point, rest, options, bot, run)
    return must + [rest[i] for i in ranked[: max(0, options.top - len(must))]]


def _prerank(engine: Any, point: _Point, moves: Sequence[Any], options: Options, bot: str,
             run: Callable[[RolloutTask], RolloutResult]) -> list[int]:
    """The indices of ``moves`` best first by their wins in the pre-ranking's ``PRERANK_ROLLOUTS``
    rollouts (ties: in order). Adaptive sampling halves it when there are more than twice ``top``
    moves: the first half of the rollouts for every move, the second only for the ``2 * top`` best so
    far, which rank first by exactly a whole pre-ranking's wins (two thirds of its rollouts when there
    are 48 moves)."""
    seed = options.seed ^ 0x5EED

    def task(chosen: Sequence[Any], first: int, count: int) -> RolloutTask:
        return RolloutTask(engine.game, point.step, point.seat, point.state, tuple(chosen), seed, first, count, bot,
                           options.cutoff)

    keep = 2 * options.top
    if not options.adaptive or len(moves) <= keep:
        wins = run(task(moves, 0, PRERANK_ROLLOUTS)).wins
        return sorted(range(len(moves)), key=lambda i: (-wins[i], i))
    half = PRERANK_ROLLOUTS // 2
    first = run(task(moves, 0, half)).outcomes
    by_first = sorted(range(len(moves)), key=lambda i: (-_ended_sum(first[i]), i))
    ahead = sorted(by_first[:keep])
    second = run(task([moves[i] for i in ahead], half, PRERANK_ROLLOUTS - half)).outcomes
    whole = {index: _ended_sum([*first[index], *later]) for index, later in zip(ahead, second, strict=True)}
    return sorted(ahead, key=lambda i: (-whole[i], i)) + by_first[keep:]


def _ended_sum(outcomes: Sequence[float | None]) -> float:
    """The wins of rollouts in order (as ``run_task`` sums them), those that did not end left out."""
    total = 0.0
    for outcome in outcomes:
        if outcome is not None:
            total += outcome
    return total


def _chunks(engine: Any, point: _Point, candidates: Sequence[Any], options: Options, first: int,
            count: int) -> list[RolloutTask]:
    """Rollouts ``first`` to ``first + count - 1`` of ``candidates``, in tasks of ``options.chunk``
    rollouts (the same tasks on any number of workers)."""
    bot = rollout_kind(engine.game, options)
    tasks = []
    for start in range(first, first + count, options.chunk):
        tasks.append(RolloutTask(engine.game, point.step, point.seat, point.state, tuple(candidates),
                                 options.seed, start, min(options.chunk, first + count - start), bot,
                                 options.cutoff))
    return tasks


def _tasks(engine: Any, point: _Point, candidates: Sequence[Any], options: Options) -> list[RolloutTask]:
    return _chunks(engine, point, candidates, options, 0, options.rollouts)


def _decision(engine: Any, names: Sequence[str], point: _Point, legal: int, candidates: Sequence[Any],
              results: Sequence[RolloutResult], bot: str) -> Decision:
    made = []
    for index, move in enumerate(candidates):
        wins = sum(r.wins[index] for r in results)
        n = sum(r.played[index] for r in results)
        share, share_sd = share_stats([x for r in results if r.shares for x in r.shares[index]])
        made.append(Candidate(move, move.text(), engine.describe_move(point.state, move, names),
                              same_move(engine, move, point.played), wins, n, share, share_sd))
    made.sort(key=lambda c: (-c.estimate, not c.played, c.text))
    return _made(engine.game, names, point, legal, made, bot)


def _made(game: str, names: Sequence[str], point: _Point, legal: int, made: Sequence[Candidate], bot: str,
          sure: bool | None = None) -> Decision:
    version = bot_version(game, bot)
    if point.mover == point.seat:
        return Decision(point.step, point.seat, names[point.seat], legal, tuple(made), rollout_bot=bot, sure=sure,
                        rollout_version=version)
    return Decision(point.step, point.seat, names[point.seat], legal, tuple(made), point.mover, names[point.mover], bot,
                    sure, version)


def _rank(candidate: Candidate) -> tuple[float, bool, str]:
    """Best first: the higher estimate, then the move played, then by text."""
    return -candidate.estimate, not candidate.played, candidate.text


class _Work:
    """One decision under analysis: its candidates and their rollouts, round after round (fixed
    sampling: one round of every rollout; adaptive: a race, ``analysis.racing``), until ``done``."""

    def __init__(self, engine: Any, point: _Point, legal: int, candidates: Sequence[Any], options: Options,
                 bot: str) -> None:
        self.engine, self.point, self.legal, self.options, self.bot = engine, point, legal, options, bot
        self.candidates = list(candidates)
        self.results: list[RolloutResult] = []
        #: Adaptive sampling: each entrant's score shares, rollout by rollout (``RolloutResult.shares``).
        self.shares: dict[int, list[float | None]] = {}
        self.done = False
        self.race: Race | None = None
        if options.adaptive:
            self.groups = same_state_groups(engine, point.state, self.candidates)
            self.entrants = sorted(set(self.groups))
            played = next(i for i, move in enumerate(self.candidates) if same_move(engine, move, point.played))
            self.race = Race(len(self.entrants), self.entrants.index(self.groups[played]), options.rollouts)
            if options.purpose == "play":
                self.race.futile = self.race.settle = 0.0

    def tasks(self) -> list[RolloutTask]:
        """The next round's rollout tasks."""
        if self.race is None:
            return _tasks(self.engine, self.point, self.candidates, self.options)
        first, count, running = self.race.next_round()
        self._running = running
        moves = [self.candidates[self.entrants[i]] for i in running]
        return _chunks(self.engine, self.point, moves, self.options, first, count)

    def take(self, results: Sequence[RolloutResult]) -> None:
        """The results of ``tasks``, in their order."""
        if self.race is None:
            self.results = list(results)
            self.done = True
            return
        for index, entrant in enumerate(self._running):
            self.shares.setdefault(entrant, []).extend(x for r in results if r.shares for x in r.shares[index])
        self.race.record({entrant: [x for r in results for x in r.outcomes[index]]
                          for index, entrant in enumerate(self._running)})
        self.done = self.race.done

    def decision(self, names: Sequence[str]) -> Decision:
        """The decision analysed. Adaptive sampling lists the ``top`` best candidates, best first: the
        leader of the race, or the move played when the leader is not significantly better (as far as
        the rollouts can tell, nothing better was found), then the others by estimate; whether the
        rollouts are sure the leader is a blunder's worth better (``Race.sure``) decides between a
        blunder and a mistake."""
        if self.race is None:
            return _decision(self.engine, names, self.point, self.legal, self.candidates, self.results, self.bot)
        engine, point, race = self.engine, self.point, self.race
        made = []
        entrant_of: dict[int, int] = {}
        for index, move in enumerate(self.candidates):
            entrant = self.entrants.index(self.groups[index])
            ended = [x for x in race.results[entrant] if x is not None]
            share, share_sd = share_stats(self.shares.get(entrant, []))
            made.append(Candidate(move, move.text(), engine.describe_move(point.state, move, names),
                                  same_move(engine, move, point.played), sum(ended), len(ended), share, share_sd))
            entrant_of[id(made[-1])] = entrant
        played = next(c for c in made if c.played)
        running = [c for c in made if race.alive[entrant_of[id(c)]]]
        leader = min(running, key=_rank)
        if self.options.purpose == "play":
            best = leader if race.beats_played(entrant_of[id(leader)]) else played
        else:
            best = leader if significant(leader, played) else played
        sure = None if best is played else race.sure(entrant_of[id(best)])
        rest = sorted((c for c in made if c is not best), key=_rank)
        room = max(0, self.options.top - 1)
        listed = rest[:room]
        if played is not best and played not in listed:
            # The move played is always listed (as the old pre-ranking always kept it).
            listed = sorted([*rest[: max(0, room - 1)], played], key=_rank)
        return _made(self.engine.game, names, point, self.legal, [best, *listed], self.bot, sure)


def analyse_state(game: str, state: Any, names: Sequence[str], played: Any, options: Options | None = None,
                  step: int = 0, seat: int | None = None) -> Decision:
    """Analyse one position (inline, no worker processes): the decision of ``seat`` (default: the seat
    to act; else a seat that decides a part of ``played``, ``Engine.deciders``) at the move
    ``played``, its candidates varying only what that seat decides; ``step`` numbers the decision
    (and seeds its rollouts). Raises ``ValueError`` when the game is over, ``seat`` decides no part
    of ``played`` or the game has no bot of ``options.rollout_bot``'s kind, and as ``check_cutoff``."""
    options = options or Options()
    engine = engine_for(game)
    check_cutoff(game, state_players(state), options)
    mover = engine.current_seat(state)
    if mover is None:
        raise ValueError("the game is over: there is no decision to analyse")
    seat = mover if seat is None else seat
    if seat != mover and seat not in engine.deciders(state, played):
        raise ValueError(f"seat {seat} decides no part of {played.text()!r}, which seat {mover} makes")
    point = _Point(step, seat, state, played, mover)
    legal_moves = engine.legal_moves(state)
    legal = len(own_choices(engine, state, seat, played, legal_moves)) - unlisted(engine, legal_moves, played)
    return _inline(engine, point, legal, options, rollout_kind(game, options)).decision(names)


def _inline(engine: Any, point: _Point, legal: int, options: Options, bot: str) -> _Work:
    """A decision's work done in this process."""
    work = _Work(engine, point, legal, choose_candidates(engine, point, options, run_task), options, bot)
    while not work.done:
        work.take([run_task(task) for task in work.tasks()])
    return work


def analyse(log: GameLog, options: Options | None = None,
            cancelled: Callable[[], bool] | None = None) -> Generator[Decision, None, None]:
    """Yield each decision of ``log`` analysed, in game order, as soon as it is done. With more than
    one worker, rollouts run in worker processes, several decisions in flight at once. ``cancelled``
    is polled between results: when it returns True the analysis stops. Raises as ``iter_replay``,
    and, before any rollout, ``ValueError`` when the game has no bot of ``options.rollout_bot``'s kind
    and as ``check_cutoff``."""
    options = options or Options()
    engine = engine_for(log.game)
    bot = rollout_kind(log.game, options)
    check_cutoff(log.game, len(log.players), options)
    points = list(decision_points(log, options.steps))
    if options.workers <= 1:
        for point, legal in points:
            if cancelled is not None and cancelled():
                return
            yield _inline(engine, point, legal, options, bot).decision(log.players)
        return
    # forkserver: the dashboard runs analyses from a thread of its server, which must not be forked.
    pool = ProcessPoolExecutor(max_workers=options.workers, mp_context=multiprocessing.get_context("forkserver"))
    finished = False
    try:
        finished = yield from _analyse_pool(pool, engine, log, points, options, cancelled, bot)
    finally:
        if finished:
            pool.shutdown(wait=True)
        else:
            pools.stop_now(pool)


def _analyse_pool(pool: Executor, engine: Any, log: GameLog, points: list[tuple[_Point, int]],
                  options: Options, cancelled: Callable[[], bool] | None,
                  bot: str) -> Generator[Decision, None, bool]:
    """Yield the decisions of ``points`` analysed by ``pool``'s workers; True once all are, False when
    ``cancelled`` stopped it."""

    # Every call into the pool goes through ``pools``, which raises an interruption only where no lock
    # of the pool is held (``replay.pools`` says why).
    def run_remote(task: RolloutTask) -> RolloutResult:
        return pools.result(pools.submit(pool, run_task, task))

    def submit(work: _Work) -> list[Future[RolloutResult]]:
        return [pools.submit(pool, run_task, task) for task in work.tasks()]

    # Candidate choice needs its pre-ranking first, so decisions are prepared a few ahead while the
    # rollouts of earlier ones run; a race's next round goes out as soon as its last one is back.
    ahead = max(2, options.workers * 2)
    in_flight: list[tuple[_Work, list[Future[RolloutResult]]]] = []
    index = 0
    # The work left when this stops early is dropped by ``pools.stop_now``, in the pool's own thread: a future
    # cancelled here while a dead worker made the pool fail them all raised InvalidStateError there (a
    # traceback on standard error, Python 3.11).
    while index < len(points) or in_flight:
        while index < len(points) and len(in_flight) < ahead:
            point, legal = points[index]
            index += 1
            work = _Work(engine, point, legal, choose_candidates(engine, point, options, run_remote), options, bot)
            in_flight.append((work, submit(work)))
        waiting = [future for _, futures in in_flight for future in futures]
        pools.wait_any(waiting)
        if cancelled is not None and cancelled():
            return False
        for slot, (work, futures) in enumerate(in_flight):
            with exits.signals_deferred():
                ready = bool(futures) and all(future.done() for future in futures)
                results = [future.result() for future in futures] if ready else []
            if ready:
                work.take(results)
                in_flight[slot] = (work, [] if work.done else submit(work))
        while in_flight and in_flight[0][0].done:
            yield in_flight.pop(0)[0].decision(log.players)
    return True
