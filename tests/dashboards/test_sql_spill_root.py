"""dashboards/sql_spill.py's spill folders: only in a folder of the user's own, never through a link
(a query's spill files are written there and a dead process's folders are removed there)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from dashboards.sql_spill import SPILL_SUFFIX, remove_stale_spills, spill_root


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    return int(done.stdout)


def test_a_link_at_a_spill_folders_name_is_never_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A link planted at the spill folder's name (beside the database, or in the system's temporary
    folder that everyone writes) would have made a query spill into, and remove folders of, the folder
    it names."""
    system = tmp_path / "system-tmp"
    system.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system))
    victim = tmp_path / "victim"
    theirs = victim / f"{_dead_pid()}-notes"  # named like a dead process's spill folder
    theirs.mkdir(parents=True)
    (theirs / "keep.txt").write_text("someone's\n")
    db = tmp_path / "data" / "games.duckdb"
    db.parent.mkdir()
    beside = db.with_name(db.name + SPILL_SUFFIX)
    beside.symlink_to(victim)
    root = spill_root(db)
    assert root == system / f"governor-{os.getuid()}{SPILL_SUFFIX}" and not root.is_symlink()
    assert remove_stale_spills(root) == []
    (system / f"governor-{os.getuid()}{SPILL_SUFFIX}").rmdir()
    (system / f"governor-{os.getuid()}{SPILL_SUFFIX}").symlink_to(victim)
    root = spill_root(db)
    assert root.parent == system and root.name.startswith("governor-") and root.name.endswith(SPILL_SUFFIX)
    assert root.is_dir() and not root.is_symlink() and list(root.iterdir()) == []
    # The folder beside the database is used when it is a folder of the user's own.
    beside.unlink()
    assert spill_root(db) == beside and beside.is_dir() and not beside.is_symlink()
    assert remove_stale_spills(beside) == []
    assert (theirs / "keep.txt").read_text() == "someone's\n"


def test_a_link_inside_the_spill_folder_is_not_removed_nor_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("someone's\n")
    db = tmp_path / "games.duckdb"
    root = spill_root(db)
    stale = root / f"{_dead_pid()}-abc"
    stale.mkdir()
    linked = root / f"{_dead_pid()}-def"
    linked.symlink_to(victim)
    assert remove_stale_spills(root) == [stale]
    assert sorted(p.name for p in root.iterdir()) == [linked.name]
    assert (victim / "keep.txt").read_text() == "someone's\n"
