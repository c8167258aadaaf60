"""A lake: the database's tables as Parquet files under a folder or an object-store URL, for
collections of logs too big for one DuckDB file or one writer process.

Layout (``DIR`` is a local folder or a URL pyarrow understands, such as ``s3://bucket/lake``)::

    DIR/_governor_lake.json                      what this is (format and schema version)
    DIR/<table>/game=<game>/part-<batch>.parquet games, players, moves: one file per batch and game
    DIR/<game>_states/part-<batch>.parquet       state tables (per game by name already)
    DIR/rejections/part-<batch>.parquet
    DIR/<derived table>/part-<batch>.parquet     openings and ratings, rewritten after an import
    DIR/_manifest/<batch>.json                   what a batch holds: its files, game ids, row counts

Every file is written under a temporary name and renamed when complete, and a batch's manifest is
written (the same way) only after all of its files: files no manifest names (a killed run's) are
invisible to readers and deleted by the next import. On a local disk nothing is followed: the lake's own
folders and files are never symbolic links, every folder below the lake's is opened without following
one (``replay.outputs.open_folder``), and an import that finds a link where the lake keeps its own
files stops before writing or removing anything (``Lake.refuse_links``), so nothing outside the lake
is ever written or removed. Readers see exactly the files the manifests name,
through DuckDB views with the documented table and view names (``connect``), so every documented query
runs unchanged. Rows inside a file are sorted by ``game_id`` (then step, seat), so row-group statistics
let a look-up of one game skip the rest.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import stat
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from ingest.paths import openable
from ingest.rows import READ_POSITIONS
from ingest.schema import (
    DERIVED_TABLES,
    SCHEMA_VERSION,
    VIEWS,
    expand_runs_sql,
    player_states_of,
    table_schemas,
    vp_by_step_view,
)
from ingest.stored import StoredGames, stored_in
from replay.errors import printable
from replay.outputs import FollowRefused, creating_in, open_folder, remove_in

LAKE_MARK = "_governor_lake.json"
MANIFESTS = "_manifest"
LAKE_FORMAT = 1
#: Tables whose rows are split by game into ``game=<game>`` folders (the others are per game already,
#: or have no game).
BY_GAME = ("games", "players", "moves")
#: Rows per Parquet row group: small enough that a look-up of one game reads little.
ROW_GROUP = 64 * 1024
#: The lock file an importer holds while it writes (``Lake.writing``), and how long another waits.
LOCK = "_governor_lake.lock"
LOCK_TIMEOUT = 3600.0
#: The names of the lake's own data files and of its temporary files: an import deletes nothing else.
_BATCH = r"[A-Za-z0-9_.-]+"
_DATA_FILE = re.compile(rf"[a-z0-9_]+/(?:game=[a-z0-9_]+/)?part-{_BATCH}\.parquet")
_TEMP_FILE = re.compile(rf"(?:[a-z0-9_]+/(?:game=[a-z0-9_]+/)?part-{_BATCH}\.parquet|{MANIFESTS}/{_BATCH}\.json"
                        rf"|{re.escape(LAKE_MARK)})\.tmp-[A-Za-z0-9]+")
#: What the lake itself names inside a table folder: its data files (and their temporary files) and
#: its ``game=<game>`` folders.
_OWN_IN_TABLE = re.compile(rf"part-{_BATCH}\.parquet(?:\.tmp-[A-Za-z0-9]+)?")
_GAME_FOLDER = re.compile(r"game=[a-z0-9_]+")


def _table_of(rel: str) -> str:
    return rel.split("/", 1)[0]


def _shown(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def local_path(root: str) -> str | None:
    """The local folder of a lake (a plain path or a ``file://`` URL), or None for an object store."""
    if "://" not in root:
        return os.path.abspath(root)
    if root.startswith("file://"):
        return root[len("file://"):]
    return None


def manifest_problem(manifest: Any) -> str | None:
    """What is wrong with a manifest read from a lake, or None: the keys a reader uses with their
    types, and every file it names a data file inside the lake's table folders
    (``<table>/[game=<game>/]part-<batch>.parquet``, no ``..``, not absolute)."""
    if not isinstance(manifest, dict):
        return f"expected a JSON object, found {_shown(manifest)}"
    for key, kind, what in (("batch", str, "a text"), ("committed_at", str, "a text"), ("files", dict, "an object")):
        if not isinstance(manifest.get(key), kind):
            return f"expected the key {key!r} holding {what}, found {_shown(manifest.get(key))}"
    if not re.fullmatch(_BATCH, manifest["batch"]) or manifest["batch"].startswith("."):
        return f"expected a batch id of letters, digits and -_. , found {_shown(manifest['batch'])}"
    tables = table_schemas()
    for table, rels in manifest["files"].items():
        if table not in tables or not isinstance(rels, list):
            return f"expected 'files' to map table names to lists of files, found {_shown(table)}: {_shown(rels)}"
        for rel in rels:
            if not _inside(rel, table):
                return (f"names the file {_shown(rel)}, which is not a data file inside the lake "
                        f"(expected {table}/[game=<game>/]part-<batch>.parquet)")
    for key in ("game_ids", "rejection_ids"):
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
    return (isinstance(rel, str) and _DATA_FILE.fullmatch(rel) is not None and _table_of(rel) == table
            and posixpath.normpath(rel) == rel and ".." not in rel.split("/"))


class LakeError(Exception):
    """The lake cannot be used: not a lake, a newer format, or the storage refused a write."""


def _refused(err: FollowRefused) -> LakeError:
    """The one line for a link (or a file where a folder belongs) met where the lake keeps its own."""
    if err.found.startswith("a symbolic link"):
        return LakeError(f"{printable(err.path)}: {printable(err.found)}: a lake's own folders and files are never "
                         "links, and an import writes and removes nothing through one")
    return LakeError(f"{printable(err.path)}: {err.found}, where the lake keeps its own: an import writes and "
                     "removes nothing there")


def is_lake(path: str | Path) -> bool:
    """Whether ``path`` names a lake: a URL, or a folder holding the lake's mark file."""
    text = str(path)
    if "://" in text:
        return True
    return Path(text, LAKE_MARK).is_file()


@dataclass
class Lake:
    """A lake at ``root`` (a local folder or a URL): listing, atomic writes, manifests, views."""

    root: str
    fs: pafs.FileSystem = field(init=False, repr=False)
    base: str = field(init=False)

    def __post_init__(self) -> None:
        if "://" in self.root:
            self.fs, self.base = pafs.FileSystem.from_uri(self.root)
        else:
            try:
                # A folder whose path is not UTF-8 is read and written through a link (``ingest.paths``).
                self.fs, self.base = pafs.LocalFileSystem(), openable(os.path.abspath(self.root))
            except OSError as err:
                raise LakeError(f"{self.root}: cannot open the lake: {err}") from None
        self.base = self.base.rstrip("/") or "/"
        #: On this machine's disk (a folder or a ``file://`` URL): written without following links.
        self.disk = isinstance(self.fs, pafs.LocalFileSystem)

    @property
    def local(self) -> bool:
        """A plain folder, which DuckDB reads itself; a URL (file:// included) is read through
        pyarrow's file system for that URL, so DuckDB needs no extension and no file access."""
        return "://" not in self.root

    def path(self, rel: str) -> str:
        return posixpath.join(self.base, rel)

    # -- layout --------------------------------------------------------------------------------

    def create(self) -> None:
        """Make the lake's folders and mark (nothing changes in an existing lake). Raises
        ``LakeError`` for a folder that holds other things, a damaged mark or a lake of a newer format."""
        if self.refuse_foreign():
            return
        if self.disk:
            os.makedirs(self.base, exist_ok=True)
            with self._folder(MANIFESTS, make=True):
                pass
        else:
            self.fs.create_dir(self.path(MANIFESTS), recursive=True)
        self._write_atomic(LAKE_MARK, json.dumps({"format": LAKE_FORMAT, "schema_version": SCHEMA_VERSION}).encode())

    def refuse_foreign(self) -> bool:
        """Whether the lake exists (its mark checked); raises ``LakeError`` for a folder that holds
        other things than a lake, before anything is written in it."""
        info = self.fs.get_file_info(self.path(LAKE_MARK))
        if info.type == pafs.FileType.File:
            self._mark()
            return True
        top = self.fs.get_file_info(self.base)
        if top.type == pafs.FileType.Directory:
            # What another importer making this lake at the same moment may have written already.
            own = {LOCK, MANIFESTS}
            others = [i for i in self.fs.get_file_info(pafs.FileSelector(self.base))
                      if i.base_name not in own and not i.base_name.startswith(LAKE_MARK + ".tmp-")]
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
        mark = self._json(LAKE_MARK, 'a JSON object such as {"format": 1, "schema_version": 7}')
        fmt = mark.get("format") if isinstance(mark, dict) else None
        if not isinstance(mark, dict) or not isinstance(fmt, int) or isinstance(fmt, bool) or fmt < 1:
            raise LakeError(f"{name}: damaged lake mark: expected a JSON object whose \"format\" is a whole "
                            f"number (such as {{\"format\": {LAKE_FORMAT}}}), found {_shown(mark)}")
        if fmt > LAKE_FORMAT:
            raise LakeError(f"{self.root}: lake format {fmt} is newer than this governor's {LAKE_FORMAT}")
        return mark

    def _json(self, rel: str, expected: str) -> Any:
        """The JSON document at ``rel``. Raises ``LakeError`` naming the file when it is not JSON."""
        try:
            data = self._read(rel)
        except OSError as err:
            raise LakeError(f"{self.path(rel)}: cannot read it: {err}") from None
        try:
            return json.loads(data)
        except ValueError as err:
            raise LakeError(f"{self.path(rel)}: damaged file: expected {expected}, but it is not JSON ({err})") from None

    def _manifest(self, name: str) -> dict[str, Any]:
        """The manifest ``_manifest/<name>``, checked: every path it names must be a data file inside
        the lake's table folders. Raises ``LakeError`` naming the manifest and what was expected."""
        rel = posixpath.join(MANIFESTS, name)
        where = self.path(rel)
        manifest = self._json(rel, "a batch manifest (a JSON object)")
        problem = manifest_problem(manifest)
        if problem is not None:
            raise LakeError(f"{where}: damaged manifest: {problem}")
        if f"{manifest['batch']}.json" != name:
            raise LakeError(f"{where}: damaged manifest: expected the batch {name[:-5]!r}, found {manifest['batch']!r}")
        return cast(dict[str, Any], manifest)

    def manifests(self) -> list[dict[str, Any]]:
        """Every committed batch's manifest, in the order they were committed. Raises ``LakeError``
        for a damaged one."""
        entries = self._all_manifests()
        entries.sort(key=lambda m: (m["committed_at"], m["batch"]))
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

    def remove_orphans(self) -> int:
        """Delete what killed imports left: data files of the lake's own naming (``<table>/[game=<g>/]
        part-<batch>.parquet``) that no manifest names, and their temporary files; returns how many
        were deleted. Anything else in the folder (a user's notes, their own Parquet files, files in
        folders that are not tables) is left alone. Only an importer holding the lake's lock calls this
        (a running import's files are then never taken for a killed one's)."""
        named = {rel for rels in self.files(self._all_manifests()).values() for rel in rels}
        removed = 0
        if self.disk:
            rels: Iterable[str] = list(self._own_files())
        else:
            selector = pafs.FileSelector(self.base, recursive=True, allow_not_found=True)
            rels = [posixpath.relpath(info.path, self.base) for info in self.fs.get_file_info(selector)
                    if info.type == pafs.FileType.File]
        for rel in rels:
            orphan = (_DATA_FILE.fullmatch(rel) is not None and _table_of(rel) in table_schemas()
                      and rel not in named)
            temp = _TEMP_FILE.fullmatch(rel) is not None and (
                _table_of(rel) in (*table_schemas(), MANIFESTS) or rel.startswith(LAKE_MARK + ".tmp-"))
            if (orphan or temp) and self.remove(rel):
                removed += 1
        return removed

    def _own_files(self) -> Iterator[str]:
        """The regular files (relative paths) where a lake on disk keeps its own: its mark, lock and
        their temporary files, every entry of its manifests folder, and, in each table folder and its
        ``game=<game>`` folders, the entries of the lake's naming (``part-<batch>.parquet`` and their
        temporary files). Nothing is followed, and the user's own files are not looked at.

        Raises ``LakeError`` naming the first of these that is a symbolic link or not what it should be
        (a file where a folder belongs, a folder or a pipe where a file belongs)."""
        tables = table_schemas()

        def listing(rel: str) -> list[os.DirEntry[str]]:
            try:
                with os.scandir(self.path(rel) if rel else self.base) as entries:
                    return sorted(entries, key=lambda e: e.name)
            except (FileNotFoundError, NotADirectoryError):
                return []
            except OSError as err:
                raise LakeError(f"{printable(self.path(rel))}: cannot read the lake: {err.strerror or err}") from None

        def present(entry: os.DirEntry[str], folder: bool) -> bool:
            """Whether the entry is still there (another importer's temporary file may just have gone),
            checked to be a folder or a regular file as ``folder`` says."""
            try:
                info = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                return False
            if stat.S_ISLNK(info.st_mode):
                raise _refused(FollowRefused(entry.path, f"a symbolic link (to {os.readlink(entry.path)})"))
            if folder and not stat.S_ISDIR(info.st_mode):
                raise _refused(FollowRefused(entry.path, "not a folder"))
            if not folder and not stat.S_ISREG(info.st_mode):
                raise _refused(FollowRefused(entry.path, "not a regular file"))
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

    def refuse_links(self) -> None:
        """Raise ``LakeError`` naming the first place where a lake on disk keeps its own files (see
        ``_own_files``) that holds a symbolic link or something else than it should, so that an import
        stops before it writes or removes anything. A lake on an object store has no links."""
        if self.disk:
            for _ in self._own_files():
                pass

    def _all_manifests(self) -> list[dict[str, Any]]:
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

    def derived_stale(self) -> bool:
        """Whether the derived tables miss games (a run killed after its batches, before its derived
        batch) or hold games no longer there; a lake with no games and no derived batch needs none."""
        manifests = self.manifests()
        derived = [m for m in manifests if m.get("derived")]
        has_games = any(m.get("game_ids") for m in manifests if not m.get("derived"))
        if not derived:
            return has_games
        return derived[-1].get("basis") != self.derived_basis(manifests)

    def drop_stale_derived(self) -> None:
        """Delete the manifests and files of derived batches older than the latest (only files the
        manifests name inside the lake's table folders: ``manifest_problem`` checked them)."""
        every = self._all_manifests()
        derived = sorted((m for m in every if m.get("derived")), key=lambda m: (m["committed_at"], m["batch"]))
        for old in derived[:-1]:
            self.remove(posixpath.join(MANIFESTS, f"{old['batch']}.json"))
            for rels in old["files"].values():
                for rel in rels:
                    self.remove(rel)

    @contextmanager
    def writing(self, timeout: float | None = None) -> Iterator[None]:
        """Hold the lake for writing: one importer at a time (others wait their turn, up to ``timeout``
        seconds, default ``LOCK_TIMEOUT``). The lock is the operating system's on ``_governor_lake.lock``
        (``flock``), so a killed importer's lock goes with it. A lake on an object store has no such
        lock: one importer at a time is then the user's to ensure (docs/scaling.md). Raises
        ``LakeError`` when the lake stays held past the timeout."""
        local = local_path(self.root)
        if local is None:
            yield
            return
        import fcntl

        os.makedirs(local, exist_ok=True)
        path = os.path.join(local, LOCK)
        try:
            # Never through a link: the lock is truncated and written (a planted link would make that
            # a file outside the lake).
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0),
                         0o644)
        except OSError as err:
            if os.path.islink(path):
                raise _refused(FollowRefused(path, f"a symbolic link (to {os.readlink(path)})")) from None
            raise LakeError(f"{printable(path)}: cannot open the lake's lock: {err.strerror or err}") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise _refused(FollowRefused(path, "not a regular file"))
            deadline = time.monotonic() + (LOCK_TIMEOUT if timeout is None else timeout)
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "another process"
                        raise LakeError(f"{self.root}: another import (pid {holder}) is still writing the lake; "
                                        "run this one again when it has finished") from None
                    time.sleep(0.05)
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
            yield
        finally:
            os.close(fd)  # releases the lock

    # -- writing -------------------------------------------------------------------------------

    def _read(self, rel: str) -> bytes:
        with self.fs.open_input_stream(self.path(rel)) as fh:
            return bytes(fh.read())

    @contextmanager
    def _folder(self, rel: str, make: bool = False) -> Iterator[int]:
        """The lake's folder ``rel`` on disk, opened without following a link (made with ``make``).
        Raises ``LakeError`` for a link or a file on the way."""
        try:
            fd = open_folder(self.base, rel, make)
        except FollowRefused as err:
            raise _refused(err) from None
        try:
            yield fd
        finally:
            os.close(fd)

    @contextmanager
    def _creating(self, rel: str) -> Iterator[Any]:
        """A new file at ``rel``, written under a temporary name of a random suffix and renamed into
        place when the block ends well (removed when it does not). On disk, nothing on the way is
        followed (``replay.outputs.creating_in``); on an object store, pyarrow's own files."""
        if self.disk:
            folder, name = posixpath.split(rel)
            with self._folder(folder, make=True) as fd, creating_in(fd, name) as handle:
                yield handle
            return
        final = self.path(rel)
        temp = f"{final}.tmp-{uuid.uuid4().hex}"
        self.fs.create_dir(posixpath.dirname(final), recursive=True)
        try:
            with self.fs.open_output_stream(temp) as stream:
                yield stream
            self.fs.move(temp, final)
        except BaseException:
            try:
                self.fs.delete_file(temp)  # its own random name: nobody else's file
            except OSError:
                pass
            raise

    def _write_atomic(self, rel: str, data: bytes) -> None:
        with self._creating(rel) as handle:
            handle.write(data)

    def write_parquet(self, rel: str, table: pa.Table) -> None:
        """Write ``table`` to ``rel`` under a temporary name, then rename it into place."""
        with self._creating(rel) as handle:
            pq.write_table(table, handle, row_group_size=ROW_GROUP, compression="zstd")

    def remove(self, rel: str) -> bool:
        """Delete the lake's file ``rel`` (a path checked to be of the lake's own naming); False when it
        is not there. On disk only a regular file is removed, and no link on the way is followed.
        Raises ``LakeError`` for a link or something else than a file."""
        if not self.disk:
            try:
                self.fs.delete_file(self.path(rel))
            except FileNotFoundError:
                return False
            return True
        folder, name = posixpath.split(rel)
        try:
            with self._folder(folder) as fd:
                return remove_in(fd, name, self.path(rel))
        except FileNotFoundError:
            return False
        except FollowRefused as err:
            raise _refused(err) from None

    def commit(self, manifest: dict[str, Any]) -> None:
        """Make a batch visible: write its manifest (atomically) after all its files."""
        manifest = {**manifest, "committed_at": datetime.now(UTC).isoformat()}
        self._write_atomic(posixpath.join(MANIFESTS, f"{manifest['batch']}.json"), json.dumps(manifest).encode())

    # -- reading -------------------------------------------------------------------------------

    def connect(self, config: dict[str, Any] | None = None) -> duckdb.DuckDBPyConnection:
        """An in-memory DuckDB connection on which every table is a view over the committed files and
        the documented views exist, with file access limited to the lake's folder. Raises
        ``LakeError`` when ``root`` is not a lake."""
        self.check()
        manifests = self.manifests()
        files = self.files(manifests)
        con = duckdb.connect(":memory:")
        if self.local:
            con.execute(f"SET allowed_directories = [{_literal(self.base + '/')}]")
        dropped = self.dropped_rejections(manifests)
        for name, schema in table_schemas().items():
            rels = files.get(name, [])
            if name == "rejections" and dropped and rels:
                # The rows later batches found stale (``dropped_rejections``): few, so the rest is read here.
                kept = self.rejection_rows(rels, dropped)
                con.register("_kept_rejections", kept)
                con.execute('CREATE VIEW "rejections" AS SELECT * FROM "_kept_rejections"')
            elif not rels:
                empty = schema.empty_table()
                con.register(f"_empty_{name}", empty)
                con.execute(f'CREATE VIEW "{name}" AS SELECT * FROM "_empty_{name}"')
            elif self.local:
                paths = ", ".join(_literal(self.path(rel)) for rel in sorted(rels))
                # By name, over an empty table of this build's columns: a file written before a column
                # was added (``players.bot``, schema 9) reads as NULL there.
                con.register(f"_empty_{name}", schema.empty_table())
                con.execute(f'CREATE VIEW "{name}" AS SELECT * FROM "_empty_{name}" UNION ALL BY NAME '
                            f"SELECT * FROM read_parquet([{paths}], hive_partitioning = false, union_by_name = true)")
            else:
                dataset = pads.dataset([self.path(rel) for rel in sorted(rels)], schema=schema, filesystem=self.fs,
                                       format="parquet")
                con.register(f"_dataset_{name}", dataset)
                con.execute(f'CREATE VIEW "{name}" AS SELECT * FROM "_dataset_{name}"')
        for name, sql in VIEWS.items():
            con.execute(f"CREATE VIEW {name} AS {sql}")
        con.execute(f"CREATE VIEW vp_by_step AS {vp_by_step_view()}")
        con.execute("CREATE TABLE governor_meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
        con.execute("INSERT INTO governor_meta VALUES ('schema_version', ?), ('lake', ?)", [str(SCHEMA_VERSION), printable(self.root)])
        con.execute("SET enable_external_access = false")
        # Locking the configuration comes last: every setting after it would be refused ("the
        # configuration has been locked"), which made every dashboard page fail on a lake.
        settings = {k: v for k, v in (config or {}).items() if k != "enable_external_access"}
        lock = settings.pop("lock_configuration", None)
        for key, value in settings.items():
            con.execute(f"SET {key} = ?", [value])
        if lock is not None:
            con.execute("SET lock_configuration = ?", [lock])
        return con

    @staticmethod
    def dropped_rejections(manifests: list[dict[str, Any]]) -> dict[str, set[str]]:
        """The rejection ids each rejections file (relative path) no longer shows: a later batch read
        their positions again and stored the game, skipped it as a copy or rejected it otherwise."""
        out: dict[str, set[str]] = {}
        for manifest in manifests:
            for rel, rejection in manifest.get("dropped_rejections", ()):
                out.setdefault(rel, set()).add(rejection)
        return out

    def rejection_rows(self, rels: Sequence[str], dropped: dict[str, set[str]],
                       columns: list[str] | None = None) -> pa.Table:
        """The rows of the rejections files ``rels`` without the ``dropped`` ones, with a ``_file``
        column naming each row's file when ``columns`` asks for it."""
        schema = table_schemas()["rejections"]
        parts = []
        for rel in rels:
            table = pq.read_table(self.path(rel), filesystem=self.fs,
                                  columns=[c for c in columns if c != "_file"] if columns else None)
            gone = dropped.get(rel)
            if gone:
                table = table.filter(pc.invert(pc.is_in(table.column("rejection_id"),
                                                        value_set=pa.array(sorted(gone), pa.string()))))
            if columns and "_file" in columns:
                table = table.append_column("_file", pa.array([rel] * table.num_rows, pa.string()))
            parts.append(table)
        if not parts:
            if columns:
                fields = [schema.field(c) if c != "_file" else pa.field("_file", pa.string()) for c in columns]
                return pa.schema(fields).empty_table()
            return schema.empty_table()
        return pa.concat_tables(parts).cast(schema) if not columns else pa.concat_tables(parts)

    def rejected_positions(self) -> dict[tuple[str, int], list[tuple[str, str]]]:
        """Every shown rejection by position (file, game): its file in the lake and its id."""
        manifests = self.manifests()
        rels = self.files(manifests).get("rejections", [])
        rows = self.rejection_rows(rels, self.dropped_rejections(manifests),
                                   ["rejection_id", "file", "game_index", "_file"])
        out: dict[tuple[str, int], list[tuple[str, str]]] = {}
        for rejection, file, index, rel in zip(*(rows.column(c).to_pylist()
                                                 for c in ("rejection_id", "file", "game_index", "_file"))):
            out.setdefault((file, index), []).append((rel, rejection))
        return out

    def known(self) -> tuple[StoredGames, frozenset[str]]:
        """The games already in the lake by id (what a copy is checked against) and its rejection ids."""
        con = self.connect()
        try:
            games = stored_in(con)
            rejections = frozenset(r[0] for r in con.execute("SELECT rejection_id FROM rejections").fetchall())
        finally:
            con.close()
        return games, rejections


def _literal(text: str) -> str:
    """A SQL string literal (view definitions cannot take parameters)."""
    return "'" + text.replace("'", "''") + "'"


# -- a batch's files ---------------------------------------------------------------------------------


def expand_player_changes(name: str, runs: pa.Table) -> tuple[str, pa.Table]:
    """Runs of unchanged per-seat state (``<game>_player_changes``) as one row per step, the rows of
    ``<game>_player_states`` (the same expansion the DuckDB store does when it writes)."""
    target = player_states_of(name)
    con = duckdb.connect(":memory:")
    try:
        con.register("incoming", runs)
        expanded = con.sql(expand_runs_sql(runs.column_names, "incoming")).to_arrow_table()
    finally:
        con.close()
    return target, expanded.cast(table_schemas()[target])


def summary_tables(tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
    """The summary tables (``ingest.summaries``) of a batch's games, from its games, players and moves,
    by the same SQL the DuckDB import runs."""
    from ingest import summaries

    con = duckdb.connect(":memory:")
    try:
        for name in ("games", "players", "moves"):
            con.register(name, tables[name])
        for name, schema in summaries.SUMMARY_TABLES.items():
            empty = schema.empty_table()
            con.register(f"_empty_{name}", empty)
            con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM "_empty_{name}"')
        summaries.fill(con)
        return {name: con.sql(f'SELECT * FROM "{name}"').to_arrow_table().cast(schema)
                for name, schema in summaries.SUMMARY_TABLES.items()}
    finally:
        con.close()


def _sort(name: str, table: pa.Table) -> pa.Table:
    keys = [(k, "ascending") for k in ("game_id", "step", "seat", "rejection_id") if k in table.column_names]
    return table.sort_by(keys) if keys else table


def batch_files(tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
    """A batch's tables as the lake's files: relative path -> rows (player-state runs expanded, the
    summary tables added, rows of games, players and moves split by game, every file sorted by game
    id)."""
    ready: dict[str, pa.Table] = {}
    for name, table in tables.items():
        if name.endswith("_player_changes"):
            name, table = expand_player_changes(name, table)
        if table.num_rows:
            ready[name] = table
    if all(name in ready for name in ("games", "players", "moves")):
        ready.update({name: table for name, table in summary_tables(ready).items() if table.num_rows})
    out: dict[str, pa.Table] = {}
    games = ready.get("games")
    game_of = dict(zip(games.column("game_id").to_pylist(), games.column("game").to_pylist())) if games else {}
    for name, table in ready.items():
        if name in BY_GAME:
            kinds = [game_of[g] for g in table.column("game_id").to_pylist()]
            for game in sorted(set(kinds)):
                part = table.filter(pc.equal(pa.array(kinds, pa.string()), game))
                out[f"{name}/game={game}"] = _sort(name, part)
        else:
            out[name] = _sort(name, table)
    return out


def filter_out(tables: dict[str, pa.Table], game_ids: Iterable[str], rejection_ids: Iterable[str]) -> dict[str, pa.Table]:
    """``tables`` without the rows of ``game_ids`` and the rejections of ``rejection_ids``."""
    drop_games = pa.array(sorted(set(game_ids)), pa.string())
    drop_rejections = pa.array(sorted(set(rejection_ids)), pa.string())
    out = {}
    for name, table in tables.items():
        if name == "rejections":
            table = table.filter(pc.invert(pc.is_in(table.column("rejection_id"), value_set=drop_rejections)))
        elif "game_id" in table.column_names and len(drop_games):
            table = table.filter(pc.invert(pc.is_in(table.column("game_id"), value_set=drop_games)))
        out[name] = table
    return out


def write_batch(lake: Lake, batch_id: str, tables: dict[str, pa.Table]) -> dict[str, Any]:
    """Write one batch's files (not yet visible) and return its manifest, to be committed."""
    files: dict[str, list[str]] = {}
    rows: dict[str, int] = {}
    read = tables.get(READ_POSITIONS)
    tables = {name: table for name, table in tables.items() if name != READ_POSITIONS}
    for rel_dir, table in batch_files(tables).items():
        name = rel_dir.split("/", 1)[0]
        rel = f"{rel_dir}/part-{batch_id}.parquet"
        lake.write_parquet(rel, table)
        files.setdefault(name, []).append(rel)
        rows[name] = rows.get(name, 0) + table.num_rows
    games = tables.get("games")
    rejections = tables.get("rejections")
    return {
        "batch": batch_id,
        "files": files,
        "rows": rows,
        "game_ids": games.column("game_id").to_pylist() if games is not None else [],
        "rejection_ids": rejections.column("rejection_id").to_pylist() if rejections is not None else [],
        "rejection_messages": rejections.column("message").to_pylist() if rejections is not None else [],
        # For the driver only (``import_to_lake`` takes it out before the commit).
        "read_positions": list(zip(read.column("file").to_pylist(), read.column("game_index").to_pylist()))
        if read is not None else [],
    }


def read_batch(lake: Lake, manifest: dict[str, Any]) -> dict[str, pa.Table]:
    """The tables of a written (maybe not committed) batch, by file path."""
    out = {}
    for rels in manifest["files"].values():
        for rel in rels:
            out[rel] = pq.read_table(lake.path(rel), filesystem=lake.fs)
    return out


def rewrite_without(lake: Lake, manifest: dict[str, Any], game_ids: Sequence[str],
                    rejection_ids: Sequence[str]) -> dict[str, Any]:
    """A written batch with some games and rejections left out (duplicates of earlier batches of the
    same run, found only when the batch came back): its files are written again under a new batch
    id and the old ones deleted. Rare: only when one run imports the same game twice."""
    new_id = f"{manifest['batch']}r"
    files: dict[str, list[str]] = {}
    rows: dict[str, int] = {}
    drop_games, drop_rejections = set(game_ids), set(rejection_ids)
    for rel, table in read_batch(lake, manifest).items():
        name = rel.split("/", 1)[0]
        (kept,) = filter_out({name: table}, drop_games, drop_rejections).values()
        lake.remove(rel)
        if kept.num_rows:
            new_rel = rel.replace(f"part-{manifest['batch']}.parquet", f"part-{new_id}.parquet")
            lake.write_parquet(new_rel, kept)
            files.setdefault(name, []).append(new_rel)
            rows[name] = rows.get(name, 0) + kept.num_rows
    kept_rejections = [(i, m) for i, m in zip(manifest["rejection_ids"], manifest["rejection_messages"])
                       if i not in drop_rejections]
    return {
        "batch": new_id,
        "files": files,
        "rows": rows,
        "game_ids": [g for g in manifest["game_ids"] if g not in drop_games],
        "rejection_ids": [i for i, _ in kept_rejections],
        "rejection_messages": [m for _, m in kept_rejections],
    }


def refresh_derived(lake: Lake, run_id: str) -> None:
    """Compute the derived tables (openings, ratings) from the lake's games and commit them as one
    derived batch replacing the previous one, recording the batches it was computed from
    (``Lake.derived_basis``). The caller holds the lake (``Lake.writing``)."""
    from ingest.openings import fill_openings
    from ingest.ratings import recompute_ratings

    con = lake.connect()
    basis = lake.derived_basis()
    try:
        for name, schema in DERIVED_TABLES.items():
            con.execute(f'DROP VIEW IF EXISTS "{name}"')
            empty = schema.empty_table()
            con.register(f"_derived_empty_{name}", empty)
            con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM "_derived_empty_{name}"')
        fill_openings(con)
        recompute_ratings(con)
        batch_id = f"{run_id}-derived"
        files: dict[str, list[str]] = {}
        rows: dict[str, int] = {}
        for name, schema in DERIVED_TABLES.items():
            table = con.sql(f'SELECT * FROM "{name}"').to_arrow_table().cast(schema)
            rel = f"{name}/part-{batch_id}.parquet"
            lake.write_parquet(rel, _sort(name, table))
            files[name] = [rel]
            rows[name] = table.num_rows
    finally:
        con.close()
    lake.commit({"batch": batch_id, "derived": True, "files": files, "rows": rows, "game_ids": [],
                 "rejection_ids": [], "rejection_messages": [], "basis": basis})
    lake.drop_stale_derived()
