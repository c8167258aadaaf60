"""Puerto Rico scoring: VP chips, printed building VP, and the five large buildings' bonuses (only
when occupied). The tie-break is doubloons plus goods."""

from __future__ import annotations

from replay.protocol import Score
from replay.puerto_rico.catalogue import BUILDINGS, Power
from replay.puerto_rico.state import PlayerState, PuertoRicoState

#: Residence bonus by filled island spaces (up to 9 / 10 / 11 / 12).
RESIDENCE_BONUS = {10: 5, 11: 6, 12: 7}


def score_player(player: PlayerState) -> Score:
    """A seat's score as if the game ended now."""
    chips = max(0, player.vp_chips)
    buildings = 0
    parts = {"chips": chips, "buildings": 0, "guild_hall": 0, "residence": 0, "fortress": 0,
             "customs_house": 0, "city_hall": 0}
    for name, workers in zip(player.city, player.city_workers):
        building = BUILDINGS[name]
        buildings += building.vp
        if not building.large or not workers:
            continue
        power = building.power
        if power is Power.GUILD_HALL:
            parts["guild_hall"] = sum(
                (1 if BUILDINGS[b].circles == 1 else 2) for b in player.city if BUILDINGS[b].is_production
            )
        elif power is Power.RESIDENCE:
            parts["residence"] = RESIDENCE_BONUS.get(len(player.island), 4)
        elif power is Power.FORTRESS:
            parts["fortress"] = player.colonists // 3
        elif power is Power.CUSTOMS_HOUSE:
            parts["customs_house"] = chips // 4
        elif power is Power.CITY_HALL:
            parts["city_hall"] = sum(1 for b in player.city if BUILDINGS[b].is_violet)
    parts["buildings"] = buildings
    total = sum(parts.values())
    return Score(total=total, parts=parts, tiebreak=player.doubloons + sum(player.goods))


def scores(state: PuertoRicoState) -> list[Score]:
    """Every seat's score."""
    return [score_player(p) for p in state.players]


def winners(state: PuertoRicoState) -> list[int]:
    """Seats with the most VP, then the most doubloons plus goods; several only on a full tie."""
    lines = scores(state)
    best = max((s.total, s.tiebreak) for s in lines)
    return [seat for seat, s in enumerate(lines) if (s.total, s.tiebreak) == best]
