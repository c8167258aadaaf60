"""What the subcommands share: how they are added to the parser, the database they default to, how a path
is printed, and the checks that keep an output from overwriting an input."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Iterable, Sequence
from typing import Any

from replay import exits
from replay.errors import printable
from replay.exits import UsageError

DEFAULT_DB = "governor.duckdb"

#: The largest count a command takes where the only bound is what a machine can hold (a game's number
#: in a ``.jsonl`` file, a step): 2**31 - 1.
MAX_COUNT = 2**31 - 1
#: Worker processes of ``import`` and ``analyse``.
MAX_WORKERS = 256


class Subcommands:
    """Makes the subcommands' parsers, so that every ``--help`` ends with the exit statuses. Each module
    of ``governor.commands`` adds its own through ``add_parser``."""

    def __init__(self, commands: Any) -> None:
        self._commands = commands
        #: The type of ``--workers`` of the commands that run worker processes.
        self.workers = exits.bounded_int("--workers", 1, MAX_WORKERS)

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        """A subcommand's parser (``argparse``'s ``add_parser``, with the exit statuses as its epilog)."""
        kwargs.setdefault("epilog", exits.EPILOG)
        return self._commands.add_parser(name, **kwargs)  # type: ignore[no-any-return]


def listed(words: Iterable[str], last: str = "or") -> str:
    """``words`` as a phrase: ``a``, ``a or b``, ``a, b or c`` (``last`` joins the last two)."""
    items = list(words)
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


def default_db() -> str:
    """The database file: ``GOVERNOR_DB`` or ``governor.duckdb`` in the current folder."""
    return os.environ.get("GOVERNOR_DB") or DEFAULT_DB


def shown(path: str | os.PathLike[str]) -> str:
    """A path as printed: control characters and undecodable bytes escaped (``\\n``, ``\\x1b``, ``\\xff``)."""
    return printable(os.fsdecode(path))


def print_traceback() -> None:
    """The current exception's traceback on standard error, each line escaped: a bug's message may
    quote a log (a card name holding an escape code), which must not reach the terminal raw."""
    for line in traceback.format_exc().splitlines():
        print(printable(line), file=sys.stderr)


# -- outputs never overwrite inputs -------------------------------------------------------------


def _same(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` name one file: the same inode where both exist, else the same real path
    (symbolic links resolved)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _inside(path: str, folder: str) -> bool:
    """Whether ``path`` lies under ``folder`` (real paths)."""
    return os.path.realpath(path).startswith(os.path.realpath(folder).rstrip(os.sep) + os.sep)


def is_url(target: str) -> bool:
    """Whether ``--lake`` names a URL (``s3://...``) rather than a local folder."""
    return "://" in target


def refuse_overwrite(option: str, out: str, *, files: Sequence[tuple[str, str]] = (),
                     folders: Sequence[tuple[str, str]] = (), contained: Sequence[tuple[str, str]] = ()) -> None:
    """Raise ``UsageError`` when the output ``out`` would overwrite an input: it names one of ``files``
    (what, path), is or lies inside one of ``folders``, or is a folder holding one of ``contained``."""
    for what, path in files:
        if _same(out, path):
            raise UsageError(f"{option} {shown(out)} is {what} {shown(path)}: an output never overwrites an input")
    for what, path in folders:
        if _same(out, path) or _inside(out, path):
            raise UsageError(f"{option} {shown(out)} is in {what} {shown(path)}: an output never overwrites an input")
    for what, path in contained:
        if os.path.lexists(path) and _inside(path, out):
            raise UsageError(f"{option} {shown(out)} holds {what} {shown(path)}: an output never overwrites an input")


# -- the database a command reads ---------------------------------------------------------------


def database_inputs(target: str, lake: bool) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The files and folders a database command reads: the database and its write-ahead log, or the lake."""
    if lake:
        return [], ([] if is_url(target) else [("the lake", target)])
    return [("the database", target), ("the database's write-ahead log", target + ".wal")], []


def target(args: argparse.Namespace) -> str:
    """The database file, or the lake folder or URL given with --lake. Raises ``UsageError`` for both."""
    lake = getattr(args, "lake", None)
    if lake and getattr(args, "db", None):
        raise UsageError("give --db or --lake, not both")
    return str(lake or args.db or default_db())


def check_lake(target: str) -> None:
    """Raise ``UsageError`` saying what is wrong with a local ``--lake`` folder: missing, not a folder,
    unreadable, or not a lake. A URL is checked when it is read."""
    from ingest.lake import LAKE_MARK

    if is_url(target):
        return
    name = f"--lake {shown(target)}"
    try:
        info = os.stat(target)
    except OSError as err:
        reason = "no such folder" if isinstance(err, FileNotFoundError) else f"cannot read it: {err.strerror or err}"
        raise UsageError(f"{name}: {reason}") from None
    import stat

    if not stat.S_ISDIR(info.st_mode):
        raise UsageError(f"{name}: not a folder (a lake is a folder made by governor import --lake)")
    try:
        with os.scandir(target):
            pass
        with open(os.path.join(target, LAKE_MARK), "rb"):
            pass
    except FileNotFoundError:
        raise UsageError(f"{name}: not a Governor lake (no {LAKE_MARK}; make one with governor import --lake)") from None
    except OSError as err:
        raise UsageError(f"{name}: cannot read the lake: {err.strerror or err}") from None
