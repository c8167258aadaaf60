"""Fixtures of the analysis tests: three small stored games for ``governor analyse --all``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Three small games (2 players).
GAMES = [ROOT / "sample_logs" / "san_juan" / f"san_juan-2p-seed2026-000{k}.json" for k in (0, 3, 6)]


@pytest.fixture(scope="session")
def three_games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``GAMES`` imported once (tests copy it before writing: ``db``)."""
    from ingest.importer import import_paths

    db = tmp_path_factory.mktemp("batch") / "three.duckdb"
    assert import_paths(GAMES, db, workers=1).rejected == 0
    return db


@pytest.fixture
def db(three_games: Path, tmp_path: Path) -> Path:
    """A copy of ``three_games`` of the test's own."""
    target = tmp_path / "games.duckdb"
    shutil.copy(three_games, target)
    return target
