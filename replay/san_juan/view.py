"""What a San Juan viewer may see: the one place that decides it (``replay.protocol.GameView``).

Everyone sees every city, the goods' kinds (not the cards lying face down as goods), the number of
cards in each hand, chapel and pile, the trading-house tile turned up, and every move's kind. A seat
also sees its own hand and chapel and the cards it is looking at (a councillor's draw). Nobody but
``everything`` sees other hands, the cards paid for a building, tucked under a chapel, kept or
discarded by a councillor, discarded to the hand limit or kept in the draft, the draw and discard
piles, or the next trading-house tile.

The Replay page, "what changed", the What-if panel, the analysis' determinisation (``determinise``)
and agent observations all read this module; nothing else decides what is hidden.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final

from replay.protocol import Viewer
from replay.san_juan.cards import CARDS, CITY_SIZE_TO_END, ORDER, TILES, Card, Power, Role, sort_cards
from replay.san_juan.state import SanJuanState, Stage
from replay.words import and_list, plural

#: Stored seat columns only the seat (and ``everything``) sees.
SECRET_SEAT_COLUMNS: Final = ("hand",)
#: Stored table columns only ``everything`` sees: the face-down tiles' order.
SECRET_TABLE_COLUMNS: Final = ("next_tile",)
#: Move kinds whose cards go face down: the table sees how many, not which.
HIDDEN_KINDS: Final = frozenset({"build", "chapel", "councillor", "hand_limit", "draft"})

#: The game's name as players write it.
TITLE: Final = "San Juan"

# -- states ----------------------------------------------------------------------------------------


def view_state(state: SanJuanState, viewer: Viewer, names: Sequence[str] = ()) -> dict[str, Any]:
    """``Engine.to_view`` of ``state`` as ``viewer`` sees it. A seat whose secrets the viewer does not
    see has no ``hand`` (its ``hand_size`` stays); the cards being looked at become ``looking_count``
    unless the viewer is the seat looking at them; ``next_tile`` is left out but for ``everything``."""
    from replay.registry import engine_for  # the engine imports this module

    out = engine_for("san_juan").to_view(state, names)
    if viewer.sees_everything:
        return out
    out.pop("next_tile", None)
    for player in out["players"]:
        if not sees_hand(viewer, player["seat"]):
            player.pop("hand", None)
    if not sees_looking(state, viewer):
        out["looking_count"] = len(out.pop("looking"))
    return out


def sees_hand(viewer: Viewer, seat: int) -> bool:
    """Whether ``viewer`` sees the cards in seat ``seat``'s hand (its own, or everything). Raises
    nothing."""
    return viewer.sees_secrets_of(seat)


def sees_looking(state: SanJuanState, viewer: Viewer) -> bool:
    """Whether ``viewer`` sees the cards set aside for the seat to act (its own councillor's draw);
    others see only how many. Raises nothing."""
    if viewer.sees_everything:
        return True
    acting = state.queue[0] if state.stage is Stage.PHASE and state.queue else None
    return acting is not None and viewer.sees_secrets_of(acting)


def determinise(state: SanJuanState, seat: int, rng: random.Random) -> SanJuanState:
    """``state`` as ``seat`` might believe it to be: what ``view_state`` hides from the seat (other
    hands and chapels, the face-down goods, both piles, others' looked-at cards) pooled in catalogue
    order and dealt again at random into the same places and sizes; the unseen tiles shuffled; future
    reshuffles drawn from a fresh seed. The seat's view of the result equals its view of ``state``, and
    the result depends only on that view and on ``rng``."""
    viewer = Viewer.of_seat(seat)
    own_look = sees_looking(state, viewer)
    pool: list[str] = list(state.draw_pile) + list(state.discard)
    if not own_look:
        pool.extend(state.looking)
    for other, player in enumerate(state.players):
        pool.extend(g for g in player.goods if g is not None)
        if not viewer.sees_secrets_of(other):
            pool.extend(player.hand)
            pool.extend(player.chapel)
    pool.sort(key=ORDER.__getitem__)
    rng.shuffle(pool)
    position = 0

    def deal(count: int) -> tuple[str, ...]:
        nonlocal position
        cards = tuple(pool[position:position + count])
        position += count
        return cards

    players = []
    for other, player in enumerate(state.players):
        goods = tuple(deal(1)[0] if g is not None else None for g in player.goods)
        if viewer.sees_secrets_of(other):
            players.append(replace(player, goods=goods))
        else:
            hand = sort_cards(list(deal(len(player.hand))))
            chapel = sort_cards(list(deal(len(player.chapel))))
            players.append(replace(player, hand=hand, chapel=chapel, goods=goods))
    looking = state.looking if own_look else deal(len(state.looking))
    draw_pile = deal(len(state.draw_pile))
    discard = deal(len(state.discard))
    assert position == len(pool)
    # The tile on the table during a trader phase is seen; tiles of earlier cycles count as unseen
    # (conservative: never a leak).
    seen = state.tile_index + (1 if state.tile is not None else 0)
    rest = sorted(state.tiles[seen:])
    rng.shuffle(rest)
    return replace(
        state,
        players=tuple(players),
        draw_pile=draw_pile,
        discard=discard,
        looking=looking,
        tiles=state.tiles[:seen] + tuple(rest),
        reshuffles=(),
        shuffle_seed=rng.randrange(2**62),
    )


# -- stored rows -----------------------------------------------------------------------------------


def view_table_row(row: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
    """A stored ``san_juan_states`` row as ``viewer`` sees it: without ``next_tile`` but for
    ``everything``."""
    if viewer.sees_everything:
        return dict(row)
    return {k: v for k, v in row.items() if k not in SECRET_TABLE_COLUMNS}


def view_seat_row(row: dict[str, Any], seat: int, viewer: Viewer, over: bool) -> dict[str, Any]:
    """Seat ``seat``'s stored ``san_juan_player_states`` row as ``viewer`` sees it: without ``hand``
    (``hand_size`` stays) unless the viewer sees the seat's secrets. A hand stays secret at the end."""
    del over  # nothing is turned up when a San Juan game ends
    if viewer.sees_secrets_of(seat):
        return dict(row)
    return {k: v for k, v in row.items() if k not in SECRET_SEAT_COLUMNS}


# -- moves -----------------------------------------------------------------------------------------


def hides_move(details: dict[str, Any], seat: int | None, viewer: Viewer) -> bool:
    """Whether cards of the move went face down where ``viewer`` cannot see them: a build paid with
    cards, a chapel, a councillor's choice, a discard to the hand limit, a draft."""
    if viewer.sees_secrets_of(seat):
        return False
    kind = details.get("kind")
    if kind == "build":
        return bool(details.get("pay"))
    return kind in HIDDEN_KINDS


def sees_decisions(seat: int, viewer: Viewer) -> bool:
    """Whether ``viewer`` may see ``seat``'s legal decisions: only when it sees the seat's hand (the
    buildings a seat can build name cards of its hand)."""
    return viewer.sees_secrets_of(seat)


def _cards(n: int) -> str:
    return plural(n, "card")


def public_words(details: dict[str, Any], player: str) -> str | None:
    """A move as the other players saw it, or None when nothing of it was hidden (the kinds of goods
    spent at the black market are seen; the cards paid are counted)."""
    kind = details.get("kind")
    if kind == "build":
        text = f"{player} builds {details.get('building')}"
        if details.get("replace"):
            text += f" over {details['replace']} (crane)"
        paid = [_cards(len(details.get("pay") or []))] if details.get("pay") else []
        paid += [f"1 {good} (black market)" for good in details.get("goods") or []]
        return text + (f", paying {and_list(paid)}" if paid else "")
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


def view_move_events(events: Sequence[str], names: Sequence[str], viewer: Viewer) -> list[str]:
    """A move's recorded events in words, as every viewer saw them: they name counts of cards (drawn,
    kept, discarded), never a hidden card."""
    del names, viewer
    return list(events)


def view_move_words(details: dict[str, Any], words: str, player: str, seat: int | None, viewer: Viewer) -> str:
    """The move as ``viewer`` saw it: ``words`` when it sees all of it, else ``public_words``."""
    if not hides_move(details, seat, viewer):
        return words
    return public_words(details, player) or words


# -- what the board prints -------------------------------------------------------------------------


def card_class(card: Card | None) -> str:
    """The colour class of a card: its good for production buildings, monument, or violet."""
    if card is None:
        return "violet"
    if card.good is not None:
        return f"prod-{card.good.value}"
    if card.cost >= 6 or card.power is Power.MONUMENT:
        return "monument"
    return "violet"


def _vp_text(card: Card) -> str:
    # The buildings of cost 6 print no VP of their own: they score a bonus at the end.
    return "bonus" if card.cost == 6 else f"{card.vp} VP"


def board_catalogue() -> dict[str, Any]:
    """Cost, VP (and how the card prints it), colour class and good of every card, the
    trading-house tiles' prices, the roles and the number of buildings that ends the game."""
    cards = {
        name: {"cost": c.cost, "vp": c.vp, "cls": card_class(c), "good": c.good.value if c.good else None,
               "vp_text": _vp_text(c)}
        for name, c in CARDS.items()
    }
    tiles = {str(n): [[g.value, p] for g, p in prices.items()] for n, prices in TILES.items()}
    return {"cards": cards, "tiles": tiles, "roles": [r.value for r in Role], "city_size": CITY_SIZE_TO_END}


def final_scoring(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The end-of-game scoring by source under the board, from each seat's stored row at the last step
    as the viewer sees it (``view_seat_row``): buildings, chapel, bonuses, the total and the rules'
    tie-break (cards in hand plus goods, ``scoring.score``)."""
    out = []
    for row in rows:
        goods = row.get("goods")
        out.append([row.get("vp_buildings"), row.get("vp_chapel"), row.get("vp_bonus"), row.get("vp"),
                    int(row.get("hand_size") or 0) + (0 if goods is None else len(goods))])
    return {"columns": ["buildings", "chapel", "bonuses", "total", "tie-break (hand + goods)"], "rows": out}
