"""How "What changed" speaks of Puerto Rico's stored state columns: each column of ``puerto_rico_states``
and ``puerto_rico_player_states`` with the kind of change it shows and the game's word for it.

Kinds (read by ``dashboards.diff``): ``value`` (``bank 86 → 83``), ``seat`` (a seat number shown as the
player's name), ``items`` (a list compared as a multiset: ``+Small market``), ``count`` (a number of
barrels: ``−2 tobacco``), ``tagged`` (a list of ``name:number``: ``doubloons on settler 0 → 1``),
``ships`` (``the 4-ship: empty → 2 corn``), ``tiles`` (island tiles, ``*`` marking a worked one:
``+corn plantation``). A column missing here is derived from others (totals, VP parts) or internal
and never shown. What a viewer may not see is left out by the game's view (``replay.puerto_rico.view``)
before any change is put in words.
"""

from __future__ import annotations

from typing import Any

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

WORDS: dict[str, Any] = {"global": GLOBAL, "player": PLAYER}
