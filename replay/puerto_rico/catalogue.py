"""The Puerto Rico components as data (``../shared/rules/FACTS.md`` part 2).

One record per building with cost, printed VP, colonist circles, quarry column, copies and a power
code; the rules read the codes, never building names.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from replay.names import lower_index, resolve_name


class Good(StrEnum):
    """The five goods, in trading-house price order (corn 0 ... coffee 4)."""

    CORN = "corn"
    INDIGO = "indigo"
    SUGAR = "sugar"
    TOBACCO = "tobacco"
    COFFEE = "coffee"


GOODS: Final[tuple[Good, ...]] = tuple(Good)
GOOD_INDEX: Final[dict[Good, int]] = {g: i for i, g in enumerate(GOODS)}
#: Plantation tiles are named by their good; a quarry is the sixth kind of island tile.
QUARRY: Final = "quarry"
TILE_KINDS: Final[tuple[str, ...]] = tuple(g.value for g in GOODS) + (QUARRY,)
TILE_ORDER: Final[dict[str, int]] = {k: i for i, k in enumerate(TILE_KINDS)}


class Role(StrEnum):
    """The roles (a 5-player game has two prospector cards)."""

    SETTLER = "settler"
    MAYOR = "mayor"
    BUILDER = "builder"
    CRAFTSMAN = "craftsman"
    TRADER = "trader"
    CAPTAIN = "captain"
    PROSPECTOR = "prospector"


#: The second prospector card of a 5-player game (its own card: it carries its own doubloons).
PROSPECTOR_2: Final = "prospector_2"
#: The role of each role card (a dict: ``Role(card)`` runs interpreted enum code, and the rules ask
#: for it every role choice).
_ROLE_OF_CARD: Final[dict[str, Role]] = {**{r.value: r for r in Role}, PROSPECTOR_2: Role.PROSPECTOR}


def role_of(card: str) -> Role:
    """The role of a role card (``prospector_2`` is a prospector)."""
    role = _ROLE_OF_CARD.get(card)
    if role is None:
        raise ValueError(f"{card!r} is not a valid Role")
    return role


class Size(StrEnum):
    SMALL = "small"
    LARGE = "large"


class Power(StrEnum):
    """What a building does; each code is read by one place in the rules."""

    PRODUCTION = "production"
    SMALL_MARKET = "small_market"
    HACIENDA = "hacienda"
    CONSTRUCTION_HUT = "construction_hut"
    SMALL_WAREHOUSE = "small_warehouse"
    HOSPICE = "hospice"
    OFFICE = "office"
    LARGE_MARKET = "large_market"
    LARGE_WAREHOUSE = "large_warehouse"
    FACTORY = "factory"
    UNIVERSITY = "university"
    HARBOR = "harbor"
    WHARF = "wharf"
    GUILD_HALL = "guild_hall"
    RESIDENCE = "residence"
    FORTRESS = "fortress"
    CUSTOMS_HOUSE = "customs_house"
    CITY_HALL = "city_hall"


@dataclass(frozen=True, slots=True)
class Building:
    """One building: cost in doubloons, printed VP, colonist circles, quarry column, copies, power,
    the good a production building makes and whether it takes two city spaces."""

    name: str
    cost: int
    vp: int
    circles: int
    column: int
    copies: int
    power: Power
    good: Good | None = None
    large: bool = False

    @property
    def is_production(self) -> bool:
        return self.power is Power.PRODUCTION

    @property
    def is_violet(self) -> bool:
        return self.power is not Power.PRODUCTION

    @property
    def spaces(self) -> int:
        return 2 if self.large else 1


def _prod(name: str, cost: int, vp: int, circles: int, column: int, copies: int, good: Good) -> Building:
    return Building(name, cost, vp, circles, column, copies, Power.PRODUCTION, good)


def _violet(name: str, cost: int, vp: int, column: int, copies: int, power: Power, large: bool = False) -> Building:
    return Building(name, cost, vp, 1, column, copies, power, None, large)


CATALOGUE: Final[tuple[Building, ...]] = (
    _prod("Small indigo plant", 1, 1, 1, 1, 4, Good.INDIGO),
    _prod("Small sugar mill", 2, 1, 1, 1, 4, Good.SUGAR),
    _prod("Indigo plant", 3, 2, 3, 2, 3, Good.INDIGO),
    _prod("Sugar mill", 4, 2, 3, 2, 3, Good.SUGAR),
    _prod("Tobacco storage", 5, 3, 3, 3, 3, Good.TOBACCO),
    _prod("Coffee roaster", 6, 3, 2, 3, 3, Good.COFFEE),
    _violet("Small market", 1, 1, 1, 2, Power.SMALL_MARKET),
    _violet("Hacienda", 2, 1, 1, 2, Power.HACIENDA),
    _violet("Construction hut", 2, 1, 1, 2, Power.CONSTRUCTION_HUT),
    _violet("Small warehouse", 3, 1, 1, 2, Power.SMALL_WAREHOUSE),
    _violet("Hospice", 4, 2, 2, 2, Power.HOSPICE),
    _violet("Office", 5, 2, 2, 2, Power.OFFICE),
    _violet("Large market", 5, 2, 2, 2, Power.LARGE_MARKET),
    _violet("Large warehouse", 6, 2, 2, 2, Power.LARGE_WAREHOUSE),
    _violet("Factory", 7, 3, 3, 2, Power.FACTORY),
    _violet("University", 8, 3, 3, 2, Power.UNIVERSITY),
    _violet("Harbor", 8, 3, 3, 2, Power.HARBOR),
    _violet("Wharf", 9, 3, 3, 2, Power.WHARF),
    _violet("Guild hall", 10, 4, 4, 1, Power.GUILD_HALL, large=True),
    _violet("Residence", 10, 4, 4, 1, Power.RESIDENCE, large=True),
    _violet("Fortress", 10, 4, 4, 1, Power.FORTRESS, large=True),
    _violet("Customs house", 10, 4, 4, 1, Power.CUSTOMS_HOUSE, large=True),
    _violet("City hall", 10, 4, 4, 1, Power.CITY_HALL, large=True),
)

#: Every name the game gives its things (roles and role cards, goods, island tiles, buildings): no code
#: outside the game names one.
NAMES: Final[tuple[str, ...]] = tuple([r.value for r in Role] + [PROSPECTOR_2] + list(TILE_KINDS) + [b.name for b in CATALOGUE])

BUILDINGS: Final[dict[str, Building]] = {b.name: b for b in CATALOGUE}
BUILDING_ORDER: Final[dict[str, int]] = {b.name: i for i, b in enumerate(CATALOGUE)}
_BY_LOWER: Final[dict[str, str]] = lower_index(list(BUILDINGS))

#: Trading-house prices.
PRICES: Final[dict[Good, int]] = {Good.CORN: 0, Good.INDIGO: 1, Good.SUGAR: 2, Good.TOBACCO: 3, Good.COFFEE: 4}
#: Goods in the supply at the start.
GOODS_SUPPLY: Final[dict[Good, int]] = {Good.CORN: 10, Good.INDIGO: 11, Good.SUGAR: 11, Good.TOBACCO: 9, Good.COFFEE: 9}
#: Plantation tiles in the game (the starting ones included).
PLANTATION_TILES: Final[dict[Good, int]] = {Good.CORN: 10, Good.INDIGO: 12, Good.SUGAR: 11, Good.TOBACCO: 9, Good.COFFEE: 8}
QUARRIES: Final = 8
ISLAND_SPACES: Final = 12
CITY_SPACES: Final = 12
TRADING_HOUSE_SPACES: Final = 4
#: Doubloons in the box; the bank is treated as unlimited, this only anchors the conservation check.
DOUBLOONS_IN_GAME: Final = 86
#: Factory income by number of kinds produced (0 to 5).
FACTORY_INCOME: Final = (0, 0, 1, 2, 3, 5)


@dataclass(frozen=True, slots=True)
class Setup:
    """What depends on the player count."""

    doubloons: int
    starting: tuple[Good, ...]
    colonist_supply: int
    colonist_ship: int
    vp_chips: int
    ships: tuple[int, ...]
    prospectors: int


SETUPS: Final[dict[int, Setup]] = {
    3: Setup(2, (Good.INDIGO, Good.INDIGO, Good.CORN), 55, 3, 75, (4, 5, 6), 0),
    4: Setup(3, (Good.INDIGO, Good.INDIGO, Good.CORN, Good.CORN), 75, 4, 100, (5, 6, 7), 1),
    5: Setup(4, (Good.INDIGO, Good.INDIGO, Good.INDIGO, Good.CORN, Good.CORN), 95, 5, 122, (6, 7, 8), 2),
}


def role_cards(players: int) -> tuple[str, ...]:
    """The role cards on the table for ``players``, in fixed order."""
    base = (Role.SETTLER, Role.MAYOR, Role.BUILDER, Role.CRAFTSMAN, Role.TRADER, Role.CAPTAIN)
    cards = [r.value for r in base]
    prospectors = SETUPS[players].prospectors
    if prospectors >= 1:
        cards.append(Role.PROSPECTOR.value)
    if prospectors >= 2:
        cards.append(PROSPECTOR_2)
    return tuple(cards)


def plantation_stack(players: int) -> list[str]:
    """The plantation tiles left for the stack after the starting ones, in kind order."""
    counts = dict(PLANTATION_TILES)
    for good in SETUPS[players].starting:
        counts[good] -= 1
    return [g.value for g in GOODS for _ in range(counts[g])]


def resolve_building(name: object) -> str:
    """The catalogue name of a building, matched without regard to case.

    Raises ``ValueError`` for an unknown name, suggesting the closest ones."""
    return resolve_name(name, _BY_LOWER, "building")


def resolve_good(name: object) -> Good:
    """A good by name. Raises ``ValueError`` for anything else."""
    if isinstance(name, str):
        try:
            return Good(name.lower())
        except ValueError:
            pass
    raise ValueError(f"unknown good {name!r} (goods: {', '.join(g.value for g in GOODS)})")


def resolve_tile(name: object) -> str:
    """A plantation kind or ``quarry``. Raises ``ValueError`` for anything else."""
    if isinstance(name, str) and name.lower() in TILE_ORDER:
        return name.lower()
    raise ValueError(f"unknown plantation {name!r} (kinds: {', '.join(TILE_KINDS)})")
