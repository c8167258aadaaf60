"""What changed between two stored steps: a diff of their state rows, for any game."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from html import escape
from typing import Any

#: Key columns, never reported as changes.
KEYS = frozenset({"game_id", "step", "seat"})


def _is_list(value: Any) -> bool:
    return isinstance(value, list | tuple) or (hasattr(value, "tolist") and not isinstance(value, str | bytes))


def _plain(value: Any) -> Any:
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, float) and value != value:
        return None
    return value


def change(column: str, before: Any, after: Any) -> str | None:
    """One column's change in words, or None when it did not change. Lists are compared as
    multisets: ``hand +Smithy -Well``; other values as ``round 1 -> 2``."""
    before, after = _plain(before), _plain(after)
    if _is_list(before) or _is_list(after):
        old = Counter(str(x) for x in (before or []))
        new = Counter(str(x) for x in (after or []))
        added = list((new - old).elements())
        removed = list((old - new).elements())
        if not added and not removed:
            return None
        parts = [f"+{x}" for x in added] + [f"\u2212{x}" for x in removed]
        return f"{column} " + ", ".join(parts)
    if before == after:
        return None
    return f"{column} {before if before is not None else '-'} \u2192 {after if after is not None else '-'}"


def row_changes(before: dict[str, Any] | None, after: dict[str, Any]) -> list[str]:
    """Every changed column of one row (all of them are new when there is no row before)."""
    out = []
    for column, value in after.items():
        if column in KEYS:
            continue
        text = change(column, (before or {}).get(column), value)
        if text is not None:
            out.append(text)
    return out


def step_changes(
    state_before: dict[str, Any] | None,
    state_after: dict[str, Any],
    players_before: Sequence[dict[str, Any]],
    players_after: Sequence[dict[str, Any]],
    names: Sequence[str],
) -> list[tuple[str, list[str]]]:
    """The changes from one step to the next, as (who, changes) pairs: ``table`` for the global
    row, then each seat whose row changed."""
    out: list[tuple[str, list[str]]] = []
    table = row_changes(state_before, state_after)
    if table:
        out.append(("table", table))
    before_by_seat = {int(r["seat"]): r for r in players_before}
    for row in players_after:
        seat = int(row["seat"])
        changes = row_changes(before_by_seat.get(seat), row)
        if changes:
            out.append((names[seat] if seat < len(names) else f"Seat {seat}", changes))
    return out


def changes_html(changes: list[tuple[str, list[str]]]) -> str:
    """The changes as an HTML list; additions green, removals red."""
    if not changes:
        return '<p class="gv-meta">Nothing stored changed.</p>'
    items = []
    for who, lines in changes:
        parts = []
        for line in lines:
            column, _, rest = line.partition(" ")
            if rest[:1] in ("+", "\u2212"):
                # A list change: colour each whole item (card names have spaces in them).
                rest = ", ".join(
                    f'<span class="{"plus" if item.startswith("+") else "minus"}">{escape(item)}</span>'
                    for item in rest.split(", ")
                )
            else:
                rest = escape(rest)
            parts.append(f"{escape(column)} {rest}")
        items.append(f"<li><b>{escape(who)}</b>: {'; '.join(parts)}</li>")
    return f'<ul class="gv-diff">{"".join(items)}</ul>'
