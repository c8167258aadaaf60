"""Puerto Rico scoring: VP chips, printed building VP, and the five large buildings' bonuses (only
when occupied). The tie-break is doubloons plus goods."""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from replay.protocol import Score
from replay.puerto_rico.catalogue import BUILDINGS, Power
from replay.puerto_rico.state import PlayerState, PuertoRicoState

#: Residence bonus by filled island spaces (up to 9 / 10 / 11 / 12).
RESIDENCE_BONUS: Final = {10: 5, 11: 6, 12: 7}


def score_player(player: PlayerState) -> Score:
    """A seat's score as if the game ended now."""
    total, parts = score_parts(player)
    return Score(total=total, parts=dict(parts), tiebreak=player.doubloons + sum(player.goods))


def score_parts(player: PlayerState) -> tuple[int, dict[str, int]]:
    """The total of ``score_player`` and its parts, without the tie-break; the parts may be shared
    between calls and must not be changed (the importer's rows read them)."""
    fortress, total, parts = _city_score(
        tuple(player.city), tuple(player.city_workers), len(player.island), max(0, player.vp_chips)
    )
    if fortress:
        parts = dict(parts, fortress=player.colonists // 3)
        total = sum(parts.values())
    return total, parts


@lru_cache(maxsize=8192)
def _city_score(
    city: tuple[str, ...], workers: tuple[int, ...], island: int, chips: int
) -> tuple[bool, int, dict[str, int]]:
    """Whether an occupied fortress counts the seat's colonists, and the parts, from what they depend on
    (the fortress's part left 0 for the caller: colonists come and go more often than cities change).
    Cities recur from state to state: the importer scores every changed seat of every state."""
    buildings = 0
    parts = {"chips": chips, "buildings": 0, "guild_hall": 0, "residence": 0, "fortress": 0,
             "customs_house": 0, "city_hall": 0}
    fortress = False
    for name, occupied in zip(city, workers):
        building = BUILDINGS[name]
        buildings += building.vp
        if not building.large or not occupied:
            continue
        power = building.power
        if power is Power.GUILD_HALL:
            parts["guild_hall"] = sum(
                (1 if BUILDINGS[b].circles == 1 else 2) for b in city if BUILDINGS[b].is_production
            )
        elif power is Power.RESIDENCE:
            parts["residence"] = RESIDENCE_BONUS.get(island, 4)
        elif power is Power.FORTRESS:
            fortress = True
        elif power is Power.CUSTOMS_HOUSE:
            parts["customs_house"] = chips // 4
        elif power is Power.CITY_HALL:
            parts["city_hall"] = sum(1 for b in city if BUILDINGS[b].is_violet)
    parts["buildings"] = buildings
    return fortress, sum(parts.values()), parts


def scores(state: PuertoRicoState) -> list[Score]:
    """Every seat's score; its tie-break (the engine's ``winners``: the most VP, then the highest
    tie-break) is the seat's doubloons plus goods."""
    return [score_player(p) for p in state.players]
