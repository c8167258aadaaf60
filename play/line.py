"""A game's journal (``play.journal``) folded through the engine: each entry checked as it is added,
the take-backs undone, the session at any point. A journal the game cannot take is damaged
(``SessionDamaged``), naming its file and line.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from play import journal
from play.errors import SessionDamaged
from play.session import Asked, Played, Session
from play.setup import Setup
from replay.errors import FieldError, RuleViolation
from replay.registry import engine_for
from replay.simulate import MAX_MOVES

#: The journal's format (its header's ``journal`` and ``format``).
JOURNAL = "governor play"
JOURNAL_FORMAT = 1


def stamp(when: datetime) -> str:
    """A moment as the journal writes it (UTC, to the microsecond, ``Z``)."""
    return when.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def parse_stamp(text: Any) -> datetime:
    """The moment a journal wrote. Raises ``ValueError`` for anything else."""
    if not isinstance(text, str):
        raise ValueError("no time")
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        raise ValueError("a time without its zone")
    return value


class Line:
    """A game's journal folded through the engine: each entry checked as it is added (``add``), the
    take-backs undone, the session at any point (``session``)."""

    def __init__(self, game_id: str, setup: Setup, created: datetime, shown: str) -> None:
        self.id = game_id
        self.setup = setup
        self.created = self.updated = created
        self.shown = shown
        self.engine = engine_for(setup.game)
        log = self.engine.new_random_game(list(setup.names), setup.seed, dict(setup.options))
        self.base = log
        self.states: list[Any] = [self.engine.simulation_state(log, setup.seed)]
        self.moves: list[Played] = []
        self.asked: Asked | None = None
        #: Each decision of the line (a move or a part), whether a person made it, and where the line
        #: stood before it (states, moves, what was asked): a take-back goes back to it at once.
        self.decisions: list[tuple[bool, int, int, Asked | None]] = []
        self.version = 0
        self.takebacks = 0

    def damaged(self, line: int, reason: str) -> SessionDamaged:
        return SessionDamaged(f"{self.shown}: line {line}: {reason}")

    def session(self, notes: Sequence[str] = ()) -> Session:
        return Session(self.id, self.setup, tuple(self.moves), self.takebacks, tuple(self.states), self.version,
                       self.created, self.updated, self.asked, tuple(notes), sum(1 for d in self.decisions if d[0]))

    def parse(self, obj: Any, line: int) -> Any:
        try:
            return self.engine.parse_move(obj, "move")
        except FieldError as err:
            raise self.damaged(line, f"not a move of the game: {err}") from None

    def add(self, entry: dict[str, Any]) -> None:
        """Fold one entry in. Raises ``SessionDamaged`` for an entry the game cannot take there."""
        line = self.version + 2  # the header is line 1
        if entry.get("version") != self.version + 1:
            raise self.damaged(line, f"version {entry.get('version')!r} where {self.version + 1} comes")
        try:
            at = parse_stamp(entry.get("at"))
        except ValueError as err:
            raise self.damaged(line, f"bad time: {err}") from None
        kind = entry.get("kind")
        faults = entry.get("faults", [])
        if not isinstance(faults, list) or not all(
                isinstance(f, dict) and isinstance(f.get("kind"), str) and isinstance(f.get("detail"), str)
                for f in faults):
            raise self.damaged(line, "bad faults")
        seat = entry.get("seat")
        state = self.states[-1]
        if kind == "move":
            if self.asked is not None:
                raise self.damaged(line, f"a move while seat {self.asked.seats[0]} is asked for its part")
            mover = self.engine.current_seat(state)
            if mover is None or seat != mover:
                raise self.damaged(line, f"a move of seat {seat!r} where seat {mover} is to act")
            move = self.parse(entry.get("move"), line)
            human = mover in self.setup.humans
            self.decisions.append((human, len(self.states), len(self.moves), self.asked))
            fault_list = tuple({"kind": f["kind"], "detail": f["detail"]} for f in faults)
            asking = tuple(s for s in self.engine.deciders(state, move) if s in self.setup.humans and s != mover)
            if asking:
                self.check(state, move, line)
                self.asked = Asked(mover, move, asking, fault_list)
            else:
                self.apply(mover, move, fault_list, at, line)
        elif kind == "part":
            asked = self.asked
            if asked is None or seat != asked.seats[0]:
                raise self.damaged(line, f"a part decided by seat {seat!r}, which nobody asked")
            given = self.parse(entry.get("move"), line)
            try:
                move = self.engine.with_others_from(state, given, seat, asked.move)
            except ValueError as err:
                raise self.damaged(line, f"not a part of the move asked: {err}") from None
            self.decisions.append((True, len(self.states), len(self.moves), asked))
            if asked.seats[1:]:
                self.check(state, move, line)
                self.asked = Asked(asked.mover, move, asked.seats[1:], asked.faults)
            else:
                self.asked = None
                self.apply(asked.mover, move, asked.faults, at, line)
        elif kind == "takeback":
            while True:
                if not self.decisions:
                    raise self.damaged(line, "a take-back with no move of a person's to take back")
                human, states, moves, asked_before = self.decisions.pop()
                del self.states[states:]
                del self.moves[moves:]
                self.asked = asked_before
                if human:
                    break
            self.takebacks += 1
        else:
            raise self.damaged(line, f"unknown entry {kind!r}")
        self.version += 1
        self.updated = at

    def check(self, state: Any, move: Any, line: int) -> Any:
        try:
            return self.engine.apply(state, move)
        except (RuleViolation, FieldError) as err:
            raise self.damaged(line, f"an illegal move {move.text()!r}: {err}") from None

    def apply(self, seat: int, move: Any, faults: tuple[dict[str, str], ...], at: datetime, line: int) -> None:
        state = self.states[-1]
        if len(self.moves) >= MAX_MOVES:
            raise self.damaged(line, f"more than {MAX_MOVES} moves: no game is that long")
        default = self.engine.default_move(state)
        after = self.check(state, move, line)
        self.states.append(after)
        self.moves.append(Played(len(self.moves) + 1, seat, move, seat not in self.setup.humans, faults,
                                 default is not None and move == default, at))


def fold(lines: journal.Lines, game_id: str, shown: str) -> Line:
    """The journal ``lines`` of game ``game_id`` (its file named ``shown``) folded. Raises
    ``SessionDamaged`` naming the line the game cannot take."""
    header = lines.header
    if header.get("journal") != JOURNAL or header.get("format") != JOURNAL_FORMAT or header.get("id") != game_id:
        raise SessionDamaged(f"{shown}: line 1: not the journal of game {game_id}")
    try:
        setup = Setup.from_json(header.get("setup"))
        created = parse_stamp(header.get("created"))
    except ValueError as err:
        raise SessionDamaged(f"{shown}: line 1: {err}") from None
    line = Line(game_id, setup, created, shown)
    for entry in lines.entries:
        line.add(entry)
    return line
