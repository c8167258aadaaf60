"""The moves a person assembles (``Store.act``): a move given as typed, as its JSON form or as its
text form resolved to the game's typed move, a person's part of another seat's move matched to one of
its choices, and an illegal move as the engine's error naming the rule.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from play.errors import NotAMove
from play.session import Session, move_key
from replay.errors import FieldError, IllegalMoveError, RuleViolation
from replay.registry import view_for


def illegal(session: Session, seat: int, move: Any, err: RuleViolation) -> IllegalMoveError:
    """The engine's error for ``move`` of ``seat``, which broke a rule (``err``), at the game's next move."""
    return IllegalMoveError(err.reason, rule=err.rule, move_number=len(session.moves) + 1, seat=seat,
                            player=session.setup.names[seat], move_text=move.text())


def resolve(session: Session, given: Any) -> Any:
    """The typed move ``given`` names (see ``Store.act``). Raises ``NotAMove``."""
    engine = session.engine
    title = view_for(session.setup.game).TITLE
    if isinstance(given, str):
        text = " ".join(given.split())
        if text.startswith("{"):
            try:
                given = json.loads(text)
            except (ValueError, RecursionError) as err:
                raise NotAMove(f"not a move's JSON form: {err}") from None
        else:
            wanted = text.casefold()
            for move in session.choices():
                if " ".join(move.text().split()).casefold() == wanted:
                    return move
            raise NotAMove(f"{text!r} is not a move you can make now (your {len(session.choices())} moves are listed "
                           "by their text forms)")
    if isinstance(given, Mapping):
        try:
            return engine.parse_move(dict(given), "move")
        except FieldError as err:
            raise NotAMove(f"not a move of {title}: {err}") from None
    if not callable(getattr(given, "to_json", None)) or not callable(getattr(given, "text", None)):
        raise NotAMove(f"not a move of {title}: {type(given).__name__}")
    return given


def part(session: Session, move: Any) -> Any:
    """The move asked of ``session.to_act`` with its part as in ``move`` (one of its choices).
    Raises ``IllegalMoveError`` or ``NotAMove``."""
    engine = session.engine
    seat = session.to_act
    assert seat is not None and session.asked is not None
    key = move_key(engine, move)
    for choice in session.choices():
        if move_key(engine, choice) == key:
            return choice
    try:
        engine.apply(session.state, move)
    except RuleViolation as err:
        raise illegal(session, seat, move, err) from None
    except FieldError as err:
        raise NotAMove(f"not a move of {view_for(session.setup.game).TITLE}: {err}") from None
    names = session.setup.names
    raise NotAMove(f"{move.text()!r} is not a choice of {names[seat]}'s part of {names[session.asked.mover]}'s move")
