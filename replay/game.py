"""How a game declares itself, once, and how the registry finds the games.

A game is a package ``replay/<game>/`` whose ``__init__.py`` holds ``GAME = GameDeclaration(...)``:
its name, title, player counts, options, and where its engine, view, catalogue, bots and log schema
part live (as ``module`` or ``module:attribute`` paths, so that reading a declaration imports none of
them). Nothing outside the game's package switches on its name: ``replay.registry`` loads what a
declaration points to when it is first asked for.

This module imports nothing of the project's (the log reader asks it for the game names, and the
registry, which imports the protocols, which import the log reader, is built on it).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class GameOption:
    """A game option a log's ``options`` may hold (San Juan's ``draft_start``)."""

    name: str
    #: What it changes, in one sentence, for ``--help`` and the docs.
    description: str


@dataclass(frozen=True)
class GameDeclaration:
    """What the rest of the product knows of a game, declared in its package's ``__init__.py``.

    The paths are ``"package.module"`` or ``"package.module:attribute"``; they are imported only when
    the registry first needs them."""

    #: The name logs, tables and URLs use (``san_juan``): lower-case letters, digits and ``_``.
    name: str
    #: The name players write (``San Juan``).
    title: str
    min_players: int
    max_players: int
    #: ``module:attribute`` of the engine object (``replay.protocol.Engine``).
    engine: str
    #: The module that decides what a viewer may see (``replay.protocol.GameView``).
    view: str
    #: The module of the game's catalogue (cards, buildings) as data.
    catalogue: str
    #: The bots by kind (``heuristic``, ``random``, ``expert``): ``module:attribute`` of a callable
    #: taking the engine and a seed and returning a bot with ``choose(state)`` and ``choose_working(game)``.
    bots: tuple[tuple[str, str], ...]
    #: The prefix of the game's definitions in the log schema (``sj_``: ``sj_setup``, ``sj_move``...).
    log_schema: str
    #: ``package:file`` of the game's part of the log schema (its options and its prefixed
    #: definitions), which ``replay.log_schema`` composes with the envelope and the other games.
    log_schema_file: str
    #: The options a log may set, each with its description.
    options: tuple[GameOption, ...] = ()
    #: Which first decisions the Explorer counts besides role choices and builds, as the end of its
    #: sentence (``", plantations and quarries taken"``), or "".
    opening_words: str = ""
    #: Where the game is listed among the games (lower first; then by name).
    order: int = 100
    #: The module of the game's flat observation vector and fixed action space for learning code
    #: (``encode``, ``LAYOUT``, ``ACTIONS``, ``representatives``; it needs numpy, so only the agent
    #: environments load it), or "" when the game has none.
    spaces: str = ""
    #: The kind of bot (one of ``bots``) that plays the analysis' rollouts to the end: the strongest
    #: whose whole-game analysis at 100 rollouts stays under a minute on the compiled engines; "" for
    #: the first of ``bots``.
    rollout_bot: str = ""

    def __post_init__(self) -> None:
        if not self.name or not all(c.isascii() and (c.islower() or c.isdigit() or c == "_") for c in self.name):
            raise ValueError(f"game name {self.name!r}: lower-case ASCII letters, digits and '_' only")
        if not 1 <= self.min_players <= self.max_players:
            raise ValueError(f"game {self.name}: player counts {self.min_players} to {self.max_players}")
        kinds = [kind for kind, _ in self.bots]
        if len(set(kinds)) != len(kinds):
            raise ValueError(f"game {self.name}: a bot kind declared twice in {kinds}")
        if self.rollout_bot and self.rollout_bot not in kinds:
            raise ValueError(f"game {self.name}: rollout bot {self.rollout_bot!r} is not among its bots {kinds}")

    @property
    def bot_kinds(self) -> tuple[str, ...]:
        """The kinds of bot the game has, as declared."""
        return tuple(kind for kind, _ in self.bots)

    @property
    def rollout_kind(self) -> str:
        """The kind of bot that plays the analysis' rollouts: ``rollout_bot``, else the first declared
        bot. Raises ``KeyError`` when the game declares no bot."""
        if self.rollout_bot:
            return self.rollout_bot
        if not self.bots:
            raise KeyError(f"{self.title} declares no bot to play rollouts")
        return self.bots[0][0]

    def bot_path(self, kind: str) -> str:
        """Where the ``kind`` bot's factory lives. Raises ``KeyError`` naming the kinds there are."""
        for name, path in self.bots:
            if name == kind:
                return path
        raise KeyError(f"{self.title} has no {kind!r} bot (bots: {', '.join(self.bot_kinds)})")


class GameDeclarationError(Exception):
    """A package of ``replay`` declares a game wrongly (``GAME`` not a ``GameDeclaration``, or a name
    two packages declare)."""


_FOUND: dict[str, GameDeclaration] = {}


def declarations() -> dict[str, GameDeclaration]:
    """Every game declared by a subpackage of ``replay`` (its ``__init__``'s ``GAME``), by name, in
    the declared order; found once, then cached (``forget`` clears it). Raises
    ``GameDeclarationError`` for a ``GAME`` that is not a declaration or a name declared twice."""
    if not _FOUND:
        _FOUND.update(_discover())
    return dict(_FOUND)


def declaration(name: str) -> GameDeclaration:
    """The declaration of game ``name``. Raises ``KeyError`` naming the known games."""
    found = declarations()
    if name not in found:
        raise KeyError(f"unknown game {name!r} (known: {', '.join(found)})")
    return found[name]


def game_names() -> tuple[str, ...]:
    """The names of every declared game, in the declared order."""
    return tuple(declarations())


def forget() -> None:
    """Forget the games found, so that the next call looks again (tests adding a game)."""
    _FOUND.clear()


def load(path: str) -> Any:
    """The object a declaration's ``module:attribute`` path (or ``module`` path) names. Raises
    ``ImportError`` or ``AttributeError`` when it is not there."""
    module_name, _, attribute = path.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attribute) if attribute else module


def _discover() -> dict[str, GameDeclaration]:
    # The package's own search path (not a directory of this file), so that a test can add a
    # folder to it and a namespace of several folders is scanned whole.
    package = sys.modules[__name__.rpartition(".")[0]]
    found: list[GameDeclaration] = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        declared = getattr(module, "GAME", None)
        if declared is None:
            continue
        if not isinstance(declared, GameDeclaration):
            raise GameDeclarationError(f"{module.__name__}.GAME is a {type(declared).__name__}, not a GameDeclaration")
        if any(d.name == declared.name for d in found):
            raise GameDeclarationError(f"game {declared.name!r} is declared twice ({module.__name__})")
        found.append(declared)
    found.sort(key=lambda d: (d.order, d.name))
    return {d.name: d for d in found}
