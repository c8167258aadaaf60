"""A lake's files: one file of a local folder or of an object-store URL (``s3://bucket/lake``) read,
written or removed safely, whatever the lake's layout (``ingest.lake``).

A file is written under a temporary name of a random suffix and renamed when complete. On a local disk
nothing is followed: every folder below the lake's is opened without following a symbolic link
(``replay.outputs.open_folder``), and a link (or a file where a folder belongs) met on the way stops
the write or the removal with one line, so nothing outside the lake is ever written or removed.
"""

from __future__ import annotations

import json
import os
import posixpath
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from ingest.paths import openable
from replay.errors import printable
from replay.outputs import FollowRefused, creating_in, open_folder, remove_in

#: Rows per Parquet row group: small enough that a look-up of one game reads little.
ROW_GROUP = 64 * 1024


class LakeError(Exception):
    """The lake cannot be used: not a lake, a newer format, or the storage refused a write."""


def refused(err: FollowRefused) -> LakeError:
    """The one line for a link (or a file where a folder belongs) met where the lake keeps its own."""
    if err.found.startswith("a symbolic link"):
        return LakeError(f"{printable(err.path)}: {printable(err.found)}: a lake's own folders and files are never "
                         "links, and an import writes and removes nothing through one")
    return LakeError(f"{printable(err.path)}: {err.found}, where the lake keeps its own: an import writes and "
                     "removes nothing there")


def local_path(root: str) -> str | None:
    """The local folder of a lake (a plain path or a ``file://`` URL), or None for an object store."""
    if "://" not in root:
        return os.path.abspath(root)
    if root.startswith("file://"):
        return root[len("file://"):]
    return None


@dataclass
class LakeFiles:
    """The files under ``root`` (a local folder or a URL): read, written atomically, removed."""

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
        """Where the file ``rel`` (a path relative to the lake) is on the lake's file system."""
        return posixpath.join(self.base, rel)

    def read(self, rel: str) -> bytes:
        """The bytes of the file ``rel``. Raises ``OSError`` when it cannot be read."""
        with self.fs.open_input_stream(self.path(rel)) as fh:
            return bytes(fh.read())

    def read_json(self, rel: str, expected: str) -> Any:
        """The JSON document at ``rel``. Raises ``LakeError`` naming the file when it cannot be read or
        is not JSON (``expected`` says what it should have been)."""
        try:
            data = self.read(rel)
        except OSError as err:
            raise LakeError(f"{self.path(rel)}: cannot read it: {err}") from None
        try:
            return json.loads(data)
        except ValueError as err:
            raise LakeError(f"{self.path(rel)}: damaged file: expected {expected}, but it is not JSON ({err})") from None

    @contextmanager
    def folder(self, rel: str, make: bool = False) -> Iterator[int]:
        """The lake's folder ``rel`` on disk, opened without following a link (made with ``make``).
        Raises ``LakeError`` for a link or a file on the way."""
        try:
            fd = open_folder(self.base, rel, make)
        except FollowRefused as err:
            raise refused(err) from None
        try:
            yield fd
        finally:
            os.close(fd)

    @contextmanager
    def creating(self, rel: str) -> Iterator[Any]:
        """A new file at ``rel``, written under a temporary name of a random suffix and renamed into
        place when the block succeeds (removed when it does not). On disk, nothing on the way is
        followed (``replay.outputs.creating_in``); on an object store, pyarrow's own files."""
        if self.disk:
            folder, name = posixpath.split(rel)
            with self.folder(folder, make=True) as fd, creating_in(fd, name) as handle:
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

    def write_atomic(self, rel: str, data: bytes) -> None:
        """Write ``data`` to ``rel`` under a temporary name, then rename it into place."""
        with self.creating(rel) as handle:
            handle.write(data)

    def write_parquet(self, rel: str, table: pa.Table) -> None:
        """Write ``table`` to ``rel`` under a temporary name, then rename it into place."""
        with self.creating(rel) as handle:
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
            with self.folder(folder) as fd:
                return remove_in(fd, name, self.path(rel))
        except FileNotFoundError:
            return False
        except FollowRefused as err:
            raise refused(err) from None
