"""What a San Juan seat cannot see, and a determinisation: the same table with every hidden card
dealt again at random, so that analysis rollouts never use information the seat does not have.

A seat sees its own hand and chapel, every city, the number of cards everywhere, the cards it is
looking at (a councillor's or gold mine's draw) and the trading-house tiles already turned up. It does
not see other hands, other chapels, the face-down goods, the draw and discard piles, the order of the
tiles still to come, or the orders of future reshuffles.
"""

from __future__ import annotations

import random
from dataclasses import replace

from replay.san_juan.cards import ORDER, sort_cards
from replay.san_juan.state import SanJuanState, Stage


def _tiles_seen(state: SanJuanState) -> int:
    """How many tiles from ``tile_index`` on the seat has seen: the one on the table during a trader
    phase. (Tiles of earlier cycles are treated as unseen: conservative, never a leak.)"""
    return 1 if state.tile is not None else 0


def determinise(state: SanJuanState, seat: int, rng: random.Random) -> SanJuanState:
    """``state`` as ``seat`` might believe it to be: the hidden cards (other hands and chapels,
    face-down goods, both piles, and others' looked-at cards) pooled in catalogue order and dealt
    again at random into the same places and sizes; the unseen tiles shuffled; future reshuffles
    drawn from a fresh seed. The result depends only on what ``seat`` sees and on ``rng``."""
    pool: list[str] = list(state.draw_pile) + list(state.discard)
    own_look = state.stage is Stage.PHASE and bool(state.queue) and state.queue[0] == seat
    if not own_look:
        pool.extend(state.looking)
    for other, player in enumerate(state.players):
        pool.extend(g for g in player.goods if g is not None)
        if other != seat:
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
        if other == seat:
            players.append(replace(player, goods=goods))
        else:
            hand = sort_cards(list(deal(len(player.hand))))
            chapel = sort_cards(list(deal(len(player.chapel))))
            players.append(replace(player, hand=hand, chapel=chapel, goods=goods))
    looking = state.looking if own_look else deal(len(state.looking))
    draw_pile = deal(len(state.draw_pile))
    discard = deal(len(state.discard))
    assert position == len(pool)
    seen = state.tile_index + _tiles_seen(state)
    rest = list(state.tiles[seen:])
    rest.sort()
    rng.shuffle(rest)
    tiles = state.tiles[:seen] + tuple(rest)
    return replace(
        state,
        players=tuple(players),
        draw_pile=draw_pile,
        discard=discard,
        looking=looking,
        tiles=tiles,
        reshuffles=(),
        shuffle_seed=rng.randrange(2**62),
    )
