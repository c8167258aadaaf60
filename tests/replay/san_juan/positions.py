"""Small hand-made San Juan positions for rule tests.

A position is a ``SanJuanState`` built directly from the frozen dataclasses: only the cards a test
needs are on the table (the 110-card conservation of a real game does not apply here). The usual way
to test a role is ``at_role(...)`` (a seat about to choose a role) followed by ``play(...)``, so the
phase starts exactly as it does in a game.
"""

from __future__ import annotations

from collections.abc import Sequence

from replay.san_juan import rules
from replay.san_juan.cards import CARDS, Good, Role, sort_cards
from replay.san_juan.moves import SanJuanMove
from replay.san_juan.state import PlayerState, SanJuanState, Stage, Table, role_order, seats_from

IP = "Indigo plant"
SM = "Sugar mill"
TS = "Tobacco storage"
CR = "Coffee roaster"
SS = "Silver smelter"

#: A filler card that no rule reacts to, for hands and piles.
FILL = "Statue"


def seat(
    hand: Sequence[str] = (),
    buildings: Sequence[str] = (IP,),
    goods: dict[int, str] | None = None,
    chapel: Sequence[str] = (),
    covered: Sequence[str] = (),
    library_used: bool = False,
) -> PlayerState:
    """One seat. ``goods`` maps a building index to the card lying on it as a good."""
    goods = goods or {}
    return PlayerState(
        hand=sort_cards(list(hand)),
        buildings=tuple(buildings),
        goods=tuple(goods.get(i) for i in range(len(buildings))),
        chapel=tuple(chapel),
        covered=tuple(covered),
        library_used=library_used,
    )


def position(
    players: Sequence[PlayerState],
    *,
    draw: Sequence[str] = (),
    discard: Sequence[str] = (),
    stage: Stage = Stage.ROLE,
    role: Role | None = None,
    chooser: int | None = None,
    library: bool = False,
    queue: Sequence[int] | None = None,
    governor: int = 0,
    role_turn: int = 0,
    roles_taken: Sequence[tuple[Role, int]] = (),
    tiles: Sequence[int] = (1, 2, 3, 4, 5),
    tile_index: int = 0,
    tile: int | None = None,
    round_number: int = 1,
    looking: Sequence[str] = (),
    reshuffles: Sequence[Sequence[str]] = (),
    shuffle_seed: int | None = None,
    draft: bool = False,
) -> SanJuanState:
    """A whole table. With a phase in progress and no ``queue``, every seat from the chooser is to act;
    with the trader in progress and no ``tile``, the next tile is face up. A round-start stage (draft,
    chapel, hand limit) skips the seats with nothing to decide, possibly into the next stage."""
    n = len(players)
    if queue is None:
        if stage is Stage.PHASE:
            queue = seats_from(chooser if chooser is not None else governor, n)
        elif stage in (Stage.CHAPEL, Stage.HAND_LIMIT, Stage.DRAFT):
            queue = seats_from(governor, n)
        else:
            queue = ()
    if stage is Stage.PHASE and role is Role.TRADER and tile is None:
        tile = tuple(tiles)[tile_index]
    state = SanJuanState(
        players=tuple(players),
        draw_pile=tuple(draw),
        discard=tuple(discard),
        tiles=tuple(tiles),
        tile_index=tile_index,
        tile=tile,
        round=round_number,
        governor=governor,
        role_turn=role_turn,
        roles_taken=tuple(roles_taken),
        stage=stage,
        role=role,
        chooser=chooser,
        library=library,
        queue=tuple(queue),
        looking=tuple(looking),
        step=0,
        reshuffles=tuple(tuple(r) for r in reshuffles),
        reshuffles_used=(),
        shuffle_seed=shuffle_seed,
        draft=draft,
    )
    if stage in (Stage.DRAFT, Stage.CHAPEL, Stage.HAND_LIMIT):
        # Skip the seats with nothing to decide, as the game does at the start of a stage.
        table = Table(state)
        rules._advance(table)
        state = table.freeze()
    return state


def at_role(players: Sequence[PlayerState], chooser: int = 0, **kwargs: object) -> SanJuanState:
    """A table where ``chooser`` is the governor and about to choose the first role of the round."""
    return position(players, stage=Stage.ROLE, governor=chooser, role_turn=0, **kwargs)  # type: ignore[arg-type]


def play(state: SanJuanState, *moves: SanJuanMove) -> SanJuanState:
    """Apply ``moves`` one after the other with the checked ``apply``."""
    for move in moves:
        state = rules.apply(state, move)
    return state


def goods_of(state: SanJuanState, seat_index: int) -> list[Good | None]:
    """The good lying on each building of a seat, by kind (None for an empty building or a violet one)."""
    player = state.players[seat_index]
    return [CARDS[b].good if g is not None else None for b, g in zip(player.buildings, player.goods)]


def chooser_seat(state: SanJuanState) -> int:
    """The seat that chooses the next role."""
    return role_order(state.governor, state.num_players)[state.role_turn]
