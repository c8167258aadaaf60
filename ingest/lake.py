"""A lake: the database's tables as Parquet files under a folder or an object-store URL, for
collections of logs too big for one DuckDB file or one writer process. This module is its layout: the
lake's mark, where each table's files lie, and the manifests that say which files are committed.

Layout (``DIR`` is a local folder or a URL pyarrow understands, such as ``s3://bucket/lake``)::

    DIR/_governor_lake.json                      what this is (format and schema version)
    DIR/<table>/game=<game>/part-<batch>.parquet games, players, moves: one file per batch and game
    DIR/<game>_states/part-<batch>.parquet       state tables (per game by name already)
    DIR/rejections/part-<batch>.parquet
    DIR/<derived table>/part-<batch>.parquet     openings and ratings, rewritten after an import
    DIR/analysis/part-<batch>.parquet            stored analyses (``governor analyse --lake``)
    DIR/_manifest/<batch>.json                   what a batch holds: its files, game ids, row counts
                                                 (and the batches it replaces)

Every file is written under a temporary name and renamed when complete (``ingest.lake_files``), and a
batch's manifest is written (the same way) only after all of its files (``ingest.lake_write``): files
no manifest names (a killed run's) are invisible to readers and deleted by the next import
(``ingest.lake_repair``). On a local disk nothing is followed: the lake's own folders and files are
never symbolic links, and an import that finds a link where the lake keeps its own files stops before
writing or removing anything (``ingest.lake_repair.refuse_links``), so nothing outside the lake is ever
written or removed. Readers see exactly the files the manifests name, through DuckDB views with the
documented table and view names (``ingest.lake_read.connect_lake``), so every documented query runs
unchanged. Rows inside a file are sorted by ``game_id`` (then step, seat), so row-group statistics let
a look-up of one game skip the rest.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import pyarrow.fs as pafs

from ingest.lake_files import LakeError, LakeFiles
from ingest.schema import SCHEMA_VERSION, table_schemas

LAKE_MARK = "_governor_lake.json"
MANIFESTS = "_manifest"
LAKE_FORMAT = 1
#: Tables whose rows are split by game into ``game=<game>`` folders (the others are per game already,
#: or have no game).
BY_GAME = ("games", "players", "moves")
#: The lock file an importer holds while it writes (``ingest.lake_write.writing``).
LOCK = "_governor_lake.lock"
#: The names of the lake's own data files: an import deletes nothing else.
BATCH_NAME = r"[A-Za-z0-9_.-]+"
DATA_FILE = re.compile(rf"[a-z0-9_]+/(?:game=[a-z0-9_]+/)?part-{BATCH_NAME}\.parquet")


def table_of(rel: str) -> str:
    """The table a file of the lake (a relative path) belongs to."""
    return rel.split("/", 1)[0]


def _shown(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def manifest_problem(manifest: Any) -> str | None:
    """What is wrong with a manifest read from a lake, or None: the keys a reader uses with their
    types, and every file it names a data file inside the lake's table folders
    (``<table>/[game=<game>/]part-<batch>.parquet``, no ``..``, not absolute)."""
    if not isinstance(manifest, dict):
        return f"expected a JSON object, found {_shown(manifest)}"
    for key, kind, what in (("batch", str, "a text"), ("committed_at", str, "a text"), ("files", dict, "an object")):
        if not isinstance(manifest.get(key), kind):
            return f"expected the key {key!r} holding {what}, found {_shown(manifest.get(key))}"
    if not re.fullmatch(BATCH_NAME, manifest["batch"]) or manifest["batch"].startswith("."):
        return f"expected a batch id of letters, digits and -_. , found {_shown(manifest['batch'])}"
    tables = table_schemas()
    for table, rels in manifest["files"].items():
        if table not in tables or not isinstance(rels, list):
            return f"expected 'files' to map table names to lists of files, found {_shown(table)}: {_shown(rels)}"
        for rel in rels:
            if not _inside(rel, table):
                return (f"names the file {_shown(rel)}, which is not a data file inside the lake "
                        f"(expected {table}/[game=<game>/]part-<batch>.parquet)")
    for key in ("game_ids", "rejection_ids", "replaces", "analysis_game_ids"):
        if key in manifest and not (isinstance(manifest[key], list) and all(isinstance(v, str) for v in manifest[key])):
            return f"expected the key {key!r} holding a list of texts, found {_shown(manifest[key])}"
    rows = manifest.get("rows", {})
    if not isinstance(rows, dict) or not all(isinstance(v, int) and not isinstance(v, bool) for v in rows.values()):
        return f"expected 'rows' to map tables to whole numbers, found {_shown(rows)}"
    for entry in manifest.get("dropped_rejections", []):
        if not (isinstance(entry, list) and len(entry) == 2 and _inside(entry[0], "rejections")
                and isinstance(entry[1], str)):
            return f"expected 'dropped_rejections' to hold [rejections file, id] pairs, found {_shown(entry)}"
    return None


def _inside(rel: Any, table: str) -> bool:
    return (isinstance(rel, str) and DATA_FILE.fullmatch(rel) is not None and table_of(rel) == table
            and posixpath.normpath(rel) == rel and ".." not in rel.split("/"))


def is_lake(path: str | Path) -> bool:
    """Whether ``path`` names a lake: a URL, or a folder holding the lake's mark file."""
    text = str(path)
    if "://" in text:
        return True
    return Path(text, LAKE_MARK).is_file()


class Lake(LakeFiles):
    """A lake at ``root`` (a local folder or a URL): its mark, its manifests and the batches they commit."""

    def create(self) -> None:
        """Make the lake's folders and mark (nothing changes in an existing lake). Raises
        ``LakeError`` for a folder that holds other things, a damaged mark or a lake of a newer format."""
        if self.refuse_foreign():
            return
        if self.disk:
            os.makedirs(self.base, exist_ok=True)
            with self.folder(MANIFESTS, make=True):
                pass
        else:
            self.fs.create_dir(self.path(MANIFESTS), recursive=True)
        self.write_atomic(LAKE_MARK, json.dumps({"format": LAKE_FORMAT, "schema_version": SCHEMA_VERSION}).encode())

    def refuse_foreign(self) -> bool:
        """Whether the lake exists (its mark checked); raises ``LakeError`` for a folder that holds
        other things than a lake, before anything is written in it."""
        others = []
        top = self.fs.get_file_info(self.base)
        if top.type == pafs.FileType.Directory:
            # What another importer making this lake at the same moment may have written already.
            own = {LOCK, MANIFESTS}
            others = [i for i in self.fs.get_file_info(pafs.FileSelector(self.base))
                      if i.base_name not in own and not i.base_name.startswith(LAKE_MARK + ".tmp-")]
        # The mark is looked for after the folder is listed: an importer making this lake meanwhile
        # writes the mark before anything else (``create``), so a listing that shows its files is
        # followed by its mark found.
        info = self.fs.get_file_info(self.path(LAKE_MARK))
        if info.type == pafs.FileType.File:
            self._mark()
            return True
        if others:
            raise LakeError(f"{self.root}: the folder is not empty and is not a Governor lake")
        return False

    def check(self) -> None:
        """Raise ``LakeError`` unless ``root`` is a lake this governor can read."""
        info = self.fs.get_file_info(self.path(LAKE_MARK))
        if info.type != pafs.FileType.File:
            raise LakeError(f"{self.root}: not a Governor lake (no {LAKE_MARK}; make one with governor import --lake)")
        self._mark()

    def _mark(self) -> dict[str, Any]:
        """The lake's mark, checked. Raises ``LakeError`` naming it when it is damaged or newer."""
        name = self.path(LAKE_MARK)
        mark = self.read_json(LAKE_MARK, 'a JSON object such as {"format": 1, "schema_version": 7}')
        fmt = mark.get("format") if isinstance(mark, dict) else None
        if not isinstance(mark, dict) or not isinstance(fmt, int) or isinstance(fmt, bool) or fmt < 1:
            raise LakeError(f"{name}: damaged lake mark: expected a JSON object whose \"format\" is a whole "
                            f"number (such as {{\"format\": {LAKE_FORMAT}}}), found {_shown(mark)}")
        if fmt > LAKE_FORMAT:
            raise LakeError(f"{self.root}: lake format {fmt} is newer than this governor's {LAKE_FORMAT}")
        return mark

    def _manifest(self, name: str) -> dict[str, Any]:
        """The manifest ``_manifest/<name>``, checked: every path it names must be a data file inside
        the lake's table folders. Raises ``LakeError`` naming the manifest and what was expected."""
        rel = posixpath.join(MANIFESTS, name)
        where = self.path(rel)
        manifest = self.read_json(rel, "a batch manifest (a JSON object)")
        problem = manifest_problem(manifest)
        if problem is not None:
            raise LakeError(f"{where}: damaged manifest: {problem}")
        if f"{manifest['batch']}.json" != name:
            raise LakeError(f"{where}: damaged manifest: expected the batch {name[:-5]!r}, found {manifest['batch']!r}")
        return cast(dict[str, Any], manifest)

    def manifests(self) -> list[dict[str, Any]]:
        """Every committed batch's manifest, in the order they were committed. Raises ``LakeError``
        for a damaged one."""
        entries = self.all_manifests()
        entries.sort(key=lambda m: (m["committed_at"], m["batch"]))
        # A batch that a committed one replaces (an analysis of its games made again) is gone at once,
        # even while its files are still there.
        replaced = {batch for m in entries for batch in m.get("replaces", ())}
        entries = [m for m in entries if m["batch"] not in replaced]
        # A later derived batch replaces the earlier ones.
        derived = [m for m in entries if m.get("derived")]
        latest = derived[-1]["batch"] if derived else None
        return [m for m in entries if not m.get("derived") or m["batch"] == latest]

    def files(self, manifests: list[dict[str, Any]] | None = None) -> dict[str, list[str]]:
        """The committed files of every table (relative paths), by table."""
        out: dict[str, list[str]] = {}
        for manifest in manifests if manifests is not None else self.manifests():
            for table, rels in manifest["files"].items():
                out.setdefault(table, []).extend(rels)
        return out

    def all_manifests(self) -> list[dict[str, Any]]:
        """Every manifest of the lake, committed or replaced (each checked), in no order. Raises
        ``LakeError`` for a damaged one."""
        selector = pafs.FileSelector(self.path(MANIFESTS), allow_not_found=True)
        return [
            self._manifest(info.base_name)
            for info in self.fs.get_file_info(selector)
            if info.type == pafs.FileType.File and info.base_name.endswith(".json")
        ]

    def derived_basis(self, manifests: list[dict[str, Any]] | None = None) -> str:
        """What the derived tables are computed from: a digest of the committed batches that hold games."""
        batches = sorted(m["batch"] for m in (manifests if manifests is not None else self.manifests())
                         if not m.get("derived") and m.get("game_ids"))
        return hashlib.sha256("\n".join(batches).encode()).hexdigest()[:32]

    def commit(self, manifest: dict[str, Any]) -> None:
        """Make a batch visible: write its manifest (atomically) after all its files."""
        manifest = {**manifest, "committed_at": datetime.now(UTC).isoformat()}
        self.write_atomic(posixpath.join(MANIFESTS, f"{manifest['batch']}.json"), json.dumps(manifest).encode())


def dropped_rejections(manifests: list[dict[str, Any]]) -> dict[str, set[str]]:
    """The rejection ids each rejections file (relative path) no longer shows: a later batch read
    their positions again and stored the game, skipped it as a copy or rejected it otherwise."""
    out: dict[str, set[str]] = {}
    for manifest in manifests:
        for rel, rejection in manifest.get("dropped_rejections", ()):
            out.setdefault(rel, set()).add(rejection)
    return out
