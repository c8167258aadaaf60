"""San Juan scoring: buildings, chapel, guild hall, city hall, triumphal arch, then the palace last."""

from __future__ import annotations

from replay.protocol import Score
from replay.san_juan.cards import ARCH_BONUS, CARDS, Power
from replay.san_juan.state import PlayerState, SanJuanState


def score_player(player: PlayerState) -> Score:
    """A seat's score as if the game ended now. The tie-break is cards in hand plus goods."""
    cards = [CARDS[b] for b in player.buildings]
    powers = {c.power for c in cards}
    buildings = sum(c.vp for c in cards)
    chapel = len(player.chapel)
    guild = 2 * sum(1 for c in cards if c.is_production) if Power.GUILD_HALL in powers else 0
    city = sum(1 for c in cards if c.is_violet) if Power.CITY_HALL in powers else 0
    arch = (
        ARCH_BONUS[min(3, sum(1 for c in cards if c.power is Power.MONUMENT))]
        if Power.TRIUMPHAL_ARCH in powers
        else 0
    )
    subtotal = buildings + chapel + guild + city + arch
    palace = subtotal // 4 if Power.PALACE in powers else 0
    parts = {
        "buildings": buildings,
        "chapel": chapel,
        "guild_hall": guild,
        "city_hall": city,
        "triumphal_arch": arch,
        "palace": palace,
    }
    tiebreak = len(player.hand) + sum(1 for g in player.goods if g is not None)
    return Score(total=subtotal + palace, parts=parts, tiebreak=tiebreak)


def scores(state: SanJuanState) -> list[Score]:
    """Every seat's score."""
    return [score_player(p) for p in state.players]


def winners(state: SanJuanState) -> list[int]:
    """Seats with the most VP, then the most cards in hand plus goods; several only on a full tie."""
    lines = scores(state)
    best = max((s.total, s.tiebreak) for s in lines)
    return [seat for seat, s in enumerate(lines) if (s.total, s.tiebreak) == best]
