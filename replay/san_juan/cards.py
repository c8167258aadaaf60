"""The San Juan card catalogue as data: one record per card kind (``../shared/rules/FACTS.md``).

Powers are codes on the record, not ``if name == ...`` chains scattered through the rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from replay.names import lower_index, resolve_name


class Good(StrEnum):
    """The five goods, in trading-house column order."""

    INDIGO = "indigo"
    SUGAR = "sugar"
    TOBACCO = "tobacco"
    COFFEE = "coffee"
    SILVER = "silver"


class Role(StrEnum):
    """The five roles."""

    BUILDER = "builder"
    PRODUCER = "producer"
    TRADER = "trader"
    COUNCILLOR = "councillor"
    PROSPECTOR = "prospector"


class Kind(StrEnum):
    PRODUCTION = "production"
    VIOLET = "violet"


class Power(StrEnum):
    """What a violet building does; each code is read by exactly one place in the rules."""

    SMITHY = "smithy"
    GOLD_MINE = "gold_mine"
    ARCHIVE = "archive"
    POOR_HOUSE = "poor_house"
    BLACK_MARKET = "black_market"
    TRADING_POST = "trading_post"
    WELL = "well"
    MARKET_STAND = "market_stand"
    CRANE = "crane"
    CHAPEL = "chapel"
    TOWER = "tower"
    AQUEDUCT = "aqueduct"
    CARPENTER = "carpenter"
    PREFECTURE = "prefecture"
    MARKET_HALL = "market_hall"
    QUARRY = "quarry"
    LIBRARY = "library"
    MONUMENT = "monument"
    GUILD_HALL = "guild_hall"
    CITY_HALL = "city_hall"
    TRIUMPHAL_ARCH = "triumphal_arch"
    PALACE = "palace"


@dataclass(frozen=True, slots=True)
class Card:
    """One card kind: name, kind, cost in cards, printed VP, copies in the deck, and its power."""

    name: str
    kind: Kind
    cost: int
    vp: int
    copies: int
    good: Good | None = None
    power: Power | None = None

    @property
    def is_production(self) -> bool:
        return self.kind is Kind.PRODUCTION

    @property
    def is_violet(self) -> bool:
        return self.kind is Kind.VIOLET


def _p(name: str, cost: int, vp: int, copies: int, good: Good) -> Card:
    return Card(name, Kind.PRODUCTION, cost, vp, copies, good=good)


def _v(name: str, cost: int, vp: int, copies: int, power: Power) -> Card:
    return Card(name, Kind.VIOLET, cost, vp, copies, power=power)


CATALOGUE: Final[tuple[Card, ...]] = (
    _p("Indigo plant", 1, 1, 10, Good.INDIGO),
    _p("Sugar mill", 2, 1, 8, Good.SUGAR),
    _p("Tobacco storage", 3, 2, 8, Good.TOBACCO),
    _p("Coffee roaster", 4, 2, 8, Good.COFFEE),
    _p("Silver smelter", 5, 3, 8, Good.SILVER),
    _v("Smithy", 1, 1, 3, Power.SMITHY),
    _v("Gold mine", 1, 1, 3, Power.GOLD_MINE),
    _v("Archive", 1, 1, 3, Power.ARCHIVE),
    _v("Poor house", 2, 1, 3, Power.POOR_HOUSE),
    _v("Black market", 2, 1, 3, Power.BLACK_MARKET),
    _v("Trading post", 2, 1, 3, Power.TRADING_POST),
    _v("Well", 2, 1, 3, Power.WELL),
    _v("Market stand", 2, 1, 3, Power.MARKET_STAND),
    _v("Crane", 2, 1, 3, Power.CRANE),
    _v("Chapel", 3, 2, 3, Power.CHAPEL),
    _v("Tower", 3, 2, 3, Power.TOWER),
    _v("Aqueduct", 3, 2, 3, Power.AQUEDUCT),
    _v("Carpenter", 3, 2, 3, Power.CARPENTER),
    _v("Prefecture", 3, 2, 3, Power.PREFECTURE),
    _v("Market hall", 4, 2, 3, Power.MARKET_HALL),
    _v("Quarry", 4, 2, 3, Power.QUARRY),
    _v("Library", 5, 3, 3, Power.LIBRARY),
    _v("Statue", 3, 3, 3, Power.MONUMENT),
    _v("Victory column", 4, 4, 3, Power.MONUMENT),
    _v("Hero", 5, 5, 3, Power.MONUMENT),
    _v("Guild hall", 6, 0, 2, Power.GUILD_HALL),
    _v("City hall", 6, 0, 2, Power.CITY_HALL),
    _v("Triumphal arch", 6, 0, 2, Power.TRIUMPHAL_ARCH),
    _v("Palace", 6, 0, 2, Power.PALACE),
)

#: Every name the game gives its things (roles, goods, cards): no code outside the game names one.
NAMES: Final[tuple[str, ...]] = tuple([r.value for r in Role] + [g.value for g in Good] + [c.name for c in CATALOGUE])

DECK_SIZE: Final = 110
STARTING_BUILDING: Final = "Indigo plant"

#: Card kinds by name.
CARDS: Final[dict[str, Card]] = {card.name: card for card in CATALOGUE}
#: Position of each card kind in the catalogue: hands and lists sort by it.
ORDER: Final[dict[str, int]] = {card.name: i for i, card in enumerate(CATALOGUE)}
#: Card names by catalogue position.
CARD_NAMES: Final[tuple[str, ...]] = tuple(card.name for card in CATALOGUE)
_BY_LOWER: Final[dict[str, str]] = lower_index(list(CARDS))
#: The catalogue's columns by card name, for the rules' hot paths (a dict lookup, no attribute or
#: property call): cost, good produced (None for violet), power (None for production), violet or not.
COST: Final[dict[str, int]] = {card.name: card.cost for card in CATALOGUE}
GOOD_OF: Final[dict[str, Good | None]] = {card.name: card.good for card in CATALOGUE}
POWER_OF: Final[dict[str, Power | None]] = {card.name: card.power for card in CATALOGUE}
VIOLET: Final[frozenset[str]] = frozenset(card.name for card in CATALOGUE if card.kind is Kind.VIOLET)
#: The building that holds each power (one kind of card each, but the monuments).
HOLDER: Final[dict[Power, str]] = {
    card.power: card.name for card in CATALOGUE if card.power is not None and card.power is not Power.MONUMENT
}
#: The buildings the rules name, each the holder of its power: the names are the catalogue's.
AQUEDUCT: Final = HOLDER[Power.AQUEDUCT]
ARCHIVE: Final = HOLDER[Power.ARCHIVE]
CARPENTER: Final = HOLDER[Power.CARPENTER]
CHAPEL: Final = HOLDER[Power.CHAPEL]
CRANE: Final = HOLDER[Power.CRANE]
GOLD_MINE: Final = HOLDER[Power.GOLD_MINE]
LIBRARY: Final = HOLDER[Power.LIBRARY]
MARKET_HALL: Final = HOLDER[Power.MARKET_HALL]
MARKET_STAND: Final = HOLDER[Power.MARKET_STAND]
POOR_HOUSE: Final = HOLDER[Power.POOR_HOUSE]
PREFECTURE: Final = HOLDER[Power.PREFECTURE]
TOWER: Final = HOLDER[Power.TOWER]
TRADING_POST: Final = HOLDER[Power.TRADING_POST]
WELL: Final = HOLDER[Power.WELL]

#: The production building of each good.
PRODUCER_OF: Final[dict[Good, str]] = {card.good: card.name for card in CATALOGUE if card.good}
#: Trading-house tiles: prices in cards per good.
TILES: Final[dict[int, dict[Good, int]]] = {
    1: {Good.INDIGO: 1, Good.SUGAR: 1, Good.TOBACCO: 1, Good.COFFEE: 2, Good.SILVER: 2},
    2: {Good.INDIGO: 1, Good.SUGAR: 1, Good.TOBACCO: 2, Good.COFFEE: 2, Good.SILVER: 2},
    3: {Good.INDIGO: 1, Good.SUGAR: 1, Good.TOBACCO: 2, Good.COFFEE: 2, Good.SILVER: 3},
    4: {Good.INDIGO: 1, Good.SUGAR: 2, Good.TOBACCO: 2, Good.COFFEE: 2, Good.SILVER: 3},
    5: {Good.INDIGO: 1, Good.SUGAR: 2, Good.TOBACCO: 2, Good.COFFEE: 3, Good.SILVER: 3},
}
HAND_LIMIT: Final = 7
TOWER_HAND_LIMIT: Final = 12
CITY_SIZE_TO_END: Final = 12
ARCH_BONUS: Final = {0: 0, 1: 4, 2: 6, 3: 8}


def full_deck() -> list[str]:
    """All 110 cards, in catalogue order."""
    return [card.name for card in CATALOGUE for _ in range(card.copies)]


def sort_cards(cards: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Cards in catalogue order (the canonical order of a hand or a multiset)."""
    return tuple(sorted(cards, key=ORDER.__getitem__))


def resolve_card(name: object) -> str:
    """The catalogue name of a card, matched without regard to case.

    Raises ``ValueError`` for an unknown name, suggesting the closest ones."""
    if name.__class__ is str and name in CARDS:  # spelt as in the catalogue: the usual case
        return name  # type: ignore[return-value]
    return resolve_name(name, _BY_LOWER, "card")


def resolve_good(name: object) -> Good:
    """A good by name. Raises ``ValueError`` for anything else."""
    try:
        return Good(name.lower()) if isinstance(name, str) else Good(name)  # type: ignore[arg-type]
    except ValueError:
        raise ValueError(
            f"unknown good '{name}' (goods: {', '.join(g.value for g in Good)})"
        ) from None
