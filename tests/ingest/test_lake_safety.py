"""The lake's guarantees against hostile and unlucky states: every path read from a lake stays inside
it, an import deletes only the lake's own files, importers at once take turns, and an import killed at
any point and run again gives the tables (derived ones included) a clean import gives."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ingest.db import reader
from ingest.importer import import_paths
from ingest.lake import LAKE_MARK, MANIFESTS, Lake
from ingest.lake_files import LakeError
from ingest.lake_repair import remove_orphans
from ingest.lake_write import writing
from ingest.schema import VIEWS, table_schemas

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"
WHEN = {"imported_at", "rejected_at"}


def contents(target: Path | str) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows (without the write-time columns), sorted, and every view's."""
    out = {}
    with reader(target) as con:
        for name, schema in table_schemas().items():
            if name == "analysis":
                continue
            columns = ", ".join(f'"{c}"' for c in schema.names if c not in WHEN)
            out[name] = sorted(con.execute(f'SELECT {columns} FROM "{name}"').fetchall(), key=repr)
        for name in VIEWS:
            out[name] = sorted(con.execute(f"SELECT * FROM {name}").fetchall(), key=repr)
    return out


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Twelve games of each kind and one bad log."""
    folder = tmp_path_factory.mktemp("safety_logs")
    for game in ("san_juan", "puerto_rico"):
        (folder / game).mkdir()
        for path in sorted((SAMPLES / game).glob("*.json"))[:12]:
            shutil.copy(path, folder / game / path.name)
    shutil.copy(ROOT / "tests" / "replay" / "bad_logs" / "logs" / "build_underpaid.json", folder / "bad.json")
    return folder


@pytest.fixture(scope="module")
def clean(logs: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[Any, ...]]]:
    lake = tmp_path_factory.mktemp("clean") / "lake"
    summary = import_paths([logs], str(lake), lake=True, workers=1, batch_games=8)
    assert (summary.imported, summary.rejected) == (24, 1)
    got = contents(lake)
    assert len(got["openings"]) == 24 and len(got["player_rating_history"]) > 24
    return got


def _governor(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "governor.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def test_a_manifest_naming_a_file_outside_the_lake_removes_nothing(logs: Path, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    import_paths([logs / "san_juan"], str(lake), lake=True, workers=1)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    hostile = lake / MANIFESTS / "20200101T000000-00000000-derived.json"
    hostile.write_text(json.dumps({"batch": "20200101T000000-00000000-derived", "derived": True,
                                   "committed_at": "2020-01-01T00:00:00+00:00", "rows": {},
                                   "files": {"openings": ["../victim.txt"]}}))
    expected = (f"{hostile}: damaged manifest: names the file \"../victim.txt\", which is not a data file inside "
                "the lake (expected openings/[game=<game>/]part-<batch>.parquet)")
    with pytest.raises(LakeError) as err:
        import_paths([logs / "puerto_rico"], str(lake), lake=True, workers=1)
    assert str(err.value) == expected
    run = _governor("import", str(logs / "puerto_rico"), "--lake", str(lake), "--workers", "1")
    assert (run.returncode, run.stderr) == (2, f"governor import: {expected}\n")
    assert victim.read_text() == "keep me"
    # An absolute path and a path that climbs out through a table folder are refused the same way.
    for bad in ("/etc/passwd", "openings/../../victim.txt", "openings/part-x.parquet/../../../victim.txt"):
        hostile.write_text(json.dumps({"batch": "20200101T000000-00000000-derived", "derived": True,
                                       "committed_at": "2020-01-01", "files": {"openings": [bad]}}))
        with pytest.raises(LakeError, match="which is not a data file inside the lake"):
            import_paths([logs / "puerto_rico"], str(lake), lake=True, workers=1)
    assert victim.read_text() == "keep me"


def test_an_import_leaves_the_users_own_files_alone(logs: Path, tmp_path: Path,
                                                    clean: dict[str, list[tuple[Any, ...]]]) -> None:
    lake = tmp_path / "lake"
    import_paths([logs / "san_juan"], str(lake), lake=True, workers=1, batch_games=8)
    theirs = [lake / "NOTES.txt", lake / "x.parquet", lake / "games" / "x.parquet",
              lake / "games" / "game=san_juan" / "mine.parquet", lake / "notes" / "part-1.parquet",
              lake / "moves" / "NOTES.txt"]
    for path in theirs:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"the user's own " + path.name.encode())
    summary = import_paths([logs], str(lake), lake=True, workers=1, batch_games=8)
    assert (summary.imported, summary.duplicates, summary.rejected) == (12, 12, 1)
    assert [p.read_bytes() for p in theirs] == [b"the user's own " + p.name.encode() for p in theirs]
    assert contents(lake) == clean
    # A folder that is not a lake is refused before anything is written in it.
    other = tmp_path / "other"
    other.mkdir()
    (other / "NOTES.txt").write_text("mine")
    with pytest.raises(LakeError, match="the folder is not empty and is not a Governor lake"):
        import_paths([logs], str(other), lake=True, workers=1)
    assert [p.name for p in other.iterdir()] == ["NOTES.txt"]


def test_importers_at_once_take_turns(logs: Path, tmp_path: Path, clean: dict[str, list[tuple[Any, ...]]]) -> None:
    """Three importers started together on one new lake (overlapping paths): each waits its turn
    (one lock), none fails, and the lake equals one clean import."""
    lake = tmp_path / "lake"
    runs = [subprocess.Popen([sys.executable, "-m", "governor.cli", "import", *map(str, paths), "--lake", str(lake),
                              "--workers", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
            for paths in ([logs], [logs / "san_juan"], [logs / "puerto_rico", logs / "bad.json"])]
    results = [(run.wait(timeout=600), run.stderr.read() if run.stderr else "") for run in runs]
    for run in runs:
        for stream in (run.stdout, run.stderr):
            if stream:
                stream.close()
    assert [code for code, _ in results] == [1, 0, 1], results
    assert all("Traceback" not in err for _, err in results), results
    assert contents(lake) == clean


def test_a_lake_made_by_another_importer_while_it_is_looked_at_is_a_lake(tmp_path: Path) -> None:
    """The moment of the race above, made to happen: another importer makes the lake (its mark, then
    its tables) right after this one found no mark. The folder is taken for the lake it now is, not
    refused as another's folder."""
    root = tmp_path / "lake"
    other = Lake(str(root))
    lake = Lake(str(root))
    real = lake.fs
    mark = lake.path(LAKE_MARK)

    class Meanwhile:
        """The file system, on which the other importer makes the lake as soon as the mark was missed."""

        def __init__(self) -> None:
            self.missed = False

        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

        def get_file_info(self, what: Any) -> Any:
            info = real.get_file_info(what)
            if what == mark and not self.missed and info.type.name == "NotFound":
                self.missed = True
                other.create()
                (root / "games").mkdir()
                (root / "games" / "part-0.parquet").write_bytes(b"a batch")
            return info

    meanwhile = Meanwhile()
    lake.fs = meanwhile  # type: ignore[assignment]
    lake.create()
    assert meanwhile.missed
    assert sorted(p.name for p in root.iterdir()) == [LAKE_MARK, MANIFESTS, "games"]
    assert json.loads((root / LAKE_MARK).read_text())["format"] >= 1


def test_a_second_importer_waits_and_says_who_holds_the_lake(logs: Path, tmp_path: Path) -> None:
    lake = Lake(str(tmp_path / "lake"))
    with writing(lake):
        with pytest.raises(LakeError) as err:
            with writing(Lake(lake.root), timeout=0.2):
                pass
    assert str(err.value) == (f"{lake.root}: another import (pid {os.getpid()}) is still writing the lake; "
                              "run this one again when it has finished")
    with writing(lake, timeout=0.2):  # free again
        pass


@pytest.mark.parametrize("point", ["after its manifests, before its derived batch", "between two manifests",
                                   "after a batch's files, before its manifest", "while writing its derived batch"])
def test_a_killed_import_rerun_gives_the_clean_tables(logs: Path, tmp_path: Path, point: str,
                                                      clean: dict[str, list[tuple[Any, ...]]],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import ingest.lake as lake_module
    import ingest.lake_store as store_module

    lake = tmp_path / "lake"
    import_paths([logs / "san_juan"], str(lake), lake=True, workers=1, batch_games=8)

    class Killed(BaseException):
        """What a kill -9 leaves: nothing after this point ran."""

    with monkeypatch.context() as patch:
        real_commit = lake_module.Lake.commit
        commits = [0]

        def commit(self: Lake, manifest: dict[str, Any]) -> None:
            if point == "while writing its derived batch" and manifest.get("derived"):
                raise Killed  # its files are written, its manifest is not
            if point == "between two manifests" and commits[0] == 1:
                raise Killed
            if point == "after a batch's files, before its manifest" and commits[0] == 0:
                raise Killed
            commits[0] += 1
            real_commit(self, manifest)

        def no_derived(lake: Lake, run_id: str) -> None:
            raise Killed

        patch.setattr(lake_module.Lake, "commit", commit)
        if point == "after its manifests, before its derived batch":
            patch.setattr(store_module, "refresh_derived", no_derived)
        with pytest.raises(Killed):
            import_paths([logs], str(lake), lake=True, workers=1, batch_games=8)
    with reader(lake) as con:
        openings, games = con.execute("SELECT (SELECT count(*) FROM openings), (SELECT count(*) FROM games)").fetchall()[0]
    assert openings == 12  # the killed run's games are not in the derived tables yet
    assert games == {"after its manifests, before its derived batch": 24, "between two manifests": 12 + 7,  # the first batch: the bad log and 7 games
                     "after a batch's files, before its manifest": 12, "while writing its derived batch": 24}[point]
    summary = import_paths([logs], str(lake), lake=True, workers=1, batch_games=8)
    assert (summary.imported, summary.duplicates) == (24 - games, games)
    assert contents(lake) == clean


def test_an_import_killed_by_sigkill_is_completed_by_a_rerun(logs: Path, tmp_path: Path,
                                                             clean: dict[str, list[tuple[Any, ...]]]) -> None:
    lake = tmp_path / "lake"
    for delay in (0.5, 2.0, 4.0):
        run = subprocess.Popen([sys.executable, "-m", "governor.cli", "import", str(logs), "--lake", str(lake),
                                "--workers", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        time.sleep(delay)
        run.send_signal(signal.SIGKILL)
        run.wait(timeout=60)
    again = _governor("import", str(logs), "--lake", str(lake), "--workers", "1")
    assert again.returncode == 1, again.stderr  # the bad log
    assert contents(lake) == clean
    assert (lake / LAKE_MARK).is_file()


# -- links: nothing outside the lake is ever written or removed ---------------------------------------

LINKED = ("never links, and an import writes and removes nothing through one")


def snapshot(folder: Path) -> dict[str, Any]:
    """Every entry under ``folder``, links not followed: a file's bytes, a link's target."""
    out: dict[str, Any] = {}
    for here, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(here, name)
            rel = str(path.relative_to(folder))
            if path.is_symlink():
                out[rel] = ("link", os.readlink(path))
            elif path.is_file():
                out[rel] = path.read_bytes()
    return out


@pytest.fixture(scope="module")
def small_lake(logs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A lake of the San Juan games and the bad log (so it has rejections)."""
    lake = tmp_path_factory.mktemp("small") / "lake"
    import_paths([logs / "san_juan", logs / "bad.json"], str(lake), lake=True, workers=1)
    return lake


def _move_out(lake: Path, rel: str, outside: Path) -> tuple[Path, Path]:
    """Move the lake's ``rel`` to ``outside`` and leave a link to it in its place."""
    place = lake / rel
    moved = outside / place.name
    shutil.move(str(place), str(moved))
    place.symlink_to(moved, target_is_directory=moved.is_dir())
    return place, moved


@pytest.mark.parametrize("where", ["rejections", "games/game=san_juan", MANIFESTS, "openings/part-*.parquet",
                                   LAKE_MARK, "_governor_lake.lock"])
def test_a_link_where_the_lake_keeps_its_own_stops_an_import_before_anything_changes(
        where: str, small_lake: Path, logs: Path, tmp_path: Path) -> None:
    """A lake folder or file that is a link to somewhere outside (a folder holding the user's files,
    one of which has a lake data file's name): the import is one line naming the link, and neither the
    lake nor anything outside it changes (before, the import deleted the folder's files and wrote its
    new ones there)."""
    lake = tmp_path / "lake"
    shutil.copytree(small_lake, lake, symlinks=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    rel = str(next(lake.glob(where)).relative_to(lake))
    place, moved = _move_out(lake, rel, outside)
    if moved.is_dir():
        (moved / "part-mine.parquet").write_bytes(b"the user's own file, of a data file's name")
    (outside / "notes.txt").write_text("the user's own")
    before, before_outside = snapshot(lake), snapshot(outside)
    expected = f"{place}: a symbolic link (to {moved}): a lake's own folders and files are {LINKED}"
    with pytest.raises(LakeError) as err:
        import_paths([logs], str(lake), lake=True, workers=1)
    assert str(err.value) == expected
    assert snapshot(lake) == before and snapshot(outside) == before_outside


def test_the_command_names_the_link_with_status_2(small_lake: Path, logs: Path, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    shutil.copytree(small_lake, lake, symlinks=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    place, moved = _move_out(lake, "rejections", outside)
    (moved / "part-mine.parquet").write_bytes(b"mine")
    before, before_outside = snapshot(lake), snapshot(outside)
    run = _governor("import", str(logs), "--lake", str(lake), "--workers", "1")
    assert (run.returncode, run.stdout, run.stderr) == (
        2, "", f"governor import: {place}: a symbolic link (to {moved}): a lake's own folders and files are {LINKED}\n")
    assert snapshot(lake) == before and snapshot(outside) == before_outside


def test_a_file_where_the_lake_keeps_a_folder_is_named(small_lake: Path, logs: Path, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    shutil.copytree(small_lake, lake, symlinks=True)
    shutil.rmtree(lake / "rejections")
    (lake / "rejections").write_text("not a folder")
    before = snapshot(lake)
    with pytest.raises(LakeError) as err:
        import_paths([logs], str(lake), lake=True, workers=1)
    assert str(err.value) == (f"{lake}/rejections: not a folder, where the lake keeps its own: an import writes "
                              "and removes nothing there")
    assert snapshot(lake) == before


def test_a_link_made_while_an_import_runs_is_never_written_through(small_lake: Path, tmp_path: Path) -> None:
    """Past the check, every write and removal still opens the lake's folders without following a link."""
    import pyarrow as pa

    lake_dir = tmp_path / "lake"
    shutil.copytree(small_lake, lake_dir, symlinks=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    place, moved = _move_out(lake_dir, "rejections", outside)
    before_outside = snapshot(outside)
    orphan = next(p.name for p in moved.iterdir())
    lake = Lake(str(lake_dir))
    expected = f"{place}: a symbolic link (to {moved}): a lake's own folders and files are {LINKED}"
    for act in (lambda: lake.write_parquet("rejections/part-x.parquet", pa.table({"a": [1]})),
                lambda: lake.remove(f"rejections/{orphan}"),
                lambda: remove_orphans(lake)):
        with pytest.raises(LakeError) as err:
            act()
        assert str(err.value) == expected
    assert snapshot(outside) == before_outside


def test_a_failed_write_on_an_object_store_leaves_no_temporary_file(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """On a file system other than this machine's disk (an object store: here a pyarrow file system of
    another kind over a folder), a file that fails midway is removed with its temporary name, as on disk."""
    import pyarrow as pa
    import pyarrow.fs as pafs

    import ingest.lake_files

    lake = Lake(str(tmp_path))
    lake.fs, lake.base, lake.disk = pafs.SubTreeFileSystem(str(tmp_path), pafs.LocalFileSystem()), "", False

    def broken(table: object, handle: Any, **kwargs: object) -> None:
        handle.write(b"half a file")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ingest.lake_files.pq, "write_table", broken)
    with pytest.raises(OSError, match="No space left"):
        lake.write_parquet("games/part-0001.parquet", pa.table({"a": [1]}))
    assert [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")] == ["games"]
