"""Reading log files: ``.json`` (one game), ``.jsonl`` (one game a line), either gzip compressed.

Every game read is a ``LogRecord``: where it came from, its raw text (kept so a game can be exported
again unchanged) and either the parsed ``GameLog`` or the ``LogFormatError`` that stopped it. One bad
game never stops the others in the same file.
"""

from __future__ import annotations

import glob
import gzip
import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replay.errors import LogFormatError

FORMAT_NAME = "governor-log"
FORMAT_VERSION = 1
GAMES = ("san_juan", "puerto_rico")
LOG_SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz")
#: A single game larger than this is refused before parsing (real games are a few tens of KiB).
MAX_GAME_BYTES = 16 * 1024 * 1024
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
    error: LogFormatError | None


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
        if game not in GAMES:
            raise LogFormatError(f"unknown game '{game}' (known: {', '.join(GAMES)})", path="game")
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
            if not name.strip():
                raise LogFormatError("a player name may not be empty", path=f"players[{i}].name")
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
        setup = _expect(obj, "setup", dict, "an object")
        moves = _expect(obj, "moves", list, "a list of moves")
        result = obj.get("result")
        if result is not None and not isinstance(result, dict):
            raise LogFormatError("expected an object", path="result")
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


def _loads(text: str, file: str, index: int) -> Any:
    if not text.strip():
        raise LogFormatError("empty: no JSON in the file", file=file, game_index=index)
    try:
        return json.loads(text)
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


def _read_bytes(path: Path) -> bytes:
    raw = path.read_bytes()
    if path.name.endswith(".gz"):
        try:
            return gzip.decompress(raw)
        except (OSError, EOFError) as err:
            raise LogFormatError(f"not a readable gzip file ({err})") from None
    return raw


@dataclass(frozen=True)
class RawGame:
    """One game's bytes, not parsed yet (cheap to send to a worker process)."""

    file: str
    index: int
    data: bytes

    def parse(self) -> LogRecord:
        """The game as a record: a ``GameLog`` or the error that stopped it."""
        return _record(self.file, self.index, self.data)


def read_raw(path: str | Path, display: str | None = None) -> Iterator[RawGame | LogRecord]:
    """Yield every game of one file unparsed, or a record with the error when the file cannot be read
    at all (missing, not gzip). ``display`` names the file instead of its path."""
    path = Path(path)
    file = display or str(path)
    try:
        data = _read_bytes(path)
    except LogFormatError as err:
        yield LogRecord(file, 0, "", None, err.with_context(file=file))
        return
    except OSError as err:
        yield LogRecord(file, 0, "", None, LogFormatError(f"cannot read file: {err.strerror}", file=file))
        return
    if not path.name.endswith((".jsonl", ".jsonl.gz")):
        yield RawGame(file, 0, data)
        return
    index = 0
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        yield RawGame(file, index, line)
        index += 1


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


def is_log_file(path: Path) -> bool:
    """Whether a file name has one of the log suffixes."""
    return path.name.endswith(LOG_SUFFIXES)


def expand_paths(args: Iterable[str | Path]) -> list[Path]:
    """Files, folders (searched recursively for log files) and globs, in a stable sorted order.

    Raises ``FileNotFoundError`` for an argument that names nothing.
    """
    found: list[Path] = []
    for arg in args:
        text = str(arg)
        matches = [Path(m) for m in sorted(glob.glob(text, recursive=True))] if glob.has_magic(text) else [Path(text)]
        if not matches or not all(m.exists() for m in matches):
            raise FileNotFoundError(f"no such file or folder: {text}")
        for match in matches:
            if match.is_dir():
                for root, dirs, files in os.walk(match):
                    dirs.sort()
                    found.extend(Path(root) / f for f in sorted(files) if is_log_file(Path(f)))
            else:
                found.append(match)
    seen: set[Path] = set()
    unique = []
    for path in found:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(path)
    return unique


def dumps_game(obj: dict[str, Any]) -> str:
    """The canonical text of one game: compact, keys in insertion order, UTF-8."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def write_games(path: str | Path, games: list[dict[str, Any]]) -> None:
    """Write games to ``path``: ``.json`` takes exactly one game, ``.jsonl`` any number; ``.gz`` compresses.

    The bytes depend only on the games (gzip's timestamp is fixed), so the same games give the same file.
    """
    path = Path(path)
    if path.name.endswith((".jsonl", ".jsonl.gz")):
        text = "".join(dumps_game(g) + "\n" for g in games)
    else:
        if len(games) != 1:
            raise ValueError(f"{path}: a .json file holds exactly one game, not {len(games)}")
        text = json.dumps(games[0], ensure_ascii=False, indent=1) + "\n"
    data = text.encode("utf-8")
    if path.name.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    path.write_bytes(data)
