"""Puerto Rico as a PettingZoo AEC environment: ``puerto_rico_v0.env(players=4)``, as PettingZoo's classic games.

Observation: ``{"observation": float32 vector, "action_mask": int8 vector}`` (see
``governor.envs.puerto_rico_spaces`` and docs/agents.md); action: an index into ``puerto_rico_spaces.ACTIONS``.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers

from governor.envs import puerto_rico_spaces
from governor.envs.aec import GovernorEnv


class raw_env(GovernorEnv):  # noqa: N801 (PettingZoo's name)
    """Puerto Rico without PettingZoo's checking wrappers."""

    metadata = {**GovernorEnv.metadata, "name": "puerto_rico_v0"}

    def __init__(self, players: int = 4, render_mode: str | None = None, options: dict[str, Any] | None = None) -> None:
        super().__init__(puerto_rico_spaces, players, render_mode, options)


def env(**kwargs: Any) -> Any:
    """The environment wrapped as PettingZoo's classic games are: an illegal action ends the game for
    the agent that made it (reward -1), an action out of range is refused, and the API order is
    enforced. Takes ``players``, ``render_mode`` ("human", "ansi") and ``options`` (game variants)."""
    wrapped: Any = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
