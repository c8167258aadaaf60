"""How "What changed" speaks of San Juan's stored state columns: each column of ``san_juan_states`` and
``san_juan_player_states`` with the kind of change it shows and the game's word for it.

Kinds (read by ``dashboards.diff``): ``value`` (``draw pile 40 → 38``), ``seat`` (a seat number shown as
the player's name), ``items`` (a list compared as a multiset: ``+Smithy``, ``−Well``), ``goods`` (a list of
good names counted: ``+1 indigo``), ``count`` (a number of things: ``+2 cards``). A column missing here
is derived from others (counts, VP parts) or internal and never shown. What a viewer may not see is
left out by the game's view (``replay.san_juan.view``) before any change is put in words.
"""

from __future__ import annotations

from typing import Any

#: column -> (kind, label); the label is None for items named by themselves (buildings).
GLOBAL: dict[str, tuple[str, str | None]] = {
    "round": ("value", "round"),
    "governor": ("seat", "governor"),
    "role": ("value", "role"),
    "roles_taken": ("items", "roles taken"),
    "draw_pile": ("value", "draw pile"),
    "discard_pile": ("value", "discard pile"),
    "tile": ("value", "trading house tile"),
}

PLAYER: dict[str, tuple[str, str | None]] = {
    "buildings": ("items", None),
    "vp": ("value", "VP"),
    "hand_size": ("value", "hand"),
    "hand": ("items", "hand cards"),
    "goods": ("goods", None),
    "chapel_cards": ("value", "chapel"),
    "covered": ("items", "under the crane"),
}

WORDS: dict[str, Any] = {"global": GLOBAL, "player": PLAYER}
