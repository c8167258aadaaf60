"""A pytest plug-in (``tests/conftest.py`` loads it): the one reason a test may be skipped is a missing
optional dependency, said so. Any other skip (a fixture that could not be built, a condition that no
longer occurs) fails the run, listed at its end, so a test that cannot run is never taken for one that
passed."""

from __future__ import annotations

import re
from typing import Any

import pytest

#: A reason that names a missing optional dependency: ``pytest.importorskip``'s own words, or a reason
#: written as ``missing optional dependency: <what> (<how to install it>)``.
ALLOWED = re.compile(r"(missing optional dependency: |could not import ')")
_KEY = pytest.StashKey[list[str]]()


def _reason(report: pytest.TestReport) -> str:
    longrepr: Any = report.longrepr
    text = str(longrepr[2]) if isinstance(longrepr, tuple) else str(longrepr)
    return text.removeprefix("Skipped: ")


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_KEY] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = _reason(report)
        if not ALLOWED.match(reason):
            _CONFIG[0].stash[_KEY].append(f"{report.nodeid}: {reason}")


_CONFIG: list[pytest.Config] = []


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    _CONFIG[:] = [session.config]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if hasattr(session.config, "workerinput"):
        return  # an xdist worker: the controller sees every report and decides
    if session.config.stash[_KEY] and exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    bad = config.stash[_KEY]
    if bad:
        terminalreporter.section("skipped without a missing optional dependency (the run fails)", sep="=", red=True)
        for line in bad:
            terminalreporter.line(line)
