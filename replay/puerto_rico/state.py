"""Puerto Rico state: immutable snapshots (frozen dataclasses of tuples), so stored states share nothing
mutable. The rules work on a ``Table`` thawed from a snapshot and frozen again after the move; a seat's
own record is thawed only when the move touches it, which keeps replay fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from replay.frozen import fast_constructor, picklable, register_builders
from replay.puerto_rico.catalogue import BUILDINGS, Good, Role


class Stage(StrEnum):
    """What the game is waiting for."""

    ROLE = "role"
    SETTLER = "settler"
    MAYOR = "mayor"
    BUILDER = "builder"
    PRODUCTION = "production"
    CRAFTSMAN = "craftsman"
    TRADER = "trader"
    CAPTAIN = "captain"
    STORAGE = "storage"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class PlayerState:
    """One seat. ``island`` holds the tile kinds in the order taken and ``island_workers`` whether each
    is occupied (0/1); ``city`` holds the buildings in the order built and ``city_workers`` the
    colonists on each; ``san_juan`` the unplaced colonists; ``goods`` barrels by kind (corn..coffee)."""

    doubloons: int
    vp_chips: int = 0
    island: tuple[str, ...] = ()
    island_workers: tuple[int, ...] = ()
    city: tuple[str, ...] = ()
    city_workers: tuple[int, ...] = ()
    san_juan: int = 0
    goods: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    @property
    def colonists(self) -> int:
        """Every colonist the seat owns (placed and in San Juan)."""
        return self.san_juan + sum(self.island_workers) + sum(self.city_workers)

    @property
    def city_spaces(self) -> int:
        return sum(2 if BUILDINGS[b].large else 1 for b in self.city)

    def owns(self, name: str) -> bool:
        return name in self.city


@dataclass(frozen=True, slots=True)
class PuertoRicoState:
    """The whole table after some step.

    ``queue`` holds the seats still to act in the current phase, its head deciding now (in the captain
    phase it holds just the seat whose loading turn it is, and ``idle`` counts the turns in a row
    without a load). ``role_cards``/``role_doubloons`` are the cards on the table and the doubloons on
    each; ``roles_taken`` the (card, seat) pairs of this round. ``vp_chips_left`` goes below zero when
    points are paid after the chips ran out. ``end`` names the game-end triggers met."""

    players: tuple[PlayerState, ...]
    governor: int
    round: int
    step: int
    stage: Stage
    role: Role | None
    chooser: int | None
    queue: tuple[int, ...]
    role_cards: tuple[str, ...]
    role_doubloons: tuple[int, ...]
    roles_taken: tuple[tuple[str, int], ...]
    plantation_stack: tuple[str, ...]
    face_up: tuple[str, ...]
    plantation_discard: tuple[str, ...]
    quarries: int
    colonist_ship: int
    colonist_supply: int
    vp_chips_left: int
    bank: int
    goods_supply: tuple[int, int, int, int, int]
    building_supply: tuple[int, ...]
    ship_capacity: tuple[int, ...]
    ship_good: tuple[Good | None, ...]
    ship_load: tuple[int, ...]
    trading_house: tuple[Good, ...]
    hacienda_done: bool
    craft_kinds: tuple[Good, ...]
    captain_paid: bool
    wharf_used: tuple[int, ...]
    idle: int
    end: tuple[str, ...]
    reshuffles: tuple[tuple[str, ...], ...]
    reshuffles_used: tuple[tuple[str, ...], ...]
    shuffle_seed: int | None
    #: What the rules did by themselves while reaching this state from the previous one (forced loads,
    #: ships emptied, colonists handed out...), as ``(code, ...)`` tuples; ``replay.puerto_rico.events``
    #: puts them in words.
    events: tuple[tuple[object, ...], ...] = ()

    @property
    def num_players(self) -> int:
        return len(self.players)

    def view(self, seat: int) -> PlayerState:
        """``seat`` for reading (as ``Table.view``, so the rules' read-only helpers take either)."""
        return self.players[seat]

    @property
    def current_seat(self) -> int | None:
        if self.stage is Stage.OVER:
            return None
        if self.stage is Stage.ROLE:
            return (self.governor + len(self.roles_taken)) % len(self.players)
        return self.queue[0] if self.queue else None


# -- compiled builders (replay.frozen.fast_constructor): every field stored in order, without the
# frozen dataclass's __init__; a test checks them against the fields.


def _built_player_state(
    doubloons: int,
    vp_chips: int,
    island: tuple[str, ...],
    island_workers: tuple[int, ...],
    city: tuple[str, ...],
    city_workers: tuple[int, ...],
    san_juan: int,
    goods: tuple[int, int, int, int, int],
) -> PlayerState:
    made = PlayerState.__new__(PlayerState)
    made.doubloons = doubloons  # type: ignore[misc]
    made.vp_chips = vp_chips  # type: ignore[misc]
    made.island = island  # type: ignore[misc]
    made.island_workers = island_workers  # type: ignore[misc]
    made.city = city  # type: ignore[misc]
    made.city_workers = city_workers  # type: ignore[misc]
    made.san_juan = san_juan  # type: ignore[misc]
    made.goods = goods  # type: ignore[misc]
    return made


def _built_puerto_rico_state(
    players: tuple[PlayerState, ...],
    governor: int,
    round: int,
    step: int,
    stage: Stage,
    role: Role | None,
    chooser: int | None,
    queue: tuple[int, ...],
    role_cards: tuple[str, ...],
    role_doubloons: tuple[int, ...],
    roles_taken: tuple[tuple[str, int], ...],
    plantation_stack: tuple[str, ...],
    face_up: tuple[str, ...],
    plantation_discard: tuple[str, ...],
    quarries: int,
    colonist_ship: int,
    colonist_supply: int,
    vp_chips_left: int,
    bank: int,
    goods_supply: tuple[int, int, int, int, int],
    building_supply: tuple[int, ...],
    ship_capacity: tuple[int, ...],
    ship_good: tuple[Good | None, ...],
    ship_load: tuple[int, ...],
    trading_house: tuple[Good, ...],
    hacienda_done: bool,
    craft_kinds: tuple[Good, ...],
    captain_paid: bool,
    wharf_used: tuple[int, ...],
    idle: int,
    end: tuple[str, ...],
    reshuffles: tuple[tuple[str, ...], ...],
    reshuffles_used: tuple[tuple[str, ...], ...],
    shuffle_seed: int | None,
    events: tuple[tuple[object, ...], ...],
) -> PuertoRicoState:
    made = PuertoRicoState.__new__(PuertoRicoState)
    made.players = players  # type: ignore[misc]
    made.governor = governor  # type: ignore[misc]
    made.round = round  # type: ignore[misc]
    made.step = step  # type: ignore[misc]
    made.stage = stage  # type: ignore[misc]
    made.role = role  # type: ignore[misc]
    made.chooser = chooser  # type: ignore[misc]
    made.queue = queue  # type: ignore[misc]
    made.role_cards = role_cards  # type: ignore[misc]
    made.role_doubloons = role_doubloons  # type: ignore[misc]
    made.roles_taken = roles_taken  # type: ignore[misc]
    made.plantation_stack = plantation_stack  # type: ignore[misc]
    made.face_up = face_up  # type: ignore[misc]
    made.plantation_discard = plantation_discard  # type: ignore[misc]
    made.quarries = quarries  # type: ignore[misc]
    made.colonist_ship = colonist_ship  # type: ignore[misc]
    made.colonist_supply = colonist_supply  # type: ignore[misc]
    made.vp_chips_left = vp_chips_left  # type: ignore[misc]
    made.bank = bank  # type: ignore[misc]
    made.goods_supply = goods_supply  # type: ignore[misc]
    made.building_supply = building_supply  # type: ignore[misc]
    made.ship_capacity = ship_capacity  # type: ignore[misc]
    made.ship_good = ship_good  # type: ignore[misc]
    made.ship_load = ship_load  # type: ignore[misc]
    made.trading_house = trading_house  # type: ignore[misc]
    made.hacienda_done = hacienda_done  # type: ignore[misc]
    made.craft_kinds = craft_kinds  # type: ignore[misc]
    made.captain_paid = captain_paid  # type: ignore[misc]
    made.wharf_used = wharf_used  # type: ignore[misc]
    made.idle = idle  # type: ignore[misc]
    made.end = end  # type: ignore[misc]
    made.reshuffles = reshuffles  # type: ignore[misc]
    made.reshuffles_used = reshuffles_used  # type: ignore[misc]
    made.shuffle_seed = shuffle_seed  # type: ignore[misc]
    made.events = events  # type: ignore[misc]
    return made


register_builders({PlayerState: _built_player_state, PuertoRicoState: _built_puerto_rico_state})


#: Positional constructors of the snapshots that skip the frozen ``__setattr__`` (see replay.frozen).
_new_player = fast_constructor(PlayerState)
_new_state = fast_constructor(PuertoRicoState)
picklable(PlayerState, PuertoRicoState)


def seats_from(first: int, players: int) -> list[int]:
    """All seats clockwise starting with ``first``."""
    return [(first + i) % players for i in range(players)]


class MPlayer:
    """A mutable working copy of one seat; ``dirty`` while it differs from the table's snapshot of it."""

    __slots__ = (
        "doubloons", "vp_chips", "island", "island_workers", "city", "city_workers", "san_juan", "goods", "dirty",
    )

    def __init__(self, p: PlayerState) -> None:
        self.doubloons = p.doubloons
        self.vp_chips = p.vp_chips
        self.island = list(p.island)
        self.island_workers = list(p.island_workers)
        self.city = list(p.city)
        self.city_workers = list(p.city_workers)
        self.san_juan = p.san_juan
        self.goods = list(p.goods)
        self.dirty = False

    def freeze(self) -> PlayerState:
        return _new_player(
            self.doubloons, self.vp_chips, tuple(self.island), tuple(self.island_workers), tuple(self.city),
            tuple(self.city_workers), self.san_juan, tuple(self.goods),  # type: ignore[arg-type]
        )

    @property
    def city_spaces(self) -> int:
        return sum(2 if BUILDINGS[b].large else 1 for b in self.city)


class Table:
    """A mutable working copy of a state, used inside ``apply``. Seats are thawed on first use.

    ``freeze`` leaves the table equal to the snapshot it returns, so the next ``apply`` from that
    snapshot may go on with the same table (``rules`` hands it over) instead of thawing it again."""

    __slots__ = (
        "n", "frozen_players", "thawed", "governor", "round", "step", "stage", "role", "chooser", "queue",
        "role_cards", "role_doubloons", "roles_taken", "plantation_stack", "face_up", "plantation_discard",
        "quarries", "colonist_ship", "colonist_supply", "vp_chips_left", "bank", "goods_supply",
        "building_supply", "ship_capacity", "ship_good", "ship_load", "trading_house", "hacienda_done",
        "craft_kinds", "captain_paid", "wharf_used", "idle", "end", "reshuffles", "reshuffles_used",
        "shuffle_seed", "events",
    )

    def __init__(self, s: PuertoRicoState) -> None:
        self.n = len(s.players)
        self.frozen_players = s.players
        self.thawed: dict[int, MPlayer] = {}
        self.governor = s.governor
        self.round = s.round
        self.step = s.step
        self.stage = s.stage
        self.role = s.role
        self.chooser = s.chooser
        self.queue = list(s.queue)
        self.role_cards = s.role_cards
        self.role_doubloons = list(s.role_doubloons)
        self.roles_taken = list(s.roles_taken)
        self.plantation_stack = s.plantation_stack
        self.face_up = list(s.face_up)
        self.plantation_discard = s.plantation_discard
        self.quarries = s.quarries
        self.colonist_ship = s.colonist_ship
        self.colonist_supply = s.colonist_supply
        self.vp_chips_left = s.vp_chips_left
        self.bank = s.bank
        self.goods_supply = list(s.goods_supply)
        self.building_supply = s.building_supply
        self.ship_capacity = s.ship_capacity
        self.ship_good = list(s.ship_good)
        self.ship_load = list(s.ship_load)
        self.trading_house = list(s.trading_house)
        self.hacienda_done = s.hacienda_done
        self.craft_kinds = s.craft_kinds
        self.captain_paid = s.captain_paid
        self.wharf_used = s.wharf_used
        self.idle = s.idle
        self.end = s.end
        self.reshuffles = s.reshuffles
        self.reshuffles_used = s.reshuffles_used
        self.shuffle_seed = s.shuffle_seed
        self.events: list[tuple[object, ...]] = []

    def p(self, seat: int) -> MPlayer:
        """The mutable copy of ``seat`` (made on first use), for changing it."""
        mp = self.thawed.get(seat)
        if mp is None:
            mp = self.thawed[seat] = MPlayer(self.frozen_players[seat])
        mp.dirty = True
        return mp

    def view(self, seat: int) -> PlayerState | MPlayer:
        """``seat`` for reading: the mutable copy if there is one, else the snapshot."""
        return self.thawed.get(seat) or self.frozen_players[seat]

    def freeze_seats(self) -> list[int]:
        """Freeze the seats changed since the last freeze into ``frozen_players`` (the others keep their
        snapshot object); returns the seats frozen again."""
        changed = None
        seats = []
        for i, mp in self.thawed.items():
            if mp.dirty:
                if changed is None:
                    changed = list(self.frozen_players)
                changed[i] = mp.freeze()
                mp.dirty = False
                seats.append(i)
        if changed is not None:
            self.frozen_players = tuple(changed)
        return seats

    def freeze(self) -> PuertoRicoState:
        """The snapshot of the table. Seats not changed since the last ``freeze`` keep their snapshot
        object (ingestion stores runs of unchanged seats by identity)."""
        self.freeze_seats()
        return _new_state(
            self.frozen_players, self.governor, self.round, self.step, self.stage, self.role, self.chooser,
            tuple(self.queue), self.role_cards, tuple(self.role_doubloons), tuple(self.roles_taken),
            self.plantation_stack, tuple(self.face_up), self.plantation_discard, self.quarries,
            self.colonist_ship, self.colonist_supply, self.vp_chips_left, self.bank,
            tuple(self.goods_supply), self.building_supply, self.ship_capacity,  # type: ignore[arg-type]
            tuple(self.ship_good), tuple(self.ship_load), tuple(self.trading_house), self.hacienda_done,
            self.craft_kinds, self.captain_paid, self.wharf_used, self.idle, self.end, self.reshuffles,
            self.reshuffles_used, self.shuffle_seed, tuple(self.events),
        )

    @property
    def current_seat(self) -> int | None:
        if self.stage is Stage.OVER:
            return None
        if self.stage is Stage.ROLE:
            return (self.governor + len(self.roles_taken)) % self.n
        return self.queue[0] if self.queue else None
