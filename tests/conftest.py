"""Shared fixtures: the repository root, sample logs, and a small imported database."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_LOGS = ROOT / "sample_logs"


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def sample_sj() -> list[Path]:
    return sorted((SAMPLE_LOGS / "san_juan").glob("*.json"))


@pytest.fixture(scope="session")
def sample_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The San Juan sample logs imported once (tests copy it before writing)."""
    from ingest.importer import import_paths

    db = tmp_path_factory.mktemp("sample_db") / "sample.duckdb"
    summary = import_paths([SAMPLE_LOGS / "san_juan"], db, workers=1)
    assert summary.rejected == 0
    return db


@pytest.fixture
def sample_db_copy(sample_db: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy.duckdb"
    shutil.copy(sample_db, target)
    return target
