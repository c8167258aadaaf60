"""Repairing a lake (``ingest.lake``) before an import writes in it: stopping at a link where the lake
keeps its own files, deleting the files a killed import left (named by no manifest) and the derived
batches a later one replaced, and telling when the derived tables no longer match the lake's games.
Only an importer holding the lake's lock (``ingest.lake_write.writing``) repairs it.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from collections.abc import Iterable, Iterator

import pyarrow.fs as pafs

from ingest.lake import BATCH_NAME, DATA_FILE, LAKE_MARK, LOCK, MANIFESTS, Lake, table_of
from ingest.lake_files import LakeError, refused
from ingest.schema import table_schemas
from replay.errors import printable
from replay.outputs import FollowRefused

#: The names of the lake's temporary files (a data file's, a manifest's or the mark's): an import
#: deletes nothing else than these and the data files no manifest names.
_TEMP_FILE = re.compile(rf"(?:[a-z0-9_]+/(?:game=[a-z0-9_]+/)?part-{BATCH_NAME}\.parquet|{MANIFESTS}/{BATCH_NAME}\.json"
                        rf"|{re.escape(LAKE_MARK)})\.tmp-[A-Za-z0-9]+")
#: What the lake itself names inside a table folder: its data files (and their temporary files) and
#: its ``game=<game>`` folders.
_OWN_IN_TABLE = re.compile(rf"part-{BATCH_NAME}\.parquet(?:\.tmp-[A-Za-z0-9]+)?")
_GAME_FOLDER = re.compile(r"game=[a-z0-9_]+")


def refuse_links(lake: Lake) -> None:
    """Raise ``LakeError`` naming the first place where a lake on disk keeps its own files (see
    ``own_files``) that holds a symbolic link or something else than it should, so that an import
    stops before it writes or removes anything. A lake on an object store has no links."""
    if lake.disk:
        for _ in own_files(lake):
            pass


def own_files(lake: Lake) -> Iterator[str]:
    """The regular files (relative paths) where a lake on disk keeps its own: its mark, lock and
    their temporary files, every entry of its manifests folder, and, in each table folder and its
    ``game=<game>`` folders, the entries of the lake's naming (``part-<batch>.parquet`` and their
    temporary files). Nothing is followed, and the user's own files are not looked at.

    Raises ``LakeError`` naming the first of these that is a symbolic link or not what it should be
    (a file where a folder belongs, a folder or a pipe where a file belongs)."""
    tables = table_schemas()

    def listing(rel: str) -> list[os.DirEntry[str]]:
        try:
            with os.scandir(lake.path(rel) if rel else lake.base) as entries:
                return sorted(entries, key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            return []
        except OSError as err:
            raise LakeError(f"{printable(lake.path(rel))}: cannot read the lake: {err.strerror or err}") from None

    def present(entry: os.DirEntry[str], folder: bool) -> bool:
        """Whether the entry is still there (another importer's temporary file may just have gone),
        checked to be a folder or a regular file as ``folder`` says."""
        try:
            info = entry.stat(follow_symlinks=False)
        except FileNotFoundError:
            return False
        if stat.S_ISLNK(info.st_mode):
            raise refused(FollowRefused(entry.path, f"a symbolic link (to {os.readlink(entry.path)})"))
        if folder and not stat.S_ISDIR(info.st_mode):
            raise refused(FollowRefused(entry.path, "not a folder"))
        if not folder and not stat.S_ISREG(info.st_mode):
            raise refused(FollowRefused(entry.path, "not a regular file"))
        return True

    def data_files(rel: str) -> Iterator[str]:
        """A table folder's (or its ``game=`` folder's) files of the lake's naming."""
        for entry in listing(rel):
            if _OWN_IN_TABLE.fullmatch(entry.name):
                if present(entry, folder=False):
                    yield f"{rel}/{entry.name}"
            elif _GAME_FOLDER.fullmatch(entry.name) and "/" not in rel and present(entry, folder=True):
                yield from data_files(f"{rel}/{entry.name}")

    for top in listing(""):
        if top.name in (LAKE_MARK, LOCK) or top.name.startswith(LAKE_MARK + ".tmp-"):
            if present(top, folder=False):
                yield top.name
        elif top.name == MANIFESTS:
            if present(top, folder=True):
                yield from (f"{MANIFESTS}/{entry.name}" for entry in listing(MANIFESTS)
                            if present(entry, folder=False))
        elif top.name in tables and present(top, folder=True):
            yield from data_files(top.name)


def remove_orphans(lake: Lake) -> int:
    """Delete what killed imports left: data files of the lake's own naming (``<table>/[game=<g>/]
    part-<batch>.parquet``) that no manifest names, and their temporary files; returns how many
    were deleted. Anything else in the folder (a user's notes, their own Parquet files, files in
    folders that are not tables) is left alone. Only an importer holding the lake's lock calls this
    (a running import's files are then never taken for a killed one's)."""
    named = {rel for rels in lake.files(lake.all_manifests()).values() for rel in rels}
    removed = 0
    if lake.disk:
        rels: Iterable[str] = list(own_files(lake))
    else:
        selector = pafs.FileSelector(lake.base, recursive=True, allow_not_found=True)
        rels = [posixpath.relpath(info.path, lake.base) for info in lake.fs.get_file_info(selector)
                if info.type == pafs.FileType.File]
    for rel in rels:
        orphan = (DATA_FILE.fullmatch(rel) is not None and table_of(rel) in table_schemas()
                  and rel not in named)
        temp = _TEMP_FILE.fullmatch(rel) is not None and (
            table_of(rel) in (*table_schemas(), MANIFESTS) or rel.startswith(LAKE_MARK + ".tmp-"))
        if (orphan or temp) and lake.remove(rel):
            removed += 1
    return removed


def derived_stale(lake: Lake) -> bool:
    """Whether the derived tables miss games (a run killed after its batches, before its derived
    batch) or hold games no longer there; a lake with no games and no derived batch needs none."""
    manifests = lake.manifests()
    derived = [m for m in manifests if m.get("derived")]
    has_games = any(m.get("game_ids") for m in manifests if not m.get("derived"))
    if not derived:
        return has_games
    return derived[-1].get("basis") != lake.derived_basis(manifests)


def drop_stale_derived(lake: Lake) -> None:
    """Delete the manifests and files of derived batches older than the latest (only files the
    manifests name inside the lake's table folders: ``manifest_problem`` checked them)."""
    every = lake.all_manifests()
    derived = sorted((m for m in every if m.get("derived")), key=lambda m: (m["committed_at"], m["batch"]))
    for old in derived[:-1]:
        lake.remove(posixpath.join(MANIFESTS, f"{old['batch']}.json"))
        for rels in old["files"].values():
            for rel in rels:
                lake.remove(rel)
