"""The engines by game name. Ingestion and the dashboard find an engine here and hold no rules."""

from __future__ import annotations

from typing import Any

_ENGINES: dict[str, Any] = {}


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


def _load() -> None:
    from replay.san_juan.engine import ENGINE as SAN_JUAN

    _ENGINES[SAN_JUAN.game] = SAN_JUAN
    try:
        from replay.puerto_rico.engine import ENGINE as PUERTO_RICO
    except ImportError:  # the Puerto Rico engine is optional until it lands
        return
    _ENGINES[PUERTO_RICO.game] = PUERTO_RICO
