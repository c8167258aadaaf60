"""Strict JSON: the text of one game to its object, refusing what the JSON standard leaves open.

Python's json module accepts what the JSON standard leaves open or forbids: a repeated key (the
last wins, so a checked field can hide another), NaN and Infinity, lone surrogates ("\\ud800",
which no UTF-8 text can hold) and integers of any size (past 4,300 digits it raises ValueError).
A first pass refuses them at once; only a bad game pays for a second pass that finds the path.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from replay.errors import LogFormatError, printable

#: Integers must fit in 64 bits (the database's BIGINT): a larger one is refused with its path.
MAX_INT = 2**63 - 1
#: Deeper nesting than this is refused (no field of the format nests more than a few levels).
MAX_DEPTH = 32


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


def strict_loads(text: str, file: str, index: int) -> Any:
    """The object of one game's JSON ``text`` (of game ``index`` of ``file``), read strictly.

    Raises ``LogFormatError`` for empty text, malformed JSON, or a value strict JSON refuses (a repeated
    key, NaN or Infinity, an integer past 64 bits, a lone surrogate), naming the path of the first."""
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
