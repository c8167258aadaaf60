"""The arena: agents play each other on the engines, every game recorded as a log, then ranked.

``Agent`` is the protocol (``act(observation, legal_moves) -> move``; it lives in ``play.agents``,
with the agent hosts and the seat views, so that a game played by a person can seat agents too);
``run_arena`` plays a seat-balanced round robin; ``governor.arena.cli`` is the ``governor arena``
command.

The names load when first used: an agent's file that imports ``Agent`` (in its agent host, a
process of its own) loads the agent protocol only, not the arena.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from governor.arena.round_robin import ArenaError, run_arena, schedule
    from play.agents import Agent, AgentError, load_agent
    from play.views import seat_view

__all__ = ["Agent", "AgentError", "ArenaError", "load_agent", "run_arena", "schedule", "seat_view"]

_WHERE = {
    "Agent": "play.agents", "AgentError": "play.agents", "load_agent": "play.agents",
    "ArenaError": "governor.arena.round_robin", "run_arena": "governor.arena.round_robin",
    "schedule": "governor.arena.round_robin", "seat_view": "play.views",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'governor.arena' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_WHERE[name]), name)
