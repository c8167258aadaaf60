"""Names typed by people: catalogue names (case does not matter, and a near miss is suggested) and
player names (one Unicode spelling, nothing invisible, look-alikes told apart by ``render_name``)."""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Mapping

from replay.errors import has_control, printable


def lower_index(names: list[str] | tuple[str, ...]) -> dict[str, str]:
    """Each name by its lower-case form."""
    return {name.lower(): name for name in names}


def resolve_name(value: object, by_lower: Mapping[str, str], what: str) -> str:
    """The catalogue spelling of ``value`` (a ``what``: "card", "building").

    Raises ``ValueError`` for a non-string, a name with spaces around it (a card's name with a space before it would give the
    same game another game id) or an unknown name, suggesting the closest ones."""
    if not isinstance(value, str):
        raise ValueError(f"expected a {what} name, got {type(value).__name__}")
    found = by_lower.get(value.lower())
    if found is None and value.strip().lower() in by_lower:
        raise ValueError(f"{what} name '{value}' has spaces around it (write '{by_lower[value.strip().lower()]}')")
    if found is None:
        close = difflib.get_close_matches(value, list(by_lower.values()), n=2)
        hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
        raise ValueError(f"unknown {what} '{value}'{hint}")
    return found


# -- player names: one spelling, nothing invisible, confusables told apart --------------------------

#: Characters that show nothing and are not spaces: zero-width spaces and joiners, the word joiner,
#: the byte-order mark, invisible operators, the soft hyphen, blank "letters" (Braille blank, the
#: Hangul fillers, the Khmer inherent vowels), the combining grapheme joiner, variation selectors.
INVISIBLE = frozenset(
    "\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f\u200b\u200c\u200d\u2060\u2061\u2062"
    "\u2063\u2064\u206a\u206b\u206c\u206d\u206e\u206f\u2800\u3164\ufeff\uffa0"
    + "".join(chr(c) for c in range(0xFE00, 0xFE10))
)
#: The one invisible character a name may hold: the zero-width joiner between two emoji (👩‍💻), where
#: it is part of the picture.
_JOINER = "\u200d"


def _invisible(char: str) -> bool:
    return char in INVISIBLE or unicodedata.category(char) in ("Cf", "Cc", "Zs", "Zl", "Zp")


def _pictographic(char: str) -> bool:
    return unicodedata.category(char) in ("So", "Sk") or char == "\ufe0f"


def invisible_inside(name: str) -> list[int]:
    """The positions of invisible characters in ``name`` that a reader could not see (spaces are
    visible between words; a zero-width joiner between two emoji is part of the emoji)."""
    found = []
    for i, char in enumerate(name):
        if char == " " or (unicodedata.category(char) == "Zs" and 0 < i < len(name) - 1):
            continue
        if char == _JOINER and 0 < i < len(name) - 1 and _pictographic(name[i - 1]) and _pictographic(name[i + 1]):
            continue
        if _invisible(char):
            found.append(i)
    return found


def only_invisible(name: str) -> bool:
    """Whether ``name`` shows nothing at all (empty, spaces, zero-width or blank characters only)."""
    return all(_invisible(char) for char in name)


def check_player_name(name: str) -> str:
    """``name`` as stored: in Unicode NFC, so that the composed and decomposed spellings of "José" are
    one player. Raises ``ValueError`` (one line, invisible characters written as ``\\uXXXX``) for a name
    that shows nothing, that holds a control character (printed in messages and on the board, a
    newline could forge a line), or that holds an invisible character (``"Bruno\\u200b"`` would be a
    second Bruno). The rules of every player's name: a log's (``validate``) and an arena agent's."""
    name = unicodedata.normalize("NFC", name)
    if not name.strip():
        raise ValueError("a player name may not be empty")
    if has_control(name):
        raise ValueError(f"a player name may not hold control characters: '{printable(name)}'")
    if only_invisible(name):
        raise ValueError(f"a player name may not be empty: '{render_name(name)}' shows only invisible characters")
    if invisible_inside(name):
        raise ValueError(f"a player name may not hold invisible characters: '{render_name(name)}'")
    return name


def _script(char: str) -> str | None:
    """The script of a letter, from its Unicode name ("LATIN", "CYRILLIC", "GREEK"); None for other
    characters (digits, punctuation, marks)."""
    if not unicodedata.category(char).startswith("L"):
        return None
    words = unicodedata.name(char, "").split()
    return words[0] if words else None


def scripts(name: str) -> list[str]:
    """The scripts of ``name``'s letters, the most used first (ties in order of first use)."""
    counts: dict[str, int] = {}
    for char in name:
        script = _script(char)
        if script is not None:
            counts[script] = counts.get(script, 0) + 1
    return sorted(counts, key=lambda s: -counts[s])


def render_name(name: str) -> str:
    """``name`` as plain text on which look-alike names differ visibly: every invisible character
    (``\\u200b``) and every letter of a script other than the name's main one (the Cyrillic ``А`` in
    ``"Аna"``, written ``\\u0410na``) is shown as its ``\\uXXXX`` escape; control characters are escaped
    as ``replay.errors.printable`` does. A name of one script with nothing invisible is unchanged
    ("José", "Анна", "李雷"). For the dashboard and every report that lists players; raises nothing."""
    main = scripts(name)[:1]
    inside = set(invisible_inside(name))
    blank = only_invisible(name)
    out = []
    for i, char in enumerate(name):
        script = _script(char)
        hidden = (i in inside or (blank and char != " ")) and unicodedata.category(char) != "Cc"
        if hidden or (script is not None and main and script != main[0]):
            out.append(f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}")
        else:
            out.append(char)
    return printable("".join(out))
