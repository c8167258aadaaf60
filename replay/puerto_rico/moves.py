"""Puerto Rico moves: one small typed value per kind of decision, with a JSON form and a text form.

A move records only what the player decided; what the rules derive (doubloons paid, barrels loaded,
colonists dealt) is left out. JSON kinds: role, hacienda, settle, mayor, build, produce, extra_good,
sell, load, store, pass. ``seat`` may be given on any move and is then checked by the replayer.

A power that hands out a colonist is used unless the move that triggers it declines it with a field
set to ``false``: ``privilege`` on the mayor's role move, ``hospice`` on ``settle``, ``university`` on
``build``. A move that leaves the field out (or sets it ``true``) uses the power, so logs written before
the field existed keep their meaning. ``produce`` takes (or, with ``take`` false, declines) the goods
a seat makes in the craftsman phase; a log may leave it out, and the goods are then taken.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from replay.errors import FieldError
from replay.frozen import picklable
from replay.puerto_rico.catalogue import (
    BUILDING_ORDER,
    GOOD_INDEX,
    PROSPECTOR_2,
    TILE_ORDER,
    Good,
    Role,
    resolve_building,
    resolve_good,
    resolve_tile,
)

#: The ship index of a wharf load.
WHARF: Final = "wharf"
ROLE_CARDS: Final = tuple(r.value for r in Role) + (PROSPECTOR_2,)


@dataclass(frozen=True, slots=True)
class ChooseRole:
    """Choose a role card (``prospector_2`` is the second prospector card of a 5-player game).
    ``privilege`` False declines the mayor's privilege colonist."""

    role: str
    privilege: bool = True

    def to_json(self) -> dict[str, Any]:
        if self.privilege:
            return {"kind": "role", "role": self.role}
        return {"kind": "role", "role": self.role, "privilege": False}

    def text(self) -> str:
        return f"role {self.role}" + ("" if self.privilege else " -privilege")


@dataclass(frozen=True, slots=True)
class Hacienda:
    """Settler phase: draw the hacienda's extra face-down plantation (before taking a face-up one)."""

    def to_json(self) -> dict[str, Any]:
        return {"kind": "hacienda"}

    def text(self) -> str:
        return "hacienda draw"


@dataclass(frozen=True, slots=True)
class Settle:
    """Settler phase: take a face-up plantation of kind ``tile``, or a quarry (``tile`` = "quarry").
    ``hospice`` False declines the occupied hospice's colonist for the tile."""

    tile: str
    hospice: bool = True

    def to_json(self) -> dict[str, Any]:
        if self.hospice:
            return {"kind": "settle", "plantation": self.tile}
        return {"kind": "settle", "plantation": self.tile, "hospice": False}

    def text(self) -> str:
        return f"settle {self.tile}" + ("" if self.hospice else " -hospice")


@dataclass(frozen=True, slots=True)
class Mayor:
    """Mayor phase: the player's whole arrangement. ``plantations`` gives the occupied tiles of each
    kind (quarry included), ``buildings`` the colonists on each building; whoever is not placed stays
    in San Juan. Both are sorted canonically and list no zero counts."""

    plantations: tuple[tuple[str, int], ...] = ()
    buildings: tuple[tuple[str, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "mayor",
            "plantations": dict(self.plantations),
            "buildings": dict(self.buildings),
        }

    def text(self) -> str:
        parts = [f"{k} {n}" for k, n in self.plantations] + [f"{b} {n}" for b, n in self.buildings]
        return f"mayor [{', '.join(parts)}]"

    @staticmethod
    def of(plantations: dict[str, int], buildings: dict[str, int]) -> Mayor:
        """The canonical move from two count maps (zero counts dropped)."""
        return Mayor(
            tuple(sorted(((k, n) for k, n in plantations.items() if n), key=lambda kv: TILE_ORDER[kv[0]])),
            tuple(sorted(((b, n) for b, n in buildings.items() if n), key=lambda kv: BUILDING_ORDER[kv[0]])),
        )


@dataclass(frozen=True, slots=True)
class Build:
    """Builder phase: build ``building`` (the price follows from the rules). ``university`` False
    declines the occupied university's colonist for the new building."""

    building: str
    university: bool = True

    def to_json(self) -> dict[str, Any]:
        if self.university:
            return {"kind": "build", "building": self.building}
        return {"kind": "build", "building": self.building, "university": False}

    def text(self) -> str:
        return f"build {self.building}" + ("" if self.university else " -university")


@dataclass(frozen=True, slots=True)
class Produce:
    """Craftsman phase: take the goods the seat's occupied plantations and buildings make, or decline
    them (``take`` False: the craftsman's action, like every action but the captain's, is optional)."""

    take: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"kind": "produce"} if self.take else {"kind": "produce", "take": False}

    def text(self) -> str:
        return "produce" if self.take else "produce -declined"


@dataclass(frozen=True, slots=True)
class ExtraGood:
    """Craftsman's privilege: one more good of a kind he produced this phase."""

    good: Good

    def to_json(self) -> dict[str, Any]:
        return {"kind": "extra_good", "good": self.good.value}

    def text(self) -> str:
        return f"extra {self.good.value}"


@dataclass(frozen=True, slots=True)
class Sell:
    """Trader phase: sell one good to the trading house."""

    good: Good

    def to_json(self) -> dict[str, Any]:
        return {"kind": "sell", "good": self.good.value}

    def text(self) -> str:
        return f"sell {self.good.value}"


@dataclass(frozen=True, slots=True)
class Load:
    """Captain phase: load ``good`` on cargo ship ``ship`` (0, 1, 2 from the smallest) or the wharf.
    The number of barrels is as many as fit, so it is not recorded."""

    good: Good
    ship: int | str

    def to_json(self) -> dict[str, Any]:
        return {"kind": "load", "good": self.good.value, "ship": self.ship}

    def text(self) -> str:
        where = "wharf" if self.ship == WHARF else f"ship {self.ship}"
        return f"load {self.good.value} on {where}"


@dataclass(frozen=True, slots=True)
class Store:
    """Captain phase, end: the kinds kept whole in warehouses (any of the kinds held, at most as many as
    the occupied warehouses have spaces) and the kind of the one barrel kept on the windrose (another
    kind, or None). Everything else goes back to the supply."""

    warehouse: tuple[Good, ...] = ()
    keep: Good | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kind": "store", "warehouse": [g.value for g in self.warehouse],
                "keep": self.keep.value if self.keep else None}

    def text(self) -> str:
        parts = []
        if self.warehouse:
            parts.append("warehouse " + ", ".join(g.value for g in self.warehouse))
        parts.append(f"keep {self.keep.value if self.keep else 'nothing'}")
        return "store " + "; ".join(parts)


@dataclass(frozen=True, slots=True)
class Pass:
    """Decline the current optional action (settle, build, extra good, sell, wharf)."""

    def to_json(self) -> dict[str, Any]:
        return {"kind": "pass"}

    def text(self) -> str:
        return "pass"


PuertoRicoMove = ChooseRole | Hacienda | Settle | Mayor | Build | Produce | ExtraGood | Sell | Load | Store | Pass
picklable(ChooseRole, Hacienda, Settle, Mayor, Build, Produce, ExtraGood, Sell, Load, Store, Pass)

_FIELDS: Final[dict[str, set[str]]] = {
    "role": {"role", "privilege"},
    "hacienda": set(),
    "settle": {"plantation", "hospice"},
    "mayor": {"plantations", "buildings"},
    "build": {"building", "university"},
    "produce": {"take"},
    "extra_good": {"good"},
    "sell": {"good"},
    "load": {"good", "ship"},
    "store": {"warehouse", "keep"},
    "pass": set(),
}
_PASS: Final = Pass()
_HACIENDA: Final = Hacienda()
_PRODUCE: Final = Produce()


def _good(obj: dict[str, Any], key: str, path: str) -> Good:
    if key not in obj:
        raise FieldError(f"{path}.{key}", "missing good")
    try:
        return resolve_good(obj[key])
    except ValueError as err:
        raise FieldError(f"{path}.{key}", str(err)) from None


def _flag(obj: dict[str, Any], key: str, path: str) -> bool:
    """A power's use flag: True when left out."""
    value = obj.get(key, True)
    if not isinstance(value, bool):
        raise FieldError(f"{path}.{key}", f"expected true or false, got {value!r}")
    return value


def _count_map(obj: dict[str, Any], key: str, path: str, resolve: Any) -> dict[str, int]:
    value = obj.get(key, {})
    if not isinstance(value, dict):
        raise FieldError(f"{path}.{key}", f"expected an object of counts, got {type(value).__name__}")
    out: dict[str, int] = {}
    for name, count in value.items():
        try:
            resolved = resolve(name)
        except ValueError as err:
            raise FieldError(f"{path}.{key}.{name}", str(err)) from None
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise FieldError(f"{path}.{key}.{name}", f"expected a count of colonists (0 or more), got {count!r}")
        if resolved in out:
            raise FieldError(f"{path}.{key}.{name}", f"{resolved} is named twice")
        out[resolved] = count
    return out


#: Mayor moves by their two count maps: the replayer keeps parsed moves of scalar fields only, and a
#: mayor's maps are objects, yet the same few arrangements recur across games.
_MAYORS: Final[dict[tuple[Any, ...], Mayor]] = {}


def _mayor_key(obj: dict[str, Any]) -> tuple[Any, ...] | None:
    """The maps of a mayor move as a key, or None unless both are objects of names to plain counts."""
    key: list[Any] = []
    for field in ("plantations", "buildings"):
        value = obj.get(field, {})
        if type(value) is not dict:
            return None
        if any(type(count) is not int for count in value.values()):
            return None
        key.append(tuple(value.items()))
    return tuple(key)


def parse_move(obj: Any, path: str) -> PuertoRicoMove:
    """A typed move from its JSON form; ``path`` is where it sits in the log (``moves[12]``).

    Raises ``FieldError`` naming the field at fault."""
    if not isinstance(obj, dict):
        raise FieldError(path, f"a move must be an object, got {type(obj).__name__}")
    kind = obj.get("kind")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise FieldError(f"{path}.kind", f"unknown move kind {kind!r} (kinds: {', '.join(_FIELDS)})")
    if len(obj) > 1:
        extra = set(obj) - _FIELDS[kind] - {"kind", "seat"}
        if extra:
            raise FieldError(f"{path}.{sorted(extra)[0]}", f"unknown field for a '{kind}' move")
    if kind == "role":
        role = obj.get("role")
        if not isinstance(role, str) or role not in ROLE_CARDS:
            raise FieldError(f"{path}.role", f"unknown role {role!r} (roles: {', '.join(ROLE_CARDS)})")
        return ChooseRole(role, _flag(obj, "privilege", path))
    if kind == "load":
        ship = obj.get("ship")
        if ship != WHARF and (not isinstance(ship, int) or isinstance(ship, bool) or not 0 <= ship <= 2):
            raise FieldError(f"{path}.ship", f"expected a ship index 0, 1, 2 or \"wharf\", got {ship!r}")
        return Load(_good(obj, "good", path), ship)
    if kind == "pass":
        return _PASS
    if kind == "sell":
        return Sell(_good(obj, "good", path))
    if kind == "build":
        if "building" not in obj:
            raise FieldError(f"{path}.building", "missing building name")
        try:
            name = resolve_building(obj["building"])
        except ValueError as err:
            raise FieldError(f"{path}.building", str(err)) from None
        return Build(name, _flag(obj, "university", path))
    if kind == "settle":
        if "plantation" not in obj:
            raise FieldError(f"{path}.plantation", "missing plantation kind")
        try:
            tile = resolve_tile(obj["plantation"])
        except ValueError as err:
            raise FieldError(f"{path}.plantation", str(err)) from None
        return Settle(tile, _flag(obj, "hospice", path))
    if kind == "mayor":
        key = _mayor_key(obj)
        move = _MAYORS.get(key) if key is not None else None
        if move is None:
            move = Mayor.of(
                _count_map(obj, "plantations", path, resolve_tile),
                _count_map(obj, "buildings", path, resolve_building),
            )
            if key is not None:
                if len(_MAYORS) >= 1 << 14:
                    _MAYORS.clear()
                _MAYORS[key] = move
        return move
    if kind == "extra_good":
        return ExtraGood(_good(obj, "good", path))
    if kind == "produce":
        return _PRODUCE if _flag(obj, "take", path) else Produce(False)
    if kind == "store":
        raw = obj.get("warehouse", [])
        if not isinstance(raw, list):
            raise FieldError(f"{path}.warehouse", f"expected a list of goods, got {type(raw).__name__}")
        kinds = []
        for i, item in enumerate(raw):
            try:
                kinds.append(resolve_good(item))
            except ValueError as err:
                raise FieldError(f"{path}.warehouse[{i}]", str(err)) from None
        if len(set(kinds)) != len(kinds):
            raise FieldError(f"{path}.warehouse", "a kind is named twice")
        keep = None
        if obj.get("keep") is not None:
            keep = _good(obj, "keep", path)
        return Store(tuple(sorted(kinds, key=GOOD_INDEX.__getitem__)), keep)
    return _HACIENDA


# -- parts of a move that other seats decide ---------------------------------------------------
#
# None: every choice a Puerto Rico move records is its own seat's (the mayor's privilege, the hospice's
# and the university's colonist, the craftsman's goods taken or declined); what another seat decides
# in a phase is a move of its own. The hooks say so, for the analysis that asks every game
# (``analysis.decisions``).


def other_deciders(move: PuertoRicoMove, mover: int) -> tuple[int, ...]:
    """The seats other than ``mover`` that decide a part of ``move``: always () in Puerto Rico."""
    return ()


def with_parts_from(move: PuertoRicoMove, seat: int, source: PuertoRicoMove | None, mover: int) -> PuertoRicoMove:
    """The move made of what ``seat`` decides in ``move`` and of what the other seats decide in
    ``source``: since every part of a Puerto Rico move is its mover's, ``move`` itself when ``seat``
    is the mover (the identity), else ``source``.

    Raises ``ValueError`` when ``seat`` is not the mover and ``source`` is None."""
    if seat == mover:
        return move
    if source is None:
        raise ValueError(f"seat {seat} does not make this move, so its other parts need a source move")
    return source
