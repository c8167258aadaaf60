"""What one seat may see, as the plain JSON dict every agent (and every observation vector) is built from.

It is the game's own view (``replay/<game>/view.py``, found with ``replay.registry.view_for``), the
one the Replay page's seat view shows: an agent never receives another seat's hidden card (another
hand, a face-down good, a pile's order, the next trading-house tile, another seat's VP chips while the
game goes on).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from replay.protocol import Viewer
from replay.registry import view_for


def seat_view(game: str, state: Any, seat: int, names: Sequence[str]) -> dict[str, Any]:
    """The state of ``game`` as ``seat`` sees it (``GameView.view_state`` for ``Viewer.of_seat``), plus
    ``"seat"``: who is looking. A fresh dict each call.

    Raises ``KeyError`` for a game the registry does not know."""
    view = view_for(game).view_state(state, Viewer.of_seat(seat), names)
    view["seat"] = seat
    return view
