"""Pieces both game boards use: reading stored row values, and the head of a player's panel."""

from __future__ import annotations

from html import escape
from typing import Any

from dashboards.plain import cut


def as_list(value: Any) -> list[Any]:
    """A stored list column as a list (None and non-lists give [])."""
    if value is None:
        return []
    try:
        return list(value)
    except TypeError:
        return []


def as_int(value: Any) -> int | None:
    """A stored integer column as an int (None and pandas' NaN give None)."""
    try:
        if value is None or value != value:  # NaN from pandas
            return None
        return int(value)
    except (TypeError, ValueError):
        return None


def panel_open(name: str, vp: int | None, parts: str, *, governor: bool, acting: bool, winner: bool) -> str:
    """The opening of a player's panel: its frame, the name with its badges, and VP with its parts."""
    badges = ""
    if governor:
        badges += '<span class="gv-badge gov">governor</span>'
    if acting:
        badges += '<span class="gv-badge act">to act</span>'
    if winner:
        badges += '<span class="gv-badge win">winner</span>'
    classes = "gv-player" + (" acting" if acting else "") + (" winner" if winner else "")
    return (
        f'<div class="{classes}">'
        # A long name is cut (the whole of it on hover) so that the VP stays in view.
        f'<div class="gv-phead" title="{escape(name)}"><span class="gv-name">{escape(cut(name))}{badges}</span>'
        f'<span class="gv-vp" title="{escape(parts)}">{vp} <small>VP</small></span></div>'
    )
