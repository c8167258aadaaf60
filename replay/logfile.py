"""The log format: one game's envelope (``GameLog``), checked for shape by ``parse_game``, and the
bytes of a log file holding games (``games_bytes``, ``write_games``).

A game read from a file is a ``LogRecord``: where it came from, its raw text (kept so a game can be
exported again unchanged) and either the parsed ``GameLog`` or the ``LogFormatError`` that stopped it.
Reading files is ``replay.log_reader``; finding them (folders, globs) is the importer's
(``ingest.sources``).
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replay.errors import GovernorError, LogFormatError, has_control, printable
from replay.game import game_names
from replay.names import check_player_name
from replay.outputs import write_bytes
from replay.strict_json import MAX_DEPTH

FORMAT_NAME = "governor-log"
FORMAT_VERSION = 1


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

