"""The import's discovery (``ingest.importer``): a store's own files (the lake written, any lake met, the database
file and its write-ahead log) are never read as logs, even from inside a folder imported."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ingest.cli import run_import
from tests.ingest.test_lake_safety import snapshot

ROOT = Path(__file__).resolve().parents[2]
NEVER = "a store's own files are never read as logs"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder of two logs, made the current folder."""
    for path in sorted((ROOT / "sample_logs" / "san_juan").glob("*.json"))[:2]:
        shutil.copy(path, tmp_path / path.name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_an_import_run_again_from_the_folder_holding_its_lake_reads_none_of_the_lakes_files(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_import(["."], "./lake", lake=True, workers=1, progress="never") == 0
    assert capsys.readouterr().err.startswith("./lake: 2 imported, 0 duplicates skipped, 0 rejected (2 games in 2 files,")
    # Before, the lake's mark and manifests were read as logs: 3 rejections, status 1.
    assert run_import(["."], "./lake", lake=True, workers=1, progress="never") == 0
    assert capsys.readouterr().err.startswith("./lake: 0 imported, 2 duplicates skipped, 0 rejected (2 games in 2 files,")
    # A glob that matches the lake skips it silently too: the user did not name it.
    assert run_import(["*"], "./lake", lake=True, workers=1, progress="never") == 0
    assert capsys.readouterr().err.startswith("./lake: 0 imported, 2 duplicates skipped, 0 rejected (2 games in 2 files,")
    # Another lake met in a folder imported into a database is skipped too, silently.
    assert run_import(["."], "other.duckdb", workers=1, progress="never") == 0
    assert capsys.readouterr().err.startswith("other.duckdb: 2 imported, 0 duplicates skipped, 0 rejected (2 games in 2 files,")


@pytest.mark.parametrize(("named", "store", "why"), [
    ("lake", "lake", "it is the lake this import writes"),
    ("lake/_manifest", "lake", "it is in the lake this import writes"),
    ("lake/_governor_lake.json", "lake", "it is in the lake this import writes"),
    ("lake", "db.duckdb", "it is a Governor lake"),
    ("lake/_governor_lake.json", "db.duckdb", "it is in a Governor lake"),
])
def test_naming_a_lake_or_a_file_in_it_is_one_line_and_changes_nothing(
        named: str, store: str, why: str, here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_import(["."], "lake", lake=True, workers=1, progress="never") == 0
    capsys.readouterr()
    before = snapshot(here)
    assert run_import([named], store, lake=store == "lake", workers=1, progress="never") == 2
    assert capsys.readouterr().err == f"governor import: {named}: skipped, {why}: {NEVER}\n"
    assert snapshot(here) == before


def test_a_folder_of_logs_named_as_its_own_lake_is_skipped_and_left_as_it_was(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = snapshot(here)
    assert run_import(["."], ".", lake=True, workers=1, progress="never") == 2
    assert capsys.readouterr().err == f"governor import: .: skipped, it is the lake this import writes: {NEVER}\n"
    assert snapshot(here) == before


def test_the_database_file_inside_the_folder_imported_is_never_read(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A database named like a log (``store.json``) in the folder imported: before, the second import
    read it as a log and rejected it (not UTF-8 text)."""
    assert run_import(["."], "store.json", workers=1, progress="never") == 0
    capsys.readouterr()
    assert run_import(["."], "store.json", workers=1, progress="never") == 0
    assert capsys.readouterr().err.startswith("store.json: 0 imported, 2 duplicates skipped, 0 rejected (2 games in 2 files,")
    assert run_import(["store.json"], "store.json", workers=1, progress="never") == 2
    assert capsys.readouterr().err == f"governor import: store.json: skipped, it is the database this import writes: {NEVER}\n"
