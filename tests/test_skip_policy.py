"""tests/skip_policy.py: a skip that does not name a missing optional dependency fails the run."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parents[1]


def test_only_a_missing_optional_dependency_may_skip(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run as the suite runs (pytest-xdist, two workers): the skips that name a missing optional
    dependency pass, the stale one fails the run and is listed alone."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_some="""
        import pytest

        def test_runs():
            pass

        def test_optional():
            pytest.skip("missing optional dependency: chromium (apt-get install -y chromium)")

        def test_imported():
            pytest.importorskip("no_such_module_at_all")

        @pytest.fixture
        def broken():
            pytest.skip("the fixture could not be built")

        def test_stale(broken):
            pass
    """)
    run = pytester.runpytest_subprocess("-p", "tests.skip_policy", "-n", "2", "-p", "no:cacheprovider")
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    run.assert_outcomes(passed=1, skipped=3)
    lines = run.stdout.lines
    start = next(i for i, line in enumerate(lines) if "skipped without a missing optional dependency" in line)
    assert lines[start + 1:start + 2] == ["test_some.py::test_stale: the fixture could not be built"]
    assert not lines[start + 2].startswith("test_some.py")
