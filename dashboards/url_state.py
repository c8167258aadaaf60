"""Filters that live in the URL, so a view of a page can be linked and reloaded.

A page seeds each filter widget's session state from ``st.query_params`` the first time it runs
(``seed``), makes its widgets from that state (a number field is also given it as its default,
``value=``: one whose state alone holds the value is drawn with its minimum first, and a link's "50"
showed "0" for a moment), and afterwards writes the chosen values back (``publish``). Values in the URL that do not parse, or are not among the
allowed ones, are ignored: the widget gets its default.

Streamlit drops a widget's state when another page is shown, and a visit through the sidebar comes
with an empty query string, so each page's last query string is kept in the session (``restore`` at
the start of a run, ``remember`` at its end): a page left through the sidebar and visited again, or
reached with Back, comes back with its filters, which the URL then shows again.

Anyone can type a URL, so every parameter is hostile until checked: a value longer than
``MAX_PARAM_CHARS`` is ignored unread, numbers are clamped to their range (``int_in``), and a parser
that fails in any ordinary way (``ValueError``, ``TypeError``, ``OverflowError``) gives the default,
so no URL can raise on a page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date
from typing import Any

import streamlit as st

#: The longest URL parameter a page reads (a filter value, a name, a path); longer ones are ignored.
MAX_PARAM_CHARS = 1000
#: What a failing parser may raise; the default is used instead.
PARSE_ERRORS = (ValueError, TypeError, OverflowError, ArithmeticError)


def raw_param(name: str, limit: int = MAX_PARAM_CHARS) -> str | None:
    """The URL parameter ``name``, or None when it is absent or longer than ``limit`` characters."""
    raw = st.query_params.get(name)
    if raw is None or len(raw) > limit:
        return None
    return str(raw)


#: Session key of each page's last query string.
_KEPT = "_url_kept"
#: Session key of the page the current run shows.
_PAGE = "_url_page"


def restore(page: str) -> None:
    """Start a run of ``page``: when its URL has no parameters (a visit through the sidebar), or only
    those another page of this session last had (Back pressed while that page's URL was being
    written: the run comes with the page left's query string), and the page had some earlier in this
    session, put them back in the URL, before the page reads it."""
    kept: dict[str, dict[str, str]] = st.session_state.setdefault(_KEPT, {})
    current = {k: str(v) for k, v in st.query_params.to_dict().items()}
    foreign = bool(current) and any(other == current for name, other in kept.items() if name != page)
    if kept.get(page) and (not current or foreign):
        st.query_params.from_dict(kept[page])
    st.session_state[_PAGE] = page
    remember()


def remember() -> None:
    """Keep the current page's query string in the session (``restore`` gives it back)."""
    page = st.session_state.get(_PAGE)
    if page is not None:
        st.session_state.setdefault(_KEPT, {})[page] = {k: str(v) for k, v in st.query_params.to_dict().items()}


def seed(key: str, param: str, parse: Callable[[str], Any], default: Any, many: bool = False) -> None:
    """Put a widget's first value in ``st.session_state[key]``: from the URL parameter ``param``
    (``parse`` turns the text into the value and raises ``ValueError`` when it cannot; ``many``: the
    parameter is a comma-separated list), else ``default``. Does nothing once the widget has a state."""
    if key in st.session_state:
        return
    st.session_state[key] = parsed(param, parse, default, many)


def parsed(name: str, parse: Callable[[str], Any], default: Any, many: bool = False) -> Any:
    """The URL parameter ``name`` read with ``parse`` (each comma-separated part when ``many``), or
    ``default`` when it is absent, too long or does not parse. Never raises."""
    raw = raw_param(name)
    if raw is None:
        return default
    try:
        return [parse(part) for part in raw.split(",") if part != ""] if many else parse(raw)
    except PARSE_ERRORS:
        return default


def int_in(low: int, high: int) -> Callable[[str], int]:
    """A parser of a whole number clamped to ``low..high`` (``ValueError`` for text that is no whole
    number; 400 digits or ``-5`` are clamped, not refused)."""

    def _parse(text: str) -> int:
        stripped = text.strip()
        digits = stripped.lstrip("+-")
        if not digits.isdecimal() or not digits.isascii():
            raise ValueError(f"not a whole number: {text[:40]!r}")
        if len(digits) > 18:  # past any range a page uses; int() of thousands of digits is slow
            return low if stripped.startswith("-") else high
        return min(high, max(low, int(stripped)))

    return _parse


def one_of(allowed: Iterable[Any], parse: Callable[[str], Any] = str) -> Callable[[str], Any]:
    """A parser that accepts only values in ``allowed``."""
    options = list(allowed)

    def _parse(text: str) -> Any:
        value = parse(text)
        if value not in options:
            raise ValueError(f"{text!r} is not one of {options}")
        return value

    return _parse


def parse_date(text: str) -> date:
    """``2024-05-01`` as a date (``ValueError`` otherwise)."""
    return date.fromisoformat(text)


def parse_bool(text: str) -> bool:
    """``1``/``true``/``yes`` or ``0``/``false``/``no``."""
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes"):
        return True
    if lowered in ("0", "false", "no"):
        return False
    raise ValueError(f"not a yes/no value: {text!r}")


def publish(params: dict[str, Any]) -> None:
    """Make the URL's query string exactly ``params`` (lists joined by commas, booleans as 1/0, dates
    in ISO form; ``None`` and empty values left out). Writing the same values again changes nothing."""
    out: dict[str, str] = {}
    for name, value in params.items():
        if value is None or value == "" or (isinstance(value, list | tuple) and not value):
            continue
        if isinstance(value, bool):
            out[name] = "1" if value else "0"
        elif isinstance(value, list | tuple):
            out[name] = ",".join(str(v) for v in value)
        elif isinstance(value, date):
            out[name] = value.isoformat()
        else:
            out[name] = str(value)
    if dict(st.query_params.to_dict()) != out:
        st.query_params.from_dict(out)
    remember()
