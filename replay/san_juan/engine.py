"""The San Juan engine: the protocol of ``replay.protocol.Engine`` over the rules of this package."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from replay.engine_base import ReshufflingEngine
from replay.errors import FieldError
from replay.logfile import GameLog
from replay.protocol import Engine, Rules, StateRows
from replay.san_juan import GAME, change_words, events, rows, rules, scoring
from replay.san_juan.cards import (
    ARCHIVE,
    CARDS,
    GOLD_MINE,
    Good,
    Role,
)
from replay.san_juan.moves import (
    Build,
    Chapel,
    ChooseRole,
    Councillor,
    Draft,
    GoldMine,
    HandLimit,
    Pass,
    Produce,
    SanJuanMove,
    Sell,
    other_deciders,
    parse_move,
    with_parts_from,
)
from replay.san_juan.state import SanJuanState, Stage
from replay.words import and_list, seat_name

if TYPE_CHECKING:
    from replay.san_juan.bots import HeuristicPlayer

_str_list = pa.list_(pa.string())


def _and(items: Sequence[str]) -> str:
    return and_list(items, empty="nothing")


def _declines(buildings: Sequence[str]) -> str:
    """"declines the well's card" for the buildings whose card a move declines."""
    return "declines " + _and([f"the {b.lower()}'s card" for b in buildings])


def _and_declines(buildings: Sequence[str]) -> str:
    return f" and {_declines(buildings)}" if buildings else ""


def _good_name(good: Good | None) -> str | None:
    return good.value if good is not None else None


def _gold_mine_owners(state: SanJuanState) -> tuple[int, ...]:
    return tuple(s for s, player in enumerate(state.players) if GOLD_MINE in player.buildings)


class SanJuanEngine(ReshufflingEngine):
    """San Juan for 2 to 4 players."""

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
            ("draw_pile", pa.int32()),
            ("discard_pile", pa.int32()),
            ("tile", pa.int8()),
            ("next_tile", pa.int8()),
        ]
    )
    player_schema = pa.schema(
        [
            ("vp", pa.int32()),
            ("vp_buildings", pa.int32()),
            ("vp_chapel", pa.int32()),
            ("vp_bonus", pa.int32()),
            ("hand_size", pa.int32()),
            ("hand", _str_list),
            ("buildings", _str_list),
            ("building_count", pa.int32()),
            ("goods", _str_list),
            ("goods_count", pa.int32()),
            ("chapel_cards", pa.int32()),
            ("covered", _str_list),
        ]
    )

    def end_reason(self, state: SanJuanState) -> str | None:
        """Why the game ended: ``twelve_buildings`` (the only way San Juan ends), or None."""
        return "twelve_buildings" if state.stage is Stage.OVER else None

    def buildings_of(self, state: SanJuanState) -> list[list[str]]:
        """Each seat's buildings in play (crane-covered ones excluded)."""
        return [list(p.buildings) for p in state.players]

    def step_info(self, state: SanJuanState) -> dict[str, Any]:
        return {
            "round": state.round,
            "governor": state.governor,
            "role": state.role.value if state.role else None,
        }

    # -- parts of a move that other seats decide -------------------------------------------------

    def deciders(self, state: SanJuanState, move: SanJuanMove) -> tuple[int, ...]:
        """The seats other than the one to act in ``state`` that decide a part of ``move``, in seat
        order: every other seat on a councillor move (it may refrain from the draw), every other gold
        mine owner on a prospector move (its mine may turn up no card); () for any other move."""
        mover = state.current_seat
        if mover is None:
            return ()
        return other_deciders(move, mover, len(state.players), _gold_mine_owners(state))

    def with_others_from(self, state: SanJuanState, move: SanJuanMove, seat: int,
                         source: SanJuanMove | None) -> SanJuanMove:
        """The move of the seat to act in ``state`` made of what ``seat`` decides in ``move`` and of
        what every other seat decides in ``source`` (``moves.with_parts_from``): a seat's refraining
        from the councillor's draw or its declined gold mine follows ``source`` where it applies (the
        same role), else the rules' default (it draws, its mine turns up cards). Raises ``ValueError``
        when the game is over, or when ``seat`` is not the seat to act and ``source`` is None."""
        mover = state.current_seat
        if mover is None:
            raise ValueError("the game is over: nobody makes a move")
        return with_parts_from(move, seat, source, mover, len(state.players), _gold_mine_owners(state))

    # -- words ---------------------------------------------------------------------------------

    def describe_move(self, state: SanJuanState, move: SanJuanMove, names: Sequence[str]) -> str:
        """The move in words, from the state before it."""
        seat = state.current_seat
        who = seat_name(names, seat)
        if isinstance(move, ChooseRole):
            # The rules read the seat through accessors a working table answers too (the importer).
            library = seat is not None and move.library is not False and rules.library_usable(state, seat)
            text = f"{who} chooses the {move.role.value}"
            if not move.privilege:
                text += " and declines the privilege"
            elif library:
                text += " (library doubles the privilege)"
            if move.councillor_refrained:
                refrainers = [seat_name(names, s) for s in move.councillor_refrained]
                text += f"; {_and(refrainers)} {'refrains' if len(refrainers) == 1 else 'refrain'} from the draw"
            if move.gold_mine_declined:
                decliners = [seat_name(names, s) for s in move.gold_mine_declined]
                if len(decliners) == 1:
                    text += f"; {decliners[0]} declines the gold mine"
                else:
                    text += f"; {_and(decliners)} decline their gold mines"
            return text
        if isinstance(move, Build):
            text = f"{who} builds {move.building}"
            if move.replace:
                text += f" over {move.replace} (crane)"
            paid = list(move.pay) + [f"1 {g.value} (black market)" for g in move.goods]
            text += f", paying {_and(paid)}"
            return text + (f", and {_declines(move.decline)}" if move.decline else "")
        if isinstance(move, Produce):
            return f"{who} produces {_and([g.value for g in move.goods])}" + _and_declines(move.decline)
        if isinstance(move, Sell):
            price = ""
            if state.tile is not None:
                total = rules.sale_income(state.tile, move.goods)
                price = f" for {total} card{'s' if total != 1 else ''}"
            return f"{who} sells {_and([g.value for g in move.goods])}{price}" + _and_declines(move.decline)
        if isinstance(move, Councillor):
            if move.discard is not None:
                return f"{who} discards {_and(list(move.discard))} (archive)"
            archive = seat is not None and ARCHIVE in state.seat_buildings(seat)
            return f"{who} keeps {_and(list(move.keep or ()))} (councillor" + ("; declines the archive)" if archive else ")")
        if isinstance(move, GoldMine):
            return f"{who} keeps {move.keep} from the gold mine"
        if isinstance(move, Chapel):
            return f"{who} tucks {move.card} under the chapel"
        if isinstance(move, HandLimit):
            return f"{who} discards {_and(list(move.discard))} to the hand limit"
        if isinstance(move, Draft):
            return f"{who} keeps {_and(list(move.keep))} (draft)"
        if isinstance(move, Pass):
            verbs: dict[str | None, str] = {
                Stage.CHAPEL: "tucks nothing under the chapel",
                Role.BUILDER: "does not build",
                Role.PRODUCER: "does not produce",
                Role.TRADER: "does not sell",
                Role.PROSPECTOR: "keeps nothing from the gold mine",
            }
            verb = verbs.get(state.stage if state.stage is Stage.CHAPEL else state.role, "passes")
            return f"{who} {verb}"
        return f"{who}: {move.text()}"

    # -- views ---------------------------------------------------------------------------------

    def to_view(self, state: SanJuanState, names: Sequence[str]) -> dict[str, Any]:
        """The whole state as JSON, with each seat's score so far."""
        lines = self.scores(state)
        players = []
        for seat, player in enumerate(state.players):
            players.append(
                {
                    "seat": seat,
                    "name": seat_name(names, seat),
                    "buildings": [
                        {
                            "name": b,
                            "cost": CARDS[b].cost,
                            "vp": CARDS[b].vp,
                            "kind": CARDS[b].kind.value,
                            "good": _good_name(CARDS[b].good) if g is not None else None,
                        }
                        for b, g in zip(player.buildings, player.goods)
                    ],
                    "hand": list(player.hand),
                    "hand_size": len(player.hand),
                    "chapel": len(player.chapel),
                    "covered": list(player.covered),
                    "vp": lines[seat].total,
                    "vp_parts": lines[seat].parts,
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
            "roles_taken": [{"role": r.value, "seat": s} for r, s in state.roles_taken],
            "to_act": state.current_seat,
            "waiting_for": rules.describe_pending(state),
            "draw_pile": len(state.draw_pile),
            "discard_pile": len(state.discard),
            "tile": state.tile,
            "next_tile": state.tiles[state.tile_index],
            "looking": list(state.looking),
            "over": state.stage is Stage.OVER,
            "players": players,
            "scores": [s.total for s in lines],
            "winners": self.winners(state) if state.stage is Stage.OVER else [],
        }

    def render(self, state: SanJuanState, names: Sequence[str]) -> str:
        """The state as text for the terminal."""
        return self.render_view(self.to_view(state, names), names)

    def render_view(self, view: dict[str, Any], names: Sequence[str]) -> str:
        """A view of a state (``to_view``, or a viewer's ``view.view_state``) as text for the terminal:
        a hand the view leaves out shows its size only, a next tile it leaves out is face down."""
        roles = ", ".join(f"{r['role']} ({names[r['seat']]})" for r in view["roles_taken"]) or "none"
        if view["tile"]:
            tile = f"{view['tile']} face up"
        else:
            tile = f"{view['next_tile']} next" if "next_tile" in view else "face down"
        lines = [
            f"San Juan, step {view['step']}, round {view['round']}; governor {names[view['governor']]}",
            f"Roles taken: {roles}" + (f"; now: {view['role']}" if view["role"] else ""),
            f"Draw pile {view['draw_pile']}, discard pile {view['discard_pile']}; trading house tile {tile}",
            "Game over; winner(s): " + ", ".join(names[s] for s in view["winners"])
            if view["over"]
            else f"Waiting: {view['waiting_for']}",
            "",
        ]
        for p in view["players"]:
            buildings = ", ".join(
                b["name"] + (f" [{b['good']}]" if b["good"] else "") for b in p["buildings"]
            )
            lines.append(f"{p['name']} (seat {p['seat']}): {p['vp']} VP, {len(p['buildings'])} buildings")
            lines.append(f"  buildings: {buildings}")
            lines.append(f"  hand ({p['hand_size']})" + (f": {', '.join(p['hand']) or '-'}" if "hand" in p else ""))
            if p["chapel"]:
                lines.append(f"  chapel: {p['chapel']} card(s)")
        return "\n".join(lines)

    def global_row(self, state: SanJuanState) -> dict[str, Any]:
        return rows.global_row(state)

    def state_rows(self, work: Any) -> StateRows:
        """Rows read off the working table itself when ``work`` is this engine's ``rules.Working``."""
        if isinstance(work, rules.Working):
            return rows.WorkingRows(work.table)
        return super().state_rows(work)

    def _player_row(self, player: Any) -> dict[str, Any]:
        return rows.player_row(player)

    # -- simulation ----------------------------------------------------------------------------

    def new_random_game(self, players: Sequence[str], seed: int, options: dict[str, Any]) -> GameLog:
        """A log with a shuffled setup and no moves."""
        rng = random.Random(f"san_juan:{seed}")
        setup = rules.random_setup(len(players), rng, draft=bool(options.get("draft_start")))
        return GameLog(game=self.game, players=tuple(players), setup=setup, moves=(), options=dict(options))


def heuristic_bot(engine: Rules[Any, Any], seed: int) -> HeuristicPlayer:
    """The heuristic bot (the declaration's ``heuristic``; ``engine`` is this game's own)."""
    from replay.san_juan.bots import HeuristicPlayer

    return HeuristicPlayer(seed)


ENGINE = SanJuanEngine()
#: mypy checks here that the engine has every hook of the protocol, with its types.
_CONFORMS: Engine[SanJuanState, SanJuanMove] = ENGINE

__all__ = ["ENGINE", "SanJuanEngine", "FieldError", "Good"]
