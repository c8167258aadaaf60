"""replay/outputs.py: an output replaces what was there only on success, by renaming a file it made."""

from __future__ import annotations

import os
import stat

import pytest

from replay.outputs import (
    FollowRefused,
    check_writable,
    creating_in,
    open_folder,
    open_output,
    remove_in,
    replacing,
    write_bytes,
)


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


def test_with_follow_false_a_link_or_pipe_at_the_name_is_replaced_never_written_through(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "games.parquet").symlink_to(victim)
    os.mkfifo(folder / "moves.parquet")
    write_bytes(folder / "games.parquet", b"new", follow=False)
    with open_output(folder / "moves.parquet", "wb", follow=False) as fh:  # a pipe: never opened, never blocks
        fh.write(b"new")
    assert victim.read_text() == "precious\n"
    for name in ("games.parquet", "moves.parquet"):
        path = folder / name
        assert not path.is_symlink() and stat.S_ISREG(path.lstat().st_mode) and path.read_bytes() == b"new"
    assert sorted(p.name for p in folder.iterdir()) == ["games.parquet", "moves.parquet"]


def test_inside_a_store_no_link_is_followed(tmp_path):
    store = tmp_path / "store"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "part-1.parquet").write_bytes(b"theirs")
    (store / "games").mkdir(parents=True)
    (store / "rejections").symlink_to(outside)
    (store / "games" / "part-2.parquet").symlink_to(outside / "part-1.parquet")
    with pytest.raises(FollowRefused) as err:
        open_folder(store, "rejections/deeper", make=True)
    assert str(err.value) == f"{store}/rejections: a symbolic link (to {outside})"
    folder = open_folder(store, "games/game=a", make=True)
    try:
        with creating_in(folder, "part-3.parquet") as fh:
            fh.write(b"ours")
        with pytest.raises(RuntimeError):
            with creating_in(folder, "part-4.parquet") as fh:
                fh.write(b"half")
                raise RuntimeError
        assert remove_in(folder, "part-5.parquet", "x") is False
        (store / "games" / "game=a" / "part-6.parquet").write_bytes(b"old")
        assert remove_in(folder, "part-6.parquet", "x") is True
    finally:
        os.close(folder)
    assert sorted(p.name for p in (store / "games" / "game=a").iterdir()) == ["part-3.parquet"]
    games = open_folder(store, "games")
    try:
        with pytest.raises(FollowRefused) as err:
            remove_in(games, "part-2.parquet", f"{store}/games/part-2.parquet")
        assert str(err.value) == f"{store}/games/part-2.parquet: a symbolic link (to {outside}/part-1.parquet)"
    finally:
        os.close(games)
    assert (outside / "part-1.parquet").read_bytes() == b"theirs"
    assert sorted(p.name for p in outside.iterdir()) == ["part-1.parquet"]
    (store / "plain").write_text("a file")
    with pytest.raises(FollowRefused, match="plain: not a folder$"):
        open_folder(store, "plain/x", make=True)


def test_an_interruption_as_the_temporary_file_is_made_leaves_nothing(tmp_path, monkeypatch):
    """Ctrl-C or SIGTERM raises in the first step after the temporary file exists: it is removed all
    the same (before, a file made by ``mkstemp`` ahead of the cleanup stayed behind)."""
    real = os.close
    calls = []

    def interrupted(fd: int) -> None:
        real(fd)
        if not calls:
            calls.append(fd)
            raise KeyboardInterrupt

    monkeypatch.setattr(os, "close", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_bytes(tmp_path / "results.csv", b"new\n")
    monkeypatch.undo()
    assert calls and list(tmp_path.iterdir()) == []


def test_a_temporary_name_someone_else_made_is_refused_and_kept(tmp_path, monkeypatch):
    """The temporary file is made by this call or not at all: a file already at the random name it
    chose (someone else's) is neither opened nor removed."""
    monkeypatch.setattr("replay.outputs.secrets.token_hex", lambda n=None: "0" * 16)
    planted = tmp_path / ".results.csv.0000000000000000.tmp"
    planted.write_text("someone's\n")
    with pytest.raises(FileExistsError):
        write_bytes(tmp_path / "results.csv", b"new\n")
    assert planted.read_text() == "someone's\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [planted.name]
