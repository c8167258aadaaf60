"""Which store an import writes to: the one dispatch between a DuckDB file and a lake."""

from __future__ import annotations

from pathlib import Path

from ingest.duckdb_store import DuckDBStore
from ingest.lake import is_lake
from ingest.lake_store import LAKE_BATCH, LakeStore
from ingest.pipeline import Store


class StoreError(Exception):
    """The target names no store governor can write (a URL or a MotherDuck name given as a database file)."""


def open_store(target: str | Path, lake: bool | None = None, *, end_step_apart: bool = True,
               batch_games: int = LAKE_BATCH) -> Store:
    """The store at ``target``: with ``lake`` True a lake (a folder or a URL such as ``s3://b/p``); with
    ``lake`` False (``--db``) a DuckDB file, or the lake in a folder that holds the lake's mark; with
    ``None`` a lake when ``target`` is one (a URL, or a folder with the lake's mark), else a DuckDB file. ``end_step_apart`` as in ``ingest.duckdb_store.DuckDBStore``.

    Raises ``StoreError`` for a database file named by a URL (``file:///p``, which DuckDB would not
    open as a file) or a MotherDuck name (``md:``, which makes DuckDB download an extension): a lake at
    a URL is ``--lake URL``."""
    text = str(target)
    if lake is None:
        lake = is_lake(text)
    if lake:
        return LakeStore(text, batch_games=batch_games)
    if "://" not in text and is_lake(text):
        return LakeStore(text, batch_games=batch_games)
    if "://" in text:
        raise StoreError(f"{text}: --db takes a database file, not a URL (a lake at a URL is --lake URL)")
    if text.lower().startswith(("md:", "motherduck:")):
        raise StoreError(f"{text}: --db takes a database file; MotherDuck databases are not supported")
    return DuckDBStore(target, end_step_apart=end_step_apart)
