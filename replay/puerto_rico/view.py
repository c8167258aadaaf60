"""What a Puerto Rico viewer may see: the one place that decides it (``replay.protocol.GameView``).

Everything on a Puerto Rico table is open but two things. The victory-point chips a seat holds lie
face down until the game ends: another seat sees its buildings' VP and bonuses, not its chips (nor
the customs house's bonus, which counts them); at the end they are turned up. The order of the
face-down plantation stack is seen by nobody but ``everything`` (every view holds only its size).

What a seat may know of the chips: each shipment is made in the open (who loads how many barrels of
which good on which ship, the ships' cargo, the chips left in the pool, on which the game's end
depends), so every view sees the shipments; but the points they earn are taken face down, so a view
that does not see a seat's chips is told no number of them, nor a total that counts them: not on
the board (its VP leave the chips out), not in the VP chart (its line is the board's VP), not in
"what changed", and not in the move list, where a load's sentence keeps the shipment and drops its
points (``view_move_events``). The seat's own view, ``everything`` and the end of the game see them.

The Replay page, "what changed", the What-if panel, the analysis' determinisation (``determinise``)
and agent observations all read this module; nothing else decides what is hidden.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final

from replay.protocol import Viewer
from replay.puerto_rico.catalogue import BUILDINGS, CITY_SPACES, GOODS, ISLAND_SPACES, TILE_KINDS, TILE_ORDER, Power
from replay.puerto_rico.events import without_points
from replay.puerto_rico.scoring import score_parts
from replay.puerto_rico.state import PuertoRicoState, Stage

#: The parts of a score that count face-down chips.
CHIP_PARTS: Final = ("chips", "customs_house")
#: Stored seat columns another seat does not see before the end.
SECRET_SEAT_COLUMNS: Final = ("vp_chips",)
CUSTOMS_HOUSES: Final = frozenset(name for name, b in BUILDINGS.items() if b.power is Power.CUSTOMS_HOUSE)

#: The game's name as players write it.
TITLE: Final = "Puerto Rico"

# -- states ----------------------------------------------------------------------------------------


def view_state(state: PuertoRicoState, viewer: Viewer, names: Sequence[str] = ()) -> dict[str, Any]:
    """``Engine.to_view`` of ``state`` as ``viewer`` sees it. Before the end, a seat whose secrets the
    viewer does not see has no ``vp_chips``, and its ``vp``, ``vp_parts`` and entry of ``scores`` leave
    out the chips and the customs house's bonus. (The plantation stack is a count in every view.)"""
    from replay.registry import engine_for  # the engine imports this module

    out = engine_for("puerto_rico").to_view(state, names)
    for player in out["players"]:
        if chips_seen(state, viewer, player["seat"]):
            continue
        player.pop("vp_chips", None)
        hidden = sum(player["vp_parts"].get(part, 0) for part in CHIP_PARTS)
        player["vp"] -= hidden
        player["vp_parts"] = {k: v for k, v in player["vp_parts"].items() if k not in CHIP_PARTS}
        out["scores"][player["seat"]] = player["vp"]
    return out


def chips_seen(state: PuertoRicoState, viewer: Viewer, seat: int) -> bool:
    """Whether ``viewer`` sees seat ``seat``'s VP chips (its own, everything's, or any once the game is
    over). Raises nothing."""
    return viewer.sees_everything or state.stage is Stage.OVER or viewer.sees_secrets_of(seat)


def seen_score(state: PuertoRicoState, viewer: Viewer, seat: int) -> tuple[int, int | None]:
    """Seat ``seat``'s VP as ``viewer`` sees them (``view_state``'s ``vp``) and its VP chips, None
    when they lie face down for the viewer: the cheap form of the seat's score in ``view_state`` that
    observation vectors are made of. Raises ``IndexError`` for a seat the game does not have."""
    player = state.players[seat]
    total, parts = score_parts(player)
    if chips_seen(state, viewer, seat):
        return total, max(0, player.vp_chips)
    return total - sum(parts.get(part, 0) for part in CHIP_PARTS), None


def determinise(state: PuertoRicoState, seat: int, rng: random.Random) -> PuertoRicoState:
    """``state`` as ``seat`` might believe it to be: the plantation stack in a random order (its tiles
    sorted first, so the result depends only on what the seat sees and on ``rng``), and future
    reshuffles drawn from a fresh seed. Other seats' chips are kept: every shipment is made in the open,
    so a seat that follows the whole game can count them (the page tells a view no number of them, as
    the table does not; a bot plays as a seat with a perfect memory)."""
    del seat  # every seat sees the same stack, the only thing dealt again
    stack = sorted(state.plantation_stack, key=TILE_ORDER.__getitem__)
    rng.shuffle(stack)
    return replace(state, plantation_stack=tuple(stack), reshuffles=(), shuffle_seed=rng.randrange(2**62))


# -- stored rows -----------------------------------------------------------------------------------


def view_table_row(row: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
    """A stored ``puerto_rico_states`` row as ``viewer`` sees it: the same (the stack is a count)."""
    del viewer
    return dict(row)


def chip_points(row: dict[str, Any]) -> int:
    """The VP of a stored seat row that count face-down chips: the chips and an occupied customs
    house's bonus (a point per 4 chips)."""
    chips = int(row.get("vp_chips") or 0)
    bonus = 0
    for name, workers in zip(row.get("city") or [], row.get("city_occupancy") or []):
        if name in CUSTOMS_HOUSES and workers:
            bonus = chips // 4
    return chips + bonus


def view_seat_row(row: dict[str, Any], seat: int, viewer: Viewer, over: bool) -> dict[str, Any]:
    """Seat ``seat``'s stored ``puerto_rico_player_states`` row as ``viewer`` sees it: before the end,
    for a viewer who does not see the seat's secrets, without ``vp_chips`` and with ``vp`` and
    ``vp_bonus`` less what the chips count."""
    if over or viewer.sees_secrets_of(seat):
        return dict(row)
    out = {k: v for k, v in row.items() if k not in SECRET_SEAT_COLUMNS}
    chips = int(row.get("vp_chips") or 0)
    hidden = chip_points(row)
    if row.get("vp") is not None:
        out["vp"] = int(row["vp"]) - hidden
    if row.get("vp_bonus") is not None:
        out["vp_bonus"] = int(row["vp_bonus"]) - (hidden - chips)
    return out


# -- moves -----------------------------------------------------------------------------------------


def hides_move(details: dict[str, Any], seat: int | None, viewer: Viewer) -> bool:
    """Never: every Puerto Rico move is made in the open."""
    del details, seat, viewer
    return False


def view_move_events(events: Sequence[str], names: Sequence[str], viewer: Viewer) -> list[str]:
    """A move's recorded events in words (``events.describe``, as stored) as ``viewer`` saw them: a
    load's points are left out (``events.without_points``) unless ``viewer`` sees the chips of the
    seat the sentence is about, which it starts with: everything does, a seat its own (when no other
    name starts the sentence as well: then the points are left out). The shipments stay."""
    if viewer.sees_everything:
        return list(events)
    out = []
    for sentence in events:
        named = [seat for seat, name in enumerate(names) if str(sentence).startswith(f"{name} ")]
        own = len(named) == 1 and viewer.sees_secrets_of(named[0])
        out.append(str(sentence) if own else without_points(str(sentence)))
    return out


def sees_decisions(seat: int, viewer: Viewer) -> bool:
    """Always: a seat's legal decisions follow from the open table (chips never change them)."""
    del seat, viewer
    return True


def view_move_words(details: dict[str, Any], words: str, player: str, seat: int | None, viewer: Viewer) -> str:
    """The move's ``words``: every viewer saw it whole."""
    del details, player, seat, viewer
    return words


# -- what the board prints -------------------------------------------------------------------------


def board_catalogue() -> dict[str, Any]:
    """Cost, VP, colonist circles, colour class and size of every building; the island's and the
    city's spaces; the goods and tile kinds in the game's order."""
    cards = {}
    for name, b in BUILDINGS.items():
        cls = f"prod-{b.good.value}" if b.good is not None else "violet"
        if b.large:
            cls += " large monument"
        cards[name] = {"cost": b.cost, "vp": b.vp, "circles": b.circles, "cls": cls, "large": bool(b.large)}
    return {"cards": cards, "island_spaces": ISLAND_SPACES, "city_spaces": CITY_SPACES,
            "goods": [g.value for g in GOODS], "tiles": list(TILE_KINDS)}


def final_scoring(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The end-of-game scoring by source under the board, from each seat's stored row at the last step
    as the viewer sees it (``view_seat_row``): buildings, VP chips ("hidden" to a viewer that may not
    see them), bonuses, the total and the rules' tie-break (doubloons plus goods, ``scoring.score``)."""
    out = []
    for row in rows:
        chips = row.get("vp_chips")
        out.append([row.get("vp_buildings"), "hidden" if chips is None else chips, row.get("vp_bonus"), row.get("vp"),
                    int(row.get("doubloons") or 0) + int(row.get("goods_total") or 0)])
    return {"columns": ["buildings", "VP chips", "bonuses", "total", "tie-break (doubloons + goods)"], "rows": out}
