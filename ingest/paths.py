"""Paths as the storage libraries can open them. On Linux a path is bytes, and any byte but NUL and
``/`` may appear in a name; Python carries the bytes that are not UTF-8 as lone surrogates, which
DuckDB (``std::bad_cast``) and pyarrow (``UnicodeEncodeError``) refuse. Such a path is opened through a
symbolic link with a plain name in governor's folder of links (``$XDG_CACHE_HOME/governor/links``,
else ``~/.cache/governor/links``), named by a hash of the path: the same path always gets the same
link, so a DuckDB write-ahead log left beside a link is found again by the next writer."""

from __future__ import annotations

import hashlib
import os
import secrets
from pathlib import Path


def is_text(path: str) -> bool:
    """Whether ``path`` is valid UTF-8 text (no byte carried as a surrogate)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def links_folder() -> Path:
    """Where the links are made."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "governor" / "links"


def openable(path: str) -> str:
    """``path`` itself when it is UTF-8 text, else a link to it that is. When only its folder is not
    UTF-8, the link names the folder (so that files DuckDB makes beside the database, its ``.wal``, lie
    beside it); else the link names the path itself. Raises ``OSError`` when the link cannot be made."""
    if is_text(path):
        return path
    absolute = os.path.abspath(path)
    folder, name = os.path.split(absolute)
    if is_text(name) and name:
        return os.path.join(_link(folder), name)
    return _link(absolute)


def _link(target: str) -> str:
    """The link to ``target`` in the folder of links, made when missing or pointing elsewhere: under a
    random name (``os.symlink`` refuses a name that exists, so nothing planted is followed or removed),
    then renamed over the link's own name. Raises ``OSError`` when it cannot be made."""
    raw = os.fsencode(target)
    links = links_folder()
    links.mkdir(parents=True, exist_ok=True)
    link = links / hashlib.sha256(raw).hexdigest()[:32]
    try:
        if os.readlink(os.fsencode(link)) == raw:
            return str(link)
    except OSError:
        pass
    for _ in range(8):
        temp = os.fsencode(f"{link}.tmp-{secrets.token_hex(8)}")
        try:
            os.symlink(raw, temp)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(17, "no free temporary name for a link", str(links))
    try:
        os.replace(temp, os.fsencode(link))
    except BaseException:
        os.unlink(temp)
        raise
    return str(link)
