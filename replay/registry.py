"""The games, their engines, views and bots, found from the games' own declarations.

Each game's package declares it once (``GAME = GameDeclaration(...)`` in its ``__init__.py``) and
registers that declaration as an entry point of ``governor.games`` (see ``replay.game``); ingestion,
analysis, the dashboard and the command line find a game here and hold no rules, no secrets and no
game names of their own. Adding a game is installing its package: its board too is its own (a script
and a stylesheet it ships as package data, ``board_script`` and ``board_style``).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, TypeAlias

from replay.game import GameDeclaration, GameDeclarationError, declaration, declarations, load, package_text
from replay.protocol import Bot, Engine, GameView

#: The engine, view and bots of a game named at run time: their states and moves are that game's own
#: types, which code that finds a game by its name cannot know.
AnyEngine: TypeAlias = Engine[Any, Any]
AnyView: TypeAlias = GameView[Any]
AnyBot: TypeAlias = Bot[Any, Any]

_ENGINES: dict[str, AnyEngine] = {}
_VIEWS: dict[str, AnyView] = {}
_BOT_VERSIONS: dict[tuple[str, str], str] = {}


def game_names() -> tuple[str, ...]:
    """The name of every declared game, in the declared order (``order``, then the name)."""
    return tuple(declarations())


def game_of(game: str) -> GameDeclaration:
    """The declaration of ``game``. Raises ``KeyError`` naming the known games for another name."""
    return declaration(game)


def game_title(game: str) -> str:
    """The title players write of ``game`` (its declared ``title``); an unknown name (a table from another
    build) is written from its words (``chess_960`` -> ``Chess 960``), never an error."""
    found = declarations().get(game)
    return found.title if found is not None else game.replace("_", " ").title()


def _loaded(found: GameDeclaration, what: str, path: str) -> Any:
    """What ``path`` of the declaration ``found`` names (its ``what``: "engine", "view"...). Raises
    ``GameDeclarationError``, one line naming it and the game, when it does not load (a game's package
    broken or half installed: whatever its import raises)."""
    try:
        return load(path)
    except Exception as err:  # a third party's import may raise anything: one line naming it
        raise GameDeclarationError(f"the {what} of {found.title} ({path}) cannot be loaded: "
                                   f"{type(err).__name__}: {err}") from err


def engine_for(game: str) -> AnyEngine:
    """The engine of ``game``, loaded from its declaration when first asked for. Raises ``KeyError``
    naming the known games for a game no package declares, ``GameDeclarationError`` when the engine
    does not load."""
    if game not in _ENGINES:
        found = declaration(game)
        _ENGINES[game] = _loaded(found, "engine", found.engine)
    return _ENGINES[game]


def all_engines() -> dict[str, AnyEngine]:
    """Every engine by game name, in the declared order (loads every engine)."""
    return {name: engine_for(name) for name in declarations()}


def view_for(game: str) -> AnyView:
    """What a viewer of ``game`` may see: the module its declaration names (``replay/<game>/view.py``,
    a ``replay.protocol.GameView``). Raises ``KeyError`` for a game the registry does not know,
    ``GameDeclarationError`` when the module does not load."""
    if game not in _VIEWS:
        found = declaration(game)
        _VIEWS[game] = _loaded(found, "view", found.view)
    return _VIEWS[game]


def make_bot(game: str, kind: str, seed: int) -> AnyBot:
    """A new ``kind`` bot (``heuristic``, ``random``, as ``game`` declares them) seeded with ``seed``.
    Raises ``KeyError`` naming the known games, or the game's bot kinds, for others,
    ``GameDeclarationError`` when the bot's code does not load."""
    found = declaration(game)
    make = _loaded(found, f"{kind} bot", found.bot_path(kind))
    bot: AnyBot = make(engine_for(game), seed)
    return bot


def bot_version(game: str, kind: str) -> str:
    """The version a ``kind`` bot of ``game`` declares (its ``version`` attribute, else ``"1"``): a bot
    whose play changed declares a new one, so that ratings and stored analyses do not mix the two.
    Raises as ``make_bot``."""
    key = (game, kind)
    if key not in _BOT_VERSIONS:
        _BOT_VERSIONS[key] = str(getattr(make_bot(game, kind, 0), "version", "1"))
    return _BOT_VERSIONS[key]


def rollout_bot(game: str) -> str:
    """The kind of bot ``game`` declares for the analysis' rollouts (``GameDeclaration.rollout_kind``:
    its ``rollout_bot``, else its first bot). Raises ``KeyError`` naming the known games for a game no
    package declares, or saying that the game declares no bot."""
    return declaration(game).rollout_kind


def catalogue_names(game: str) -> tuple[str, ...]:
    """Every name ``game``'s catalogue gives its things (roles, buildings, goods, cards, tiles...): the
    ``NAMES`` of the module its declaration names as ``catalogue``. Raises ``KeyError`` naming the known
    games for another name, ``GameDeclarationError`` when the catalogue declares no ``NAMES`` (a tuple of
    strings)."""
    found = declaration(game)
    names = getattr(_loaded(found, "catalogue", found.catalogue), "NAMES", None)
    if not isinstance(names, tuple) or not all(isinstance(name, str) for name in names):
        raise GameDeclarationError(f"{found.catalogue}: the catalogue of {found.title} declares no NAMES (a tuple of "
                                   "the names it gives its things)")
    return names


def spaces_for(game: str) -> ModuleType:
    """The module of ``game``'s flat observation vector and action space for learning code (its
    declaration's ``spaces``; it needs numpy). Raises ``KeyError`` naming the known games, or saying
    that the game has none."""
    path = declaration(game).spaces
    if not path:
        raise KeyError(f"{game_title(game)} has no observation vector for learning code")
    module: ModuleType = load(path)
    return module


def games_with_spaces() -> tuple[str, ...]:
    """The games that declare an observation vector and action space, in the declared order."""
    return tuple(name for name, found in declarations().items() if found.spaces)


def board_script(game: str) -> str | None:
    """The drawing of ``game``'s board (its declaration's ``board``: a script defining ``draw(game,
    step)``), or None for a game without a board or a name no game declares. Raises
    ``GameDeclarationError`` naming the file when the declared one cannot be read."""
    found = declarations().get(game)
    if found is None or not found.board:
        return None
    return package_text(found.board)


def board_style(game: str) -> str:
    """The stylesheet of ``game``'s board (its declaration's ``board_style``), "" for a game without
    one or a name no game declares. Raises ``GameDeclarationError`` naming the file when the declared
    one cannot be read."""
    found = declarations().get(game)
    if found is None or not found.board_style:
        return ""
    return package_text(found.board_style)
