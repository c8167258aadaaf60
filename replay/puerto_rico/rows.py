"""Puerto Rico's rows for the importer: the table's row of a state (or of a working table, which
answers the same), a seat's row, and the rows read off a game replayed in place, step by step.

Compiled with the rules (``replay.native``): the importer asks for these at every step of every
game, and laid out in interpreted code they cost more than the replay itself.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from replay.puerto_rico import scoring
from replay.puerto_rico.catalogue import CATALOGUE, GOODS, Good
from replay.puerto_rico.state import PlayerState, PuertoRicoState, Table


@lru_cache(maxsize=1024)
def role_doubloons(cards: tuple[str, ...], doubloons: tuple[int, ...]) -> tuple[str, ...]:
    """``card:doubloons`` for each role card left (labelled lists are made once per distinct supply:
    the importer asks for every state of every game, and supplies recur)."""
    return tuple(f"{c}:{d}" for c, d in zip(cards, doubloons))


@lru_cache(maxsize=1024)
def ships(capacity: tuple[int, ...], good: tuple[Good | None, ...], load: tuple[int, ...]) -> tuple[str, ...]:
    """``good load/capacity`` of each cargo ship (``empty 0/4``)."""
    return tuple(f"{g.value if g else 'empty'} {n}/{c}" for c, g, n in zip(capacity, good, load))


@lru_cache(maxsize=1024)
def goods_supply(supply: tuple[int, ...]) -> tuple[str, ...]:
    return tuple(f"{g.value}:{supply[i]}" for i, g in enumerate(GOODS))


@lru_cache(maxsize=1024)
def buildings_left(supply: tuple[int, ...]) -> tuple[str, ...]:
    return tuple(f"{b.name}:{n}" for b, n in zip(CATALOGUE, supply))


def supplies(state: PuertoRicoState | Table) -> dict[str, Any]:
    """The trading house, colonists, VP chips, plantations and quarries left: the same in the table's
    row and in the engine's view (``to_view``)."""
    return {
        "trading_house": [g.value for g in state.trading_house],
        "colonist_ship": state.colonist_ship,
        "colonist_supply": state.colonist_supply,
        "vp_chips_left": max(0, state.vp_chips_left),
        "face_up_plantations": list(state.face_up),
        "plantation_stack": len(state.plantation_stack),
        "plantation_discard": len(state.plantation_discard),
        "quarries_left": state.quarries,
    }


def global_row(state: PuertoRicoState | Table) -> dict[str, Any]:
    """The table's columns (``PuertoRicoEngine.global_schema``)."""
    role = state.role
    return {
        "round": state.round,
        "governor": state.governor,
        "stage": state.stage.value,
        "role": role.value if role is not None else None,
        "chooser": state.chooser,
        "to_act": state.current_seat,
        "roles_taken": [c for c, _ in state.roles_taken],
        "role_seats": [seat for _, seat in state.roles_taken],
        "role_doubloons": list(role_doubloons(tuple(state.role_cards), tuple(state.role_doubloons))),
        "ships": list(ships(tuple(state.ship_capacity), tuple(state.ship_good), tuple(state.ship_load))),
        **supplies(state),
        "goods_supply": list(goods_supply(tuple(state.goods_supply))),
        "buildings_left": list(buildings_left(tuple(state.building_supply))),
        "bank": state.bank,
        "end_triggers": list(state.end),
    }


def player_row(p: PlayerState) -> dict[str, Any]:
    """A seat's columns (``PuertoRicoEngine.player_schema``)."""
    total, parts = scoring.score_parts(p)
    goods = p.goods
    return {
        "vp": total,
        "vp_chips": parts["chips"],
        "vp_buildings": parts["buildings"],
        "vp_bonus": total - parts["chips"] - parts["buildings"],
        "doubloons": p.doubloons,
        "colonists_san_juan": p.san_juan,
        "colonists_placed": sum(p.island_workers) + sum(p.city_workers),
        "island": [k + ("*" if w else "") for k, w in zip(p.island, p.island_workers)],
        "city": list(p.city),
        "city_occupancy": list(p.city_workers),
        "city_spaces": p.city_spaces,
        "goods_corn": goods[0],
        "goods_indigo": goods[1],
        "goods_sugar": goods[2],
        "goods_tobacco": goods[3],
        "goods_coffee": goods[4],
        "goods_total": sum(goods),
        "buildings": len(p.city),
    }


class WorkingRows:
    """``replay.engine_base.StateRows`` of Puerto Rico's working table (``rules.Working``): ``view``
    is the table, which ``global_row``, ``step_info`` and ``describe_move`` read as they read a state;
    the seats the rules thawed for a change since the last call (``Table.freeze_seats``) get their
    row made again."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.started = False

    def view(self) -> Table:
        return self.table

    def changed(self) -> list[tuple[int, dict[str, Any]]]:
        t = self.table
        seats = t.freeze_seats()
        if not self.started:
            self.started = True
            seats = list(range(t.n))
        players = t.frozen_players
        return [(seat, player_row(players[seat])) for seat in seats]
