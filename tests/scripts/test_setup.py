"""scripts/: setup waits for apt's lock (bounded, saying so once) and installs the locked versions."""

from __future__ import annotations

import os
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APT_INSTALL = ROOT / "scripts" / "apt-install.sh"
HELD = "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (unattended-upgr)"


def _fake_apt(tmp_path: Path, busy_tries: int, other_error: str | None = None) -> Path:
    """An apt-get that fails with the lock message ``busy_tries`` times (or with ``other_error``), then
    succeeds; it records its arguments."""
    script = tmp_path / "apt-get"
    script.write_text(f"""#!/usr/bin/env bash
n=$(cat "{tmp_path}/count" 2>/dev/null || echo 0); echo $((n+1)) > "{tmp_path}/count"
echo "$@" >> "{tmp_path}/calls"
{f'echo "{other_error}" >&2; exit 100' if other_error else ''}
if [ "$n" -lt {busy_tries} ]; then echo "{HELD}" >&2; exit 100; fi
""")
    script.chmod(0o755)
    return script


def _run(tmp_path: Path, fake: Path, wait: int) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "APT_GET": str(fake), "APT_WAIT_SECONDS": str(wait), "APT_RETRY_SECONDS": "0.1"}
    return subprocess.run(["bash", str(APT_INSTALL), "chromium"], env=env, capture_output=True, text=True, timeout=60)


def test_a_held_lock_is_waited_for_with_one_line(tmp_path: Path) -> None:
    fake = _fake_apt(tmp_path, busy_tries=3)
    done = _run(tmp_path, fake, wait=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ("setup: another package manager holds apt's lock (an unattended upgrade?); "
                           "waiting for it, 60 s at most\n")
    calls = (tmp_path / "calls").read_text().splitlines()
    assert calls == ["-o DPkg::Lock::Timeout=10 update -qq"] * 4 + ["-o DPkg::Lock::Timeout=10 install -y -qq chromium"]


@pytest.mark.parametrize("wait", [1, 0])
def test_the_wait_is_bounded(tmp_path: Path, wait: int) -> None:
    """Giving up always follows the line that says setup waits, even when the bound has passed by the
    first try (0 s; or a slow first try on a loaded machine, which once gave up without that line)."""
    fake = _fake_apt(tmp_path, busy_tries=10**6)
    done = _run(tmp_path, fake, wait=wait)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "setup: another package manager holds apt's lock (an unattended upgrade?); waiting for it, "
        f"{wait} s at most",
        HELD,
        f"setup: apt's lock was still held after {wait} s; run setup again once the other package manager is done"]


def test_another_failure_stops_at_once_with_apt_s_message(tmp_path: Path) -> None:
    fake = _fake_apt(tmp_path, busy_tries=0, other_error="E: Unable to locate package chromium")
    done = _run(tmp_path, fake, wait=60)
    assert done.returncode == 1
    assert done.stderr == "E: Unable to locate package chromium\n"
    assert (tmp_path / "count").read_text().strip() == "1"


def test_setup_installs_the_locked_versions_of_every_dependency() -> None:
    """constraints.txt pins one version of each package the ranges of pyproject.toml name (every extra
    that setup installs), and setup installs through it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {re.split(r"[\[<>=!~ ;]", spec, maxsplit=1)[0].lower().replace("_", "-")
              for spec in project["dependencies"] + sum(project["optional-dependencies"].values(), [])}
    pinned = dict(re.match(r"([A-Za-z0-9_.-]+)==(\S+)", line).groups()  # type: ignore[union-attr]
                  for line in (ROOT / "constraints.txt").read_text().splitlines() if line and not line.startswith("#"))
    pinned = {name.lower().replace("_", "-"): version for name, version in pinned.items()}
    assert wanted <= set(pinned), sorted(wanted - set(pinned))
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    assert setup.count("-c constraints.txt") == 2


def test_an_unknown_option_stops_setup_before_it_installs_anything(tmp_path: Path) -> None:
    done = subprocess.run(["bash", str(ROOT / "scripts" / "setup.sh"), "--tset"], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHON": str(tmp_path / "no-python")})
    assert (done.returncode, done.stdout, done.stderr) == (2, "", "setup: unknown option --tset (--test, --no-build)\n")
