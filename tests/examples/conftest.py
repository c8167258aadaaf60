"""The example games' in-process tests run them from the checkout: their packages are put on the path
here, and a test that needs a game registered (the registry, the environment) writes its metadata
with the ``installed_toy`` fixture, as pip would, on a temporary path entry. The command's whole path
runs on the toy game installed by pip for real (``toy_game/test_installed.py``)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "examples" / "toy_game"
if str(TOY) not in sys.path:
    sys.path.insert(0, str(TOY))



@pytest.fixture()
def installed_toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The toy game registered as the distribution ``governor-toy-game`` would register it; yields the
    folder holding its metadata (put it on ``PYTHONPATH`` for a command run in a process of its own)."""
    from replay import game, registry
    from tests.replay.distributions import install_distribution

    meta = tmp_path / "site"
    meta.mkdir()
    install_distribution(meta, "governor_toy_game", "[governor.games]\ntoy = toy_game:GAME\n")
    monkeypatch.syspath_prepend(str(meta))
    game.forget()
    yield meta
    monkeypatch.undo()
    game.forget()
    for cache in (registry._ENGINES, registry._VIEWS):
        cache.pop("toy", None)
