"""A game in progress as one snapshot (``Session``): never changed, each change of the game gives a new
one, with the ``version`` a client sends back with its next move. Also the game so far as a log of the
format (``log_of``, ``game_log``).

A ``Store`` (``play.store``) keeps the games and hands out sessions; a game's journal is folded into
them by ``play.line``; what a person is shown of one is ``play.shown``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from typing import Any

from play.setup import Setup
from replay.logfile import GameLog
from replay.registry import AnyEngine, engine_for

#: ``meta.generator`` of a finished game's log.
GENERATOR = "governor play"
#: The documented key order of a log (as ``governor simulate`` and the arena write it).
LOG_ORDER = ("format", "version", "game", "source_id", "meta", "players", "options", "setup", "moves", "result")


@dataclass(frozen=True)
class Played:
    """One move of the game's final line: its number (from 1), the seat that made it, the typed move,
    whether a bot made it, the faults of a user's agent at it (``{"kind", "detail"}``: it then played a
    random legal move), whether the log leaves it out (the rules' default: ``Engine.default_move``), and
    when it was made."""

    number: int
    seat: int
    move: Any
    bot: bool
    faults: tuple[dict[str, str], ...]
    omitted: bool
    at: datetime


@dataclass(frozen=True)
class Asked:
    """A move waiting for the people whose part of it is theirs to decide (``Engine.deciders``):
    ``mover`` made ``move`` (with the parts decided so far); ``seats`` are the people still to decide,
    the first now."""

    mover: int
    move: Any
    seats: tuple[int, ...]
    faults: tuple[dict[str, str], ...] = ()


@dataclass(frozen=True)
class Session:
    """A game in progress (or over), as one snapshot: never changed; each change of the game gives a
    new one. ``moves`` is the final line (take-backs removed), ``states`` the state before the first
    move and after each, ``state`` the current one (with everything: show a person only
    ``seat_view``), ``version`` the number of changes made to the game (each move, each part, each
    take-back): what a client sends back with its next move. ``notes`` say what reading the game had
    to put right (a last line cut short by a crash, dropped)."""

    id: str
    setup: Setup
    moves: tuple[Played, ...]
    takebacks: int
    states: tuple[Any, ...]
    version: int
    created: datetime
    updated: datetime
    asked: Asked | None = None
    notes: tuple[str, ...] = ()
    #: How many decisions of the final line people made (moves and parts): what a take-back may undo.
    decided: int = 0

    @property
    def engine(self) -> AnyEngine:
        """The game's engine."""
        return engine_for(self.setup.game)

    @property
    def state(self) -> Any:
        """The current state (everything: the server's own)."""
        return self.states[-1]

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.engine.is_over(self.state)

    @property
    def to_act(self) -> int | None:
        """The seat that decides now: a person asked for a part of a move, else the seat to act; None
        once the game is over."""
        if self.asked is not None:
            return self.asked.seats[0]
        return self.engine.current_seat(self.state)

    @property
    def human_to_act(self) -> bool:
        """Whether a person decides now."""
        return self.to_act in self.setup.humans

    @property
    def can_take_back(self) -> bool:
        """Whether ``Store.takeback`` would take something back now."""
        return takeback_refusal(self) is None

    def choices(self) -> list[Any]:
        """The moves the seat to act may make now, each once, in the engine's order: for a person
        making a move, its own variants (the other seats' parts at the rules' default: a bot decides
        its own); for a person asked for a part, the move with only that part varied. Empty when the
        game is over. (Made once per session: one decision may have thousands of variants.)"""
        return list(self._choices)

    @cached_property
    def _choices(self) -> tuple[Any, ...]:
        return tuple(self._list_choices())

    def _list_choices(self) -> list[Any]:
        engine = self.engine
        state = self.state
        if self.over:
            return []
        if self.asked is not None:
            from analysis.decisions import own_choices

            return own_choices(engine, state, self.asked.seats[0], self.asked.move)
        seat = self.to_act
        legal = engine.legal_moves(state)
        if seat not in self.setup.humans:
            return list(legal)
        seen: set[str] = set()
        out = []
        for move in legal:
            variant = engine.with_others_from(state, move, seat, None)
            key = move_key(engine, variant)
            if key not in seen:
                seen.add(key)
                out.append(variant)
        return out

    def faults(self) -> list[dict[str, Any]]:
        """The faults of users' agents, as the arena writes them in a log's ``meta``: ``move`` (1-based),
        ``seat``, ``kind`` and ``detail``."""
        return [{"move": p.number, "seat": p.seat, **f} for p in self.moves for f in p.faults]


def move_key(engine: AnyEngine, move: Any) -> str:
    """What tells two decisions apart: the JSON of the form ``legal_moves`` lists."""
    return json.dumps(engine.canonical_move(move).to_json(), sort_keys=True)


def takeback_refusal(session: Session) -> str | None:
    """Why ``Store.takeback`` would take nothing back now, or None when it would."""
    if len(session.setup.humans) != 1:
        return "take-backs are for one person playing bots"
    if session.over:
        return "the game is over"
    if not session.decided:
        return "there is no move of yours to take back"
    return None


def game_log(session: Session) -> GameLog:
    """The log of the game so far (``log_of``) as a ``GameLog``, for what reads logs (the rows an
    import would store, the Replay board)."""
    from replay.logfile import parse_game

    return parse_game(log_of(session), file=f"governor play {session.id}")


def log_of(session: Session) -> dict[str, Any]:
    """The game as a log of the format (``docs/log-format.md``): its setup, the moves of its final line
    (a move equal to the rules' default left out, as ``governor simulate`` writes them), and once it is
    over its ``result``. ``meta``: ``generator`` (``governor play``), ``seed``, ``agents`` (each bot
    seat's ``seat``, ``name``, ``spec`` and ``version``, as the arena writes them: the importer stores
    these seats as bots), ``takebacks`` (the number of take-backs: a game with any is left out of the
    ratings), ``faults`` (of users' agents, when any) and, once over, ``date`` (of its last move)."""
    setup = session.setup
    engine = session.engine
    base = engine.new_random_game(list(setup.names), setup.seed, dict(setup.options))
    moves = [{"seat": p.seat, **p.move.to_json()} for p in session.moves if not p.omitted]
    obj = engine.finish_log(base, session.state, moves)
    meta: dict[str, Any] = {"generator": GENERATOR, "seed": setup.seed}
    meta["agents"] = [{"seat": s, "name": setup.names[s], "spec": spec, "version": setup.versions[s]}
                      for s, spec in enumerate(setup.bots) if spec is not None]
    meta["takebacks"] = session.takebacks
    faults = session.faults()
    if faults:
        meta["faults"] = faults
    over = session.over
    if over:
        meta["date"] = session.updated.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    obj["meta"] = {**meta, **obj.get("meta", {})}
    if not over:
        obj.pop("result", None)
    return {k: obj[k] for k in LOG_ORDER if k in obj}
