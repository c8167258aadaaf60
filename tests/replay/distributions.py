"""Installing a game's package for a test: its ``*.dist-info`` beside it on a temporary ``sys.path``
entry, which ``importlib.metadata`` finds exactly as it finds a distribution pip installed."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path


def install_distribution(folder: Path, distribution: str, entry_points: str) -> None:
    """Make ``folder`` hold the metadata of an installed ``distribution`` whose ``entry_points.txt`` is
    ``entry_points``, as pip would leave it (``importlib.metadata`` reads it once ``folder`` is on
    ``sys.path``)."""
    info = folder / f"{distribution}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points), encoding="utf-8")


def drop_modules(*names: str) -> None:
    """Forget the imported modules ``names`` and their submodules (a test's package, gone with its folder)."""
    for module in [m for m in sys.modules if any(m == n or m.startswith(f"{n}.") for n in names)]:
        del sys.modules[module]
