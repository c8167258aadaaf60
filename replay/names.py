"""Looking up catalogue names typed by people: case does not matter, and a near miss is suggested."""

from __future__ import annotations

import difflib
from collections.abc import Mapping


def lower_index(names: list[str] | tuple[str, ...]) -> dict[str, str]:
    """Each name by its lower-case form."""
    return {name.lower(): name for name in names}


def resolve_name(value: object, by_lower: Mapping[str, str], what: str) -> str:
    """The catalogue spelling of ``value`` (a ``what``: "card", "building").

    Raises ``ValueError`` for a non-string, a name with spaces around it (``" Chapel "`` would give the
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
