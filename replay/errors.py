"""Errors raised while reading and replaying logs.

Three failures, three classes (as python-chess separates bad syntax from illegal moves):

* ``LogFormatError``: the file is malformed (bad JSON, a missing field, an unknown card name, a
  setup that is not a permutation of the components). It names the file, the game and the JSON path.
* ``IllegalMoveError``: the file is sound but a move breaks a rule. It names the file, the game,
  the move number, the acting seat and player, the move and the rule broken.
* ``ResultMismatchError``: the replay ends with other scores or winners than the log records.

Engines raise the context-free ``RuleViolation`` and ``FieldError``; the replayer adds the context.
"""

from __future__ import annotations

import re

#: Characters that must never reach a terminal or a log line raw: C0 and C1 controls (newline, CR,
#: escape), line and paragraph separators, bidirectional overrides and isolates, and surrogates (an
#: undecodable byte of a file name, a lone surrogate).
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte of a file name (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` safe for one output line: every control character, line separator, bidirectional
    override and surrogate is written as an escape (``\\n``, ``\\x1b``, ``\\u202e``), so that text from a
    log or a file name can neither forge a line nor drive the terminal. Idempotent."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_escape, text)


def has_control(text: str) -> bool:
    """Whether ``text`` holds a character that ``printable`` would escape."""
    return _UNSAFE.search(text) is not None


class GovernorError(Exception):
    """Base class of every error this package raises on bad input. The message is always one
    printable line (see ``printable``), whatever the log or the file name holds."""

    kind = "error"

    def __init__(self, message: str) -> None:
        message = printable(message)
        super().__init__(message)
        self.message = message

    def as_record(self) -> dict[str, object]:
        """The error as a flat record (for the rejections table and ``validate --json``)."""
        return {"kind": self.kind, "message": self.message}


class FieldError(Exception):
    """A field of a log is malformed; ``path`` is the JSON path of the field (``moves[3].pay[1]``)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class RuleViolation(Exception):
    """A move breaks a rule; ``rule`` is a short stable code the game gives it (``<phase>.<check>``, such
    as ``phase.cost``)."""

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(f"[{rule}] {reason}")
        self.rule = rule
        self.reason = reason


def _where(file: str | None, game_index: int | None) -> str:
    parts = []
    if file:
        parts.append(str(file))
    if game_index is not None:
        parts.append(f"game {game_index + 1}")
    return ", ".join(parts)


class LogFormatError(GovernorError):
    """The log is malformed: names the file, the game in the file and the JSON path at fault."""

    kind = "format"

    def __init__(
        self,
        reason: str,
        *,
        file: str | None = None,
        game_index: int | None = None,
        path: str = "",
        game_id: str | None = None,
    ) -> None:
        self.reason = reason
        self.file = file
        self.game_index = game_index
        self.path = printable(path)  # a path may name a key of the log, and a key may hold anything
        self.game_id = game_id
        where = _where(file, game_index)
        text = f"{path}: {reason}" if path else reason
        super().__init__(f"{where}: {text}" if where else text)

    def with_context(
        self, *, file: str | None = None, game_index: int | None = None, game_id: str | None = None
    ) -> LogFormatError:
        """The same error with the file and game filled in where they were unknown."""
        return type(self)(
            self.reason,
            file=self.file or file,
            game_index=self.game_index if self.game_index is not None else game_index,
            path=self.path,
            game_id=self.game_id or game_id,
        )

    def as_record(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "file": self.file,
            "game_index": self.game_index,
            "game_id": self.game_id,
            "move_number": None,
            "seat": None,
            "player": None,
            "rule": self.path or None,
            "message": self.message,
        }


class ResultMismatchError(LogFormatError):
    """The recorded result disagrees with the result of the replay."""

    kind = "result"


class DuplicateMismatchError(LogFormatError):
    """A game already stored comes again with a different recorded result or source id."""

    kind = "duplicate"


class InternalError(GovernorError):
    """A bug in governor met while reading or replaying one game (not the log's fault)."""

    kind = "internal"

    def __init__(self, error: BaseException, *, file: str | None = None, game_index: int | None = None) -> None:
        self.file = file
        self.game_index = game_index
        self.error = error
        where = _where(file, game_index)
        text = f"internal error (a bug in governor, please report it): {type(error).__name__}: {error}"
        super().__init__(f"{where}: {text}" if where else text)

    def as_record(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "file": self.file,
            "game_index": self.game_index,
            "game_id": None,
            "move_number": None,
            "seat": None,
            "player": None,
            "rule": None,
            "message": self.message,
        }


class IllegalMoveError(GovernorError):
    """A move breaks a rule: names file, game, move number, seat and player, the move and the rule."""

    kind = "illegal"

    def __init__(
        self,
        reason: str,
        *,
        rule: str,
        move_number: int,
        seat: int | None,
        player: str | None,
        move_text: str,
        file: str | None = None,
        game_index: int | None = None,
        game_id: str | None = None,
    ) -> None:
        self.reason = reason
        self.rule = rule
        self.move_number = move_number
        self.seat = seat
        self.player = player
        self.move_text = move_text
        self.file = file
        self.game_index = game_index
        self.game_id = game_id
        where = _where(file, game_index)
        who = f"seat {seat} ({player})" if seat is not None else "no player"
        text = f"move {move_number}, {who}, '{move_text}': {reason} [rule {rule}]"
        super().__init__(f"{where}: {text}" if where else text)

    def with_context(
        self, *, file: str | None = None, game_index: int | None = None, game_id: str | None = None
    ) -> IllegalMoveError:
        """The same error with the file and game filled in where they were unknown."""
        return IllegalMoveError(
            self.reason,
            rule=self.rule,
            move_number=self.move_number,
            seat=self.seat,
            player=self.player,
            move_text=self.move_text,
            file=self.file or file,
            game_index=self.game_index if self.game_index is not None else game_index,
            game_id=self.game_id or game_id,
        )

    def as_record(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "file": self.file,
            "game_index": self.game_index,
            "game_id": self.game_id,
            "move_number": self.move_number,
            "seat": self.seat,
            "player": self.player,
            "rule": self.rule,
            "message": self.message,
        }
