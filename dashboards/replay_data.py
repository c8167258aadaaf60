"""Everything the Replay page sends to the browser for one game, read from the stored tables.

The whole game goes to the page once (``game_payload``): every step's stored state, every move in
words, the VP of every seat, what changed at each step and the catalogue facts the board prints next
to a name. The browser then steps without asking the server. State columns are sent as runs
(``[[step, value], ...]``, one pair each time the value changes), so a hand that stays the same for
forty steps is sent once.

What a seat may not see is marked here, not in the browser: a San Juan hand (only its size is
public), the cards San Juan moves put face down (payments, chapel, councillor, hand limit, draft) and
Puerto Rico VP chips (face down until the game ends). The browser shows a view by picking the full or
the public form of each piece.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from dashboards.diff import step_changes
from replay.registry import engine_for
from replay.san_juan.cards import CARDS, TILES, Card

#: Views of the table: everything, what every player knows, or what one seat knows (``seat0`` ...).
VIEW_ALL, VIEW_PUBLIC = "all", "public"
SEAT_VIEW = re.compile(r"seat(\d)")

#: Columns of a seat's row that only that seat knows, by game.
PRIVATE_COLUMNS = {"san_juan": ("hand",), "puerto_rico": ("vp_chips", "vp")}
#: Key columns, not sent per step.
KEYS = ("game_id", "step", "seat")


# -- views and steps -------------------------------------------------------------------------------


def parse_view(text: str | None, player_count: int) -> tuple[str, str | None]:
    """The view named in the URL and a message when it was not understood (then the view is ``all``).

    ``all``, ``public`` or ``seatN`` with N a seat of the game (0 = the first governor)."""
    value = (text or VIEW_ALL).strip().lower()
    if value in (VIEW_ALL, VIEW_PUBLIC):
        return value, None
    found = SEAT_VIEW.fullmatch(value)
    if found and int(found.group(1)) < player_count:
        return value, None
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


# -- public forms of moves -------------------------------------------------------------------------


def _cards(n: int) -> str:
    return f"{n} card" + ("" if n == 1 else "s")


def _and(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def san_juan_public_words(details: dict[str, Any], player: str) -> str | None:
    """A San Juan move as the other players saw it, or None when nothing of it was hidden.

    Cards paid, tucked under a chapel, kept or discarded by the councillor, discarded to the hand
    limit and kept in the draft go face down: the table sees how many, not which."""
    kind = details.get("kind")
    if kind == "build":
        text = f"{player} builds {details.get('building')}"
        if details.get("replace"):
            text += f" over {details['replace']} (crane)"
        paid = [_cards(len(details.get("pay") or []))] if details.get("pay") else []
        paid += [f"1 {good} (black market)" for good in details.get("goods") or []]
        return text + (f", paying {_and(paid)}" if paid else "")
    if kind == "chapel":
        return f"{player} tucks a card under the chapel"
    if kind == "councillor":
        if details.get("discard") is not None:
            return f"{player} discards {_cards(len(details['discard']))} (archive)"
        return f"{player} keeps {_cards(len(details.get('keep') or []))} (councillor)"
    if kind == "hand_limit":
        return f"{player} discards {_cards(len(details.get('discard') or []))} to the hand limit"
    if kind == "draft":
        return f"{player} keeps {_cards(len(details.get('keep') or []))} (draft)"
    return None


#: The public form of a move by game; a game without one hides nothing in its moves.
PUBLIC_WORDS: dict[str, Callable[[dict[str, Any], str], str | None]] = {"san_juan": san_juan_public_words}


def public_row(game: str, row: dict[str, Any], over: bool) -> dict[str, Any]:
    """A seat's stored row without what only that seat knows (Puerto Rico chips count again once the
    game is over, when they are turned up)."""
    hidden = PRIVATE_COLUMNS.get(game, ())
    if game == "puerto_rico" and over:
        return row
    out = {k: v for k, v in row.items() if k not in hidden}
    if game == "puerto_rico" and "vp" in row:
        out["vp_showing"] = (row.get("vp") or 0) - (row.get("vp_chips") or 0)
    return out


# -- catalogue -------------------------------------------------------------------------------------


def san_juan_card_class(card: Card | None) -> str:
    """The colour class of a San Juan card: its good for production buildings, violet or monument."""
    if card is None:
        return "violet"
    if card.good is not None:
        return f"prod-{card.good.value}"
    if card.cost >= 6 or card.name in ("Statue", "Victory column", "Hero"):
        return "monument"
    return "violet"


def san_juan_catalogue() -> dict[str, Any]:
    """Cost, VP, colour class and good of every San Juan card, and the trading-house tiles' prices."""
    cards = {
        name: {"cost": c.cost, "vp": c.vp, "cls": san_juan_card_class(c), "good": c.good.value if c.good else None}
        for name, c in CARDS.items()
    }
    tiles = {str(n): [[g.value, p] for g, p in prices.items()] for n, prices in TILES.items()}
    return {"cards": cards, "tiles": tiles}


def puerto_rico_catalogue() -> dict[str, Any]:
    """Cost, VP, colonist circles, good and size of every Puerto Rico building."""
    from replay.puerto_rico.catalogue import BUILDINGS

    cards = {}
    for name, b in BUILDINGS.items():
        cls = f"prod-{b.good.value}" if b.good is not None else "violet"
        if b.large:
            cls += " large monument"
        cards[name] = {"cost": b.cost, "vp": b.vp, "circles": b.circles, "cls": cls, "large": bool(b.large)}
    return {"cards": cards}


CATALOGUES: dict[str, Callable[[], dict[str, Any]]] = {
    "san_juan": san_juan_catalogue, "puerto_rico": puerto_rico_catalogue,
}


# -- the payload -----------------------------------------------------------------------------------


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
    """Each column as ``[[step, value], ...]``: a pair at the first step and whenever the value changes."""
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


def step_change_list(
    game: str,
    table: Sequence[dict[str, Any]],
    seats: Sequence[Sequence[dict[str, Any]]],
    names: Sequence[str],
) -> list[list[list[Any]]]:
    """What changed at every step, in the game's words (``dashboards.diff.step_changes``): per step a
    list of ``[who, phrases, public_phrases]``, ``who`` being ``-1`` for the table or a seat;
    ``public_phrases`` is None when the public view sees the same."""
    secret = tuple(engine_for(game).change_words.get("secret", ()))
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
                items.append([-1, found[0][1], None])
        for seat, rows in enumerate(seats):
            old, new = changed(rows[step - 1], rows[step])
            if not new:
                continue
            old["seat"] = new["seat"] = seat
            # One seat at a time (an empty table row), so two players of the same name stay apart.
            full = step_changes(game, {}, {}, [old], [new], names)
            if not full:
                continue
            public = full[0][1]
            if any(k in new for k in secret):
                seen = step_changes(game, {}, {}, [old], [new], names, public=True)
                public = seen[0][1] if seen else []
            items.append([seat, full[0][1], None if public == full[0][1] else public])
        out.append(items)
    return out


def game_payload(
    game_row: dict[str, Any],
    moves: pd.DataFrame | Rows,
    states: pd.DataFrame | Rows,
    player_states: pd.DataFrame | Rows,
) -> dict[str, Any]:
    """The whole game for the browser, from its ``games`` row, its moves and its stored states (each a
    DataFrame or a list of row dicts, ordered by step and seat).

    Raises ``ValueError`` when a step has no stored state (the tables do not belong together)."""
    game = str(game_row["game"])
    names = [str(n) for n in game_row["players"]]
    move_records = _records(moves)
    total = max((int(m["step"]) for m in move_records), default=0)
    table = _records(states)
    if [r["step"] for r in table] != list(range(total + 1)):
        raise ValueError(f"game {game_row['game_id']}: stored states do not cover steps 0 to {total}")
    seat_rows: list[list[dict[str, Any]]] = [[] for _ in names]
    for row in _records(player_states):
        if 0 <= int(row["seat"]) < len(names):
            seat_rows[int(row["seat"])].append(row)
    for seat, rows in enumerate(seat_rows):
        if len(rows) != total + 1:
            raise ValueError(f"game {game_row['game_id']}: seat {seat} has {len(rows)} stored states, not {total + 1}")
    table_columns = [c for c in table[0] if c not in KEYS]
    seat_columns = [c for c in seat_rows[0][0] if c not in KEYS] if seat_rows else []
    public_words = PUBLIC_WORDS.get(game)
    words_public: list[str | None] = []
    for move in move_records:
        text = None
        if public_words is not None and move.get("details"):
            try:
                text = public_words(json.loads(move["details"]), str(move["player"]))
            except (ValueError, TypeError):
                text = None
        words_public.append(text if text != move["words"] else None)
    # Each round's first move, so "round k" can jump to the position before it.
    round_first: dict[str, int] = {}
    for move in move_records:
        round_first.setdefault(str(move["round"]), int(move["step"]))
    vp_public = None
    if game == "puerto_rico":
        # Chips lie face down until the end: the table sees the VP of the buildings until then.
        vp_public = [
            runs([{"step": r["step"], "vp": public_row(game, r, table[r["step"]].get("stage") == "over").get(
                "vp_showing", r.get("vp"))} for r in rows], ["vp"])["vp"]
            for rows in seat_rows
        ]
    stored_winners = game_row.get("winners")
    winners = [int(w) for w in (stored_winners if stored_winners is not None else [])]
    facts = [f"{len(names)} players", f"{int(game_row['rounds'])} rounds", f"{total} moves"]
    if isinstance(game_row.get("played_at"), str) and game_row["played_at"]:
        facts.insert(0, f"played {game_row['played_at']}")
    return {
        "game": game,
        "game_id": str(game_row["game_id"]),
        "names": names,
        "winners": winners,
        "facts": facts,
        "source": str(game_row.get("source_id") or game_row.get("file") or ""),
        "total": total,
        "moves": {
            "step": [int(m["step"]) for m in move_records],
            "round": [int(m["round"]) for m in move_records],
            "seat": [m["seat"] for m in move_records],
            "words": [str(m["words"]) for m in move_records],
            "public": words_public,
            "text": [str(m["text"]) for m in move_records],
            # What the rules did by themselves after each move (None for games imported before
            # the database stored it).
            "events": [list(m["events"]) if m.get("events") is not None else None for m in move_records],
        },
        "round_first": round_first,
        "table": runs(table, table_columns),
        "seats": [runs(rows, seat_columns) for rows in seat_rows],
        "vp_public": vp_public,
        "private": list(PRIVATE_COLUMNS.get(game, ())),
        "changes": step_change_list(game, table, seat_rows, names),
        "catalogue": CATALOGUES[game]() if game in CATALOGUES else {},
    }
