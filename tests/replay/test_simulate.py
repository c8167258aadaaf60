"""replay/simulate.py writes each file under a temporary name of its own: never through a link or a
file planted at a name it could guess."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from replay.simulate import stream_simulated, write_simulated


def test_planted_links_at_the_old_temporary_names_are_never_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out = tmp_path / "out"
    out.mkdir()
    jsonl = "san_juan-seed5-2games.jsonl"
    singles = ["san_juan-2p-seed5-0000.json", "san_juan-2p-seed5-0001.json"]
    planted = [f"{name}.part" for name in (jsonl, *singles)]
    for name in planted:
        (out / name).symlink_to(victim)
    # A link at an output's own name is replaced by the file, never written through.
    (out / singles[1]).symlink_to(victim)
    assert write_simulated(out, "san_juan", [2], 2, 5, jsonl=True) == [out / jsonl]
    assert write_simulated(out, "san_juan", [2], 2, 5) == [out / name for name in singles]
    assert victim.read_text() == "precious\n"
    assert sorted(p.name for p in out.iterdir()) == sorted([*planted, jsonl, *singles])
    assert all(os.readlink(out / name) == str(victim) for name in planted)
    assert not any((out / name).is_symlink() for name in (jsonl, *singles))
    assert len((out / jsonl).read_text().splitlines()) == 2


@pytest.mark.parametrize("jsonl", [False, True])
@pytest.mark.parametrize("when", ["before the rename", "after the rename"])
def test_a_stop_at_the_rename_leaves_every_whole_file_counted(when: str, jsonl: bool, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C or SIGTERM raises between two steps, whichever: the files the caller counted (``governor
    simulate: terminated; the N file(s) written are complete``) are exactly the files there."""
    real = os.replace

    def stopped(src: str, dst: str) -> None:
        if when == "after the rename":
            real(src, dst)
        raise KeyboardInterrupt

    out = tmp_path / "out"
    stream = stream_simulated(out, "san_juan", [2], 3, 5, jsonl=jsonl)
    counted = [] if jsonl else [next(stream)]
    monkeypatch.setattr(os, "replace", stopped)
    with pytest.raises(KeyboardInterrupt):
        for path in stream:
            counted.append(path)
    assert sorted(out.iterdir()) == counted
    assert len(counted) == (0 if jsonl else 1) + (when == "after the rename")
