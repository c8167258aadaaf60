"""Reading log files: ``.json`` (one game), ``.jsonl`` (one game a line), either gzip compressed.

Every game read is a ``LogRecord``: where it came from, its raw text (kept so a game can be exported
again unchanged) and either the parsed ``GameLog`` or the ``LogFormatError`` that stopped it. One bad
game never stops the others in the same file.
"""

from __future__ import annotations

import glob
import gzip
import hashlib
import io
import json
import math
import os
import re
import stat
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replay.errors import GovernorError, LogFormatError, has_control, printable
from replay.game import game_names
from replay.names import check_player_name
from replay.outputs import write_bytes

FORMAT_NAME = "governor-log"
FORMAT_VERSION = 1
LOG_SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz")
#: A single game larger than this is refused before parsing (real games are a few tens of KiB). A
#: compressed ``.json.gz`` is decompressed only this far: a small file cannot make a large read.
MAX_GAME_BYTES = 16 * 1024 * 1024
#: A ``.jsonl`` (or ``.jsonl.gz``) file is read at most this far once decompressed (about 150,000
#: games): the games before the limit are read, then the file is reported as too large.
MAX_FILE_BYTES = 4 * 1024**3
#: Files are read and decompressed this many bytes at a time.
READ_CHUNK = 1024 * 1024
#: Integers must fit in 64 bits (the database's BIGINT): a larger one is refused with its path.
MAX_INT = 2**63 - 1
#: Deeper nesting than this is refused (no field of the format nests more than a few levels).
MAX_DEPTH = 32


@dataclass(frozen=True)
class GameLog:
    """The envelope of one game, checked for shape; moves and setup are checked by the engine."""

    game: str
    players: tuple[str, ...]
    setup: dict[str, Any]
    moves: tuple[Any, ...]
    options: dict[str, Any] = field(default_factory=dict)
    source_id: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None
    version: int = FORMAT_VERSION
    file: str | None = None
    index: int | None = None

    @property
    def game_id(self) -> str:
        """Content-derived id: the same game (players, options, setup, moves) is one id."""
        return content_id(self.game, self.players, self.options, self.setup, self.moves)

    def to_json(self) -> dict[str, Any]:
        """The envelope as written by ``write_log`` (keys in the documented order)."""
        obj: dict[str, Any] = {"format": FORMAT_NAME, "version": self.version, "game": self.game}
        if self.source_id is not None:
            obj["source_id"] = self.source_id
        if self.meta:
            obj["meta"] = self.meta
        obj["players"] = [{"name": name} for name in self.players]
        obj["options"] = self.options
        obj["setup"] = self.setup
        obj["moves"] = list(self.moves)
        if self.result is not None:
            obj["result"] = self.result
        return obj


def content_id(game: str, players: Iterable[str], options: Any, setup: Any, moves: Any) -> str:
    """A short stable hash of what makes a game the same game."""
    canonical = json.dumps(
        [game, list(players), options, setup, list(moves)],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:20]


@dataclass(frozen=True)
class LogRecord:
    """One game as read from a file: its text and either a ``GameLog`` or the error that stopped it."""

    file: str
    index: int
    text: str
    log: GameLog | None
    error: GovernorError | None


def _depth_ok(obj: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether no value lies deeper than ``limit`` (the top object is at depth 0)."""
    # Level by level over the containers only: scalars are the bulk of a game and need no visit.
    containers = (dict, list)
    level = [obj] if isinstance(obj, containers) else []
    depth = 0
    while level:
        if depth >= limit:
            return not any(level)  # a container at the limit may hold nothing
        deeper: list[Any] = []
        for node in level:
            deeper += [v for v in (node.values() if isinstance(node, dict) else node) if isinstance(v, containers)]
        level = deeper
        depth += 1
    return True


def _expect(obj: dict[str, Any], key: str, kinds: type | tuple[type, ...], what: str) -> Any:
    if key not in obj:
        raise LogFormatError(f"missing field '{key}' ({what})", path=key)
    value = obj[key]
    if not isinstance(value, kinds) or (isinstance(value, bool) and kinds is int):
        raise LogFormatError(f"expected {what}, got {type(value).__name__}", path=key)
    return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_result(result: Any) -> None:
    """The recorded result: only ``scores`` (one integer per seat) and ``winners`` (distinct seats)."""
    if not isinstance(result, dict):
        raise LogFormatError("expected an object", path="result")
    unknown = sorted(set(result) - {"scores", "winners"})
    if unknown:
        raise LogFormatError(f"unknown field '{unknown[0]}' (known: scores, winners)", path=f"result.{unknown[0]}")
    scores = result.get("scores")
    if scores is not None:
        if not isinstance(scores, list):
            raise LogFormatError(f"expected a list of scores, got {type(scores).__name__}", path="result.scores")
        for i, score in enumerate(scores):
            if not _is_int(score):
                raise LogFormatError(f"expected an integer, got {type(score).__name__}", path=f"result.scores[{i}]")
    winners = result.get("winners")
    if winners is not None:
        if not isinstance(winners, list):
            raise LogFormatError(f"expected a list of seat numbers, got {type(winners).__name__}", path="result.winners")
        for i, seat in enumerate(winners):
            if not _is_int(seat) or seat < 0:
                got = seat if _is_int(seat) else type(seat).__name__
                raise LogFormatError(f"expected a seat number, got {got}", path=f"result.winners[{i}]")
        if len(set(winners)) != len(winners):
            raise LogFormatError("a seat is named twice", path="result.winners")


def parse_game(obj: Any, *, file: str | None = None, index: int | None = None) -> GameLog:
    """Check the shared envelope of one game and return it as a ``GameLog``.

    Raises ``LogFormatError`` naming the JSON path of the first field at fault.
    """
    try:
        if not isinstance(obj, dict):
            raise LogFormatError(f"a game must be a JSON object, got {type(obj).__name__}")
        if not _depth_ok(obj):
            raise LogFormatError(f"nested deeper than {MAX_DEPTH} levels")
        fmt = _expect(obj, "format", str, f"the string '{FORMAT_NAME}'")
        if fmt != FORMAT_NAME:
            raise LogFormatError(f"expected '{FORMAT_NAME}', got '{fmt}'", path="format")
        version = _expect(obj, "version", int, "an integer")
        if version != FORMAT_VERSION:
            raise LogFormatError(
                f"format version {version} is not supported (this build reads version {FORMAT_VERSION})",
                path="version",
            )
        game = _expect(obj, "game", str, "a game name")
        known = game_names()
        if game not in known:
            raise LogFormatError(f"unknown game '{game}' (known: {', '.join(known)})", path="game")
        players_raw = _expect(obj, "players", list, "a list of players in seat order")
        players: list[str] = []
        for i, player in enumerate(players_raw):
            if isinstance(player, str):
                name = player
            elif isinstance(player, dict) and isinstance(player.get("name"), str):
                name = player["name"]
            else:
                raise LogFormatError(
                    "expected a player name or an object with a 'name'", path=f"players[{i}]"
                )
            try:
                # One spelling per name (NFC), no control character, and no name that shows nothing
                # or hides a character: "Bruno" and "Bruno\u200b" would be two rated players that
                # look the same.
                name = check_player_name(name)
            except ValueError as err:
                raise LogFormatError(str(err), path=f"players[{i}].name") from None
            players.append(name)
        options = obj.get("options", {})
        if not isinstance(options, dict):
            raise LogFormatError("expected an object", path="options")
        meta = obj.get("meta", {})
        if not isinstance(meta, dict):
            raise LogFormatError("expected an object", path="meta")
        source_id = obj.get("source_id")
        if source_id is not None and not isinstance(source_id, str):
            raise LogFormatError("expected a string", path="source_id")
        if source_id is not None and has_control(source_id):
            raise LogFormatError(f"a source id may not hold control characters: '{printable(source_id)}'", path="source_id")
        setup = _expect(obj, "setup", dict, "an object")
        moves = _expect(obj, "moves", list, "a list of moves")
        result = obj.get("result")
        if result is not None:
            _check_result(result)
        unknown = sorted(set(obj) - {
            "format", "version", "game", "source_id", "meta", "players", "options", "setup",
            "moves", "result",
        })
        if unknown:
            raise LogFormatError(f"unknown field '{unknown[0]}'", path=unknown[0])
        return GameLog(
            game=game,
            players=tuple(players),
            setup=setup,
            moves=tuple(moves),
            options=options,
            source_id=source_id,
            meta=meta,
            result=result,
            version=version,
            file=file,
            index=index,
        )
    except LogFormatError as err:
        raise err.with_context(file=file, game_index=index) from None


def _decode(data: bytes, file: str, index: int | None) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise LogFormatError(
            f"not UTF-8 text (byte {err.start}: {data[err.start:err.start + 1]!r})",
            file=file,
            game_index=index,
        ) from None


# -- strict JSON -------------------------------------------------------------------------------
#
# Python's json module accepts what the JSON standard leaves open or forbids: a repeated key (the
# last wins, so a checked field can hide another), NaN and Infinity, lone surrogates ("\ud800",
# which no UTF-8 text can hold) and integers of any size (past 4,300 digits it raises ValueError).
# A first pass refuses them at once; only a bad game pays for a second pass that finds the path.


class _Strict(Exception):
    """A value strict JSON refuses, met by the first pass."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Strict
    return obj


def _no_constant(name: str) -> Any:
    raise _Strict


def _bounded_int(digits: str) -> int:
    if len(digits) < 19:
        return int(digits)
    if len(digits) > 20 or not -MAX_INT - 1 <= int(digits) <= MAX_INT:
        raise _Strict
    return int(digits)


def _finite_float(digits: str) -> float:
    value = float(digits)
    if not math.isfinite(value):  # 1e999
        raise _Strict
    return value


_STRICT = json.JSONDecoder(
    object_pairs_hook=_unique_keys, parse_constant=_no_constant, parse_int=_bounded_int, parse_float=_finite_float
)
#: A JSON escape of a surrogate code point: the only way a lone surrogate gets into a string.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class _Bad:
    """Stands, in the second pass, where the first pass met a refused value."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


class _KeysRepeated(dict[str, Any]):
    def __init__(self, pairs: list[tuple[str, Any]], key: str) -> None:
        super().__init__(pairs)
        self.reason = f"the key '{printable(key)}' appears twice in one object"


def _mark_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return _KeysRepeated(pairs, key)
        seen.add(key)
    return dict(pairs)


def _mark_int(digits: str) -> Any:
    if len(digits) > 20 or not -MAX_INT - 1 <= int(digits) <= MAX_INT:
        return _Bad(f"an integer of {len(digits.lstrip('-'))} digits is too large (at most {MAX_INT})")
    return int(digits)


def _mark_float(digits: str) -> Any:
    value = float(digits)
    return value if math.isfinite(value) else _Bad(f"{digits[:40]} is not a finite number")


_MARKING = json.JSONDecoder(
    object_pairs_hook=_mark_keys,
    parse_constant=lambda name: _Bad(f"{name} is not a JSON number"),
    parse_int=_mark_int,
    parse_float=_mark_float,
)


def _lone_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def _first_bad(obj: Any, path: str = "") -> tuple[str, str] | None:
    """The path and reason of the first refused value in document order, or None."""
    stack: list[tuple[str, Any]] = [(path, obj)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, _Bad):
            return where, node.reason
        if isinstance(node, _KeysRepeated):
            return where, node.reason
        if isinstance(node, str):
            if _lone_surrogate(node):
                return where, f"a lone surrogate in '{printable(node)[:60]}' (not valid Unicode text)"
        elif isinstance(node, dict):
            children = []
            for key, value in node.items():
                child = f"{where}.{key}" if where else str(key)
                if _lone_surrogate(key):
                    return printable(child), "a lone surrogate in a key (not valid Unicode text)"
                children.append((printable(child), value))
            stack.extend(reversed(children))
        elif isinstance(node, list):
            stack.extend(reversed([(f"{where}[{i}]", v) for i, v in enumerate(node)]))
    return None


def _loads(text: str, file: str, index: int) -> Any:
    if not text.strip():
        raise LogFormatError("empty: no JSON in the file", file=file, game_index=index)
    try:
        try:
            obj = _STRICT.decode(text)
        except (_Strict, ValueError) as err:
            if isinstance(err, json.JSONDecodeError):
                raise
            found = _first_bad(_MARKING.decode(text))
            if found is None:  # pragma: no cover - the second pass marks what the first refused
                raise LogFormatError(f"not strict JSON ({err})", file=file, game_index=index) from None
            raise LogFormatError(found[1], file=file, game_index=index, path=found[0]) from None
    except json.JSONDecodeError as err:
        raise LogFormatError(
            f"malformed JSON at line {err.lineno} column {err.colno}: {err.msg}",
            file=file,
            game_index=index,
        ) from None
    except RecursionError:
        raise LogFormatError(
            f"nested too deeply to parse (at most {MAX_DEPTH} levels are allowed)", file=file, game_index=index
        ) from None
    if _SURROGATE_ESCAPE.search(text) is not None:
        found = _first_bad(obj)
        if found is not None:
            raise LogFormatError(found[1], file=file, game_index=index, path=found[0])
    return obj


# -- reading files -----------------------------------------------------------------------------


def _lower(path: Path | str) -> str:
    return os.path.basename(path).lower()


def is_log_file(path: Path | str) -> bool:
    """Whether a file name has one of the log suffixes (in any letter case: ``.JSON`` too)."""
    return _lower(path).endswith(LOG_SUFFIXES)


def _is_jsonl(path: Path | str) -> bool:
    return _lower(path).endswith((".jsonl", ".jsonl.gz"))


def display_name(path: Path | str) -> str:
    """How a file is named in messages and in the database: its path, with control characters and
    undecodable bytes escaped (a file name may hold a newline)."""
    return printable(os.fsdecode(path))


_KINDS = {
    stat.S_IFIFO: "a named pipe",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}


def _open_regular(path: Path) -> tuple[io.BufferedReader, int]:
    """The file opened for reading and its size. Only a regular file is read: a named pipe would
    block the run and a device (``/dev/zero``) never ends. Raises ``LogFormatError`` or ``OSError``."""
    # O_NONBLOCK: opening a FIFO for reading waits for a writer; with it, open returns at once.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = _KINDS.get(stat.S_IFMT(info.st_mode), "not a file")
            raise LogFormatError(f"not a regular file ({kind}): only regular files are read")
        os.set_blocking(fd, True)
        return io.BufferedReader(io.FileIO(fd, "rb")), info.st_size
    except BaseException:
        os.close(fd)
        raise


class _OverLimit(Exception):
    """More bytes came out of a file than its limit allows."""


def _chunks(handle: io.BufferedReader, compressed: bool, limit: int) -> Iterator[bytes]:
    """The file's bytes, decompressed, ``READ_CHUNK`` at a time. Raises ``LogFormatError`` for a bad
    gzip stream or a read error, and ``_OverLimit`` once more than ``limit`` bytes came out."""
    stream: io.BufferedReader | gzip.GzipFile = gzip.GzipFile(fileobj=handle, mode="rb") if compressed else handle
    total = 0
    while True:
        try:
            # read1: what one read gave, so that the whole games before a corrupt part still come out.
            chunk = stream.read1(READ_CHUNK)
        except (gzip.BadGzipFile, EOFError, zlib.error) as err:
            raise LogFormatError(f"not a readable gzip file ({err or type(err).__name__})") from None
        except OSError as err:
            raise LogFormatError(f"cannot read file: {err.strerror or err}") from None
        if not chunk:
            return
        total += len(chunk)
        if total > limit:
            raise _OverLimit
        yield chunk


#: The whitespace ``bytes.strip`` removes: blank lines are skipped at C speed, however many.
_NON_SPACE = re.compile(rb"[^ \t\n\r\x0b\x0c]")


def _lines(chunks: Iterable[bytes], keep: bool = True) -> Iterator[bytes | int]:
    """The non-blank lines of a stream of chunks. A line longer than ``MAX_GAME_BYTES`` is not kept:
    its length (an int) comes in its place. With ``keep`` False every line is its length."""
    parts: list[bytes] = []
    size = 0  # bytes of the current line so far; 0 between lines
    for chunk in chunks:
        pos, end = 0, len(chunk)
        while pos < end:
            if size == 0:
                found = _NON_SPACE.search(chunk, pos)
                if found is None:
                    break
                pos = found.start()
            newline = chunk.find(b"\n", pos)
            stop = end if newline < 0 else newline
            size += stop - pos
            if keep and size <= MAX_GAME_BYTES:
                parts.append(chunk[pos:stop])
            elif parts:
                parts.clear()
            if newline < 0:
                break
            yield b"".join(parts) if parts else size
            parts.clear()
            size = 0
            pos = newline + 1
    if size:
        yield b"".join(parts) if parts else size


@dataclass(frozen=True)
class RawGame:
    """One game's bytes, not parsed yet (cheap to send to a worker process)."""

    file: str
    index: int
    data: bytes

    def parse(self) -> LogRecord:
        """The game as a record: a ``GameLog`` or the error that stopped it."""
        return _record(self.file, self.index, self.data)


def _too_large(file: str, index: int, size: int | None, compressed: bool) -> LogRecord:
    if size is not None and not compressed:
        reason = f"game is {size} bytes, more than the limit of {MAX_GAME_BYTES}"
    else:
        reason = f"game is more than the limit of {MAX_GAME_BYTES} bytes once decompressed"
    return LogRecord(file, index, "", None, LogFormatError(reason, file=file, game_index=index))


def read_raw(path: str | Path, display: str | None = None) -> Iterator[RawGame | LogRecord]:
    """Yield every game of one file unparsed, or a record with the error for a game or a file that
    cannot be read (missing, not a regular file, not gzip, past a size limit). ``display`` names the
    file instead of its path. Memory stays bounded by ``MAX_GAME_BYTES`` a game, whatever the file."""
    path = Path(path)
    file = printable(display) if display is not None else display_name(path)
    compressed = _lower(path).endswith(".gz")
    index = 0
    try:
        handle, size = _open_regular(path)
    except LogFormatError as err:
        yield LogRecord(file, 0, "", None, err.with_context(file=file))
        return
    except OSError as err:
        yield LogRecord(file, 0, "", None, LogFormatError(f"cannot read file: {err.strerror or err}", file=file))
        return
    with handle:
        try:
            if not _is_jsonl(path):
                if not compressed and size > MAX_GAME_BYTES:
                    yield _too_large(file, 0, size, compressed)
                    return
                data = bytearray()
                for chunk in _chunks(handle, compressed, MAX_GAME_BYTES):
                    data += chunk
                yield RawGame(file, 0, bytes(data))
                return
            for line in _lines(_chunks(handle, compressed, MAX_FILE_BYTES)):
                if isinstance(line, int):
                    yield _too_large(file, index, line, False)
                else:
                    yield RawGame(file, index, line)
                index += 1
        except LogFormatError as err:
            yield LogRecord(file, index, "", None, err.with_context(file=file, game_index=index if index else None))
        except _OverLimit:
            if not _is_jsonl(path):
                yield _too_large(file, 0, None, compressed)
            else:
                reason = (
                    f"the file is more than the limit of {MAX_FILE_BYTES} bytes{' once decompressed' if compressed else ''}; "
                    f"the {index} game(s) before the limit were read"
                )
                yield LogRecord(file, index, "", None, LogFormatError(reason, file=file, game_index=index))


def count_games(path: str | Path) -> int:
    """How many games a file holds (non-blank lines of a ``.jsonl``), for a progress bar: bounded
    like ``read_raw`` and never blocking; a file that cannot be read counts as one."""
    path = Path(path)
    if not _is_jsonl(path):
        return 1
    count = 0
    try:
        handle, _ = _open_regular(path)
        with handle:
            for _ in _lines(_chunks(handle, _lower(path).endswith(".gz"), MAX_FILE_BYTES), keep=False):
                count += 1
    except (LogFormatError, OSError, _OverLimit):
        count += 1
    return max(count, 1)


def read_records(path: str | Path, display: str | None = None) -> Iterator[LogRecord]:
    """Yield every game of one file; a bad game is a record with an error, never an exception.

    ``display`` names the file in records and messages instead of its path (an uploaded file's
    original name). A file that cannot be read at all (missing, not gzip) yields one record with the error.
    """
    for item in read_raw(path, display):
        yield item.parse() if isinstance(item, RawGame) else item


def _record(file: str, index: int, data: bytes) -> LogRecord:
    try:
        if len(data) > MAX_GAME_BYTES:
            raise LogFormatError(
                f"game is {len(data)} bytes, more than the limit of {MAX_GAME_BYTES}",
                file=file,
                game_index=index,
            )
        text = _decode(data, file, index)
        obj = _loads(text, file, index)
        return LogRecord(file, index, text, parse_game(obj, file=file, index=index), None)
    except LogFormatError as err:
        text = data.decode("utf-8", errors="replace") if len(data) <= MAX_GAME_BYTES else ""
        return LogRecord(file, index, text, None, err)


# -- finding files -----------------------------------------------------------------------------


@dataclass
class FoundLogs:
    """The log files named by some arguments, and what could not be searched (each a message)."""

    files: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class _Stores:
    """The stores discovery never reads as logs: the files and folders a command writes (``own``: path
    and what it is, as ``"the lake this import writes"``) and any folder holding one of ``marks`` (a
    file name and what such a folder is, as ``("_governor_lake.json", "a Governor lake")``)."""

    def __init__(self, own: Iterable[tuple[str, str]], marks: Iterable[tuple[str, str]]) -> None:
        self.keys: dict[tuple[int, int], str] = {}
        self.folders: list[tuple[str, str]] = []
        for path, what in own:
            try:
                info = os.stat(path)
            except OSError:
                continue  # not made yet: nothing of it can be met
            self.keys[(info.st_dev, info.st_ino)] = what
            if stat.S_ISDIR(info.st_mode):
                self.folders.append((os.path.realpath(path), what))
        self.marks = list(marks)
        self._marked: dict[str, str | None] = {}

    def mark_of(self, folder: str) -> str | None:
        """What ``folder`` is when it holds one of the marks (a store of that kind), else None."""
        for name, what in self.marks:
            if os.path.isfile(os.path.join(folder, name)):
                return what
        return None

    def _marked_above(self, real: str) -> str | None:
        """What the nearest folder holding a mark at or above the real path ``real`` is (cached)."""
        if real in self._marked:
            return self._marked[real]
        parent = os.path.dirname(real)
        what = self.mark_of(real) or (self._marked_above(parent) if parent != real else None)
        self._marked[real] = what
        return what

    def reason(self, path: str, info: os.stat_result) -> str | None:
        """Why ``path`` (an argument, or a glob's match) is never read: it is, or lies in, a store."""
        if not self.keys and not self.marks:
            return None
        what = self.keys.get((info.st_dev, info.st_ino))
        if what is not None:
            return f"it is {what}"
        real = os.path.realpath(path)
        for folder, what in self.folders:
            if real.startswith(folder.rstrip(os.sep) + os.sep):
                return f"it is in {what}"
        if self.marks:
            if stat.S_ISDIR(info.st_mode) and (what := self.mark_of(real)) is not None:
                return f"it is {what}"
            what = self._marked_above(os.path.dirname(real))
            if what is not None:
                return f"it is in {what}"
        return None


def _walk(folder: Path, found: FoundLogs, seen: set[tuple[int, int]], stores: _Stores) -> None:
    """Log files under ``folder``: a folder's files (sorted) before its subfolders (sorted), symbolic
    links followed, each folder once (a link back to a parent is no loop). Unreadable folders are
    problems, never silently skipped; a store's files and folders (``stores``) are skipped silently."""
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            info = os.stat(current)
            key = (info.st_dev, info.st_ino)
            if key in seen:
                continue
            seen.add(key)
            if current != folder and (key in stores.keys or stores.mark_of(os.fspath(current))):
                continue  # a store met inside a folder: its files are never logs
            with os.scandir(current) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as err:
            found.problems.append(f"cannot read folder {display_name(current)}: {err.strerror or err}")
            continue
        subfolders = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                subfolders.append(Path(entry.path))
            elif is_log_file(entry.name):
                if stores.keys and (info.st_dev, entry.inode()) in stores.keys:
                    continue  # a database file named like a log
                found.files.append(Path(entry.path))
        stack.extend(reversed(subfolders))


def find_logs(args: Iterable[str | Path], *, stores: Iterable[tuple[str, str]] = (),
              marks: Iterable[tuple[str, str]] = ()) -> FoundLogs:
    """Files, folders (searched recursively for log files) and globs, in a stable order, each file
    once. An argument that exists is taken literally (``[good].json`` is a file, not a glob); one
    that names nothing, or cannot be reached, is a problem and the others are still searched.

    A file named directly or matched by a glob is kept whatever its name; a glob's match that cannot be
    reached (a dangling link) is reported when read. Inside folders only log files are taken
    (``.json``, ``.jsonl``, ``.gz``, in any letter case).

    A store's own files are never read as logs: the files and folders of ``stores`` (path, what it is:
    the store the command writes) and every folder holding a file named in ``marks`` (file name, what
    such a folder is: a lake) are skipped, silently when met inside a folder or matched by a glob,
    and with a problem naming them when an argument names one of them or something inside."""
    found = FoundLogs()
    seen_folders: set[tuple[int, int]] = set()
    known = _Stores(stores, marks)
    for arg in args:
        text = os.fspath(arg)
        globbed = not os.path.lexists(text) and glob.has_magic(text)
        if not globbed:
            matches = [text]
        else:
            matches = sorted(glob.glob(text, recursive=True))
            if not matches:
                found.problems.append(f"no file matches {printable(text)}")
                continue
        for match in matches:
            try:
                info = os.stat(match)
            except OSError as err:
                if globbed:
                    found.files.append(Path(match))  # a dangling link or a loop: reported when read
                elif isinstance(err, FileNotFoundError):
                    found.problems.append(f"no such file or folder: {display_name(match)}")
                else:
                    found.problems.append(f"cannot access {display_name(match)}: {err.strerror or err}")
                continue
            skipped = known.reason(match, info)
            if skipped is not None:
                if not globbed:
                    found.problems.append(f"{display_name(match)}: skipped, {skipped}: a store's own files are "
                                          "never read as logs")
                continue
            if stat.S_ISDIR(info.st_mode):
                _walk(Path(match), found, seen_folders, known)
            else:
                found.files.append(Path(match))
    seen: set[str] = set()
    unique = []
    for path in found.files:
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            unique.append(path)
    found.files = unique
    return found


def expand_paths(args: Iterable[str | Path]) -> list[Path]:
    """The files of ``find_logs``. Raises ``FileNotFoundError`` naming the first problem."""
    found = find_logs(args)
    if found.problems:
        raise FileNotFoundError(found.problems[0])
    return found.files


def dumps_game(obj: dict[str, Any]) -> str:
    """The canonical text of one game: compact, keys in insertion order, UTF-8."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def games_bytes(name: str, games: list[dict[str, Any]], compress: bool | None = None) -> bytes:
    """The bytes of a log file named ``name`` holding ``games``: ``.json`` takes exactly one game,
    ``.jsonl`` any number; ``.gz`` compresses (``compress`` decides instead of the name when given).

    The bytes depend only on the games (gzip's timestamp is fixed), so the same games give the same file.
    Raises ``ValueError`` for several games in a ``.json`` file."""
    if compress is None:
        compress = name.endswith(".gz")
    if name.endswith((".jsonl", ".jsonl.gz")):
        text = "".join(dumps_game(g) + "\n" for g in games)
    else:
        if len(games) != 1:
            raise ValueError(f"{name}: a .json file holds exactly one game, not {len(games)}")
        text = json.dumps(games[0], ensure_ascii=False, indent=1) + "\n"
    data = text.encode("utf-8")
    return gzip.compress(data, mtime=0) if compress else data


def write_games(path: str | Path, games: list[dict[str, Any]], compress: bool | None = None) -> None:
    """Write games to ``path`` (see ``games_bytes``), replacing it only once complete, by renaming a
    file of a random name made beside it (``replay.outputs.write_bytes``).

    Raises ``ValueError`` for several games in a ``.json`` file, ``OSError`` when the file cannot be written.
    """
    write_bytes(path, games_bytes(Path(path).name, games, compress))


def read_game(path: str | Path, number: int, display: str | None = None) -> tuple[LogRecord | None, int]:
    """The ``number``-th game (1-based) of one file, parsing only that game: the lines of a ``.jsonl``
    before it are split but not parsed, and the file is read no further than its line. Returns
    ``(record, number)``, or ``(None, games in the file)`` when the file holds fewer games. A file that
    cannot be read is its first game: a record with the error. Raises nothing."""
    count = 0
    for item in read_raw(path, display):
        if count == number - 1:
            return (item.parse() if isinstance(item, RawGame) else item), number
        count += 1
    return None, count
