"""Where the SQL page's queries spill to disk: a folder of the user's own next to the database (or in
the system's temporary folder), never through a link, and the folders of dashboard processes that
died removed."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

#: The folder, next to the database, that holds each running query's spill folder.
SPILL_SUFFIX = ".sql-spill"


def spill_root(db_path: str | Path) -> Path:
    """The folder that holds the spill folders of the queries on ``db_path``: next to the database
    (on its disk, like DuckDB's own ``<db>.tmp``), else this user's own in the system's temporary
    folder (``governor-<uid>.sql-spill``), else a new one of a random name there. A folder is used only
    when it is a folder of this user's, never through a link: what a query spills, and the stale
    folders removed (``remove_stale_spills``), then stay in it (a link planted at the name, in a
    temporary folder everyone writes, pointed them at someone's files)."""
    db = Path(db_path)
    for root in (db.with_name(db.name + SPILL_SUFFIX),
                 Path(tempfile.gettempdir()) / f"governor-{os.getuid()}{SPILL_SUFFIX}"):
        try:
            root.mkdir(mode=0o700)
        except OSError:
            pass
        if _own_folder(root):
            return root
    return Path(tempfile.mkdtemp(prefix="governor-", suffix=SPILL_SUFFIX))


def _own_folder(path: Path) -> bool:
    """Whether ``path`` itself (not what a link names) is a folder of this user's."""
    try:
        info = path.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()


def remove_stale_spills(root: Path) -> list[Path]:
    """Remove the spill folders under ``root`` whose dashboard process is gone (a folder of this
    user's, not a link, named ``<pid>-<random>`` after the process that runs the query); returns
    those removed."""
    removed = []
    for folder in root.glob("*-*"):
        owner = folder.name.split("-", 1)[0]
        if not owner.isdecimal() or not _own_folder(folder) or _alive(int(owner)):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # someone else's process: alive
        return True
    return True
