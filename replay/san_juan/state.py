"""San Juan state: immutable snapshots (frozen dataclasses of tuples), so stored states share nothing.

The rules work on a mutable ``Table`` thawed from a snapshot and frozen again after the move, which
keeps ``apply`` pure from the outside and the rule code plain.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from replay.errors import FieldError
from replay.frozen import fast_constructor, picklable, register_builders
from replay.san_juan.cards import CARDS, ORDER, Role, sort_cards
from replay.san_juan.thawed import ThawedSeats


class Stage(StrEnum):
    """What the game is waiting for."""

    DRAFT = "draft"
    CHAPEL = "chapel"
    HAND_LIMIT = "hand_limit"
    ROLE = "role"
    PHASE = "phase"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class PlayerState:
    """One seat: hand (catalogue order), buildings in the order built (a crane builds in place),
    the card lying as a good on each building (None when empty), chapel cards, crane-covered cards."""

    hand: tuple[str, ...]
    buildings: tuple[str, ...]
    goods: tuple[str | None, ...]
    chapel: tuple[str, ...] = ()
    covered: tuple[str, ...] = ()
    library_used: bool = False

    def owns(self, name: str) -> bool:
        return name in self.buildings


@dataclass(frozen=True, slots=True)
class SanJuanState:
    """The whole table after some step. ``queue`` holds the seats still to act in the current stage;
    its head is the seat that decides now. ``looking`` holds the cards a councillor drew or a gold
    mine turned up, in nobody's hand and in no pile until the decision."""

    players: tuple[PlayerState, ...]
    draw_pile: tuple[str, ...]
    discard: tuple[str, ...]
    tiles: tuple[int, ...]
    tile_index: int
    tile: int | None
    round: int
    governor: int
    role_turn: int
    roles_taken: tuple[tuple[Role, int], ...]
    stage: Stage
    role: Role | None
    chooser: int | None
    library: bool
    queue: tuple[int, ...]
    looking: tuple[str, ...]
    step: int
    reshuffles: tuple[tuple[str, ...], ...]
    reshuffles_used: tuple[tuple[str, ...], ...]
    shuffle_seed: int | None
    draft: bool
    #: What the rules did by themselves while reaching this state from the previous one (cards drawn
    #: by powers, reshuffles, skipped seats...), as ``(code, ...)`` tuples; ``replay.san_juan.events``
    #: puts them in words.
    events: tuple[tuple[object, ...], ...] = ()

    @property
    def num_players(self) -> int:
        return len(self.players)

    @property
    def current_seat(self) -> int | None:
        return seat_to_act(self.stage, len(self.players), self.governor, self.role_turn, self.queue)

    def seat_buildings(self, seat: int) -> tuple[str, ...]:
        """The seat's buildings (``Table.seat_buildings`` answers the same on a working table)."""
        return self.players[seat].buildings

    def library_used_by(self, seat: int) -> bool:
        return self.players[seat].library_used

    def cards_left(self) -> int:
        """Cards in the draw and discard piles (as ``Table.cards_left``)."""
        return len(self.draw_pile) + len(self.discard)

    def all_cards(self) -> list[str]:
        """Every card on the table, wherever it lies (for the conservation invariant)."""
        cards: list[str] = list(self.draw_pile) + list(self.discard) + list(self.looking)
        for player in self.players:
            cards.extend(player.hand)
            cards.extend(player.buildings)
            cards.extend(g for g in player.goods if g is not None)
            cards.extend(player.chapel)
            cards.extend(player.covered)
        return cards


def seat_to_act(stage: Stage, n: int, governor: int, role_turn: int, queue: Sequence[int]) -> int | None:
    """The seat that decides now: in the role stage the one whose turn it is to choose, else the head
    of the queue (None once the game is over)."""
    if stage is Stage.ROLE:
        # role_order() inlined: this runs several times per move.
        if n == 2:
            return 1 - governor if role_turn == 1 else governor
        return (governor + role_turn) % n
    if stage is Stage.OVER:
        return None
    return queue[0] if queue else None


# -- compiled builders (replay.frozen.fast_constructor): every field stored in order, without the
# frozen dataclass's __init__; a test checks them against the fields.


def _built_player_state(
    hand: tuple[str, ...],
    buildings: tuple[str, ...],
    goods: tuple[str | None, ...],
    chapel: tuple[str, ...],
    covered: tuple[str, ...],
    library_used: bool,
) -> PlayerState:
    made = PlayerState.__new__(PlayerState)
    made.hand = hand  # type: ignore[misc]
    made.buildings = buildings  # type: ignore[misc]
    made.goods = goods  # type: ignore[misc]
    made.chapel = chapel  # type: ignore[misc]
    made.covered = covered  # type: ignore[misc]
    made.library_used = library_used  # type: ignore[misc]
    return made


def _built_san_juan_state(
    players: tuple[PlayerState, ...],
    draw_pile: tuple[str, ...],
    discard: tuple[str, ...],
    tiles: tuple[int, ...],
    tile_index: int,
    tile: int | None,
    round: int,
    governor: int,
    role_turn: int,
    roles_taken: tuple[tuple[Role, int], ...],
    stage: Stage,
    role: Role | None,
    chooser: int | None,
    library: bool,
    queue: tuple[int, ...],
    looking: tuple[str, ...],
    step: int,
    reshuffles: tuple[tuple[str, ...], ...],
    reshuffles_used: tuple[tuple[str, ...], ...],
    shuffle_seed: int | None,
    draft: bool,
    events: tuple[tuple[object, ...], ...],
) -> SanJuanState:
    made = SanJuanState.__new__(SanJuanState)
    made.players = players  # type: ignore[misc]
    made.draw_pile = draw_pile  # type: ignore[misc]
    made.discard = discard  # type: ignore[misc]
    made.tiles = tiles  # type: ignore[misc]
    made.tile_index = tile_index  # type: ignore[misc]
    made.tile = tile  # type: ignore[misc]
    made.round = round  # type: ignore[misc]
    made.governor = governor  # type: ignore[misc]
    made.role_turn = role_turn  # type: ignore[misc]
    made.roles_taken = roles_taken  # type: ignore[misc]
    made.stage = stage  # type: ignore[misc]
    made.role = role  # type: ignore[misc]
    made.chooser = chooser  # type: ignore[misc]
    made.library = library  # type: ignore[misc]
    made.queue = queue  # type: ignore[misc]
    made.looking = looking  # type: ignore[misc]
    made.step = step  # type: ignore[misc]
    made.reshuffles = reshuffles  # type: ignore[misc]
    made.reshuffles_used = reshuffles_used  # type: ignore[misc]
    made.shuffle_seed = shuffle_seed  # type: ignore[misc]
    made.draft = draft  # type: ignore[misc]
    made.events = events  # type: ignore[misc]
    return made


register_builders({PlayerState: _built_player_state, SanJuanState: _built_san_juan_state})


_new_player = fast_constructor(PlayerState)
_new_state = fast_constructor(SanJuanState)
picklable(PlayerState, SanJuanState)


def role_order(governor: int, players: int) -> tuple[int, ...]:
    """Who chooses a role, in turn, in a round: everyone from the governor; with 2, A-B-A."""
    if players == 2:
        return (governor, 1 - governor, governor)
    return tuple((governor + i) % players for i in range(players))


def seats_from(first: int, players: int) -> tuple[int, ...]:
    """All seats clockwise starting with ``first``."""
    return tuple((first + i) % players for i in range(players))


class SeatLists:
    """One list per seat (a hand, a city, ...), thawed from the snapshot on first use: a move
    touches one or two seats, so the others are never copied and their snapshots are reused."""

    __slots__ = ("_players", "_field", "_lists")

    def __init__(self, players: tuple[PlayerState, ...], field: str) -> None:
        self._players = players
        self._field = field
        self._lists: list[list | None] = [None] * len(players)  # type: ignore[type-arg]

    def __getitem__(self, seat: int) -> list:  # type: ignore[type-arg]
        thawed = self._lists[seat]
        if thawed is None:
            thawed = self._lists[seat] = list(getattr(self._players[seat], self._field))
        return thawed

    def __setitem__(self, seat: int, value: list) -> None:  # type: ignore[type-arg]
        self._lists[seat] = value

    def read(self, seat: int) -> list | tuple:  # type: ignore[type-arg]
        """The seat's list for reading only: the snapshot's tuple when not thawed."""
        thawed = self._lists[seat]
        return getattr(self._players[seat], self._field) if thawed is None else thawed

    def edit(self, seat: int) -> list:  # type: ignore[type-arg]
        """The seat's list, thawed, for changing (``self[seat]``; spelled out, not an alias of
        ``__getitem__``, which a class compiled by mypyc cannot have)."""
        thawed = self._lists[seat]
        if thawed is None:
            thawed = self._lists[seat] = list(getattr(self._players[seat], self._field))
        return thawed

    def __len__(self) -> int:
        return len(self._lists)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return (self[i] for i in range(len(self._lists)))

    def touched(self, seat: int) -> bool:
        return self._lists[seat] is not None


class Table:
    """A mutable working copy of a state: made for one ``apply`` (seats and piles thawed when first
    changed, frozen again after the move), or, with ``working``, thawed whole once and changed in
    place move after move (a replay that needs no snapshot in between)."""

    __slots__ = (
        "hands", "buildings", "goods", "chapel", "covered", "library_used", "_draw_pile", "_discard",
        "tiles", "tile_index", "tile", "round", "governor", "role_turn", "roles_taken", "stage",
        "role", "chooser", "library", "queue", "looking", "step", "reshuffles", "reshuffles_used",
        "shuffle_seed", "draft", "n", "before", "events", "privilege_declined",
    )

    def __init__(self, s: SanJuanState, working: bool = False) -> None:
        players = s.players
        self.n = len(players)
        self.library_used = [p.library_used for p in players]
        self.hands: SeatLists | ThawedSeats
        self.buildings: SeatLists | ThawedSeats
        self.goods: SeatLists | ThawedSeats
        self.chapel: SeatLists | ThawedSeats
        self.covered: SeatLists | ThawedSeats
        self.before: tuple[PlayerState, ...] | None
        if working:
            self.before = None
            self.hands = ThawedSeats(list(p.hand) for p in players)
            self.buildings = ThawedSeats(list(p.buildings) for p in players)
            self.goods = ThawedSeats(list(p.goods) for p in players)
            self.chapel = ThawedSeats(list(p.chapel) for p in players)
            self.covered = ThawedSeats(list(p.covered) for p in players)
            self._draw_pile: list[str] | tuple[str, ...] = list(s.draw_pile)
            self._discard: list[str] | tuple[str, ...] = list(s.discard)
        else:
            self.before = players
            self.hands = SeatLists(players, "hand")
            self.buildings = SeatLists(players, "buildings")
            self.goods = SeatLists(players, "goods")
            self.chapel = SeatLists(players, "chapel")
            self.covered = SeatLists(players, "covered")
            # The piles stay tuples until a move changes them (most moves do not).
            self._draw_pile = s.draw_pile
            self._discard = s.discard
        self.tiles = s.tiles
        self.tile_index = s.tile_index
        self.tile = s.tile
        self.round = s.round
        self.governor = s.governor
        self.role_turn = s.role_turn
        self.roles_taken = list(s.roles_taken)
        self.stage = s.stage
        self.role = s.role
        self.chooser = s.chooser
        self.library = s.library
        self.queue = list(s.queue)
        self.looking = list(s.looking)
        self.step = s.step
        self.reshuffles = list(s.reshuffles)
        self.reshuffles_used = list(s.reshuffles_used)
        self.shuffle_seed = s.shuffle_seed
        self.draft = s.draft
        self.events: list[tuple[object, ...]] = []
        # Set by a role move that declines its privilege; only read within that move (the chooser's
        # part of the phase starts in the same ``apply``), so it is not part of the snapshot.
        self.privilege_declined = False

    @property
    def current_seat(self) -> int | None:
        """The seat that decides now (as ``SanJuanState.current_seat``)."""
        return seat_to_act(self.stage, self.n, self.governor, self.role_turn, self.queue)

    @property
    def num_players(self) -> int:
        return self.n

    def seat_buildings(self, seat: int) -> list[str] | tuple[str, ...]:
        """The seat's buildings, for reading (as ``SanJuanState.seat_buildings``)."""
        return self.buildings.read(seat)  # type: ignore[return-value]

    def library_used_by(self, seat: int) -> bool:
        return self.library_used[seat]

    def player(self, seat: int) -> PlayerState:
        """The seat's snapshot as ``freeze`` makes it (the importer's per-seat row reads it)."""
        return self._freeze_player(seat)

    def freeze(self) -> SanJuanState:
        players = tuple(self._freeze_player(i) for i in range(self.n))
        # Positional, in the field order of SanJuanState.
        return _new_state(
            players,
            self._draw_pile if self._draw_pile.__class__ is tuple else tuple(self._draw_pile),
            self._discard if self._discard.__class__ is tuple else tuple(self._discard),
            self.tiles,
            self.tile_index,
            self.tile,
            self.round,
            self.governor,
            self.role_turn,
            tuple(self.roles_taken),
            self.stage,
            self.role,
            self.chooser,
            self.library,
            tuple(self.queue),
            tuple(self.looking),
            self.step,
            tuple(self.reshuffles),
            tuple(self.reshuffles_used),
            self.shuffle_seed,
            self.draft,
            tuple(self.events),
        )

    @property
    def draw_pile(self) -> list[str]:
        pile = self._draw_pile
        if pile.__class__ is tuple:
            pile = self._draw_pile = list(pile)
        return pile  # type: ignore[return-value]

    @draw_pile.setter
    def draw_pile(self, value: list[str]) -> None:
        self._draw_pile = value

    @property
    def discard(self) -> list[str]:
        pile = self._discard
        if pile.__class__ is tuple:
            pile = self._discard = list(pile)
        return pile  # type: ignore[return-value]

    @discard.setter
    def discard(self, value: list[str]) -> None:
        self._discard = value

    def cards_left(self) -> int:
        """Cards in the draw and discard piles (without thawing them)."""
        return len(self._draw_pile) + len(self._discard)

    def _freeze_player(self, i: int) -> PlayerState:
        """The seat's snapshot; the old snapshot object itself when nothing of it changed, so
        unchanged seats are shared between states (cheap to store and to compare)."""
        library_used = self.library_used[i]
        if self.before is None:
            return _new_player(
                sort_cards(self.hands[i]), tuple(self.buildings[i]), tuple(self.goods[i]), tuple(self.chapel[i]),
                tuple(self.covered[i]), library_used,
            )
        old = self.before[i]
        if not (
            self.hands.touched(i)
            or self.buildings.touched(i)
            or self.goods.touched(i)
            or self.chapel.touched(i)
            or self.covered.touched(i)
        ) and library_used == old.library_used:
            return old
        hand = tuple(self.hands[i])
        if hand != old.hand:
            hand = sort_cards(hand)
        buildings = tuple(self.buildings[i])
        goods = tuple(self.goods[i])
        chapel = tuple(self.chapel[i])
        covered = tuple(self.covered[i])
        if (
            hand == old.hand
            and buildings == old.buildings
            and goods == old.goods
            and chapel == old.chapel
            and covered == old.covered
            and library_used == old.library_used
        ):
            return old
        return _new_player(hand, buildings, goods, chapel, covered, library_used)

    # -- cards -------------------------------------------------------------------------------

    def draw(self, count: int) -> list[str]:
        """Take ``count`` cards from the top of the draw pile, reshuffling the discard pile when the
        pile runs out; with both piles empty, fewer cards are drawn."""
        pile = self.draw_pile
        if len(pile) >= count:
            drawn = pile[:count]
            del pile[:count]
            return drawn
        drawn = []
        for _ in range(count):
            if not self.draw_pile:
                if not self.discard:
                    break
                self._reshuffle()
            drawn.append(self.draw_pile.pop(0))
        return drawn

    def _reshuffle(self) -> None:
        number = len(self.reshuffles_used)
        if self.reshuffles:
            order = list(self.reshuffles.pop(0))
            # Sorted by name, the same cards give the same list (only the comparison needs an order).
            if sorted(order) != sorted(self.discard):
                raise FieldError(
                    f"setup.reshuffles[{number}]",
                    f"is not an order of the {len(self.discard)} cards in the discard pile at move "
                    f"{self.step + 1}: {_multiset_diff(order, self.discard)}",
                )
        elif self.shuffle_seed is not None:
            order = sorted(self.discard, key=ORDER.__getitem__)
            random.Random(f"{self.shuffle_seed}:{number}").shuffle(order)
        else:
            raise FieldError(
                "setup.reshuffles",
                f"the draw pile runs out at move {self.step + 1} and the log records "
                f"{number} reshuffle order(s); reshuffle {number + 1} is missing",
            )
        self.reshuffles_used.append(tuple(order))
        self.events.append(("reshuffle", len(order)))
        self.draw_pile = order
        self.discard = []

    def production_count(self, seat: int) -> int:
        return sum(1 for b in self.buildings[seat] if CARDS[b].is_production)


def _multiset_diff(given: list[str], expected: list[str]) -> str:
    from collections import Counter

    extra = Counter(given) - Counter(expected)
    missing = Counter(expected) - Counter(given)
    parts = []
    if missing:
        parts.append("missing " + ", ".join(f"{n}x {c}" for c, n in sorted(missing.items())))
    if extra:
        parts.append("not in the pile " + ", ".join(f"{n}x {c}" for c, n in sorted(extra.items())))
    return "; ".join(parts) or "same cards"
