"""How "What changed" speaks of Puerto Rico's stored state columns: each column of ``puerto_rico_states``
and ``puerto_rico_player_states`` with the kind of change it shows and the game's word for it.

Kinds (read by ``dashboards.diff``): ``value`` (``bank 86 → 83``), ``seat`` (a seat number shown as the
player's name), ``items`` (a list compared as a multiset: ``+Small market``), ``count`` (a number of
barrels: ``−2 tobacco``), ``tagged`` (a list of ``name:number``: ``doubloons on settler 0 → 1``),
and this game's own kinds (``KINDS``, said here): ``ships`` (``the 4-ship: empty → 2 corn``), ``tiles``
(island tiles, ``*`` marking a worked one: ``+corn plantation``). A column missing here is derived from others (totals, VP parts) or internal
and never shown. What a viewer may not see is left out by the game's view (``replay.puerto_rico.view``)
before any change is put in words.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from replay.puerto_rico.catalogue import QUARRY

ARROW = "\u2192"
MINUS = "\u2212"

#: column -> (kind, label); the label is None for items named by themselves (buildings).
GLOBAL: dict[str, tuple[str, str | None]] = {
    "round": ("value", "round"),
    "governor": ("seat", "governor"),
    "role": ("value", "role"),
    "roles_taken": ("items", "roles taken"),
    "role_doubloons": ("tagged", "doubloons on"),
    "ships": ("ships", None),
    "trading_house": ("items", "trading house"),
    "colonist_ship": ("value", "colonist ship"),
    "colonist_supply": ("value", "colonist supply"),
    "vp_chips_left": ("value", "VP chips left"),
    "face_up_plantations": ("items", "face-up plantations"),
    "plantation_stack": ("value", "plantation stack"),
    "plantation_discard": ("value", "discarded plantations"),
    "quarries_left": ("value", "quarries left"),
    "goods_supply": ("tagged", "supply of"),
    "bank": ("value", "bank"),
    "end_triggers": ("items", "game ends after this round"),
}

PLAYER: dict[str, tuple[str, str | None]] = {
    "city": ("items", None),
    "island": ("tiles", None),
    "vp": ("value", "VP"),
    "doubloons": ("value", "doubloons"),
    "colonists_san_juan": ("value", "colonists in San Juan"),
    "colonists_placed": ("value", "colonists placed"),
    "goods_corn": ("count", "corn"),
    "goods_indigo": ("count", "indigo"),
    "goods_sugar": ("count", "sugar"),
    "goods_tobacco": ("count", "tobacco"),
    "goods_coffee": ("count", "coffee"),
}

def _listed(value: Any) -> list[str]:
    return [] if value is None else [str(v) for v in value]


def _ship(text: str) -> tuple[str, str, str]:
    """``"corn 3/4"`` -> ("corn", "3", "4")."""
    good, _, load = text.rpartition(" ")
    amount, _, capacity = load.partition("/")
    return good, amount, capacity


def _ship_load(good: str, amount: str) -> str:
    return "empty" if good in ("empty", "") or amount == "0" else f"{amount} {good}"


def ships(before: Any, after: Any, label: str | None, names: Sequence[str]) -> list[str]:
    """The cargo ships that changed, each ``the 4-ship: empty → 2 corn`` (the column is one
    ``"<good> <amount>/<capacity>"`` per ship)."""
    out = []
    for old_text, new_text in zip(_listed(before), _listed(after)):
        if old_text == new_text:
            continue
        good_old, amount_old, capacity = _ship(old_text)
        good_new, amount_new, _ = _ship(new_text)
        out.append(f"the {capacity}-ship: {_ship_load(good_old, amount_old)} {ARROW} {_ship_load(good_new, amount_new)}")
    return out


def tiles(before: Any, after: Any, label: str | None, names: Sequence[str]) -> list[str]:
    """The island tiles gained and lost, ``+corn plantation`` (a ``*`` marks a worked tile: the same
    tile)."""
    old_tiles = [t.rstrip("*") for t in _listed(before)]
    new_tiles = [t.rstrip("*") for t in _listed(after)]
    return [
        f"{sign}{tile}{'' if tile == QUARRY else ' plantation'}"
        for sign, tile in (
            [("+", t) for t in (Counter(new_tiles) - Counter(old_tiles)).elements()]
            + [(MINUS, t) for t in (Counter(old_tiles) - Counter(new_tiles)).elements()]
        )
    ]


#: The kinds of change only this game's columns have, and how each is said (``dashboards.diff``).
KINDS = {"ships": ships, "tiles": tiles}

WORDS: dict[str, Any] = {"global": GLOBAL, "player": PLAYER, "kinds": KINDS}
