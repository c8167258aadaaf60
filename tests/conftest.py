"""Shared fixtures: the repository root, sample logs, and a small imported database."""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_LOGS = ROOT / "sample_logs"


def _signal_state() -> tuple[object, object, frozenset[int]]:
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, []) if hasattr(signal, "pthread_sigmask") else set()
    return signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM), frozenset(mask)


@pytest.fixture(autouse=True)
def _signals_left_as_found() -> Iterator[None]:
    """Every test leaves this process's SIGINT and SIGTERM handlers and its blocked signals as it found
    them: a command run in-process that ignored or held Ctrl-C would pass that on to every process the
    later tests start (a child inherits ignored and blocked signals), and they would not stop."""
    before = _signal_state()
    yield
    after = _signal_state()
    if after != before:
        signal.signal(signal.SIGINT, before[0])  # type: ignore[arg-type]
        signal.signal(signal.SIGTERM, before[1])  # type: ignore[arg-type]
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_SETMASK, before[2])
        pytest.fail(f"the test changed this process's signal handling: {before} became {after}")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test marked ``opt_in("VAR")`` (minutes long) is left out of the run unless ``VAR`` is set: it is
    deselected, never skipped (``tests/skip_policy.py``)."""
    kept, left = [], []
    for item in items:
        marker = item.get_closest_marker("opt_in")
        (left if marker is not None and not os.environ.get(marker.args[0]) else kept).append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


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


#: A player name that Markdown or HTML would turn into a link and coloured text.
HOSTILE_NAME = "[x](http://e.com) :red[y]"
#: Three San Juan sample games with new names and dates: (file, names in seat order, date). Their
#: recorded scores give the ranks: 21-23; 20-33-30; 26-13-29.
RATING_GAMES = [
    ("san_juan-2p-seed2026-0000.json", ["Ana", "Bo"], "2026-01-01"),
    ("san_juan-3p-seed2026-0001.json", ["Bo", "Cy", HOSTILE_NAME], "2026-01-02"),
    ("san_juan-3p-seed2026-0004.json", [HOSTILE_NAME, "Ana", "Bo"], "2026-01-03"),
]


def write_rating_games(folder: Path) -> list[Path]:
    """Write the three ``RATING_GAMES`` into ``folder``, newest first (so that the import order is
    not the rating order). Returns the files."""
    import json

    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for k, (source, names, day) in enumerate(reversed(RATING_GAMES)):
        log = json.loads((SAMPLE_LOGS / "san_juan" / source).read_text())
        log["players"] = [{"name": n} for n in names]
        log["meta"] = {"date": day}
        target = folder / f"rated-{k}.json"
        target.write_text(json.dumps(log))
        files.append(target)
    return files


@pytest.fixture(scope="session")
def rating_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three ``RATING_GAMES`` imported (read only: copy before writing)."""
    from ingest.importer import import_paths

    folder = tmp_path_factory.mktemp("rating_games")
    files = write_rating_games(folder / "logs")
    db = folder / "ratings.duckdb"
    summary = import_paths(files, db, workers=1)
    assert summary.imported == 3 and summary.rejected == 0
    return db


@pytest.fixture(scope="session")
def hostile_name() -> str:
    """A player name that Markdown or HTML would turn into a link and coloured text."""
    return HOSTILE_NAME


@pytest.fixture
def rating_logs(tmp_path: Path) -> list[Path]:
    """The three ``RATING_GAMES`` written to a fresh folder, newest first."""
    return write_rating_games(tmp_path / "rating_logs")
