"""Monte Carlo rollouts that never cheat: each one starts from a determinisation of the position (what
the acting seat cannot see, dealt again at random) and is played to the end by one bot per seat, of
the kind the game declares for rollouts (``replay.registry.rollout_bot``: the expert bot for both
games) unless the analysis asks for another.

Every random choice comes from a string seed built of the analysis seed, the step and the rollout
number, so results are the same whichever worker runs a rollout and in whatever order.

A rollout may be cut short (``RolloutTask.cutoff``): after that many moves past the candidate, a game
still in play is valued by the game's learned win-chance model (``analysis.winchance``) instead of
being played to its end. Its world is a whole determinisation, every card of it the rollout's own, so
the model's whole view is the right one; the rollout's result is then the seat's chance, a fraction.
"""

from __future__ import annotations

import math
import multiprocessing
import random
import signal
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from replay.collector import collector_paused
from replay.errors import FieldError, RuleViolation
from replay.protocol import Working
from replay.registry import engine_for, make_bot, rollout_bot
from replay.simulate import MAX_MOVES

if TYPE_CHECKING:
    from analysis.winchance.model import WinModel

#: The most rollouts per candidate ``governor analyse`` takes: at the default 100 a game takes about a
#: minute on 2 cores, so 10,000 is a day's work; each decision's rollouts are split in tasks of
#: ``Options.chunk`` and only a few decisions are in flight, so memory stays small below this bound.
MAX_ROLLOUTS = 10_000


@dataclass(frozen=True)
class RolloutTask:
    """Rollouts ``first`` to ``first + count - 1`` of every candidate at one decision."""

    game: str
    step: int
    seat: int
    state: Any
    candidates: tuple[Any, ...]
    seed: int
    first: int
    count: int
    #: The kind of bot that plays every seat to the end (``heuristic``, ``expert``...).
    bot: str = "heuristic"
    #: Moves each rollout plays after the candidate before a game still in play is valued by the
    #: win-chance model (``cutoff_model``); None: played to the end.
    cutoff: int | None = None


@dataclass(frozen=True)
class RolloutResult:
    """Per candidate: the acting seat's share of wins summed over the rollouts (a full tie between k
    seats counts 1/k), and how many rollouts ended (a rollout whose candidate is illegal in a sampled
    world, or that does not end, is not counted); and each rollout's own result in rollout order
    (None for one that did not count), which adaptive sampling pairs across candidates; and, in the
    same order, the seat's share of the final scores in each rollout (``score_share``), which the
    accuracy reads where the win chance says nothing. A rollout cut short (``RolloutTask.cutoff``)
    counts the model's chance of the seat as its result; a task with a cutoff keeps no score shares
    (None for every rollout, those that ended too), so the accuracy falls back on the win chance
    rather than read the shares of the few rollouts that ended, which are not a fair sample."""

    step: int
    wins: tuple[float, ...]
    played: tuple[int, ...]
    outcomes: tuple[tuple[float | None, ...], ...] = ()
    shares: tuple[tuple[float | None, ...], ...] = ()


def world_rng(seed: int, step: int, rollout: int) -> random.Random:
    """The generator of one rollout's determinisation and bots: shared by every candidate of the
    decision (common random numbers make the comparison between candidates sharper)."""
    return random.Random(f"analysis:{seed}:{step}:{rollout}")


def play_out(engine: Any, game: Working[Any, Any], players: int, rng: random.Random,
             bot: str = "heuristic") -> list[int] | None:
    """Play the working ``game`` (of ``players`` seats) to the end in place with one ``bot`` per seat
    seeded from ``rng``; the winners, or None when the game does not end within the simulation's
    move limit. Raises ``KeyError`` naming the game's bots for a kind it does not declare.

    The bots read the working game's table and ``Working.apply`` runs the rules of ``apply`` without
    a snapshot per move: the same moves, the same end as ``apply`` move after move (tested), at a
    fraction of the cost."""
    if not play_to_end(engine, game, players, rng, bot):
        return None
    return list(engine.winners(game.snapshot()))


def play_to_end(engine: Any, game: Working[Any, Any], players: int, rng: random.Random, bot: str = "heuristic",
                moves: int = MAX_MOVES) -> bool:
    """``play_out``'s moves: whether the game ended within ``moves`` moves (the simulation's move
    limit), before the last of them is made. Raises ``KeyError`` naming the game's bots for a kind it
    does not declare."""
    choose = [make_bot(engine.game, bot, rng.randrange(2**31)).choose_working for _ in range(players)]
    # Bound once: a rollout makes about a hundred moves.
    is_over, current_seat, apply = game.is_over, game.current_seat, game.apply
    for _ in range(moves):
        if is_over():
            return True
        apply(choose[current_seat()](game))  # type: ignore[index]
    return False


def state_players(state: Any) -> int:
    """The number of seats of a state (both games keep a tuple of players)."""
    return len(state.players)


def win_share(winners: Sequence[int], seat: int) -> float:
    """1 for a sole win, 1/k for a k-way full tie, 0 otherwise."""
    return 1.0 / len(winners) if seat in winners else 0.0


def score_share(totals: Sequence[int], seat: int) -> float:
    """The seat's share of the seats' final scores (0 to 1; a negative score counts 0, and when
    every score is 0 each seat has an equal share). Unlike a win, it does not saturate: a seat far
    behind still scores more or less, so a move still costs it something (``analysis.accuracy``)."""
    counted = [max(0, total) for total in totals]
    whole = sum(counted)
    return counted[seat] / whole if whole > 0 else 1.0 / len(counted)


def share_stats(shares: Sequence[float | None]) -> tuple[float | None, float | None]:
    """The mean and the sample standard deviation (0 for a single value) of the rollouts' score
    shares that ended; (None, None) when none did."""
    ended = [x for x in shares if x is not None]
    if not ended:
        return None, None
    mean = sum(ended) / len(ended)
    if len(ended) < 2:
        return mean, 0.0
    return mean, math.sqrt(sum((x - mean) ** 2 for x in ended) / (len(ended) - 1))


def run_task(task: RolloutTask) -> RolloutResult:
    """Run a task's rollouts for every candidate (in a worker process or inline), with the cycle
    collector paused: a rollout makes no reference cycles (``replay.collector``)."""
    _worker_leaves_signals_to_parent()
    with collector_paused():
        return _run_task(task)


def run_task_watched(task: RolloutTask, watch: Watcher) -> RolloutResult:
    """``run_task``'s rollouts and results, calling ``watch`` with each rollout's final state."""
    with collector_paused():
        return _run_task(task, watch)


def _worker_leaves_signals_to_parent() -> None:
    """In a worker process, ignore Ctrl-C and SIGTERM: the terminal sends Ctrl-C to the whole process
    group, and a worker that died of it printed its own traceback; the parent stops the pool instead."""
    if multiprocessing.parent_process() is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


#: Each process's win-chance models for cut rollouts, by game and player count: loaded once, as a
#: cut analysis asks for one at every task.
_MODELS: dict[tuple[str, int], WinModel] = {}


def cutoff_model(game: str, players: int) -> WinModel:
    """The win-chance model that values the cut rollouts of ``game`` with ``players`` seats (the shipped
    one), loaded once per process. Raises ``analysis.winchance.model.ModelError`` (one line naming the
    file) when there is none or it cannot be used, ``KeyError`` for a game without an observation
    vector."""
    found = _MODELS.get((game, players))
    if found is None:
        from analysis.winchance.model import load

        found = _MODELS[(game, players)] = load(game, players)
    return found


def cut_chances(engine: Any, states: Sequence[Any], seat: int) -> list[float]:
    """The model's chance of ``seat`` to win from each of ``states`` (games in play, every card
    dealt: the whole view), in one batch. Raises as ``cutoff_model``."""
    from analysis.winchance.predict import chances

    if not states:
        return []
    model = cutoff_model(engine.game, state_players(states[0]))
    return [float(x) for x in chances(model, engine, states, "everything")[:, seat]]


#: What a rollout ended in, for whoever watches the rollouts (a benchmark keeping every final): the
#: rollout's number, the candidate's index, the engine and the final state.
Watcher = Callable[[int, int, Any, Any], None]


def _run_task(task: RolloutTask, watch: Watcher | None = None) -> RolloutResult:
    engine = engine_for(task.game)
    wins = [0.0] * len(task.candidates)
    played = [0] * len(task.candidates)
    outcomes: list[list[float | None]] = [[] for _ in task.candidates]
    shares: list[list[float | None]] = [[] for _ in task.candidates]
    moves = MAX_MOVES if task.cutoff is None else min(task.cutoff, MAX_MOVES)
    # Cut rollouts: (candidate, rollout's place in its outcomes, state), valued in one batch at the end.
    cut: list[tuple[int, int, Any]] = []
    for number in range(task.first, task.first + task.count):
        rng = world_rng(task.seed, task.step, number)
        world = engine.determinise(task.state, task.seat, rng)
        play_seed = rng.randrange(2**62)
        players = state_players(world)
        for index, move in enumerate(task.candidates):
            outcomes[index].append(None)
            shares[index].append(None)
            game = engine.working(world)
            try:
                game.apply(move)
            except (RuleViolation, FieldError):
                continue
            if not play_to_end(engine, game, players, random.Random(play_seed), task.bot, moves):
                if task.cutoff is None or task.cutoff > MAX_MOVES:
                    continue  # it did not end within the move limit: not counted
                if not game.is_over():
                    cut.append((index, len(outcomes[index]) - 1, game.snapshot()))
                    continue
                # Else it ended at its last move: a finished game, counted as one.
            final = game.snapshot()
            share = win_share(engine.winners(final), task.seat)
            wins[index] += share
            played[index] += 1
            outcomes[index][-1] = share
            if task.cutoff is None:
                shares[index][-1] = score_share([score.total for score in engine.scores(final)], task.seat)
            if watch is not None:
                watch(number, index, engine, final)
    values = cut_chances(engine, [state for _, _, state in cut], task.seat)
    for (index, place, _), value in zip(cut, values, strict=True):
        wins[index] += value
        played[index] += 1
        outcomes[index][place] = value
    return RolloutResult(task.step, tuple(wins), tuple(played), tuple(tuple(o) for o in outcomes),
                         tuple(tuple(s) for s in shares))


#: The engine line's default length and the rollouts it is read from.
LINE_MOVES = 8
LINE_ROLLOUTS = 24


def engine_line(game: str, state: Any, seat: int, move: Any, seed: int, step: int,
                rollouts: int = LINE_ROLLOUTS, length: int = LINE_MOVES, bot: str | None = None) -> list[Any]:
    """The continuation the bots played most after ``move`` in the decision's rollouts
    (lichess's engine line): the same determinisations and bots as the estimates (``world_rng`` of
    ``seed``, ``step`` and the rollout number), then move by move the most frequent next move among
    the rollouts that played the line so far (ties: the one met first), at most ``length`` moves,
    typed. ``bot`` is the kind of bot that plays (default: the game's declared rollout bot, as in
    ``governor analyse``). Empty when ``move`` is illegal in every sampled world. Raises ``KeyError``
    naming the game's bots for a kind it does not declare."""
    engine = engine_for(game)
    kind = rollout_bot(game) if bot is None else bot
    lines: list[list[Any]] = []
    for number in range(rollouts):
        rng = world_rng(seed, step, number)
        world = engine.determinise(state, seat, rng)
        play = random.Random(rng.randrange(2**62))
        working = engine.working(world)
        try:
            working.apply(move)
        except (RuleViolation, FieldError):
            continue
        choose = [make_bot(engine.game, kind, play.randrange(2**31)).choose_working
                  for _ in range(state_players(world))]
        line = []
        for _ in range(length):
            if working.is_over():
                break
            chosen = choose[working.current_seat()](working)  # type: ignore[index]
            working.apply(chosen)
            line.append(chosen)
        lines.append(line)
    out: list[Any] = []
    while True:
        counts: dict[str, int] = {}
        first: dict[str, Any] = {}
        for line in lines:
            if len(line) > len(out):
                key = line[len(out)].text()
                counts[key] = counts.get(key, 0) + 1
                first.setdefault(key, line[len(out)])
        if not counts:
            return out
        best = max(counts, key=lambda k: counts[k])  # max keeps the first of equal counts
        out.append(first[best])
        lines = [line for line in lines if len(line) > len(out) - 1 and line[len(out) - 1].text() == best]
