"""The example games' in-process tests run them from the checkout: their packages are put on the path
here, and a test that needs a game registered (the registry, the environment) writes its metadata
with the ``installed_toy`` fixture, as pip would, on a temporary path entry. The command's whole path
runs on the toy game installed by pip for real (``pip_installed_toy``: built by setuptools, as its
``pyproject.toml`` declares, for ``toy_game/test_installed.py`` and ``toy_game/test_browser.py``)."""

from __future__ import annotations

import os
import shutil
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


def built_beside(name: str) -> bool:
    """Whether ``name``, a folder at the top of ``TOY``, is what setuptools writes beside the sources it
    builds (``build/``, ``governor_toy_game.egg-info/``, as a person's own ``pip install
    examples/toy_game`` leaves them; git ignores them), not a part of the package."""
    return name == "build" or name.endswith(".egg-info")


def _sources_only(folder: str, names: list[str]) -> list[str]:
    """What ``shutil.copytree`` leaves out of a copy of ``TOY``: Python's caches, and what an earlier
    build left in the checkout, so that the copy is built from the sources alone."""
    top = Path(folder) == TOY
    return [name for name in names if name == "__pycache__" or (top and built_beside(name))]


@pytest.fixture(scope="session")
def pip_installed_toy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder pip installed the toy game into (``pip install --target``), built by setuptools from a
    copy of the checkout's ``examples/toy_game``: with no network (``--no-index``), the environment's own
    setuptools (``--no-build-isolation``: the test extra's ``setuptools>=70.1``, which pip checks) and
    no pip configuration of the machine; never into the environment the tests run in. setuptools
    writes ``build/`` and ``*.egg-info`` beside the sources it builds, hence the copy: the checkout is
    left as it was."""
    work = tmp_path_factory.mktemp("toy-build")
    target = work / "site"
    before = _tree(TOY)
    sources = shutil.copytree(TOY, work / "toy_game", ignore=_sources_only)
    run = subprocess.run([sys.executable, "-m", "pip", "--isolated", "install", "--no-deps", "--no-index",
                          "--no-build-isolation", "--check-build-dependencies", "--no-cache-dir", "--no-compile",
                          "--disable-pip-version-check", "--quiet", "--target", str(target), str(sources)],
                         capture_output=True, text=True, timeout=300)
    assert (run.returncode, run.stderr) == (0, ""), run.stdout
    assert _tree(TOY) == before  # nothing written, nothing changed
    return target


def environment_with(site: Path) -> dict[str, str]:
    """The environment of a process whose path holds the install ``site`` and the checkout's own
    packages (the current folder, for ``python -m governor.cli``), but not ``examples/toy_game``."""
    return {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONPATH": str(site)}


def governor_on(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``governor ARGS`` run from the checkout with the toy game installed in ``site``."""
    return subprocess.run([sys.executable, "-m", "governor.cli", *args], cwd=ROOT, env=environment_with(site),
                          capture_output=True, text=True, timeout=300)
