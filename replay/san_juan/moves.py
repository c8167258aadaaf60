"""San Juan moves: one small typed value per kind of decision, with a JSON form and a text form.

A move records only what the player decided; everything the rules derive (cards drawn, prices,
discounts) is left out. JSON kinds: role, build, produce, sell, councillor, gold_mine, chapel,
hand_limit, draft, pass. ``seat`` may be given on any move and is then checked.

Every optional power is used unless the move says otherwise: ``decline`` on a build, produce or sell
move names the buildings whose card the player does not take; a role move may decline the privilege
(councillor, prospector) and name the seats whose gold mine turns up no cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from replay.errors import FieldError
from replay.frozen import picklable, register_builders
from replay.san_juan.cards import (
    CARPENTER,
    MARKET_HALL,
    MARKET_STAND,
    POOR_HOUSE,
    WELL,
    Good,
    Role,
    resolve_card,
    resolve_good,
    sort_cards,
)

_GOOD_ORDER: Final = {g: i for i, g in enumerate(Good)}


def _goods_sorted(goods: tuple[Good, ...]) -> tuple[Good, ...]:
    return tuple(sorted(goods, key=_GOOD_ORDER.__getitem__))


def _list(cards: tuple[str, ...]) -> str:
    return ", ".join(cards)


def _decline_text(decline: tuple[str, ...]) -> str:
    return f" decline [{_list(decline)}]" if decline else ""


#: The buildings whose card each kind of move may decline, in catalogue order.
DECLINABLE: Final[dict[str, tuple[str, ...]]] = {
    "build": (POOR_HOUSE, CARPENTER),
    "produce": (WELL,),
    "sell": (MARKET_STAND, MARKET_HALL),
}


@dataclass(frozen=True, slots=True)
class ChooseRole:
    """Choose a role. ``library`` False declines the library's double privilege (it matters in 2-player
    games, where the library works once a round); None means "use it if possible". ``privilege`` False
    declines the councillor's or prospector's privilege (its extra cards). ``gold_mine_declined`` lists
    the seats (sorted) whose gold mine turns up no cards in this prospector phase;
    ``councillor_refrained`` the seats (sorted) that refrain from the councillor's action and draw
    nothing (every player may refrain from a role's action)."""

    role: Role
    library: bool | None = None
    privilege: bool = True
    gold_mine_declined: tuple[int, ...] = ()
    councillor_refrained: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"kind": "role", "role": self.role.value}
        if self.library is not None:
            obj["library"] = self.library
        if not self.privilege:
            obj["privilege"] = False
        if self.gold_mine_declined:
            obj["gold_mine_declined"] = list(self.gold_mine_declined)
        if self.councillor_refrained:
            obj["councillor_refrained"] = list(self.councillor_refrained)
        return obj

    def text(self) -> str:
        suffix = {None: "", True: " +library", False: " -library"}[self.library]
        if not self.privilege:
            suffix += " -privilege"
        if self.gold_mine_declined:
            suffix += f" -gold mine [{', '.join(str(s) for s in self.gold_mine_declined)}]"
        if self.councillor_refrained:
            suffix += f" -draw [{', '.join(str(s) for s in self.councillor_refrained)}]"
        return f"role {self.role.value}{suffix}"


@dataclass(frozen=True, slots=True)
class Build:
    """Build ``building`` from hand, paying exactly the cards ``pay``, the goods ``goods`` (black market)
    and, with the crane, building over ``replace``. ``decline`` names the buildings (carpenter, poor
    house) whose card the builder does not draw."""

    building: str
    pay: tuple[str, ...] = ()
    goods: tuple[Good, ...] = ()
    replace: str | None = None
    decline: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"kind": "build", "building": self.building, "pay": list(self.pay)}
        if self.goods:
            obj["goods"] = [g.value for g in self.goods]
        if self.replace is not None:
            obj["replace"] = self.replace
        if self.decline:
            obj["decline"] = list(self.decline)
        return obj

    def text(self) -> str:
        parts = [f"build {self.building}"]
        if self.replace:
            parts.append(f"over {self.replace}")
        parts.append(f"pay [{_list(self.pay)}]")
        if self.goods:
            parts.append(f"goods [{', '.join(g.value for g in self.goods)}]")
        return " ".join(parts) + _decline_text(self.decline)


@dataclass(frozen=True, slots=True)
class Produce:
    """Produce one good of each kind listed (repeat a kind for several buildings of it); ``decline``
    may name the well, whose card is then not drawn."""

    goods: tuple[Good, ...]
    decline: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"kind": "produce", "goods": [g.value for g in self.goods]}
        if self.decline:
            obj["decline"] = list(self.decline)
        return obj

    def text(self) -> str:
        return f"produce {', '.join(g.value for g in self.goods)}" + _decline_text(self.decline)

    def canonical(self) -> Produce:
        """The same decision as ``legal_moves`` lists it: the goods in catalogue order. The order of a
        log's goods says which building the top card of the draw pile goes under, face down, which no
        player can tell apart; the rules apply the move as written."""
        goods = _goods_sorted(self.goods)
        return self if goods == self.goods else Produce(goods, self.decline)


@dataclass(frozen=True, slots=True)
class Sell:
    """Sell one good of each kind listed; ``decline`` may name the market stand and the market hall,
    whose cards are then not drawn."""

    goods: tuple[Good, ...]
    decline: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"kind": "sell", "goods": [g.value for g in self.goods]}
        if self.decline:
            obj["decline"] = list(self.decline)
        return obj

    def text(self) -> str:
        return f"sell {', '.join(g.value for g in self.goods)}" + _decline_text(self.decline)


@dataclass(frozen=True, slots=True)
class Councillor:
    """Councillor: ``keep`` the listed drawn cards (the others are discarded); with an archive,
    ``discard`` the listed cards from the whole hand instead (exactly one of the two is set)."""

    keep: tuple[str, ...] | None = None
    discard: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        if self.discard is not None:
            return {"kind": "councillor", "discard": list(self.discard)}
        return {"kind": "councillor", "keep": list(self.keep or ())}

    def text(self) -> str:
        if self.discard is not None:
            return f"councillor discard [{_list(self.discard)}]"
        return f"councillor keep [{_list(self.keep or ())}]"


@dataclass(frozen=True, slots=True)
class GoldMine:
    """Keep one of the four cards a gold mine turned up."""

    keep: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": "gold_mine", "keep": self.keep}

    def text(self) -> str:
        return f"gold mine keep {self.keep}"


@dataclass(frozen=True, slots=True)
class Chapel:
    """Tuck a hand card under the chapel."""

    card: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": "chapel", "card": self.card}

    def text(self) -> str:
        return f"chapel {self.card}"


@dataclass(frozen=True, slots=True)
class HandLimit:
    """Discard down to the hand limit."""

    discard: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"kind": "hand_limit", "discard": list(self.discard)}

    def text(self) -> str:
        return f"hand limit discard [{_list(self.discard)}]"


@dataclass(frozen=True, slots=True)
class Draft:
    """Draft-start variant: the four cards kept from the opening draw."""

    keep: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"kind": "draft", "keep": list(self.keep)}

    def text(self) -> str:
        return f"draft keep [{_list(self.keep)}]"


@dataclass(frozen=True, slots=True)
class Pass:
    """Decline the current optional action (build, produce, sell, chapel, gold mine)."""

    def to_json(self) -> dict[str, Any]:
        return {"kind": "pass"}

    def text(self) -> str:
        return "pass"


SanJuanMove = ChooseRole | Build | Produce | Sell | Councillor | GoldMine | Chapel | HandLimit | Draft | Pass
picklable(ChooseRole, Build, Produce, Sell, Councillor, GoldMine, Chapel, HandLimit, Draft, Pass)

_FIELDS: Final[dict[str, set[str]]] = {
    "role": {"role", "library", "privilege", "gold_mine_declined", "councillor_refrained"},
    "build": {"building", "pay", "goods", "replace", "decline"},
    "produce": {"goods", "decline"},
    "sell": {"goods", "decline"},
    "councillor": {"keep", "discard"},
    "gold_mine": {"keep"},
    "chapel": {"card"},
    "hand_limit": {"discard"},
    "draft": {"keep"},
    "pass": set(),
}


def _card(obj: dict[str, Any], key: str, path: str) -> str:
    if key not in obj:
        raise FieldError(f"{path}.{key}", "missing card name")
    try:
        return resolve_card(obj[key])
    except ValueError as err:
        raise FieldError(f"{path}.{key}", str(err)) from None


def _cards(obj: dict[str, Any], key: str, path: str, required: bool = True) -> tuple[str, ...]:
    if key not in obj:
        if required:
            raise FieldError(f"{path}.{key}", "missing list of card names")
        return ()
    value = obj[key]
    if not isinstance(value, list):
        raise FieldError(f"{path}.{key}", f"expected a list of card names, got {type(value).__name__}")
    out = []
    for i, item in enumerate(value):
        try:
            out.append(resolve_card(item))
        except ValueError as err:
            raise FieldError(f"{path}.{key}[{i}]", str(err)) from None
    return sort_cards(out)


def _goods(
    obj: dict[str, Any], key: str, path: str, required: bool = True, keep_order: bool = False
) -> tuple[Good, ...]:
    if key not in obj:
        if required:
            raise FieldError(f"{path}.{key}", "missing list of goods")
        return ()
    value = obj[key]
    if not isinstance(value, list):
        raise FieldError(f"{path}.{key}", f"expected a list of goods, got {type(value).__name__}")
    out = []
    for i, item in enumerate(value):
        try:
            out.append(resolve_good(item))
        except ValueError as err:
            raise FieldError(f"{path}.{key}[{i}]", str(err)) from None
    return tuple(out) if keep_order else _goods_sorted(tuple(out))


def _decline(obj: dict[str, Any], kind: str, path: str) -> tuple[str, ...]:
    """The ``decline`` list of a build, produce or sell move: distinct buildings that move can decline."""
    cards = _cards(obj, "decline", path, required=False)
    allowed = DECLINABLE[kind]
    for i, card in enumerate(cards):
        if card not in allowed:
            raise FieldError(
                f"{path}.decline[{i}]",
                f"a '{kind}' move can decline only the card of the {' or the '.join(a.lower() for a in allowed)}, not {card}",
            )
    if len(set(cards)) != len(cards):
        raise FieldError(f"{path}.decline", "names a building twice")
    return cards


def _seats(obj: dict[str, Any], key: str, path: str) -> tuple[int, ...]:
    value = obj.get(key, [])
    if not isinstance(value, list) or any(not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in value):
        raise FieldError(f"{path}.{key}", f"expected a list of seat numbers, got {value!r}")
    if len(set(value)) != len(value):
        raise FieldError(f"{path}.{key}", "names a seat twice")
    return tuple(sorted(value))


def parse_move(obj: Any, path: str) -> SanJuanMove:
    """A typed move from its JSON form; ``path`` is where it sits in the log (``moves[12]``).

    Raises ``FieldError`` naming the field at fault."""
    if not isinstance(obj, dict):
        raise FieldError(path, f"a move must be an object, got {type(obj).__name__}")
    kind = obj.get("kind")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise FieldError(f"{path}.kind", f"unknown move kind {kind!r} (kinds: {', '.join(_FIELDS)})")
    extra = set(obj) - _FIELDS[kind] - {"kind", "seat"}
    if extra:
        raise FieldError(f"{path}.{sorted(extra)[0]}", f"unknown field for a '{kind}' move")
    if kind == "role":
        try:
            role = Role(str(obj.get("role")))
        except ValueError:
            raise FieldError(
                f"{path}.role", f"unknown role {obj.get('role')!r} (roles: {', '.join(r.value for r in Role)})"
            ) from None
        library = obj.get("library")
        if library is not None and not isinstance(library, bool):
            raise FieldError(f"{path}.library", "expected true or false")
        privilege = obj.get("privilege", True)
        if not isinstance(privilege, bool):
            raise FieldError(f"{path}.privilege", "expected true or false")
        return ChooseRole(role, library, privilege, _seats(obj, "gold_mine_declined", path),
                          _seats(obj, "councillor_refrained", path))
    if kind == "build":
        replace = None
        if obj.get("replace") is not None:
            replace = _card(obj, "replace", path)
        return Build(_card(obj, "building", path), _cards(obj, "pay", path, required=False),
                     _goods(obj, "goods", path, required=False), replace, _decline(obj, kind, path))
    if kind == "produce":
        # The order matters: the top card of the draw pile goes under the first good named.
        return Produce(_goods(obj, "goods", path, keep_order=True), _decline(obj, kind, path))
    if kind == "sell":
        return Sell(_goods(obj, "goods", path), _decline(obj, kind, path))
    if kind == "councillor":
        if ("keep" in obj) == ("discard" in obj):
            raise FieldError(path, "a councillor move has exactly one of 'keep' and 'discard'")
        if "discard" in obj:
            return Councillor(discard=_cards(obj, "discard", path))
        return Councillor(keep=_cards(obj, "keep", path))
    if kind == "gold_mine":
        return GoldMine(_card(obj, "keep", path))
    if kind == "chapel":
        return Chapel(_card(obj, "card", path))
    if kind == "hand_limit":
        return HandLimit(_cards(obj, "discard", path))
    if kind == "draft":
        return Draft(_cards(obj, "keep", path))
    return Pass()


def parse_seat(obj: Any, path: str, players: int) -> int | None:
    """The optional ``seat`` of a move. Raises ``FieldError`` when it is not a seat of this game."""
    if not isinstance(obj, dict) or "seat" not in obj:
        return None
    seat = obj["seat"]
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < players:
        raise FieldError(f"{path}.seat", f"expected a seat number from 0 to {players - 1}, got {seat!r}")
    return seat


# -- parts of a move that other seats decide ---------------------------------------------------
#
# A role move records two kinds of choice that are not its chooser's: the seats refraining from the
# councillor's draw and the seats whose gold mine turns up no card in the prospector phase. Each of
# those seats decides its own entry; the chooser decides the role, the library, the privilege and its
# own entries. The analysis varies only what the seat it studies decides (``analysis.decisions``).


def other_deciders(move: SanJuanMove, mover: int, players: int, gold_mine_owners: tuple[int, ...]) -> tuple[int, ...]:
    """The seats other than ``mover`` (the seat making ``move``) that decide a part of it, in seat
    order: every other seat of a ``players``-player game on a councillor move (each may refrain from
    the draw), every other seat of ``gold_mine_owners`` on a prospector move (its gold mine may turn
    up no card); () for any other move."""
    if not isinstance(move, ChooseRole):
        return ()
    if move.role is Role.COUNCILLOR:
        return tuple(s for s in range(players) if s != mover)
    if move.role is Role.PROSPECTOR:
        return tuple(s for s in sorted(gold_mine_owners) if s != mover)
    return ()


def _entry(donor: SanJuanMove | None, role: Role, who: int) -> bool:
    """Whether ``donor``, a role move of ``role``, lists ``who`` as refraining (councillor) or
    declining its gold mine (prospector); False (the rules' default) when it is no such move."""
    if not isinstance(donor, ChooseRole) or donor.role is not role:
        return False
    return who in (donor.councillor_refrained if role is Role.COUNCILLOR else donor.gold_mine_declined)


def with_parts_from(move: SanJuanMove, seat: int, source: SanJuanMove | None, mover: int, players: int,
                    gold_mine_owners: tuple[int, ...]) -> SanJuanMove:
    """The move made of what ``seat`` decides in ``move`` and of what every other seat decides in
    ``source``, ``mover`` being the seat making both (``players`` seats, the seats of
    ``gold_mine_owners`` owning a gold mine). The chooser's part (role, library, privilege and its own
    entries) comes from ``move`` when ``seat`` is the mover, else from ``source``; another seat's
    entry (refraining from the councillor's draw, declining its gold mine) that ``source`` does not
    hold for the same role (``source`` None, another role, another kind of move) is the rules'
    default: it draws, its gold mine turns up cards. Returns the donor of the chooser's part itself
    when nothing else changes, so a logged move keeps its written form.

    Raises ``ValueError`` when ``seat`` is not the mover and ``source`` is None (the chooser's part
    would be missing)."""
    if seat == mover:
        base = move
    elif source is None:
        raise ValueError(f"seat {seat} does not make this move, so its other parts need a source move")
    else:
        base = source
    if not isinstance(base, ChooseRole) or base.role not in (Role.COUNCILLOR, Role.PROSPECTOR):
        return base
    role = base.role
    eligible: list[int] = list(range(players)) if role is Role.COUNCILLOR else sorted(s for s in gold_mine_owners if 0 <= s < players)
    chosen = tuple(s for s in eligible if _entry(move if s == seat else source, role, s))
    if role is Role.COUNCILLOR:
        if chosen == base.councillor_refrained:
            return base
        return ChooseRole(role, base.library, base.privilege, base.gold_mine_declined, chosen)
    if chosen == base.gold_mine_declined:
        return base
    return ChooseRole(role, base.library, base.privilege, chosen, base.councillor_refrained)


# -- compiled builders (replay.frozen.fast_constructor): every field stored in order, without the
# frozen dataclass's __init__; a test checks them against the fields.


def _built_build(
    building: str,
    pay: tuple[str, ...],
    goods: tuple[Good, ...],
    replace: str | None,
    decline: tuple[str, ...],
) -> Build:
    made = Build.__new__(Build)
    made.building = building  # type: ignore[misc]
    made.pay = pay  # type: ignore[misc]
    made.goods = goods  # type: ignore[misc]
    made.replace = replace  # type: ignore[misc]
    made.decline = decline  # type: ignore[misc]
    return made


def _built_produce(goods: tuple[Good, ...], decline: tuple[str, ...]) -> Produce:
    made = Produce.__new__(Produce)
    made.goods = goods  # type: ignore[misc]
    made.decline = decline  # type: ignore[misc]
    return made


def _built_sell(goods: tuple[Good, ...], decline: tuple[str, ...]) -> Sell:
    made = Sell.__new__(Sell)
    made.goods = goods  # type: ignore[misc]
    made.decline = decline  # type: ignore[misc]
    return made


def _built_councillor(keep: tuple[str, ...] | None, discard: tuple[str, ...] | None) -> Councillor:
    made = Councillor.__new__(Councillor)
    made.keep = keep  # type: ignore[misc]
    made.discard = discard  # type: ignore[misc]
    return made


def _built_gold_mine(keep: str) -> GoldMine:
    made = GoldMine.__new__(GoldMine)
    made.keep = keep  # type: ignore[misc]
    return made


def _built_chapel(card: str) -> Chapel:
    made = Chapel.__new__(Chapel)
    made.card = card  # type: ignore[misc]
    return made


def _built_hand_limit(discard: tuple[str, ...]) -> HandLimit:
    made = HandLimit.__new__(HandLimit)
    made.discard = discard  # type: ignore[misc]
    return made


def _built_draft(keep: tuple[str, ...]) -> Draft:
    made = Draft.__new__(Draft)
    made.keep = keep  # type: ignore[misc]
    return made


register_builders({
    Build: _built_build,
    Produce: _built_produce,
    Sell: _built_sell,
    Councillor: _built_councillor,
    GoldMine: _built_gold_mine,
    Chapel: _built_chapel,
    HandLimit: _built_hand_limit,
    Draft: _built_draft,
})
