"""ingest/paths.py: a path that is not UTF-8 is opened through a link in governor's folder of links,
made under a random name: nothing already there is removed or followed."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from ingest.paths import links_folder, openable


def test_a_file_at_the_old_temporary_name_of_a_link_is_left_alone(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / os.fsdecode(b"caf\xe9")
    folder.mkdir()
    link = links_folder() / hashlib.sha256(os.fsencode(str(folder))).hexdigest()[:32]
    link.parent.mkdir(parents=True)
    planted = link.with_name(f"{link.name}.tmp-{os.getpid()}")
    planted.write_text("someone's file")
    opened = openable(str(folder / "games.duckdb"))
    assert opened == f"{link}/games.duckdb"
    assert os.path.samefile(link, folder)
    assert planted.read_text() == "someone's file"
    assert sorted(p.name for p in link.parent.iterdir()) == sorted([link.name, planted.name])
    # A link of the name that points elsewhere is replaced, and the same path gives the same link.
    link.unlink()
    link.symlink_to(tmp_path)
    assert openable(str(folder / "games.duckdb")) == opened and os.path.samefile(link, folder)
    assert sorted(p.name for p in link.parent.iterdir()) == sorted([link.name, planted.name])
