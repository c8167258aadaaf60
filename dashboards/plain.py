"""User-provided strings (player names, ids, file names) as safe, short HTML or as isolated text: pure
functions the boards and pages share (``dashboards.ui`` shows them).

A right-to-left name (Arabic, Hebrew) next to other text takes the neutral characters around it
(spaces, commas, colons) and the numbers after it into its own direction: "Ana, <Arabic name>,
<Hebrew name>, Bruno" shows the two middle names swapped, and "<Hebrew name>: 45" shows the 45 on the
left. So every name is isolated where it is shown: in HTML inside ``<bdi>`` (``name_html``, ``bdi``),
in plain text (a table cell, a legend, a caption) between U+2068 FIRST STRONG ISOLATE and U+2069 POP
DIRECTIONAL ISOLATE (``isolate``). Either way the name keeps its own direction and the text around it
keeps its order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from html import escape
from typing import Any

#: Names longer than this are cut with an ellipsis where they share a line with other text.
NAME_CHARS = 40
#: U+2068 FIRST STRONG ISOLATE and U+2069 POP DIRECTIONAL ISOLATE: what ``isolate`` puts around a name.
FSI, PDI = "\u2068", "\u2069"
#: Bidirectional embeddings, overrides and isolates: inside a name they could end its isolate early
#: or reorder what follows (a log's names cannot hold them; a file name or a URL can).
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")


def _escape_controls(text: str) -> str:
    return _BIDI_CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def cut(name: str, limit: int = NAME_CHARS) -> str:
    """``name`` on one line and at most ``limit`` characters: line breaks become spaces and a longer
    name ends with an ellipsis."""
    flat = " ".join(str(name).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "\u2026"


def isolate(name: object) -> str:
    """``name`` as text isolated from what surrounds it (U+2068 ... U+2069), for a plain-text place: a
    table cell, a chart's label or hover text. A bidirectional control inside is written as an escape
    (``\\u202e``) so that it cannot end the isolate. ``None`` gives the empty string."""
    if name is None:
        return ""
    return f"{FSI}{_escape_controls(str(name))}{PDI}"


def isolated(names: Iterable[object], separator: str = ", ") -> str:
    """Several names joined by ``separator``, each isolated (``isolate``)."""
    return separator.join(isolate(n) for n in names)


def isolate_column(values: Iterable[Any]) -> list[Any]:
    """``isolate`` of every string of a table's column; other values (None, numbers) as they are."""
    return [isolate(v) if isinstance(v, str) else v for v in values]


def sql_names(column: str, separator: str = ", ") -> str:
    """SQL that joins a list column of names (``g.players``) into one text, each name isolated: the
    ``isolated`` of a query's result."""
    return (f"array_to_string(list_transform({column}, lambda x: '{FSI}' || x || '{PDI}'), '{separator}')")


def sql_name(column: str) -> str:
    """SQL that isolates one text column (NULL stays NULL)."""
    return f"('{FSI}' || {column} || '{PDI}')"


def bdi(text: object) -> str:
    """``text`` as escaped HTML inside ``<bdi>``: isolated from the text around it."""
    return f"<bdi>{escape(_escape_controls(str(text)))}</bdi>"


def name_html(name: str, limit: int = NAME_CHARS) -> str:
    """A player name as escaped HTML inside ``<bdi>``; one cut to ``limit`` characters (or put on one
    line) carries the whole name on hover."""
    short = cut(name, limit)
    if short == str(name):
        return bdi(short)
    return f'<bdi class="gv-cut" title="{escape(str(name))}">{escape(_escape_controls(short))}</bdi>'
