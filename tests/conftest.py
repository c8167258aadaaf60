"""Shared fixtures: the repository root, sample logs, and a small imported database."""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

# The tests of Ctrl-C send SIGINT to commands they start. A shell without job control starts its
# background jobs with SIGINT ignored (``cmd &`` in a script), Python then keeps it ignored and every
# process started from here inherits that: the commands would never see Ctrl-C. The suite starts from
# Python's own Ctrl-C, however it was launched.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

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
    deselected, never skipped (``tests/skip_policy.py``). Notes which test modules use the shared
    Chromium (``_Chromium.modules``)."""
    kept, left = [], []
    _Chromium.modules = {str(item.path) for item in items if "chromium" in getattr(item, "fixturenames", ())}
    for item in items:
        marker = item.get_closest_marker("opt_in")
        (left if marker is not None and not os.environ.get(marker.args[0]) else kept).append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


class _Chromium:
    """The headless Chromium this test process started, if any: Playwright's synchronous API, while
    it runs, makes this thread look as if an asyncio loop ran in it (``asyncio.run`` and anyio refuse
    to start), so it runs only while the test modules that use it do."""

    manager: Any = None
    browser: Any = None
    #: The test modules (their paths) with a test that uses the browser.
    modules: set[str] = set()

    @classmethod
    def get(cls) -> Any:
        """The browser, launched if it is not running. Raises Playwright's ``Error`` if it cannot start."""
        if cls.browser is None:
            from playwright.sync_api import sync_playwright

            from dashboards.screenshots import launch_browser

            manager = sync_playwright()
            playwright = manager.__enter__()
            try:
                cls.browser = launch_browser(playwright)
            except BaseException:
                manager.__exit__(None, None, None)
                raise
            cls.manager = manager
        return cls.browser

    @classmethod
    def stop(cls) -> None:
        """Close the browser and Playwright's connection, if running."""
        browser, manager, cls.browser, cls.manager = cls.browser, cls.manager, None, None
        if browser is not None:
            try:
                browser.close()
            finally:
                manager.__exit__(None, None, None)


@pytest.fixture(scope="module")
def chromium() -> Any:
    """One headless Chromium shared by the browser tests of this test process (a pytest worker) that
    run one after the other, instead of one launched per test or module (a launch costs about 0.7 s of
    CPU): started when a test first needs it, closed before a test module that does not use it. Tests
    open their pages in contexts of their own (``browser.new_page()`` makes one, with its own cookies
    and storage), which ``_browser_pages_closed`` closes when each test ends."""
    return _Chromium.get()


@pytest.fixture(autouse=True)
def _browser_pages_closed(request: pytest.FixtureRequest) -> Iterator[None]:
    """Before a test of a module that uses no browser, the shared Chromium is closed (see ``_Chromium``);
    after every test, each page and context it opened is closed, so that no tab, cookie or stored
    setting of one test is seen by the next (and no page goes on using the CPU)."""
    if _Chromium.browser is not None and str(request.node.path) not in _Chromium.modules:
        _Chromium.stop()
    yield
    if _Chromium.browser is not None:
        for context in _Chromium.browser.contexts:
            context.close()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The shared Chromium is closed with the test process."""
    _Chromium.stop()


@pytest.fixture(scope="session")
def served() -> Iterator[Callable[[Path], str]]:
    """``served(db)``: the address of ``governor dashboard --headless`` serving ``db``, started once per
    test process for each database and shared by every test module that serves it (a start costs about
    2 s of CPU, and each page's first load on a new server more). Only for a database that neither the
    test nor the dashboard writes: a test that writes serves a copy of its own (``running_dashboard``).

    Raises ``RuntimeError`` with the server's output when it does not start."""
    from dashboards.screenshots import running_dashboard

    urls: dict[Path, str] = {}
    with ExitStack() as servers:
        def serve(db: Path) -> str:
            if db not in urls:
                urls[db] = servers.enter_context(running_dashboard(db))
            return urls[db]

        yield serve


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
