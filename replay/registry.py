"""The engines and the views by game name. Ingestion, analysis and the dashboard find a game here and
hold no rules and no secrets of their own."""

from __future__ import annotations

import importlib
from typing import Any

from replay.protocol import GameView

_ENGINES: dict[str, Any] = {}
_VIEWS: dict[str, GameView] = {}


def engine_for(game: str) -> Any:
    """The engine of ``game`` (``san_juan`` or ``puerto_rico``). Raises ``KeyError`` for others."""
    if not _ENGINES:
        _load()
    return _ENGINES[game]


def all_engines() -> dict[str, Any]:
    """Every engine by game name."""
    if not _ENGINES:
        _load()
    return dict(_ENGINES)


def view_for(game: str) -> GameView:
    """What a viewer of ``game`` may see: the module ``replay/<game>/view.py`` its package declares
    (``replay.protocol.GameView``). Raises ``KeyError`` for a game the registry does not know."""
    if game not in _VIEWS:
        engine_for(game)  # a KeyError for an unknown game, before any import by name
        module: Any = importlib.import_module(f"replay.{game}.view")
        _VIEWS[game] = module
    return _VIEWS[game]


def _load() -> None:
    from replay.san_juan.engine import ENGINE as SAN_JUAN

    _ENGINES[SAN_JUAN.game] = SAN_JUAN
    try:
        from replay.puerto_rico.engine import ENGINE as PUERTO_RICO
    except ImportError:  # the Puerto Rico engine is optional until it lands
        return
    _ENGINES[PUERTO_RICO.game] = PUERTO_RICO
