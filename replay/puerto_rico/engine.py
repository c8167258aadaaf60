"""The Puerto Rico engine: the protocol of ``replay.protocol.Engine`` over the rules of this package."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from replay.engine_base import ReshufflingEngine
from replay.logfile import GameLog
from replay.protocol import Engine, Rules, StateRows
from replay.puerto_rico import GAME, change_words, events, rows, rules, scoring
from replay.puerto_rico.arrangements import colonists_to_place
from replay.puerto_rico.catalogue import BUILDINGS, CATALOGUE, GOODS, QUARRY, Power, role_of
from replay.puerto_rico.moves import (
    WHARF,
    Build,
    ChooseRole,
    ExtraGood,
    Hacienda,
    Load,
    Mayor,
    Pass,
    Produce,
    PuertoRicoMove,
    Sell,
    Settle,
    Store,
    other_deciders,
    parse_move,
    with_parts_from,
)
from replay.puerto_rico.state import PuertoRicoState, Stage
from replay.words import and_list, plural, seat_name

if TYPE_CHECKING:
    from replay.puerto_rico.bots import HeuristicPlayer

_str_list = pa.list_(pa.string())


def _and(items: Sequence[str]) -> str:
    return and_list(items, empty="nothing")


def _a(word: str) -> str:
    return ("an " if word[0] in "aeiouAEIOU" else "a ") + word


class PuertoRicoEngine(ReshufflingEngine):
    """Puerto Rico for 3 to 5 players."""

    declaration = GAME
    rules = rules
    scoring = scoring
    event_words = events
    change_words = change_words.WORDS
    parse = staticmethod(parse_move)
    over = Stage.OVER
    global_schema = pa.schema(
        [
            ("round", pa.int32()),
            ("governor", pa.int8()),
            ("stage", pa.string()),
            ("role", pa.string()),
            ("chooser", pa.int8()),
            ("to_act", pa.int8()),
            ("roles_taken", _str_list),
            ("role_seats", pa.list_(pa.int8())),
            ("role_doubloons", _str_list),
            ("ships", _str_list),
            ("trading_house", _str_list),
            ("colonist_ship", pa.int32()),
            ("colonist_supply", pa.int32()),
            ("vp_chips_left", pa.int32()),
            ("face_up_plantations", _str_list),
            ("plantation_stack", pa.int32()),
            ("plantation_discard", pa.int32()),
            ("quarries_left", pa.int8()),
            ("goods_supply", _str_list),
            ("buildings_left", _str_list),
            ("bank", pa.int32()),
            ("end_triggers", _str_list),
        ]
    )
    player_schema = pa.schema(
        [
            ("vp", pa.int32()),
            ("vp_chips", pa.int32()),
            ("vp_buildings", pa.int32()),
            ("vp_bonus", pa.int32()),
            ("doubloons", pa.int32()),
            ("colonists_san_juan", pa.int32()),
            ("colonists_placed", pa.int32()),
            ("island", _str_list),
            ("city", _str_list),
            ("city_occupancy", pa.list_(pa.int8())),
            ("city_spaces", pa.int8()),
            ("goods_corn", pa.int32()),
            ("goods_indigo", pa.int32()),
            ("goods_sugar", pa.int32()),
            ("goods_tobacco", pa.int32()),
            ("goods_coffee", pa.int32()),
            ("goods_total", pa.int32()),
            ("buildings", pa.int32()),
        ]
    )

    def end_reason(self, state: PuertoRicoState) -> str | None:
        """Why the game ended: the triggers met in the last round, in the order they happened, joined by
        "+" (``vp_chips``, ``colonists``, ``city``); None while the game goes on."""
        return "+".join(state.end) if state.stage is Stage.OVER else None

    def buildings_of(self, state: PuertoRicoState) -> list[list[str]]:
        """Each seat's buildings, in the order built."""
        return [list(p.city) for p in state.players]

    def step_info(self, state: PuertoRicoState) -> dict[str, Any]:
        return {
            "round": state.round,
            "governor": state.governor,
            "role": state.role.value if state.role else None,
        }

    # -- parts of a move that other seats decide -------------------------------------------------

    def deciders(self, state: PuertoRicoState, move: PuertoRicoMove) -> tuple[int, ...]:
        """The seats other than the one to act that decide a part of ``move``: always () in Puerto
        Rico, where every choice a move records is its own seat's (``moves.other_deciders``)."""
        mover = state.current_seat
        return () if mover is None else other_deciders(move, mover)

    def with_others_from(self, state: PuertoRicoState, move: PuertoRicoMove, seat: int,
                         source: PuertoRicoMove | None) -> PuertoRicoMove:
        """The identity for the seat to act: ``move`` itself, since no Puerto Rico move carries
        another seat's choice (``moves.with_parts_from``; for another ``seat``, ``source``). Raises
        ``ValueError`` when the game is over, or when ``seat`` is not the seat to act and ``source``
        is None."""
        mover = state.current_seat
        if mover is None:
            raise ValueError("the game is over: nobody makes a move")
        return with_parts_from(move, seat, source, mover)

    # -- words ---------------------------------------------------------------------------------

    def describe_move(self, state: PuertoRicoState, move: PuertoRicoMove, names: Sequence[str]) -> str:
        """The move in words, from the state before it."""
        seat = state.current_seat
        who = seat_name(names, seat)
        if isinstance(move, ChooseRole):
            text = f"{who} chooses the {role_of(move.role).value}"
            if move.role in state.role_cards:
                coins = state.role_doubloons[state.role_cards.index(move.role)]
                if coins:
                    text += f" (+{plural(coins, 'doubloon')})"
            if not move.privilege:
                text += " and declines the privilege colonist"
            return text
        if isinstance(move, Build):
            if seat is None:
                return f"{who} builds {move.building}"
            cost = rules.build_cost(state, seat, move.building)
            text = f"{who} builds {move.building} for {plural(cost, 'doubloon')}"
            if not move.university:
                text += " and declines the university's colonist"
            return text
        if isinstance(move, Settle):
            what = "a quarry" if move.tile == QUARRY else f"{_a(move.tile)} plantation"
            text = f"{who} takes {what}"
            if not move.hospice:
                text += " and declines the hospice's colonist"
            elif (
                seat is not None
                and rules.power_active(state.view(seat), Power.HOSPICE)
                and rules.colonist_available(state)
            ):
                text += " (hospice colonist)"
            return text
        if isinstance(move, Hacienda):
            top = f" ({state.plantation_stack[0]})" if state.plantation_stack else ""
            return f"{who} draws a face-down plantation with the hacienda{top}"
        if isinstance(move, Mayor):
            placed = [f"{n} on {k}" for k, n in move.plantations] + [f"{n} on {b}" for b, n in move.buildings]
            text = f"{who} places colonists: {', '.join(placed) or 'none'}"
            if seat is not None:
                owned = colonists_to_place(state.view(seat))[0]
                left = owned - sum(n for _, n in move.plantations) - sum(n for _, n in move.buildings)
                if left > 0:
                    text += f"; {left} in San Juan"
            return text
        if isinstance(move, Produce):
            if seat is None:
                return f"{who} {'produces' if move.take else 'declines to produce'}"
            made = rules.production(state.view(seat))
            goods = _and([f"{n} {g.value}" for g, n in zip(GOODS, rules.received(state, made)) if n])
            return f"{who} produces {goods}" if move.take else f"{who} declines to produce ({goods})"
        if isinstance(move, ExtraGood):
            return f"{who} takes an extra {move.good.value} (craftsman)"
        if isinstance(move, Sell):
            if seat is None:
                return f"{who} sells {move.good.value}"
            price = rules.sale_price(state, seat, move.good)
            return f"{who} sells {move.good.value} for {plural(price, 'doubloon')}"
        if isinstance(move, Load):
            if seat is None:
                return f"{who} loads {move.good.value}"
            amount = rules.load_amount(state, state.view(seat), move)
            if move.ship == WHARF:
                return f"{who} ships {amount} {move.good.value} with the wharf"
            i = int(move.ship)
            return f"{who} loads {amount} {move.good.value} on {rules.ship_name(state.ship_capacity[i])}"
        if isinstance(move, Store):
            parts = []
            if move.warehouse:
                parts.append(f"all {_and([g.value for g in move.warehouse])} (warehouse)")
            if move.keep is not None:
                parts.append(f"1 {move.keep.value}")
            return f"{who} keeps {_and(parts)}"
        if isinstance(move, Pass):
            verb = {
                Stage.SETTLER: "takes no plantation",
                Stage.BUILDER: "does not build",
                Stage.CRAFTSMAN: "takes no extra good",
                Stage.TRADER: "does not sell",
                Stage.CAPTAIN: "does not use the wharf",
            }.get(state.stage, "passes")
            return f"{who} {verb}"
        return f"{who}: {move.text()}"

    # -- views ---------------------------------------------------------------------------------

    def to_view(self, state: PuertoRicoState, names: Sequence[str]) -> dict[str, Any]:
        """The whole state as JSON, with each seat's score so far."""
        lines = self.scores(state)
        players = []
        for seat, p in enumerate(state.players):
            players.append(
                {
                    "seat": seat,
                    "name": seat_name(names, seat),
                    "doubloons": p.doubloons,
                    "vp_chips": max(0, p.vp_chips),
                    "island": [{"tile": k, "occupied": bool(w)} for k, w in zip(p.island, p.island_workers)],
                    "city": [
                        {
                            "name": b,
                            "colonists": w,
                            "circles": BUILDINGS[b].circles,
                            "vp": BUILDINGS[b].vp,
                            "large": BUILDINGS[b].large,
                            "production": BUILDINGS[b].is_production,
                        }
                        for b, w in zip(p.city, p.city_workers)
                    ],
                    "city_spaces": p.city_spaces,
                    "san_juan": p.san_juan,
                    "colonists": p.colonists,
                    "goods": {g.value: p.goods[i] for i, g in enumerate(GOODS)},
                    "vp": lines[seat].total,
                    "vp_parts": lines[seat].parts,
                    "tiebreak": lines[seat].tiebreak,
                }
            )
        return {
            "game": self.game,
            "step": state.step,
            "round": state.round,
            "governor": state.governor,
            "stage": state.stage.value,
            "role": state.role.value if state.role else None,
            "chooser": state.chooser,
            "to_act": state.current_seat,
            "waiting_for": rules.describe_pending(state),
            "roles": [
                {"card": c, "role": role_of(c).value, "doubloons": d,
                 "taken_by": next((s for card, s in state.roles_taken if card == c), None)}
                for c, d in zip(state.role_cards, state.role_doubloons)
            ],
            "roles_taken": [{"role": c, "seat": s} for c, s in state.roles_taken],
            "ships": [
                {"capacity": c, "good": g.value if g else None, "load": n}
                for c, g, n in zip(state.ship_capacity, state.ship_good, state.ship_load)
            ],
            **rows.supplies(state),
            "goods_supply": {g.value: state.goods_supply[i] for i, g in enumerate(GOODS)},
            "buildings_left": {b.name: n for b, n in zip(CATALOGUE, state.building_supply)},
            "bank": state.bank,
            "end_triggers": list(state.end),
            "over": state.stage is Stage.OVER,
            "players": players,
            "scores": [s.total for s in lines],
            "winners": self.winners(state) if state.stage is Stage.OVER else [],
        }

    def render(self, state: PuertoRicoState, names: Sequence[str]) -> str:
        """The state as text for the terminal."""
        return self.render_view(self.to_view(state, names), names)

    def render_view(self, view: dict[str, Any], names: Sequence[str]) -> str:
        """A view of a state (``to_view``, or a viewer's ``view.view_state``) as text for the terminal:
        VP chips the view leaves out are face down."""
        roles = ", ".join(
            r["role"] + (f" ({names[r['taken_by']]})" if r["taken_by"] is not None else f" [{r['doubloons']}]")
            for r in view["roles"]
        )
        ships = ", ".join(f"{s['good'] or 'empty'} {s['load']}/{s['capacity']}" for s in view["ships"])
        end = view["end_triggers"]
        lines = [
            f"Puerto Rico, step {view['step']}, round {view['round']}; governor {names[view['governor']]}"
            + (f"; now: {view['role']}" if view["role"] else ""),
            f"Roles: {roles}",
            f"Ships: {ships}; trading house: {', '.join(view['trading_house']) or 'empty'}",
            f"Colonists: ship {view['colonist_ship']}, supply {view['colonist_supply']}; VP chips left "
            f"{view['vp_chips_left']}; quarries {view['quarries_left']}; face up: "
            f"{', '.join(view['face_up_plantations']) or '-'}",
            "Goods supply: " + ", ".join(f"{k} {v}" for k, v in view["goods_supply"].items()),
            "Game over; winner(s): " + ", ".join(names[s] for s in view["winners"])
            if view["over"]
            else f"Waiting: {view['waiting_for']}"
            + (f" (game ends after this round: {', '.join(end)})" if end else ""),
            "",
        ]
        for p in view["players"]:
            goods = ", ".join(f"{n} {g}" for g, n in p["goods"].items() if n) or "no goods"
            chips = f"{p['vp_chips']} in chips" if "vp_chips" in p else "VP chips face down"
            lines.append(
                f"{p['name']} (seat {p['seat']}): {p['vp']} VP ({chips}), {p['doubloons']} doubloons, "
                f"{goods}, {p['san_juan']} in San Juan"
            )
            island = ", ".join(t["tile"] + ("*" if t["occupied"] else "") for t in p["island"])
            city = ", ".join(f"{b['name']} {b['colonists']}/{b['circles']}" for b in p["city"])
            lines.append(f"  island: {island or '-'}")
            lines.append(f"  city: {city or '-'}")
        return "\n".join(lines)

    def global_row(self, state: PuertoRicoState) -> dict[str, Any]:
        """Also reads a working ``state.Table`` (the importer's rows)."""
        return rows.global_row(state)

    def state_rows(self, work: Any) -> StateRows:
        """Rows read off the working table itself when ``work`` is this engine's ``rules.Working``."""
        if isinstance(work, rules.Working):
            return rows.WorkingRows(work.t)
        return super().state_rows(work)

    def _player_row(self, p: Any) -> dict[str, Any]:
        return rows.player_row(p)

    # -- simulation ----------------------------------------------------------------------------

    def new_random_game(self, players: Sequence[str], seed: int, options: dict[str, Any]) -> GameLog:
        """A log with a shuffled setup and no moves."""
        rng = random.Random(f"puerto_rico:{seed}")
        setup = rules.random_setup(len(players), rng)
        return GameLog(game=self.game, players=tuple(players), setup=setup, moves=(), options=dict(options))

    def random_state_seed(self, state: PuertoRicoState, seed: int) -> PuertoRicoState:
        """The same state, drawing any reshuffle the log lacks from ``seed``."""
        from dataclasses import replace

        return replace(state, shuffle_seed=seed)


def heuristic_bot(engine: Rules[Any, Any], seed: int) -> HeuristicPlayer:
    """The heuristic bot (the declaration's ``heuristic``; ``engine`` is this game's own)."""
    from replay.puerto_rico.bots import HeuristicPlayer

    return HeuristicPlayer(seed)


ENGINE = PuertoRicoEngine()
#: mypy checks here that the engine has every hook of the protocol, with its types.
_CONFORMS: Engine[PuertoRicoState, PuertoRicoMove] = ENGINE

__all__ = ["ENGINE", "PuertoRicoEngine"]
