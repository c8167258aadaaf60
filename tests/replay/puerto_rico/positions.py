"""Small hand-made Puerto Rico positions for rule tests.

A position is a ``PuertoRicoState`` built directly from the frozen dataclasses, with only what a test
needs on the table (the conservation of a real game does not apply). The usual way to test a role is
``at_role(...)`` (a seat about to choose a role) followed by ``play(...)``, so the phase starts exactly
as it does in a game.
"""

from __future__ import annotations

from collections.abc import Sequence

from replay.puerto_rico import rules
from replay.puerto_rico.catalogue import CATALOGUE, GOOD_INDEX, GOODS, GOODS_SUPPLY, SETUPS, Good, role_cards
from replay.puerto_rico.moves import PuertoRicoMove
from replay.puerto_rico.state import PlayerState, PuertoRicoState, Stage


def seat(
    doubloons: int = 0,
    island: Sequence[str] = (),
    occupied: Sequence[int] | None = None,
    city: Sequence[str] = (),
    workers: Sequence[int] | None = None,
    san_juan: int = 0,
    goods: dict[Good, int] | None = None,
    vp_chips: int = 0,
) -> PlayerState:
    """One seat. ``occupied`` defaults to every tile occupied, ``workers`` to every building full."""
    from replay.puerto_rico.catalogue import BUILDINGS

    goods = goods or {}
    return PlayerState(
        doubloons=doubloons,
        vp_chips=vp_chips,
        island=tuple(island),
        island_workers=tuple(occupied) if occupied is not None else tuple(1 for _ in island),
        city=tuple(city),
        city_workers=tuple(workers) if workers is not None else tuple(BUILDINGS[b].circles for b in city),
        san_juan=san_juan,
        goods=tuple(goods.get(g, 0) for g in GOODS),  # type: ignore[arg-type]
    )


def position(
    players: Sequence[PlayerState],
    *,
    governor: int = 0,
    round: int = 1,
    roles_taken: Sequence[tuple[str, int]] = (),
    role_doubloons: Sequence[int] | None = None,
    face_up: Sequence[str] = ("corn", "indigo", "sugar", "coffee"),
    stack: Sequence[str] = ("tobacco",) * 10,
    discard: Sequence[str] = (),
    quarries: int = 8,
    colonist_ship: int | None = None,
    colonist_supply: int | None = None,
    vp_chips_left: int | None = None,
    goods_supply: dict[Good, int] | None = None,
    building_supply: dict[str, int] | None = None,
    ships: Sequence[tuple[Good | None, int]] | None = None,
    trading_house: Sequence[Good] = (),
    end: Sequence[str] = (),
    reshuffles: Sequence[Sequence[str]] = (),
    shuffle_seed: int | None = None,
) -> PuertoRicoState:
    """A state at a role choice (the seat after the roles taken so far chooses next)."""
    n = len(players)
    conf = SETUPS[n]
    supply = dict(GOODS_SUPPLY)
    supply.update(goods_supply or {})
    buildings = {b.name: b.copies for b in CATALOGUE}
    buildings.update(building_supply or {})
    cards = role_cards(n)
    ships = ships or [(None, 0)] * 3
    return PuertoRicoState(
        players=tuple(players),
        governor=governor,
        round=round,
        step=0,
        stage=Stage.ROLE,
        role=None,
        chooser=None,
        queue=(),
        role_cards=cards,
        role_doubloons=tuple(role_doubloons) if role_doubloons is not None else (0,) * len(cards),
        roles_taken=tuple(roles_taken),
        plantation_stack=tuple(stack),
        face_up=tuple(face_up),
        plantation_discard=tuple(discard),
        quarries=quarries,
        colonist_ship=conf.colonist_ship if colonist_ship is None else colonist_ship,
        colonist_supply=conf.colonist_supply if colonist_supply is None else colonist_supply,
        vp_chips_left=conf.vp_chips if vp_chips_left is None else vp_chips_left,
        bank=50,
        goods_supply=tuple(supply[g] for g in GOODS),  # type: ignore[arg-type]
        building_supply=tuple(buildings[b.name] for b in CATALOGUE),
        ship_capacity=conf.ships,
        ship_good=tuple(g for g, _ in ships),
        ship_load=tuple(k for _, k in ships),
        trading_house=tuple(trading_house),
        hacienda_done=False,
        craft_kinds=(),
        captain_paid=False,
        wharf_used=(),
        idle=0,
        end=tuple(end),
        reshuffles=tuple(tuple(r) for r in reshuffles),
        reshuffles_used=(),
        shuffle_seed=shuffle_seed,
    )


def at_role(players: Sequence[PlayerState], chooser: int = 0, **kwargs: object) -> PuertoRicoState:
    """A position where ``chooser`` is the governor about to choose the first role of a round."""
    return position(players, governor=chooser, **kwargs)  # type: ignore[arg-type]


def play(state: PuertoRicoState, *moves: PuertoRicoMove) -> PuertoRicoState:
    """Apply ``moves`` in turn (each checked)."""
    for move in moves:
        state = rules.apply(state, move)
    return state


def defaults(state: PuertoRicoState) -> PuertoRicoState:
    """Take every decision a log may leave out here (storage keeping the most, when that outcome is
    unique), as the replayer does when the log's next move is not the seat's."""
    while rules.default_move(state) is not None:
        state = rules.apply_default(state)
    return state


def goods(state: PuertoRicoState, seat_: int) -> dict[str, int]:
    """A seat's goods as a name -> count map without zeros."""
    return {g.value: n for g, n in zip(GOODS, state.players[seat_].goods) if n}


def supply(state: PuertoRicoState, good: Good) -> int:
    return state.goods_supply[GOOD_INDEX[good]]


C, I, S, T, K = Good.CORN, Good.INDIGO, Good.SUGAR, Good.TOBACCO, Good.COFFEE  # noqa: E741
