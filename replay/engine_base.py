"""What every engine does the same way over its own rules and scoring modules: the protocol's
plumbing, the per-seat row cache that ingestion relies on, and writing a simulated game's log.

An engine subclasses ``RulesEngine`` and sets ``declaration`` (the game's ``GameDeclaration``: its
name, player counts and view module are the engine's), ``rules`` (a module with ``new_game``,
``legal_moves``, ``apply`` and ``describe_pending``), ``scoring`` (``scores``, ``winners``),
``event_words`` (``describe``: the automatic events ``apply`` records in a state's ``events``, in
words), ``parse`` (JSON to move) and ``over`` (the stage of a finished game); it adds the game's own
views and rows. A game whose deck is reshuffled in play subclasses ``ReshufflingEngine``.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Generic, cast

from replay.errors import FieldError
from replay.logfile import FORMAT_NAME, FORMAT_VERSION, GameLog
from replay.protocol import JSON, M, Rules, S, Score, StateRows, StorageRows, Working

if TYPE_CHECKING:
    from replay.game import GameDeclaration


def winners_of(scores: Sequence[Score]) -> list[int]:
    """The seats of ``scores`` with the highest total, then the highest tie-break; several only on a
    full tie."""
    best = max((s.total, s.tiebreak) for s in scores)
    return [seat for seat, s in enumerate(scores) if (s.total, s.tiebreak) == best]


class RulesEngine:
    """The protocol methods shared by the engines (see ``replay.protocol.Engine``)."""

    #: The game's declaration: a subclass that sets it gets its ``game`` (the name), ``min_players``,
    #: ``max_players`` and ``view`` (the module imported) from it, said once.
    declaration: ClassVar[GameDeclaration]
    game: str
    #: The engine's version, stored with each game.
    version: str = "1.0"
    min_players: int
    max_players: int
    rules: ModuleType
    scoring: ModuleType
    event_words: ModuleType
    #: The game's view module (``replay.protocol.GameView``): its ``determinise(state, seat, rng)`` deals
    #: again what the seat cannot see, decided where everything a viewer sees is decided.
    view: ModuleType
    parse: Callable[[Any, str], Any]
    over: Any
    #: The chance outcomes drawn as the game goes on (a deck's reshuffle), as the log records them: the
    #: setup's key of their list (one outcome per draw, in the order drawn; the state holds those not
    #: drawn yet under the same name), the state's attribute holding those drawn so far, and the
    #: state's attribute of the seed that draws them once the log has none (None while it has); "" for
    #: a game whose setup holds every chance outcome from the start.
    drawn_setup_key: str = ""
    drawn_state_attribute: str = ""
    drawn_seed_attribute: str = ""
    #: What a finished game's setup holds past what the game drew, in words: ``used`` drawn, ``given``
    #: in the log.
    drawn_unused: str = "the game drew {used} outcome(s) but the log records {given}"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = cls.__dict__.get("declaration")
        if declared is not None:
            cls.game = declared.name
            cls.min_players = declared.min_players
            cls.max_players = declared.max_players
            cls.view = importlib.import_module(declared.view)

    def __init__(self) -> None:
        # id(PlayerState) -> (the PlayerState, its row); holding the object keeps its id unique.
        self._row_cache: dict[int, tuple[Any, dict[str, Any]]] = {}
        self._told: dict[tuple[Any, ...], tuple[str, ...]] = {}

    def new_game(self, log: GameLog, shuffle_seed: int | None = None) -> Any:
        """The state before the first move. Raises ``FieldError`` for a bad setup."""
        return self.rules.new_game(len(log.players), log.options, log.setup, shuffle_seed)

    def parse_move(self, obj: Any, path: str) -> Any:
        """A typed move from JSON. Raises ``FieldError``."""
        return type(self).parse(obj, path)

    def legal_moves(self, state: Any) -> Any:
        """Every legal decision in a fixed order."""
        return self.rules.legal_moves(state)

    def canonical_move(self, move: Any) -> Any:
        """``move`` in the form ``legal_moves`` lists it: a move may have several written forms that
        make the same decision (e.g. a set of things written in any order), listed once. A move type
        with such forms has a ``canonical()`` method."""
        canonical = getattr(move, "canonical", None)
        return canonical() if canonical is not None else move

    def apply(self, state: Any, move: Any) -> Any:
        """The checked, pure transition. Raises ``RuleViolation`` or ``FieldError``."""
        return self.rules.apply(state, move)

    def working(self, state: Any) -> Working[Any, Any]:
        """A game changed in place from ``state`` (``replay.protocol.Working``): the rules module's
        ``working`` when it has one, else one that applies the pure ``apply`` move after move."""
        working = getattr(self.rules, "working", None)
        # A concrete engine (a subclass) has every hook; this base alone declares only what it shares.
        return working(state) if working is not None else SnapshotWorking(cast("Rules[Any, Any]", self), state)

    def automatic_events(self, before: Any, move: Any, after: Any, names: Sequence[str]) -> list[str]:
        """What the rules did by themselves on the way from ``before`` to ``after``, in words: the
        events ``apply`` recorded in ``after.events``. Raises ``ValueError`` for an event without words."""
        events = after.events
        if not events:
            return []
        # The same few hundred events recur (a seat that cannot act, the same cards drawn), and
        # the importer asks for every move of every game: words are made once per (events, names).
        key = (tuple(events), tuple(names))  # a working table's events are a list
        told = self._told.get(key)
        if told is None:
            if len(self._told) > 1 << 14:
                self._told.clear()
            told = self._told[key] = tuple(self.event_words.describe(events, names))
        return list(told)

    def current_seat(self, state: Any) -> int | None:
        return state.current_seat  # type: ignore[no-any-return]

    def default_move(self, state: Any) -> Any | None:
        """The decision taken when a log leaves it out (None: the log must record it)."""
        default = getattr(self.rules, "default_move", None)
        return default(state) if default is not None else None

    def apply_default(self, state: Any) -> Any:
        """The state once the seat to act took its default (``default_move``); the events it records
        follow those of ``state``. Raises ``ValueError`` when there is no default."""
        return self.rules.apply_default(state)

    def is_over(self, state: Any) -> bool:
        return state.stage is self.over

    def scores(self, state: Any) -> list[Score]:
        return self.scoring.scores(state)  # type: ignore[no-any-return]

    def winners(self, state: Any) -> list[int]:
        """The seats with the highest score, then the highest tie-break (each game's ``Score.tiebreak``);
        several only on a full tie."""
        return winners_of(self.scores(state))

    def determinise(self, state: Any, seat: int, rng: Any) -> Any:
        """``state`` with everything ``seat`` cannot see dealt again from ``rng`` (analysis rollouts);
        depends only on what the seat sees and on ``rng``."""
        return self.view.determinise(state, seat, rng)

    def round_of(self, state: Any) -> int:
        return state.round  # type: ignore[no-any-return]

    def pending(self, state: Any) -> str:
        """What the game waits for, in words."""
        return self.rules.describe_pending(state)  # type: ignore[no-any-return]

    def player_rows(self, state: Any) -> list[dict[str, Any]]:
        """Typed per-seat columns. A seat whose snapshot object is unchanged since an earlier call gets
        the very same row object back (moves leave untouched seats' snapshots shared), which the
        importer uses to store runs of unchanged rows."""
        rows = []
        cache = self._row_cache
        for player in state.players:
            hit = cache.get(id(player))
            if hit is not None and hit[0] is player:
                rows.append(hit[1])
                continue
            row = self._player_row(player)
            if len(cache) > 256:
                cache.clear()
            cache[id(player)] = (player, row)
            rows.append(row)
        return rows

    def state_rows(self, work: Any) -> StateRows:
        """The rows of a game replayed in place on ``work`` (``working``), read step by step: see
        ``StateRows``. This base version reads the snapshot a ``SnapshotWorking`` holds; engines with a
        working game of their own read its table instead (no snapshot per step)."""
        return SnapshotRows(cast("StorageRows[Any, Any]", self), work)

    def unused_setup(self, log: GameLog, state: Any) -> FieldError | None:
        """What the setup of a finished game holds that the game never used: chance outcomes recorded
        past the last one drawn (``drawn_setup_key``) would change the game id of the very same game,
        so they are refused."""
        if not self.drawn_setup_key:
            return None
        given = log.setup.get(self.drawn_setup_key) or []
        used = len(getattr(state, self.drawn_state_attribute))
        if isinstance(given, list) and len(given) > used:
            return FieldError(f"setup.{self.drawn_setup_key}[{used}]",
                              self.drawn_unused.format(used=used, given=len(given)))
        return None

    def redraw(self, state: Any, error: FieldError, seed: int) -> Any | None:
        """``state`` drawing from ``seed`` the chance outcomes still to come, those the log recorded and
        not drawn yet dropped, when ``error`` is about one of those (its path in the setup's
        ``drawn_setup_key``) and the state does not draw from a seed already; else None."""
        if not self.drawn_setup_key or not error.path.startswith(f"setup.{self.drawn_setup_key}"):
            return None
        if getattr(state, self.drawn_seed_attribute) is not None:
            return None
        return replace(state, **{self.drawn_setup_key: (), self.drawn_seed_attribute: seed})

    def _player_row(self, player: Any) -> dict[str, Any]:
        raise NotImplementedError

    def simulation_state(self, log: GameLog, seed: int) -> Any:
        """The initial state, drawing the chance outcomes the log lacks from ``seed`` as the game needs
        them."""
        return self.new_game(log, shuffle_seed=seed)

    def finish_log(self, log: GameLog, state: Any, moves: list[dict[str, Any]]) -> dict[str, Any]:
        """The complete log of a simulated game as JSON: the chance outcomes drawn in play recorded
        (``drawn_setup_key``), the result attached."""
        setup = dict(log.setup)
        if self.drawn_setup_key:
            setup[self.drawn_setup_key] = [list(order) for order in getattr(state, self.drawn_state_attribute)]
        obj: dict[str, Any] = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "game": self.game}
        if log.source_id:
            obj["source_id"] = log.source_id
        if log.meta:
            obj["meta"] = log.meta
        obj.update(
            {
                "players": [{"name": n} for n in log.players],
                "options": log.options,
                "setup": setup,
                "moves": moves,
                "result": {"scores": [s.total for s in self.scores(state)], "winners": self.winners(state)},
            }
        )
        return obj


class ReshufflingEngine(RulesEngine):
    """An engine whose deck (or stack of tiles) is reshuffled in play: the log's setup records each
    reshuffle's order under ``reshuffles``, the state holds those drawn so far in ``reshuffles_used`` and
    the seed that draws the next ones in ``shuffle_seed`` once the log has none."""

    drawn_setup_key = "reshuffles"
    drawn_state_attribute = "reshuffles_used"
    drawn_seed_attribute = "shuffle_seed"
    drawn_unused = "the game reshuffles {used} time(s) but the log records {given} reshuffle order(s)"


class RandomPlayer(Generic[S, M]):
    """A bot uniformly random among the legal moves of any engine (every game's ``random`` bot)."""

    def __init__(self, engine: Rules[S, M], seed: int = 0) -> None:
        self.engine = engine
        self.rng = random.Random(seed)

    def choose(self, state: S) -> M:
        """One of ``state``'s legal moves. Raises ``IndexError`` when the game is over."""
        return self.rng.choice(self.engine.legal_moves(state))

    def choose_working(self, game: Working[S, M]) -> M:
        """The move in a working game: its legal moves are listed from its snapshot."""
        return self.choose(game.snapshot())


class SnapshotWorking(Generic[S, M]):
    """``replay.protocol.Working`` over an engine's pure ``apply``: each move makes a new snapshot, so
    every state of a replay can be kept (``state`` is the current one)."""

    __slots__ = ("engine", "state")
    takes_defaults = True

    def __init__(self, engine: Rules[S, M], state: S) -> None:
        self.engine = engine
        self.state = state

    def current_seat(self) -> int | None:
        return self.engine.current_seat(self.state)

    def is_over(self) -> bool:
        return self.engine.is_over(self.state)

    def apply(self, move: M) -> None:
        self.state = self.engine.apply(self.state, move)

    def default_move(self) -> M | None:
        default_move: Callable[[S], M | None] | None = getattr(self.engine, "default_move", None)
        return default_move(self.state) if default_move is not None else None

    def apply_default(self) -> None:
        self.state = self.engine.apply_default(self.state)

    def snapshot(self) -> S:
        return self.state

    def stuck(self) -> bool:
        return False


class SnapshotRows(StateRows, Generic[S, M]):
    """``StateRows`` over a ``SnapshotWorking`` (a snapshot per move): a seat's row changes with its
    row object (``player_rows`` gives unchanged seats the very same object)."""

    __slots__ = ("engine", "work", "last")

    def __init__(self, engine: StorageRows[S, M], work: Working[S, M]) -> None:
        self.engine = engine
        self.work = work
        self.last: list[JSON] = []

    def view(self) -> S:
        return self.work.snapshot()

    def changed(self) -> list[tuple[int, dict[str, Any]]]:
        rows = self.engine.player_rows(self.work.snapshot())
        last = self.last
        if len(last) != len(rows):
            self.last = list(rows)
            return list(enumerate(rows))
        out = []
        for seat, row in enumerate(rows):
            if row is not last[seat]:
                last[seat] = row
                out.append((seat, row))
        return out
