"""replay/outputs.py: an output replaces what was there only on success, by renaming a file it made."""

from __future__ import annotations

import os
import stat

import pytest

from replay.outputs import check_writable, open_output, replacing, write_bytes


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    out = tmp_path / "results.csv"
    out.write_text("old\n")
    with pytest.raises(RuntimeError, match="boom"):
        with open_output(out) as fh:
            fh.write("half")
            raise RuntimeError("boom")
    assert out.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.csv"]


def test_a_good_write_replaces_the_file_and_keeps_its_mode(tmp_path):
    out = tmp_path / "results.csv"
    out.write_text("old\n")
    out.chmod(0o640)
    with open_output(out) as fh:
        fh.write("new\n")
    assert out.read_text() == "new\n"
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.csv"]


def test_a_new_file_gets_the_mode_open_would_give(tmp_path):
    old = os.umask(0o027)
    try:
        write_bytes(tmp_path / "new.bin", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.bin").stat().st_mode) == 0o640


def test_a_link_is_written_through_and_stays_a_link(tmp_path):
    real = tmp_path / "real.csv"
    real.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    with pytest.raises(RuntimeError):
        with open_output(link) as fh:
            fh.write("x")
            raise RuntimeError
    assert link.is_symlink() and real.read_text() == "old\n"
    with open_output(link) as fh:
        fh.write("new\n")
    assert link.is_symlink() and real.read_text() == "new\n"


def test_a_planted_link_of_the_old_temporary_names_is_never_followed(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    folder = tmp_path / "out"
    folder.mkdir()
    for name in (".results.csv.part", ".results.csv.tmp", "results.csv.part", ".results.csv.partial"):
        (folder / name).symlink_to(victim)
    with open_output(folder / "results.csv") as fh:
        fh.write("new\n")
    assert victim.read_text() == "precious\n"
    assert (folder / "results.csv").read_text() == "new\n"


def test_a_device_is_written_into_and_never_removed(tmp_path):
    with pytest.raises(RuntimeError):
        with replacing("/dev/null") as path:
            assert path == "/dev/null"
            raise RuntimeError
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_folder_is_refused(tmp_path):
    with pytest.raises(IsADirectoryError):
        with open_output(tmp_path):
            pass


def test_check_writable_names_the_problem(tmp_path):
    assert check_writable(tmp_path / "a.csv") is None
    assert check_writable(tmp_path / "missing" / "a.csv") == "its folder does not exist"
    (tmp_path / "file").write_text("")
    assert check_writable(tmp_path / "file" / "a.csv") == "its folder is not a folder"
    assert check_writable(tmp_path) == "is a folder"
    assert check_writable("/dev/null") is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]
