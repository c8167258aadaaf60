"""User-provided strings (player names, ids, file names) as safe, short HTML: pure functions the
boards and pages share (``dashboards.ui`` shows them)."""

from __future__ import annotations

from html import escape

#: Names longer than this are cut with an ellipsis where they share a line with other text.
NAME_CHARS = 40


def cut(name: str, limit: int = NAME_CHARS) -> str:
    """``name`` on one line and at most ``limit`` characters: line breaks become spaces and a longer
    name ends with an ellipsis."""
    flat = " ".join(str(name).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "\u2026"


def name_html(name: str, limit: int = NAME_CHARS) -> str:
    """A player name as escaped HTML; one cut to ``limit`` characters (or put on one line) carries the
    whole name on hover."""
    short = cut(name, limit)
    if short == str(name):
        return escape(short)
    return f'<span class="gv-cut" title="{escape(str(name))}">{escape(short)}</span>'
