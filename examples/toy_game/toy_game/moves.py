"""Climb's moves: one typed value per kind, each with its JSON form (the log) and its text form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from replay.errors import FieldError
from toy_game.cards import VALUES


@dataclass(frozen=True)
class Draw:
    """Take the top card of the pile into the hand."""

    def to_json(self) -> dict[str, Any]:
        return {"kind": "draw"}

    def text(self) -> str:
        return "draw"


@dataclass(frozen=True)
class Stay:
    """Draw nothing this turn."""

    def to_json(self) -> dict[str, Any]:
        return {"kind": "stay"}

    def text(self) -> str:
        return "stay"


@dataclass(frozen=True)
class Climb:
    """Put ``card`` from the hand on top of the ladder."""

    card: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": "climb", "card": self.card}

    def text(self) -> str:
        return f"climb {self.card}"


@dataclass(frozen=True)
class Rest:
    """Put nothing on the ladder this turn."""

    def to_json(self) -> dict[str, Any]:
        return {"kind": "rest"}

    def text(self) -> str:
        return "rest"


ToyMove = Draw | Stay | Climb | Rest

_PLAIN: Final[dict[str, ToyMove]] = {"draw": Draw(), "stay": Stay(), "rest": Rest()}
KINDS: Final = ("draw", "stay", "climb", "rest")


def parse_move(obj: Any, path: str) -> ToyMove:
    """A typed move from its JSON form; ``path`` is where it sits in the log (``moves[12]``). Raises
    ``FieldError`` naming the field at fault."""
    if not isinstance(obj, dict):
        raise FieldError(path, f"a move must be an object, got {type(obj).__name__}")
    kind = obj.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        raise FieldError(f"{path}.kind", f"unknown move kind {kind!r} (kinds: {', '.join(KINDS)})")
    allowed = {"kind", "seat"} | ({"card"} if kind == "climb" else set())
    extra = sorted(set(obj) - allowed)
    if extra:
        raise FieldError(f"{path}.{extra[0]}", f"unknown field for a '{kind}' move")
    if kind != "climb":
        return _PLAIN[kind]
    card = obj.get("card")
    if type(card) is not int or card not in VALUES:
        raise FieldError(f"{path}.card", f"expected a card value {VALUES[0]} to {VALUES[-1]}, got {card!r}")
    return Climb(card)


def parse_text(text: str) -> ToyMove:
    """A move from its text form (``draw``, ``stay``, ``climb 7``, ``rest``). Raises ``ValueError``."""
    words = text.split()
    if len(words) == 1 and words[0] in _PLAIN:
        return _PLAIN[words[0]]
    if len(words) == 2 and words[0] == "climb" and words[1].isdigit() and int(words[1]) in VALUES:
        return Climb(int(words[1]))
    raise ValueError(f"not a move: {text!r} (draw, stay, climb N, rest)")
