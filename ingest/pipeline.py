"""The parts of the one import pipeline (``ingest.importer.import_paths`` runs it): the store it writes
to (``Store``), what a task leaves for the driver (``Staged``) and the one set of counters
(``ImportSummary``). A store says how its tasks are cut, what a task leaves in the store before it is
committed (``stage``, run in the worker), how a result is committed and how the derived tables are
made; the DuckDB file (``ingest.duckdb_store``) and the Parquet lake (``ingest.lake_store``) are the
two stores, and ``ingest.stores.open_store`` picks one for a target.

Guarantees, for both stores (each has a test): a game is stored with all its rows or not at all;
importing again adds nothing; a killed import rerun gives the tables a clean run gives; a bad game is
one rejection, never a failed task, and a bug met on one game rejects that game only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ingest.lake import LAKE_MARK
from ingest.stored import StoredGame
from replay.log_reader import count_games

#: Folders that are a store whatever import runs (a file name that marks one, and what it is): their
#: files are never read as logs (``ingest.sources.find_logs``).
STORE_MARKS = ((LAKE_MARK, "a Governor lake"),)
#: Rejection messages an ``ImportSummary`` keeps (the first ones): every message goes to its
#: ``on_message`` as it comes, so an import of millions of bad games does not hold them all.
KEPT_MESSAGES = 1_000


@dataclass
class ImportSummary:
    """What an import did: counts, the first ``KEPT_MESSAGES`` rejection messages (every one goes to
    ``on_message`` as it comes), the stored game ids (when ``keep_ids``), time and rows written."""

    files: int = 0
    games: int = 0
    imported: int = 0
    duplicates: int = 0
    rejected: int = 0
    rows: int = 0
    seconds: float = 0.0
    messages: list[str] = field(default_factory=list)
    game_ids: list[str] = field(default_factory=list)
    #: Arguments that named nothing and folders that could not be read (each a message): the rest
    #: was imported, but the run is incomplete.
    problems: list[str] = field(default_factory=list)
    #: Games rejected because of a bug in governor (their messages say so).
    internal_errors: int = 0
    #: Whether ``game_ids`` lists the stored games (a page that lists them wants it; the command line,
    #: importing millions of games, does not keep a growing list).
    keep_ids: bool = True
    #: Called with each rejection message as it comes.
    on_message: Callable[[str], None] | None = field(default=None, repr=False, compare=False)

    def add_messages(self, messages: Iterable[str]) -> None:
        """Record rejection messages: each goes to ``on_message``; the first ``KEPT_MESSAGES`` are kept."""
        for message in messages:
            if self.on_message is not None:
                self.on_message(message)
            if len(self.messages) < KEPT_MESSAGES:
                self.messages.append(message)

    def add_ids(self, ids: Iterable[str]) -> None:
        """Record the ids of stored games (kept only with ``keep_ids``)."""
        if self.keep_ids:
            self.game_ids.extend(ids)

    def line(self) -> str:
        rate = self.games / self.seconds if self.seconds > 0 else 0.0
        return (
            f"{self.imported} imported, {self.duplicates} duplicates skipped, {self.rejected} rejected "
            f"({self.games} games in {self.files} files, {self.rows:,} rows, {self.seconds:.1f} s, {rate:,.0f} games/s)"
        )


@dataclass
class Staged:
    """What a task left for the driver: how many games it read, skipped as copies and rejected (with
    the messages, and how many of those were bugs), and the store's own part (``payload``: the tables
    to write for a database file, the written files' manifest for a lake)."""

    games_read: int
    skipped: int
    rejection_messages: list[str]
    internal_errors: int
    payload: Any


class Store(Protocol):
    """Where an import writes (see the module's docstring)."""

    #: The store as the user named it (for messages).
    target: str
    #: Tasks in flight per worker.
    depth: int
    #: Whether the progress bar's total is counted before the import (the store counts the games to
    #: cut its tasks anyway) rather than beside it.
    count_ahead: bool

    def own_paths(self) -> list[tuple[str, str]]:
        """The store's own files and folders on this machine, with what each is (``"the lake this import
        writes"``): never read as logs, even inside a folder imported."""
        ...

    def prepare(self) -> Mapping[str, StoredGame]:
        """Create or migrate the store, repair what a killed import left, and return the games stored."""
        ...

    def tasks(self, files: Sequence[Path], display_names: dict[str, str]) -> Iterator[Any]:
        """The import's work items, in order."""
        ...

    def stager(self, display_names: dict[str, str]) -> Callable[[Any, Any], Staged]:
        """The function a worker runs on one item with the games stored (picklable: it runs in other
        processes)."""
        ...

    def commit(self, staged: Staged, summary: ImportSummary) -> None:
        """Make a task's result part of the store (now or with the next ones), in order."""
        ...

    def finish(self, summary: ImportSummary) -> None:
        """Commit what is still pending once every task is done."""
        ...

    def refresh_derived(self, summary: ImportSummary) -> None:
        """Bring the derived tables (openings, ratings) up to date with what is stored."""
        ...

    def close(self) -> None:
        """Let go of the store (called once the import ends, whatever the way)."""
        ...


def count_files(files: Sequence[Path]) -> int:
    """How many games the files hold, for a progress bar (bounded and never blocking: ``count_games``)."""
    return sum(count_games(file) for file in files)
