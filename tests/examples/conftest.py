"""The example games' in-process tests run them from the checkout: their packages are put on the path
here, and a test that needs a game registered (the registry, the environment) writes its metadata
with the ``installed_toy`` fixture, as pip would, on a temporary path entry. The command's whole path
runs on the toy game installed by pip for real (``toy_game/test_installed.py``)."""

from __future__ import annotations

import os
import subprocess
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


def _tree(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``folder`` with its size and modification time, Python's caches aside."""
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(folder.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture(scope="session")
def pip_installed_toy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder pip installed the toy game into (``pip install --target``), from the checkout's
    ``examples/toy_game``: with no network (``--no-index``), no build environment of its own (the
    package's backend is the standard library) and no pip configuration of the machine; never into the
    environment the tests run in. Building it writes nothing into the checkout."""
    target = tmp_path_factory.mktemp("toy-site")
    before = _tree(TOY)
    run = subprocess.run([sys.executable, "-m", "pip", "--isolated", "install", "--no-deps", "--no-index",
                          "--no-build-isolation", "--no-cache-dir", "--no-compile", "--disable-pip-version-check",
                          "--quiet", "--target", str(target), str(TOY)],
                         capture_output=True, text=True, timeout=300)
    assert (run.returncode, run.stderr) == (0, ""), run.stdout
    # No build/ or *.egg-info folder, nothing changed.
    assert _tree(TOY) == before
    return target


def environment_with(site: Path) -> dict[str, str]:
    """The environment of a process whose path holds the install ``site`` and the checkout's own
    packages (the current folder, for ``python -m governor.cli``), but not ``examples/toy_game``."""
    return {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONPATH": str(site)}


def governor_on(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``governor ARGS`` run from the checkout with the toy game installed in ``site``."""
    return subprocess.run([sys.executable, "-m", "governor.cli", *args], cwd=ROOT, env=environment_with(site),
                          capture_output=True, text=True, timeout=300)
