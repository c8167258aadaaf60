"""PettingZoo environments of both games: ``from governor.envs import san_juan_v0, puerto_rico_v0``.

Needs the ``env`` extra (``pip install 'governor[env]'``: numpy, pettingzoo, gymnasium); the rest of
Governor does not. The submodules are loaded when first named, so importing this package costs nothing.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["san_juan_v0", "puerto_rico_v0"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return importlib.import_module(f"governor.envs.{name}")
    raise AttributeError(f"module 'governor.envs' has no attribute {name!r}")
