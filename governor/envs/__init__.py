"""PettingZoo environments of the games: ``from governor.envs import <game>_v0`` for a game of
``replay.registry.games_with_spaces()``.

There is one module ``<game>_v0`` for every game whose declaration names an observation vector and
action space (``spaces``); each is made from the game's declaration when first named
(``governor.envs.aec.environment_module``), so importing this package costs nothing and a new game
gets its environment without a file here. ``import governor.envs.<game>_v0`` works too.

Needs the ``env`` extra (``pip install 'governor[env]'``: numpy, pettingzoo, gymnasium); the rest of
Governor does not.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import Any

from replay.registry import games_with_spaces

#: The version suffix of the environments' names (``governor.envs.aec.VERSION``, kept here so that
#: listing them imports neither numpy nor PettingZoo).
_SUFFIX = "_v0"


def _games_by_module() -> dict[str, str]:
    return {f"{game}{_SUFFIX}": game for game in games_with_spaces()}


def __getattr__(name: str) -> Any:
    game = _games_by_module().get(name)
    if game is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    full = f"{__name__}.{name}"
    if full not in sys.modules:
        from governor.envs.aec import environment_module

        sys.modules[full] = environment_module(game)
    module = sys.modules[full]
    globals()[name] = module
    return module


def __dir__() -> list[str]:
    return sorted({*globals(), *_games_by_module()})


class _EnvironmentFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Lets ``import governor.envs.<game>_v0`` find the module made from the game's declaration."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != __name__ or name not in _games_by_module():
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module: ModuleType = __getattr__(spec.name.rpartition(".")[2])
        return module

    def exec_module(self, module: ModuleType) -> None:
        return None


if not any(isinstance(finder, _EnvironmentFinder) for finder in sys.meta_path):
    sys.meta_path.append(_EnvironmentFinder())


def __all_names() -> list[str]:
    return sorted(_games_by_module())


__all__ = __all_names()
