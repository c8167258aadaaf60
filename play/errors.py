"""The errors of playing a game (``play.store``): each one printable line saying what and why."""

from __future__ import annotations

from replay.errors import printable


class PlayError(Exception):
    """A game cannot be started, found, read or changed as asked: one printable line saying why."""

    def __init__(self, message: str) -> None:
        super().__init__(printable(message))
        self.message = printable(message)


class SetupError(PlayError):
    """A setup that cannot be played: ``param`` names the address parameter at fault (``game``,
    ``players``, ``seat``, ``bots``, ``seed``, ``name`` or an option's name), ``reason`` says what it
    allows."""

    def __init__(self, param: str, reason: str) -> None:
        super().__init__(f"{param}: {reason}")
        self.param = param
        self.reason = printable(reason)


class SessionNotFound(PlayError):
    """No game of that id (never started, abandoned, or another database's)."""


class SessionDamaged(PlayError):
    """A game's journal holds something that was not written by a game (the message names the file and
    the line)."""


class StaleVersion(PlayError):
    """The game moved on since the version a client saw: ``current`` is the game's version now."""

    def __init__(self, current: int, expected: int) -> None:
        super().__init__(f"the game has moved on (it is at version {current}, not {expected}): nothing was changed")
        self.current = current
        self.expected = expected


class NotYourTurn(PlayError):
    """A person's move when no person is to act (a bot is, or the game is over)."""


class NotAMove(PlayError):
    """What was given is not one of the moves a person may make here (unknown text, not a move of the
    game, a move that decides nothing of the person's)."""


class TakebackRefused(PlayError):
    """A take-back that is not allowed: not a game of one person against bots, nothing to take back,
    or the game is over."""


class StoreFailed(PlayError):
    """A finished game could not be stored in the database (locked, read-only, not a database)."""
