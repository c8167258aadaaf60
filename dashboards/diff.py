"""What changed between two stored steps, in the game's words and with player names, from the stored
state rows alone (the dashboard never replays).

Each engine says how to speak of its columns (``change_words``: the kind of change and the game's word
for each column, see ``replay/<game>/change_words.py``, and how to say the kinds of change only its
columns have, under ``"kinds"``); this module only applies those formats, so it holds no game rules,
no game words and no secrets (what a viewer may see is the game's view). A column the engine does not
list is never shown, so no column name reaches the page.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from html import escape
from typing import Any

from dashboards.stats import ordinal
from replay.protocol import Viewer
from replay.registry import engine_for, view_for

MINUS = "\u2212"
ARROW = "\u2192"
#: Who the global row's changes belong to.
TABLE = "Table"


def _plain(value: Any) -> Any:
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, float) and value != value:
        return None
    return value


def _as_list(value: Any) -> list[Any]:
    value = _plain(value)
    if value is None:
        return []
    if isinstance(value, str | bytes):
        return [value]
    try:
        return list(value)
    except TypeError:
        return [value]


def _shown(value: Any) -> str:
    return "\u2013" if value is None else str(value)


def _signed(delta: int, noun: str) -> str:
    return f"+{delta} {noun}" if delta > 0 else f"{MINUS}{-delta} {noun}"


def _items(before: Any, after: Any) -> list[str]:
    old = Counter(str(x) for x in _as_list(before))
    new = Counter(str(x) for x in _as_list(after))
    return [f"+{x}" for x in (new - old).elements()] + [f"{MINUS}{x}" for x in (old - new).elements()]


def _tag_words(name: str) -> str:
    """A tag's name in words: a name ending in ``_<n>`` is the n-th card of that name (``draw_2`` is
    "draw (2nd)"), any other ``_`` a space."""
    base, _, number = name.rpartition("_")
    if base and number.isdecimal():
        return f"{base.replace('_', ' ')} ({ordinal(int(number))})"
    return name.replace("_", " ")


def _tagged(value: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in _as_list(value):
        name, _, number = str(item).rpartition(":")
        try:
            out[name] = int(number)
        except ValueError:
            continue
    return out


#: How a game says a change of a kind only its columns have: the column's values before and after
#: (plain Python: lists, numbers, text; None for none), its label and the players' names, to phrases.
KindWords = Callable[[Any, Any, "str | None", Sequence[str]], list[str]]


def change(kind: str, label: str | None, before: Any, after: Any, names: Sequence[str] = (),
           kinds: Mapping[str, KindWords] | None = None) -> list[str]:
    """One column's change as phrases in words (empty when it did not change).

    ``kind`` and ``label`` come from an engine's ``change_words``: ``value`` gives ``hand 3 → 1``,
    ``seat`` the same with player names, ``items`` ``+Card`` (or ``cards taken: +card`` with a label),
    ``goods`` and ``count`` ``−2 good``, ``tagged`` ``supply of good 10 → 8``; any other kind is one
    the game says itself (``kinds``, its ``change_words["kinds"]``). Raises ``ValueError`` for a kind
    neither knows."""
    before, after = _plain(before), _plain(after)
    if kind == "value":
        return [] if before == after else [f"{label} {_shown(before)} {ARROW} {_shown(after)}"]
    if kind == "seat":
        if before == after:
            return []

        def who(seat: Any) -> str:
            return names[int(seat)] if seat is not None and 0 <= int(seat) < len(names) else _shown(seat)

        return [f"{label} {who(before)} {ARROW} {who(after)}"]
    if kind == "items":
        items = _items(before, after)
        if not items:
            return []
        return [f"{label}: {', '.join(items)}"] if label else items
    if kind == "goods":
        old = Counter(str(x) for x in _as_list(before))
        new = Counter(str(x) for x in _as_list(after))
        return [_signed(new[g] - old[g], g) for g in sorted(old | new) if new[g] != old[g]]
    if kind == "count":
        delta = int(after or 0) - int(before or 0)
        return [_signed(delta, str(label))] if delta else []
    if kind == "tagged":
        old_tags, new_tags = _tagged(before), _tagged(after)
        return [
            f"{label} {_tag_words(name)} {_shown(old_tags.get(name))} {ARROW} {_shown(new_tags.get(name))}"
            for name in list(dict.fromkeys([*old_tags, *new_tags]))
            if old_tags.get(name) != new_tags.get(name)
        ]
    said = (kinds or {}).get(kind)
    if said is not None:
        return said(before, after, label, names)
    raise ValueError(f"unknown kind of change {kind!r}")


def row_changes(
    words: Mapping[str, tuple[str, str | None]], before: Mapping[str, Any] | None, after: Mapping[str, Any],
    names: Sequence[str] = (), skip: frozenset[str] = frozenset(), kinds: Mapping[str, KindWords] | None = None,
) -> list[str]:
    """Every change of one stored row in words, in the order of ``words`` (the engine's column words);
    columns not in ``words`` or in ``skip`` are left out. ``kinds``: the game's own kinds of change
    (see ``change``)."""
    out: list[str] = []
    for column, (kind, label) in words.items():
        if column in skip or column not in after:
            continue
        out.extend(change(kind, label, (before or {}).get(column), after[column], names, kinds))
    return out


def step_changes(
    game: str,
    state_before: Mapping[str, Any] | None,
    state_after: Mapping[str, Any],
    players_before: Sequence[Mapping[str, Any]],
    players_after: Sequence[Mapping[str, Any]],
    names: Sequence[str],
    *,
    public: bool = False,
    viewer: Viewer | None = None,
) -> list[tuple[str, list[str]]]:
    """What changed from one step to the next, for a viewer of any game, per step from stored rows.

    ``game`` is the game type (a key of ``replay.registry``); ``state_before``/``state_after`` are the
    ``<game>_states`` rows of the two steps (``state_before`` None at step 0), ``players_before`` and
    ``players_after`` their ``<game>_player_states`` rows (each with its ``seat``), ``names`` the
    players by seat. The rows are first seen as ``viewer`` sees them (the game's view,
    ``replay.registry.view_for``): what it may not see never reaches a phrase. ``public=True`` is
    ``viewer=Viewer.public()``; the default viewer sees everything. Returns ``[(who, phrases)]``:
    ``"Table"`` for the global row first, then each player whose row changed, in seat order, e.g.
    ``("Ana", ["+Card", "hand 3 → 1", "−2 good"])``. Raises ``KeyError`` for an unknown game."""
    words = engine_for(game).change_words
    kinds = words.get("kinds")
    if viewer is None:
        viewer = Viewer.public() if public else Viewer.everything()
    if not viewer.sees_everything:
        seen = view_for(game)
        over = state_after.get("stage") == "over"
        state_before = None if state_before is None else seen.view_table_row(dict(state_before), viewer)
        state_after = seen.view_table_row(dict(state_after), viewer)
        players_before = [seen.view_seat_row(dict(r), int(r["seat"]), viewer, over) for r in players_before]
        players_after = [seen.view_seat_row(dict(r), int(r["seat"]), viewer, over) for r in players_after]
    out: list[tuple[str, list[str]]] = []
    table = row_changes(words["global"], state_before, state_after, names, kinds=kinds)
    if table:
        out.append((TABLE, table))
    before_by_seat = {int(r["seat"]): r for r in players_before}
    for row in sorted(players_after, key=lambda r: int(r["seat"])):
        seat = int(row["seat"])
        phrases = row_changes(words["player"], before_by_seat.get(seat), row, names, kinds=kinds)
        if phrases:
            out.append((names[seat] if 0 <= seat < len(names) else f"Seat {seat}", phrases))
    return out


def changes_text(changes: list[tuple[str, list[str]]]) -> str:
    """The changes as plain text, one line per player: ``Ana: +Card, hand 3 → 1, −2 good``."""
    return "\n".join(f"{who}: {', '.join(phrases)}" for who, phrases in changes)


def _coloured(phrase: str) -> str:
    head, sep, tail = phrase.partition(": ")
    if sep and tail[:1] in ("+", MINUS):
        # A labelled list ("cards taken: +card"): colour each item.
        return f"{escape(head)}: " + ", ".join(_coloured(item) for item in tail.split(", "))
    if phrase[:1] == "+":
        return f'<span class="plus">{escape(phrase)}</span>'
    if phrase[:1] == MINUS:
        return f'<span class="minus">{escape(phrase)}</span>'
    return escape(phrase)


def changes_html(changes: list[tuple[str, list[str]]]) -> str:
    """The changes as an HTML list, every text escaped; additions green, removals red."""
    if not changes:
        return '<p class="gv-meta">Nothing stored changed.</p>'
    items = [
        f"<li><b>{escape(who)}</b>: {', '.join(_coloured(p) for p in phrases)}</li>" for who, phrases in changes
    ]
    return f'<ul class="gv-diff">{"".join(items)}</ul>'
