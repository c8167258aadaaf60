"""What the Play page sends to the browser for one seat of a game in progress, made on the server.

The board is the Replay page's (``dashboards.replay_data``): the game so far (``play.session.game_log``)
laid out as the rows an import would store (as the What-if panel lays out a variation) and seen
through the game's own view in the player's seat (``Viewer.of_seat``), so the browser never receives
another seat's hand, the deck's order or any other hidden card. The legal moves are the seat's own
(``play.shown.seat_view``): each with its text form (what ``governor replay`` prints), its words and
its JSON form. A kind of move with very many variants (a decision that may place pieces in
thousands of ways) is sent as its parts only (``parts_of``): the browser assembles one and the server
checks it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from dashboards.replay_data import log_payload
from play.session import Session, game_log
from play.shown import seat_view
from replay.protocol import Viewer

#: Legal moves sent one by one at most (about 250 bytes each); past it, a kind with more than
#: ``MAX_KIND`` variants is sent as its parts (each kind with fewer still goes whole).
MAX_MOVES = 2000
MAX_KIND = 1000


def board_payload(session: Session, seat: int) -> dict[str, Any]:
    """The Replay board's payload of the game so far in ``seat``'s view (every step, as the seat saw
    it). Raises ``ValueError`` when the game cannot be laid out as rows (never for a game the store
    folded: each move was checked)."""
    data = log_payload(game_log(session), f"governor play {session.id}", Viewer.of_seat(seat), complete=session.over)
    data["game_id"] = session.id
    data["source"] = "this game"
    if not session.over:
        # The rows of an unfinished game name the leader as winner: nobody has won yet.
        data["winners"] = []
        data["unfinished"] = True
    return data


def parts_of(moves: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """What a kind of move is made of, from the JSON forms of its variants: for each field, ``scalar``
    (its values), ``list`` (the items it may hold, each with the most times it is held) or ``map`` (its
    keys, each with the largest count). The browser builds one of these and the server checks it."""
    fields: dict[str, dict[str, Any]] = {}
    for move in moves:
        for name, value in move.items():
            if name == "kind":
                continue
            field = fields.setdefault(name, {"type": None, "values": {}})
            if isinstance(value, list):
                field["type"] = "list"
                counts: dict[str, int] = {}
                for item in value:
                    counts[str(item)] = counts.get(str(item), 0) + 1
                for item, n in counts.items():
                    field["values"][item] = max(n, field["values"].get(item, 0))
            elif isinstance(value, dict):
                field["type"] = "map"
                for key, n in value.items():
                    if isinstance(n, int):
                        field["values"][str(key)] = max(n, field["values"].get(str(key), 0))
            else:
                field["type"] = field["type"] or "scalar"
                field["values"][json.dumps(value)] = 1
    out = {}
    for name, field in fields.items():
        if field["type"] == "scalar":
            out[name] = {"type": "scalar", "values": [json.loads(v) for v in field["values"]]}
        else:
            out[name] = {"type": field["type"], "values": [[k, n] for k, n in field["values"].items()]}
    return out


def legal_for_browser(legal: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The seat's legal moves (``seat_view``'s ``legal``) as the browser gets them: ``moves`` (each
    ``text``, ``words``, ``move``), and ``parts`` for each kind sent as its parts only (``parts_of``,
    with its ``count`` of variants): the browser assembles one of those."""
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for item in legal:
        by_kind.setdefault(str(item["move"].get("kind")), []).append(item)
    sent: list[dict[str, Any]] = []
    parts: dict[str, Any] = {}
    whole = len(legal) <= MAX_MOVES
    for kind, items in by_kind.items():
        if whole or len(items) <= MAX_KIND:
            sent += [{"text": i["text"], "words": i["words"], "move": i["move"]} for i in items]
        else:
            parts[kind] = {"count": len(items), "fields": parts_of([i["move"] for i in items])}
    return {"moves": sent, "parts": parts}


def play_data(session: Session, seat: int) -> dict[str, Any]:
    """Everything the Play page's board component gets for ``seat`` (a person's seat): the board's
    payload, the seat's legal moves when it decides now, and the game's standing (version, who is to
    act, whether it is over, its result)."""
    view = seat_view(session, seat)
    data = {
        "id": session.id, "version": session.version, "seat": seat, "names": view["names"], "title": view["title"],
        "to_act": view["to_act"], "human_to_act": view["human_to_act"], "over": view["over"],
        "humans": view["humans"], "asked": view["asked"], "result": view.get("result"),
        "legal": legal_for_browser(view["legal"]),
        "board": board_payload(session, seat),
    }
    return data
