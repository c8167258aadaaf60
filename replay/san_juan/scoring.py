"""San Juan scoring: buildings, chapel, guild hall, city hall, triumphal arch, then the palace last."""

from __future__ import annotations

from functools import lru_cache

from replay.protocol import Score
from replay.san_juan.cards import ARCH_BONUS, CARDS, Power
from replay.san_juan.state import PlayerState, SanJuanState


def score_player(player: PlayerState) -> Score:
    """A seat's score as if the game ended now. The tie-break is cards in hand plus goods."""
    total, parts = score_parts(player)
    tiebreak = len(player.hand) + sum(1 for g in player.goods if g is not None)
    return Score(total=total, parts=dict(parts), tiebreak=tiebreak)


def score_parts(player: PlayerState) -> tuple[int, dict[str, int]]:
    """The total of ``score_player`` and its parts, without the tie-break; the parts are shared
    between calls and must not be changed (the importer's rows read them)."""
    return _city_score(tuple(player.buildings), len(player.chapel))


@lru_cache(maxsize=8192)
def _city_score(buildings: tuple[str, ...], chapel: int) -> tuple[int, dict[str, int]]:
    """The total and its parts from a city and its chapel, which is all they depend on (cities recur
    from state to state: the importer scores every changed seat of every state)."""
    cards = [CARDS[b] for b in buildings]
    powers = {c.power for c in cards}
    built = sum(c.vp for c in cards)
    guild = 2 * sum(1 for c in cards if c.is_production) if Power.GUILD_HALL in powers else 0
    city = sum(1 for c in cards if c.is_violet) if Power.CITY_HALL in powers else 0
    arch = (
        ARCH_BONUS[min(3, sum(1 for c in cards if c.power is Power.MONUMENT))]
        if Power.TRIUMPHAL_ARCH in powers
        else 0
    )
    subtotal = built + chapel + guild + city + arch
    palace = subtotal // 4 if Power.PALACE in powers else 0
    parts = {
        "buildings": built,
        "chapel": chapel,
        "guild_hall": guild,
        "city_hall": city,
        "triumphal_arch": arch,
        "palace": palace,
    }
    return subtotal + palace, parts


def scores(state: SanJuanState) -> list[Score]:
    """Every seat's score; its tie-break (the engine's ``winners``: the most VP, then the highest
    tie-break) is the seat's cards in hand plus goods."""
    return [score_player(p) for p in state.players]
