"""San Juan's rows for the importer: the table's row of a state (or of a working table, which answers
the same), a seat's row, and the rows read off a game replayed in place, step by step.

Compiled with the rules (``replay.native``): the importer asks for these at every step of every
game, and laid out in interpreted code they cost more than the replay itself.
"""

from __future__ import annotations

from typing import Any

from replay.san_juan import scoring
from replay.san_juan.cards import CARDS
from replay.san_juan.state import PlayerState, SanJuanState, Table


def global_row(state: SanJuanState | Table) -> dict[str, Any]:
    """The table's columns (``SanJuanEngine.global_schema``). Stage and Role are StrEnums: they are
    the strings stored, without a ``.value`` lookup."""
    return {
        "round": state.round,
        "governor": state.governor,
        "stage": state.stage,
        "role": state.role,
        "chooser": state.chooser,
        "to_act": state.current_seat,
        "roles_taken": [r for r, _ in state.roles_taken],
        "draw_pile": len(state.draw_pile),
        "discard_pile": len(state.discard),
        "tile": state.tile,
        "next_tile": state.tiles[state.tile_index],
    }


def player_row(player: PlayerState) -> dict[str, Any]:
    """A seat's columns (``SanJuanEngine.player_schema``)."""
    total, parts = scoring.score_parts(player)
    goods = [CARDS[b].good for b, g in zip(player.buildings, player.goods) if g is not None]
    return {
        "vp": total,
        "vp_buildings": parts["buildings"],
        "vp_chapel": parts["chapel"],
        "vp_bonus": total - parts["buildings"] - parts["chapel"],
        "hand_size": len(player.hand),
        "hand": list(player.hand),
        "buildings": list(player.buildings),
        "building_count": len(player.buildings),
        "goods": goods,
        "goods_count": len(goods),
        "chapel_cards": len(player.chapel),
        "covered": list(player.covered),
    }


class WorkingRows:
    """``replay.engine_base.StateRows`` of San Juan's working table (``rules.Working``): ``view`` is
    the table, which ``global_row``, ``step_info`` and ``describe_move`` read as they read a state; a
    seat's row is made again (from the snapshot ``freeze`` would make of it) only when one of its
    lists differs from the copies kept at the last call."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.seen: list[tuple[list[Any], ...] | None] = [None] * table.n

    def view(self) -> Table:
        return self.table

    def changed(self) -> list[tuple[int, dict[str, Any]]]:
        t = self.table
        seen = self.seen
        out: list[tuple[int, dict[str, Any]]] = []
        hands, buildings, goods, chapel, covered = t.hands, t.buildings, t.goods, t.chapel, t.covered
        for seat in range(t.n):
            hand, built, held, kept, under = (
                hands[seat], buildings[seat], goods[seat], chapel[seat], covered[seat])
            last = seen[seat]
            if (
                last is None or hand != last[0] or built != last[1] or held != last[2]
                or kept != last[3] or under != last[4]
            ):
                seen[seat] = (list(hand), list(built), list(held), list(kept), list(under))
                out.append((seat, player_row(t.player(seat))))
        return out
