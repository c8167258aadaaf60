"""What a Climb viewer may see: the one place that decides it (``replay.protocol.GameView``).

Everyone sees every ladder, the size of every hand and of the pile, and every move's kind. A seat also
sees its own hand, and the card it draws. Once the game is over every hand is shown. Nobody but
``everything`` sees the pile's order or another seat's hand before the end.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final

from replay.protocol import Viewer
from toy_game.cards import COPIES, HAND_LIMIT, HAND_START, ROUNDS, VALUES
from toy_game.state import Seat, Stage, ToyState

TITLE: Final = "Climb"


def sees_hand(viewer: Viewer, seat: int, over: bool) -> bool:
    """Whether ``viewer`` sees seat ``seat``'s hand: its own, or anyone's once the game is ``over``
    (the environments' observation vector asks it too, ``spaces.encode_state``)."""
    return over or viewer.sees_secrets_of(seat)


def view_state(state: ToyState, viewer: Viewer, names: Sequence[str] = ()) -> dict[str, Any]:
    """``Engine.to_view`` of ``state`` as ``viewer`` sees it: a hand it may not see has no ``hand``
    (its ``hand_size`` stays), nor a score (which counts the hand)."""
    from toy_game.engine import ENGINE  # the engine imports this module

    out = ENGINE.to_view(state, names)
    over = state.stage is Stage.OVER
    for player in out["players"]:
        if not sees_hand(viewer, player["seat"], over):
            for key in ("hand", "score", "score_parts"):
                player.pop(key, None)
    if not viewer.sees_everything and not over:
        out.pop("scores", None)
    return out


def view_table_row(row: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
    """The table row holds nothing secret (the pile is stored as its size)."""
    del viewer
    return dict(row)


def view_seat_row(row: dict[str, Any], seat: int, viewer: Viewer, over: bool) -> dict[str, Any]:
    """Seat ``seat``'s stored row as ``viewer`` sees it: without ``hand`` and ``vp`` (the score
    counts the hand) unless the viewer sees the seat's secrets or the game is over."""
    if sees_hand(viewer, seat, over):
        return dict(row)
    return {k: v for k, v in row.items() if k not in ("hand", "vp")}


def hides_move(details: dict[str, Any], seat: int | None, viewer: Viewer) -> bool:
    """A draw hides the card drawn from everyone but its seat."""
    return details.get("kind") == "draw" and not viewer.sees_secrets_of(seat)


def view_move_words(details: dict[str, Any], words: str, player: str, seat: int | None, viewer: Viewer) -> str:
    """The move as ``viewer`` saw it: ``words``, but a draw by another seat names no card."""
    return f"{player} draws a card" if hides_move(details, seat, viewer) else words


def view_move_events(events: Sequence[str], names: Sequence[str], viewer: Viewer) -> list[str]:
    """The events name no card: every viewer sees them."""
    del names, viewer
    return list(events)


def sees_decisions(seat: int, viewer: Viewer) -> bool:
    """A seat's legal climbs name the cards of its hand: only a viewer who sees the hand sees them."""
    return viewer.sees_secrets_of(seat)


def determinise(state: ToyState, seat: int, rng: random.Random) -> ToyState:
    """``state`` as ``seat`` might believe it to be: the cards it cannot see (the pile and, before the
    end, the other hands) pooled in value order and dealt again at random into the same places and
    sizes. Depends only on the seat's view and on ``rng``."""
    viewer = Viewer.of_seat(seat)
    over = state.stage is Stage.OVER
    hidden = [k for k in range(len(state.players)) if not sees_hand(viewer, k, over)]
    pool = sorted(list(state.pile) + [c for k in hidden for c in state.players[k].hand])
    rng.shuffle(pool)
    players = list(state.players)
    at = 0
    for k in hidden:
        size = len(players[k].hand)
        players[k] = Seat(tuple(sorted(pool[at:at + size])), players[k].ladder)
        at += size
    return replace(state, players=tuple(players), pile=tuple(pool[at:]))


def board_catalogue() -> dict[str, Any]:
    """The facts a board prints: the card values, copies, hand sizes and the number of rounds."""
    return {"values": list(VALUES), "copies": COPIES, "hand_start": HAND_START, "hand_limit": HAND_LIMIT,
            "rounds": ROUNDS}


def final_scoring(rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The scoring under the board at the end, from each seat's stored row at the last step as the
    viewer sees it (``view_seat_row``: every hand is shown then): the ladder, the hand (counted against
    the seat), the total and the tie-break, the ladder's length. A hand the rows leave out is None."""
    out: list[list[int | None]] = []
    for row in rows:
        # Stored lists may come as arrays (a database's rows): counted value by value, never by truth.
        stored, hand, vp = row.get("ladder"), row.get("hand"), row.get("vp")
        ladder = [] if stored is None else [int(v) for v in stored]
        out.append([sum(ladder), None if hand is None else -sum(int(v) for v in hand),
                    None if vp is None else int(vp), len(ladder)])
    return {"columns": ["ladder", "hand", "total", "tie-break (ladder length)"], "rows": out}
