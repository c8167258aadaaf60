"""The arena: agents play each other on the engines, every game recorded as a log, then ranked.

``Agent`` is the protocol (``act(observation, legal_moves) -> move``); ``run_arena`` plays a
seat-balanced round robin; ``governor.arena.cli`` is the ``governor arena`` command.
"""

from governor.arena.agents import Agent, AgentError, load_agent
from governor.arena.round_robin import ArenaError, run_arena, schedule
from governor.arena.views import seat_view

__all__ = ["Agent", "AgentError", "ArenaError", "load_agent", "run_arena", "schedule", "seat_view"]
