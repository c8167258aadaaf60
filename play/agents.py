"""The agent protocol, the built-in agents and how an agent is named on the command line.

An agent is any object with ``act(observation, legal_moves) -> move``: ``observation`` is the dict of
``play.views.seat_view`` (exactly what its seat may see), ``legal_moves`` the engine's legal
moves in their fixed order, and the move returned must be one of them. ``on_game_start`` and
``on_game_end`` are optional. Subclassing ``Agent`` is the easy way.

The built-in agents (``random``, ``heuristic``, ``expert``, ``search``, ``search:R``) are engine agents:
they read the engine's working table directly (each looks only at what its seat sees; the search agents
first deal again what their seat cannot see), so that an arena of them plays about as fast as
``governor simulate``.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import math
import random
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from replay.protocol import Working


class AgentError(Exception):
    """An agent spec names nothing that can be built (unknown name, module, class or file)."""


class Agent:
    """Base class of agents: override ``act``; ``name`` and ``version`` go into the logs' ``meta``."""

    name: str = "agent"
    version: str = "1"

    def on_game_start(self, game: str, seat: int, players: Sequence[str], seed: int) -> None:
        """Called before the first move of each game with the agent's seat and every player's name."""

    def act(self, observation: dict[str, Any], legal_moves: Sequence[Any]) -> Any:
        """The move to make: one of ``legal_moves``. Anything else (or an exception, or an answer
        later than the arena's time budget) is a fault: the arena plays a random legal move instead."""
        raise NotImplementedError

    def on_game_end(self, observation: dict[str, Any], result: dict[str, Any]) -> None:
        """Called once the game is over: the final view (everything turned up) and the ``result``
        (``scores`` and ``winners``) as the log records it."""


class EngineAgent(Agent):
    """A built-in agent that reads the engine's working game instead of an observation dict."""

    def __init__(self, game: str) -> None:
        from replay.registry import engine_for

        self.game = game
        self.engine = engine_for(game)
        self.rng = random.Random(0)

    def on_game_start(self, game: str, seat: int, players: Sequence[str], seed: int) -> None:
        # Seeded by the game and the seat, so a game's moves do not depend on which worker plays it.
        self.rng = random.Random(f"arena:{seed}:{seat}")
        self.reset(self.rng.randrange(2**31))

    def reset(self, seed: int) -> None:
        """Start a new game with bots seeded from ``seed``."""

    def choose_working(self, play: Working[Any, Any]) -> Any:
        """The move of the seat to act in the working game ``play`` (read, left as it is)."""
        raise NotImplementedError

    def act(self, observation: dict[str, Any], legal_moves: Sequence[Any]) -> Any:
        # An engine agent can also be given only a view (e.g. by a user's harness): it then plays a
        # legal move at random, never a hidden-information move.
        return self.rng.choice(list(legal_moves))


class RandomAgent(EngineAgent):
    """Uniformly random among the legal moves."""

    name = "random"

    def reset(self, seed: int) -> None:
        self.pick = random.Random(seed)

    def choose_working(self, play: Working[Any, Any]) -> Any:
        return self.pick.choice(self.engine.legal_moves(play.snapshot()))


class BotAgent(EngineAgent):
    """One of the engines' hand-made bots (``replay/<game>/bots.py`` or ``expert.py``), of the version
    the bot declares (its ``version``, else 1)."""

    def __init__(self, game: str, kind: str) -> None:
        super().__init__(game)
        self.kind = kind
        self.name = kind
        self.version = bot_version(game, kind)
        self.bot: Any = None

    def reset(self, seed: int) -> None:
        self.bot = make_engine_bot(self.game, self.kind, seed)

    def choose_working(self, play: Working[Any, Any]) -> Any:
        return self.bot.choose_working(play)


def make_engine_bot(game: str, kind: str, seed: int) -> Any:
    """A bot with ``choose_working``: ``heuristic`` (today's simulation bot) or ``expert``, as the game
    declares them.

    Raises ``AgentError`` for another kind, or one the game does not declare."""
    from replay.registry import make_bot

    if kind not in ("heuristic", "expert"):
        raise AgentError(f"unknown bot {kind!r}")
    try:
        return make_bot(game, kind, seed)
    except KeyError as err:
        raise AgentError(str(err.args[0]) if err.args else f"unknown bot {kind!r}") from None


def bot_version(game: str, kind: str) -> str:
    """The version a ``kind`` bot of ``game`` declares (``replay.registry.bot_version``). Raises
    ``AgentError`` for a kind the game does not declare."""
    from replay import registry

    try:
        return registry.bot_version(game, kind)
    except KeyError as err:
        raise AgentError(str(err.args[0]) if err.args else f"unknown bot {kind!r}") from None


def composed_version(own: str, game: str, kinds: Sequence[str]) -> str:
    """The version of an agent that plays with ``kinds`` bots: its ``own``, followed by each bot whose
    version is not 1 (``1+expert2``), so that a search whose bots changed is rated apart. Raises
    ``AgentError`` as ``bot_version`` does."""
    changed = [f"{kind}{version}" for kind in dict.fromkeys(kinds) if (version := bot_version(game, kind)) != "1"]
    return "+".join([own, *changed])


class SearchAgent(EngineAgent):
    """Flat Monte Carlo: at each decision with more than one legal move, up to ``candidates`` moves
    (the rollout bot's choice first, then others spread over the legal list) are each tried in
    ``rollouts`` determinised worlds (analysis' rollouts: hidden cards dealt again, played to the end
    by the bot the game declares for rollouts, ``replay.registry.rollout_bot``); the rollout bot's
    move is played unless another does clearly better (``preferred``)."""

    def __init__(self, game: str, rollouts: int, candidates: int = 8) -> None:
        from replay.registry import rollout_bot

        super().__init__(game)
        self.rollouts = rollouts
        self.candidates = candidates
        self.name = f"search:{rollouts}"
        self.seed = 0
        self.decision = 0
        self.bot = rollout_bot(game)
        self.version = composed_version(Agent.version, game, [self.bot])

    def reset(self, seed: int) -> None:
        self.seed = seed
        self.decision = 0
        self.prior = make_engine_bot(self.game, self.bot, seed)

    def choose_working(self, play: Working[Any, Any]) -> Any:
        from analysis.rollouts import RolloutTask, run_task

        state = play.snapshot()
        legal = self.engine.legal_moves(state)
        if len(legal) == 1:
            return legal[0]
        first = self.engine.canonical_move(self.prior.choose_working(play))
        others = [m for m in legal if m != first]
        picked = [first]
        want = self.candidates - 1
        if len(others) <= want:
            picked += others
        else:
            # Evenly over the list: the legal order groups similar moves, so this samples every kind.
            picked += [others[i * len(others) // want] for i in range(want)]
        self.decision += 1
        seat = self.engine.current_seat(state)
        assert seat is not None  # an agent is asked only while the game goes on
        task = RolloutTask(self.game, self.decision, seat, state, tuple(picked), self.seed, 0, self.rollouts, self.bot)
        result = run_task(task)
        return picked[preferred(result.wins, result.played)]


#: How many standard errors of the difference another candidate's share of wins must beat the rollout
#: bot's move by to be played instead (about 2: seven others are compared with it at once).
SEARCH_MARGIN = 2.0


def preferred(wins: Sequence[float], played: Sequence[int]) -> int:
    """The candidate a search plays, from each candidate's wins and rollouts played (candidate 0 is
    the rollout bot's move): the best share of wins (the first of equals), but only when it beats
    candidate 0's share by more than ``SEARCH_MARGIN`` standard errors of the difference; otherwise 0.
    With few rollouts most differences are noise, and picking the luckiest of eight candidates plays
    worse than the bot itself (in a 4-player game measured, a flat search at 20 rollouts won 22.5% of
    its games against three heuristic bots where the expert it starts from wins 58%). Raises nothing."""
    shares = [w / n if n else -1.0 for w, n in zip(wins, played)]
    best = max(range(len(shares)), key=lambda i: (shares[i], -i))
    if best == 0 or played[0] == 0:
        return best
    a, b = shares[0], shares[best]
    error = math.sqrt(a * (1 - a) / played[0] + b * (1 - b) / played[best])
    return best if b - a > SEARCH_MARGIN * max(error, 1e-9) else 0


class AnalysisSearchAgent(EngineAgent):
    """``search``: the analysis' own search (``analysis.decisions.analyse_state``) at each of its
    decisions, the move of its ``prior`` bot taken as the move played. The analysis' candidates
    (every choice when they are few, else the prior's move, the rollout bot's and the best of a cheap
    pre-ranking: progressive widening by rollouts), raced in rounds of rollouts of the rollout bot
    (``analysis.racing``, a search's race: a candidate leaves once clearly below the leader or unable
    to be better than the prior's move, up to ``rollouts`` each) in worlds where what the seat cannot
    see is dealt again; the prior's move is played unless the leader beats it beyond chance (paired
    rollouts, one-sided 95 %). Raises nothing of its own; ``analyse_state``'s errors propagate (a
    bug)."""

    def __init__(self, game: str, rollouts: int | None = None, bot: str | None = None,
                 prior: str | None = None) -> None:
        super().__init__(game)
        self.rollouts = SEARCH_ROLLOUTS if rollouts is None else rollouts
        self.bot = bot if bot is not None else search_rollout_bot(game)
        self.prior_kind = prior if prior is not None else SEARCH_PRIOR
        self.version = composed_version(SEARCH_VERSION, game, [self.prior_kind, self.bot])
        self.name = "search"
        self.seed = 0
        self.decision = 0

    def reset(self, seed: int) -> None:
        self.seed = seed
        self.decision = 0
        self.prior = make_engine_bot(self.game, self.prior_kind, seed)

    def choose_working(self, play: Working[Any, Any]) -> Any:
        from analysis.choices import one_sensible_move
        from analysis.decisions import Options, analyse_state

        state = play.snapshot()
        legal = self.engine.legal_moves(state)
        if len(legal) == 1:
            return legal[0]
        move = self.engine.canonical_move(self.prior.choose_working(play))
        if one_sensible_move(self.engine, state, legal):
            return move
        self.decision += 1
        options = Options(rollouts=self.rollouts, seed=self.seed, rollout_bot=self.bot, purpose="play")
        names = [f"seat {i + 1}" for i in range(len(state.players))]
        return analyse_state(self.game, state, names, move, options, step=self.decision).best.move


#: The ``search`` agent: the expert's move unless the analysis' race (at most ``SEARCH_ROLLOUTS``
#: rollouts a candidate) finds a significantly better one; its rollouts are played by the bot of
#: ``SEARCH_BOTS`` for the game, else by the game's declared rollout bot (the analysis' default).
SEARCH_PRIOR = "expert"
SEARCH_ROLLOUTS = 100
#: The ``search`` agent's own version: since version 2 its race looks for a better move than the prior's,
#: where version 1 raced as the analysis does (only a candidate that could be a blunder's worth better
#: stayed, so that it mended only the prior's blunders); version 3 plays the leader once it beats the
#: prior at one-sided 95 % (version 2 asked for 99 %, and played as version 1 did in 10 of 12 games).
SEARCH_VERSION = "3"
SEARCH_BOTS: dict[str, str] = {}


def search_rollout_bot(game: str) -> str:
    """The kind of bot that plays the ``search`` agent's rollouts in ``game``. Raises ``KeyError``
    naming the known games for an unknown game."""
    from replay.registry import rollout_bot

    return SEARCH_BOTS.get(game) or rollout_bot(game)


#: The built-in agents' names, as the command line takes them.
BUILT_IN = ("random", "heuristic", "expert", "search", "search:R")
_SEARCH = re.compile(r"search:(\d{1,5})")


def built_in_agent(spec: str, game: str) -> EngineAgent | None:
    """The built-in agent ``spec`` names (``random``, ``heuristic``, ``expert``, ``search``, ``search:R``), or None
    for a spec of another kind. Raises ``AgentError`` for ``search:0``."""
    if spec == "random":
        return RandomAgent(game)
    if spec in ("heuristic", "expert"):
        return BotAgent(game, spec)
    if spec == "search":
        return AnalysisSearchAgent(game)
    found = _SEARCH.fullmatch(spec)
    if found:
        rollouts = int(found.group(1))
        if rollouts < 1:
            raise AgentError(f"{spec}: search needs at least 1 rollout per candidate")
        return SearchAgent(game, rollouts)
    return None


def check_spec(spec: str) -> None:
    """Refuse, without running anything, a spec that is neither built in nor ``module:Class`` nor a
    ``.py`` file that exists. Raises ``AgentError`` with the reason."""
    path_part, _, class_name = spec.rpartition(":") if ":" in spec else (spec, "", "")
    if path_part.endswith(".py") or (not class_name and spec.endswith(".py")):
        file = Path(path_part or spec)
        if not file.is_file():
            raise AgentError(f"{spec}: no such file {str(file)!r}")
    elif not class_name or not path_part:
        raise AgentError(f"unknown agent {spec!r} (built-in: {', '.join(BUILT_IN)}; or module:Class, or a .py file)")


def load_agent(spec: str, game: str, caught: type[BaseException] = Exception) -> Agent:
    """The agent a spec names: a built-in (``random``, ``heuristic``, ``expert``, ``search``, ``search:R``), a
    ``module:Class`` importable from here, or ``path/to/file.py:Class`` (``path/to/file.py`` alone
    takes the one ``Agent`` subclass the file defines). A class is called with no argument.

    The arena runs this for a user's agent in an agent host only (``play.host``), with
    ``caught=BaseException``: there whatever the agent's module or constructor raises, even
    ``SystemExit``, is a reason it cannot be loaded.

    Raises ``AgentError`` with the reason when the spec names nothing usable."""
    agent = built_in_agent(spec, game)
    if agent is not None:
        return agent
    check_spec(spec)
    cls = _load_class(spec, caught)
    try:
        built = cls()
    except caught as err:  # an agent's own constructor: any failure is the spec's problem
        raise AgentError(f"{spec}: {_failure(err)}") from None
    if not callable(getattr(built, "act", None)):
        raise AgentError(f"{spec}: {cls.__name__} has no act(observation, legal_moves) method")
    return built  # type: ignore[no-any-return]


def _failure(err: BaseException) -> str:
    """``Type: message`` of an exception an agent's code raised (its ``__str__`` may raise too)."""
    try:
        message = str(err)
        return f"{type(err).__name__}: {message}" if message else type(err).__name__
    except BaseException:
        return type(err).__name__


def _load_class(spec: str, caught: type[BaseException] = Exception) -> type:
    path_part, _, class_name = spec.rpartition(":") if ":" in spec else (spec, "", "")
    if path_part.endswith(".py") or (not class_name and spec.endswith(".py")):
        file = Path(path_part or spec)
        # Named after the file, the same in every process: the name shows in what its objects say.
        module_name = f"governor_arena_agent_{hashlib.sha256(str(file.resolve()).encode('utf-8', 'surrogateescape')).hexdigest()[:12]}"
        module = sys.modules.get(module_name)
        if module is None:
            loader_spec = importlib.util.spec_from_file_location(module_name, file)
            if loader_spec is None or loader_spec.loader is None:
                raise AgentError(f"{spec}: cannot load {str(file)!r} as Python")
            module = importlib.util.module_from_spec(loader_spec)
            sys.modules[module_name] = module
            try:
                loader_spec.loader.exec_module(module)
            except caught as err:  # the file's own code: report it, never a traceback
                del sys.modules[module_name]
                failure = _failure(err)
                kind, colon, message = failure.partition(":")
                raise AgentError(f"{spec}: {kind} while loading{colon}{message}") from None
        if not class_name:
            found = [v for v in vars(module).values()
                     if isinstance(v, type) and issubclass(v, Agent) and v.__module__ == module_name]
            if len(found) != 1:
                raise AgentError(f"{spec}: the file defines {len(found)} Agent subclasses; name one as FILE.py:Class")
            return found[0]
    else:
        try:
            module = importlib.import_module(path_part)
        except caught as err:  # an import of the user's module: any failure is reported
            raise AgentError(f"{spec}: cannot import {path_part!r}: {_failure(err)}") from None
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        raise AgentError(f"{spec}: {class_name!r} is not a class of {path_part!r}")
    return cls
