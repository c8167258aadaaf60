"""What the Replay page sends to the browser for one game in one view, read from the stored tables.

A game is prepared once (``PreparedGame``: its stored rows, checked) and seen in a view
(``PreparedGame.payload``): the game's own view (``replay.registry.view_for``) takes out of every state
row, move and change what the viewer may not see, here, on the server; the browser receives only
what that view may see. The page sends a window of the steps around the one shown (``window``): the
browser steps within it without asking the server, and asks for another window past its ends. State
columns are sent as runs (``[[step, value], ...]``, one pair each time the value changes), so a hand
that stays the same for forty steps is sent once.
"""

from __future__ import annotations

import json
import threading
from bisect import bisect_right
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pandas as pd

from dashboards.diff import step_changes
from dashboards.stats import plural
from replay.logfile import GameLog, LogRecord
from replay.protocol import Viewer
from replay.registry import game_of, view_for

#: Views of the table as URLs write them: everything, what every player knows, or one seat (``seat0``).
VIEW_ALL, VIEW_PUBLIC = Viewer.EVERYTHING, Viewer.PUBLIC
#: Key columns, not sent per step.
KEYS = ("game_id", "step", "seat")
#: Steps the browser holds at once: a window this wide around the step shown (a whole game of up to
#: this many moves goes at once, as nearly every game does).
WINDOW = 3000
#: Rounds outside the window sent at most (a long game's round box).
ROUND_POINTS = 1000
#: Views and windows a prepared game keeps made (the oldest is dropped first).
MAX_KEPT = 8
#: The chart's footnote on a line the view drew without what it may not see.
CHART_NOTE = "{unit} as this view sees them: points hidden from it are left out until the game ends"
#: Points of a seat's score line on the chart at most (a longer line is thinned, keeping its last point).
CHART_POINTS = 2000


# -- views and steps -------------------------------------------------------------------------------


def parse_view(text: str | None, player_count: int) -> tuple[str, str | None]:
    """The view named in the URL and a message when it was not understood (then the view is ``all``).

    ``all``, ``public`` or ``seatN`` with N a seat of the game (0 = the first governor)."""
    try:
        return Viewer.parse(text or VIEW_ALL, player_count).name, None
    except ValueError:
        seats = ", ".join(f"seat{s}" for s in range(player_count))
        return VIEW_ALL, f"Unknown view {text!r}: showing everything (views: all, public, {seats})."


def parse_step(text: str | None, total: int) -> tuple[int | None, str | None]:
    """The step named in the URL (None when there is none) and a message when it was changed.

    Negative steps count from the end (-1 is the last position, as in ``governor replay --step``);
    steps past either end are clamped."""
    if text is None or str(text).strip() == "":
        return None, None
    try:
        asked = int(str(text).strip())
    except ValueError:
        return 0, f"Step {text!r} is not a number: showing the start of the game."
    step = total + 1 + asked if asked < 0 else asked
    if step < 0:
        return 0, f"Step {asked} is before the start of this game ({total} moves): showing the start."
    if step > total:
        return total, f"Step {asked} is past the end of this game ({total} moves): showing the last move."
    return step, None


# -- rows ------------------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """A stored value as JSON-ready Python (numpy arrays and scalars, NaN as None)."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


Rows = Sequence[dict[str, Any]]


def _records(frame: pd.DataFrame | Rows) -> list[dict[str, Any]]:
    """Rows as plain dicts: Arrow's ``to_pylist()`` rows as they are, a DataFrame's cleaned of numpy."""
    if isinstance(frame, pd.DataFrame):
        return [{k: _plain(v) for k, v in row.items()} for row in frame.to_dict("records")]
    return list(frame)


def runs(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> dict[str, list[list[Any]]]:
    """Each column as ``[[step, value], ...]``: a pair at the first step and whenever the value changes.
    A column a row lacks (the view left it out) has the value None there."""
    steps = [row["step"] for row in rows]
    out: dict[str, list[list[Any]]] = {}
    for column in columns:
        # Column by column: one pass over a list of values is several times cheaper than a dict
        # lookup per row and column (this is most of the time of building a game's payload).
        pairs: list[list[Any]] = []
        last: Any = _UNSET
        for step, value in zip(steps, [row.get(column) for row in rows]):
            if last is _UNSET or last != value:
                pairs.append([step, value])
                last = value
        out[column] = pairs
    return out


_UNSET = object()


def _columns(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Every column the rows hold but the keys, in the order first met (a view may leave some out)."""
    seen: dict[str, None] = {}
    for row in [*rows[:1], *rows[-1:]]:
        seen.update((k, None) for k in row if k not in KEYS)
    return list(seen)


def step_change_list(
    game: str,
    table: Sequence[dict[str, Any]],
    seats: Sequence[Sequence[dict[str, Any]]],
    names: Sequence[str],
) -> list[list[list[Any]]]:
    """What changed at every step, in the game's words (``dashboards.diff.step_changes``), from rows
    already seen in a view: per step a list of ``[who, phrases]``, ``who`` being ``-1`` for the table
    or a seat."""
    out: list[list[list[Any]]] = [[]]

    def changed(old: dict[str, Any], new: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        # Only the columns that changed go to the diff (it reads the columns ``after`` holds): most of
        # a row stays the same from one step to the next.
        keys = [k for k in new if k not in KEYS and old.get(k) != new[k]]
        return {k: old.get(k) for k in keys}, {k: new[k] for k in keys}

    for step in range(1, len(table)):
        items: list[list[Any]] = []
        before, after = changed(table[step - 1], table[step])
        if after:
            found = step_changes(game, before, after, [], [], names)
            if found:
                items.append([-1, found[0][1]])
        for seat, rows in enumerate(seats):
            old, new = changed(rows[step - 1], rows[step])
            if not new:
                continue
            old["seat"] = new["seat"] = seat
            # One seat at a time (an empty table row), so two players of the same name stay apart.
            found = step_changes(game, {}, {}, [old], [new], names)
            if found:
                items.append([seat, found[0][1]])
        out.append(items)
    return out


def _thin(pairs: list[list[Any]], points: int) -> list[list[Any]]:
    """At most about ``points`` pairs of a run, evenly picked, the first and the last kept."""
    if len(pairs) <= points:
        return pairs
    stride = -(-len(pairs) // points)
    return pairs[::stride] + ([pairs[-1]] if (len(pairs) - 1) % stride else [])


# -- the game and its views ------------------------------------------------------------------------


class PreparedGame:
    """One stored game, checked and decoded once; ``payload(viewer)`` is what a viewer may see of it
    (made once per viewer and kept: treat it as read-only)."""

    def __init__(
        self,
        game_row: dict[str, Any],
        moves: pd.DataFrame | Rows,
        states: pd.DataFrame | Rows,
        player_states: pd.DataFrame | Rows,
    ) -> None:
        """Raises ``ValueError`` when a step has no stored state (the tables do not belong together)
        and ``KeyError`` for a game the registry does not know."""
        self.row = game_row
        self.game = str(game_row["game"])
        self.view = view_for(self.game)
        # The score: the column of the seats' rows that holds it and its words, as the game declares them.
        self.declared = game_of(self.game)
        self.names = [str(n) for n in game_row["players"]]
        self.moves = _records(moves)
        self.total = max((int(m["step"]) for m in self.moves), default=0)
        self.table = _records(states)
        if [r["step"] for r in self.table] != list(range(self.total + 1)):
            raise ValueError(f"game {game_row['game_id']}: stored states do not cover steps 0 to {self.total}")
        self.seats: list[list[dict[str, Any]]] = [[] for _ in self.names]
        for row in _records(player_states):
            if 0 <= int(row["seat"]) < len(self.names):
                self.seats[int(row["seat"])].append(row)
        for seat, rows in enumerate(self.seats):
            if len(rows) != self.total + 1:
                raise ValueError(
                    f"game {game_row['game_id']}: seat {seat} has {len(rows)} stored states, not {self.total + 1}")
        # Each round's first move, so "round k" can jump to the position before it.
        self.round_first: dict[str, int] = {}
        for move in self.moves:
            self.round_first.setdefault(str(move["round"]), int(move["step"]))
        self._payloads: dict[str, dict[str, Any]] = {}
        self._charts: dict[str, tuple[list[list[list[Any]]], list[bool]]] = {}
        self._lock = threading.Lock()

    def payload(self, viewer: Viewer, around: int | None = None) -> dict[str, Any]:
        """The game as ``viewer`` sees it: every step, or with ``around`` the window of steps the
        browser gets when it shows that step (``window_bounds``; the VP chart and the rounds always
        cover the whole game). Only the window's steps are seen through the view and put in words, so
        a window of a long game costs what a short game does."""
        lo, hi = (0, self.total) if around is None else window_bounds(self.total, around)
        key = f"{viewer.name}|{lo}|{hi}"
        with self._lock:
            found = self._payloads.get(key)
            if found is None:
                if len(self._payloads) >= MAX_KEPT:  # a long game's windows are not all kept
                    self._payloads.pop(next(iter(self._payloads)))
                found = self._payloads[key] = self._make(viewer, lo, hi)
            return found

    def _chart(self, viewer: Viewer) -> tuple[list[list[list[Any]]], list[bool]]:
        """Each seat's score (the game's ``score_column``) over the whole game as ``viewer`` sees it, as
        runs (thinned when long; None where the view hides it), and for each seat whether the view left
        something out of its line (its score differs from the stored one at some step): the chart's
        legend says so."""
        found = self._charts.get(viewer.name)
        if found is None:
            view = self.view
            column = self.declared.score_column
            over = [r.get("stage") == "over" for r in self.table]
            lines, partial = [], []
            for seat, rows in enumerate(self.seats):
                seen = [view.view_seat_row(r, seat, viewer, over[r["step"]]).get(column) for r in rows]
                lines.append(_thin(runs([{"step": r["step"], "vp": v} for r, v in zip(rows, seen)], ["vp"])["vp"],
                                   CHART_POINTS))
                partial.append(any(v != r.get(column) for r, v in zip(rows, seen)))
            found = self._charts[viewer.name] = (lines, partial)
        return found

    def _make(self, viewer: Viewer, lo: int, hi: int) -> dict[str, Any]:
        view, game, names = self.view, self.game, self.names
        states = self.table[lo:hi + 1]
        over = [r.get("stage") == "over" for r in states]
        table = [view.view_table_row(r, viewer) for r in states]
        seats = [[view.view_seat_row(r, seat, viewer, over[r["step"] - lo]) for r in rows[lo:hi + 1]]
                 for seat, rows in enumerate(self.seats)]
        # Moves are numbered from 1, one per step: the window's moves are steps lo + 1 to hi.
        moves = self.moves[lo:hi]
        words: list[str] = []
        texts: list[str | None] = []
        for move in moves:
            seat = move["seat"]
            try:
                details = json.loads(move["details"]) if move.get("details") else {}
            except (ValueError, TypeError):
                details = {}
            said = str(move["words"])
            hidden = view.hides_move(details, seat, viewer)
            words.append(view.view_move_words(details, said, str(move["player"]), seat, viewer) if hidden else said)
            # The raw text of a move (its log form) names every card: only when nothing is hidden.
            texts.append(None if hidden else str(move["text"]))
        stored_winners = self.row.get("winners")
        winners = [int(w) for w in (stored_winners if stored_winners is not None else [])]
        facts = [plural(len(names), "player"), plural(int(self.row["rounds"]), "round"), plural(self.total, "move")]
        if isinstance(self.row.get("played_at"), str) and self.row["played_at"]:
            facts.insert(0, f"played {self.row['played_at']}")
        changes = step_change_list(game, table, seats, names)
        chart, partial = self._chart(viewer)
        if lo > 0:  # the window's first position is not compared with the step before it
            changes[0] = [[who, phrases] for who, phrases in self._changes_at(viewer, lo)]
        return {
            "game": game,
            "title": view.TITLE,
            "game_id": str(self.row["game_id"]),
            "view": viewer.name,
            "names": names,
            "winners": winners,
            "facts": facts,
            "source": str(self.row.get("source_id") or self.row.get("file") or ""),
            "total": self.total,
            "lo": lo,
            "hi": hi,
            "moves": {
                "step": [int(m["step"]) for m in moves],
                "round": [int(m["round"]) for m in moves],
                "seat": [m["seat"] for m in moves],
                "words": words,
                "text": texts,
                # What the rules did by themselves after each move (None for games imported before
                # the database stored it), as the view saw it.
                "events": [view.view_move_events(list(m["events"]), names, viewer) if m.get("events") is not None
                           else None for m in moves],
            },
            "round_first": self._rounds(lo, hi),
            "table": runs(table, _columns(table)),
            "seats": [runs(rows, _columns(rows)) for rows in seats],
            # The VP chart covers the whole game whatever the window; a seat whose line leaves out what
            # the view may not see is marked in its legend.
            "chart": chart,
            "chart_hidden": partial,
            "chart_note": CHART_NOTE.format(unit=self.declared.score_unit[:1].upper() + self.declared.score_unit[1:]),
            # The score's words (``12 VP``, the chart's heading), as the game declares them.
            "score_unit": self.declared.score_unit,
            "score_name": self.declared.score_name,
            "changes": changes,
            "catalogue": view.board_catalogue(),
            # The end-of-game scoring under the board at the last step, as the view sees it (the game's
            # own table, its tie-break included: the board computes no rule).
            "scoring": self._scoring(viewer),
        }

    def _scoring(self, viewer: Viewer) -> dict[str, Any] | None:
        """The game's final scoring table (``GameView.final_scoring``) from the seats' rows at the last
        step as ``viewer`` sees them."""
        last = self.table[-1] if self.table else {}
        over = last.get("stage") == "over"
        rows = [self.view.view_seat_row(seat_rows[-1], seat, viewer, over) for seat, seat_rows in enumerate(self.seats)
                if seat_rows]
        return self.view.final_scoring(rows)

    def _rounds(self, lo: int, hi: int) -> dict[str, int]:
        """Each round's first move: every round of the window and, of a long game, about
        ``ROUND_POINTS`` others (the round box and the chart's ticks; a round jump past the window
        fetches the next)."""
        if len(self.round_first) <= ROUND_POINTS:
            return self.round_first
        stride = -(-len(self.round_first) // ROUND_POINTS)
        return {r: s for k, (r, s) in enumerate(self.round_first.items()) if lo <= s <= hi or k % stride == 0}

    def _changes_at(self, viewer: Viewer, step: int) -> list[list[Any]]:
        """What changed at ``step`` alone, as ``viewer`` sees it."""
        view = self.view
        table = [view.view_table_row(self.table[s], viewer) for s in (step - 1, step)]
        over = [r.get("stage") == "over" for r in self.table[step - 1:step + 1]]
        seats = [[view.view_seat_row(rows[s], seat, viewer, over[k]) for k, s in enumerate((step - 1, step))]
                 for seat, rows in enumerate(self.seats)]
        return step_change_list(self.game, table, seats, self.names)[1]


def game_payload(
    game_row: dict[str, Any],
    moves: pd.DataFrame | Rows,
    states: pd.DataFrame | Rows,
    player_states: pd.DataFrame | Rows,
    viewer: Viewer | None = None,
) -> dict[str, Any]:
    """The whole game as ``viewer`` sees it (default: everything), from its ``games`` row, its moves
    and its stored states (each a DataFrame or a list of row dicts, ordered by step and seat).

    Raises ``ValueError`` when a step has no stored state (the tables do not belong together)."""
    return PreparedGame(game_row, moves, states, player_states).payload(viewer or Viewer.everything())


# -- the window the browser holds ------------------------------------------------------------------


def window_bounds(total: int, step: int, size: int = WINDOW) -> tuple[int, int]:
    """The first and last step of the window of ``size`` steps the browser gets when it shows
    ``step`` (the whole game when it is no longer). Windows start at multiples of half their size,
    shifted by a quarter, so that ``step`` is at least a quarter of a window from either edge unless
    it is near an end of the game, and nearby steps share a window (made once, kept)."""
    if total <= size:
        return 0, total
    half = size // 2
    lo = max(0, min((step // half) * half - half // 2, total - size))
    return lo, lo + size


def _cut(pairs: list[list[Any]], lo: int, hi: int) -> list[list[Any]]:
    """The pairs of a run for steps ``lo`` to ``hi``, starting with the value at ``lo``."""
    at = bisect_right(pairs, lo, key=lambda p: p[0])
    first = [[lo, pairs[at - 1][1]]] if at else []
    end = bisect_right(pairs, hi, key=lambda p: p[0])
    return first + pairs[at:end]


def window(payload: dict[str, Any], step: int, size: int = WINDOW) -> dict[str, Any]:
    """What the browser gets of a view's ``payload`` when it shows ``step``: its states, moves and
    changes from ``lo`` to ``hi`` (``window_bounds``), the rest of the game (chart, rounds, catalogue)
    whole. The payload itself when the game fits in one window."""
    total = int(payload["total"])
    lo, hi = window_bounds(total, step, size)
    if (lo, hi) == (0, total):
        return payload
    moves = payload["moves"]
    first = bisect_right(moves["step"], lo)
    last = bisect_right(moves["step"], hi)
    return {
        **payload,
        "lo": lo,
        "hi": hi,
        "moves": {key: values[first:last] if isinstance(values, list) else values for key, values in moves.items()},
        "table": {column: _cut(pairs, lo, hi) for column, pairs in payload["table"].items()},
        "seats": [{column: _cut(pairs, lo, hi) for column, pairs in seat.items()} for seat in payload["seats"]],
        "changes": payload["changes"][lo:hi + 1],
    }


def log_payload(log: GameLog, name: str, viewer: Viewer | None = None, complete: bool = True) -> dict[str, Any]:
    """The payload (``game_payload``) of a game that is not in the database (a variation, a game in
    progress) as ``viewer`` sees it (default: everything), from the rows an import would store for it
    under the source ``name``; ``complete=False`` for a game that has not ended. Raises ``ValueError``
    when the game cannot be laid out as rows."""
    # Here, not at the top: the importer's modules are for these games only, not for every Replay page.
    from ingest.lake_write import expand_player_changes
    from ingest.rows import Batch, add_record

    batch = Batch()
    add_record(batch, LogRecord(name, 0, "", log, None), datetime.now(UTC), complete=complete)
    if batch.rejections:
        raise ValueError(batch.rejections[0]["message"])
    tables = batch.to_arrow()
    game = log.game
    _, seats = expand_player_changes(f"{game}_player_changes", tables[f"{game}_player_changes"])
    row = tables["games"].to_pylist()[0]
    moves = tables["moves"].to_pandas().drop(columns=["game_id"])
    states = tables[f"{game}_states"].to_pandas()
    return game_payload(row, moves, states, seats.to_pandas().sort_values(["step", "seat"]), viewer)
