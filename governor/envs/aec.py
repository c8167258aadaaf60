"""The PettingZoo AEC environment both games share: a Governor engine played seat after seat, the
observation ``{"observation", "action_mask"}`` as PettingZoo's classic games give it, a seeded
``reset``, and every episode available as a Governor log (``to_log``) that ``governor validate``
accepts and ``governor import`` stores.

Rewards come at the end only: a sole winner gets +1 and every other seat -1/(n-1); a k-way full tie
shares +1 among its winners and -1 among the others (a tie of every seat gives 0 to all). A game
that has not ended after the simulation's move limit is truncated for every agent.
"""

from __future__ import annotations

import random
from types import ModuleType
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from replay.registry import engine_for, game_title, spaces_for
from replay.simulate import MAX_MOVES

#: The key order of a log (as ``governor simulate`` writes it).
_LOG_ORDER = ("format", "version", "game", "source_id", "meta", "players", "options", "setup", "moves", "result")
#: Upper bound of every observation value (counts of a game's pieces, money and VP).
OBSERVATION_HIGH = 1000.0


class ActionSpace(spaces.Discrete):
    """``Discrete(n)`` whose membership test answers a Python ``int`` without numpy (PettingZoo's
    out-of-bounds wrapper asks it at every step); anything else is answered as ``Discrete`` does."""

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self.size = n

    def contains(self, x: Any) -> bool:
        if type(x) is int:
            return 0 <= x < self.size
        return bool(super().contains(x))


class GovernorEnv(AECEnv):  # type: ignore[misc]
    """A Governor game as an AEC environment; the game's encoder and action space are the module its
    declaration names (``spaces``, e.g. ``replay/<game>/spaces.py``)."""

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "name": "governor", "is_parallelizable": False}

    def __init__(self, game: str, players: int, render_mode: str | None = None,
                 options: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.codec: ModuleType = spaces_for(game)
        self.game = game
        self.metadata = {**GovernorEnv.metadata, "name": environment_name(game)}
        self.engine = engine_for(self.game)
        if not self.engine.min_players <= players <= self.engine.max_players:
            raise ValueError(f"{self.game} is played by {self.engine.min_players} to "
                             f"{self.engine.max_players} players, not {players}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.players = players
        self.render_mode = render_mode
        self.options = dict(options or {})
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.agents = self.possible_agents[:]
        self.names = list(self.possible_agents)
        size, actions = self.codec.SIZE, len(self.codec.ACTIONS)
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(low=0.0, high=OBSERVATION_HIGH, shape=(size,), dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(actions,), dtype=np.int8),
            })
            for a in self.possible_agents
        }
        self.action_spaces = {a: ActionSpace(actions) for a in self.possible_agents}
        self._seat_of = {a: seat for seat, a in enumerate(self.possible_agents)}
        self._action_count = actions
        self._seeds = random.Random()
        self.seed_used: int | None = None
        self._state: Any = None

    # -- the PettingZoo API ------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game: the deal and every later chance outcome come from ``seed`` (else from the
        environment's own generator, itself seeded by the last seed given). ``options`` is accepted as
        PettingZoo's API wants and not read: game variants are given to the constructor."""
        del options
        if seed is not None:
            self._seeds = random.Random(seed)
        game_seed = self._seeds.randrange(2**31)
        self.seed_used = game_seed
        self.log = self.engine.new_random_game(self.names, game_seed, self.options)
        self._state = self.engine.simulation_state(self.log, game_seed)
        # The moves a log records (each seat's, with what the engine would take by default left out),
        # made into JSON only when a log is asked for.
        self._moves: list[tuple[int, Any]] = []
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._rewards_zero = True
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._refresh(False)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat_of[agent]
        vector = self._observed.get(seat)
        if vector is None:
            # Straight from the state (``encode_state``): the vector of ``encode(seat_view(...))``,
            # what the seat may see as its ``view.py`` decides, without building the view dict.
            vector = self._observed[seat] = self.codec.encode_state(self._state, seat)
        # Copies: the agent may keep or change what it is handed; the environment never reads it back
        # (its own vector is kept for the step's other observers, its own mask decides what is legal).
        mask = self._mask.copy() if seat == self._seat else np.zeros(self._action_count, dtype=np.int8)
        return {"observation": vector.copy(), "action_mask": mask}

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        move = self._legal.get(action if type(action) is int else int(action))
        if move is None:
            raise ValueError(f"action {action} ({self.action_name(int(action))}) is not legal for {agent}; "
                             "see the action_mask")
        self._cumulative_rewards[agent] = 0.0
        engine = self.engine
        state = self._state
        default = engine.default_move(state)
        self._state = state = engine.apply(state, move)
        if default is None or move != default:
            self._moves.append((self._seat, move))
        over = engine.is_over(state)
        if over:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            winners = list(engine.winners(state))
            losers = self.players - len(winners)
            for seat, a in enumerate(self.agents):
                if losers == 0:
                    self.rewards[a] = 0.0
                elif seat in winners:
                    self.rewards[a] = 1.0 / len(winners)
                else:
                    self.rewards[a] = -1.0 / losers
            self._rewards_zero = False
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
        else:
            # Rewards come at the end only: a step before it gives every agent 0, and adds nothing to
            # the cumulative rewards (the dict of zeros is made again only after one that was not).
            if not self._rewards_zero:
                self.rewards = dict.fromkeys(self.agents, 0.0)
                self._rewards_zero = True
            if len(self._moves) > MAX_MOVES:
                self.truncations = dict.fromkeys(self.agents, True)
                over = True
        self._refresh(over)
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = str(self.engine.render(self._state, self.names))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # -- Governor's own ------------------------------------------------------------------------

    def action_name(self, action: int) -> str:
        """What an action stands for, in words (``ACTIONS`` of the game)."""
        actions = self.codec.ACTIONS
        return str(actions[action]) if 0 <= action < len(actions) else "out of range"

    def legal_moves(self) -> dict[int, Any]:
        """Each legal action of the agent to act and the engine move it stands for."""
        return dict(self._legal)

    def to_log(self, source_id: str | None = None, meta: dict[str, Any] | None = None) -> dict[str, Any]:
        """The episode so far as a Governor log object (complete, with its ``result``, once the game is
        over); write it with ``replay.logfile.write_games``. Player names are the agent names."""
        moves = [{"seat": seat, **move.to_json()} for seat, move in self._moves]
        obj = self.engine.finish_log(self.log, self._state, moves)
        obj["source_id"] = source_id or f"env-{self.game}-{self.players}p-{self.seed_used}"
        obj["meta"] = {"generator": f"governor.envs {environment_name(self.game)}", "seed": self.seed_used, **(meta or {}),
                       **obj.get("meta", {})}
        return {k: obj[k] for k in _LOG_ORDER if k in obj}

    def _refresh(self, over: bool) -> None:
        """After a reset or a step: who acts, the legal actions, no cached observation. ``over``: the
        game ended or was truncated."""
        self._observed: dict[int, np.ndarray] = {}
        seat = None if over else self.engine.current_seat(self._state)
        if seat is None:
            self._seat = -1
            self._legal: dict[int, Any] = {}
            self._mask = np.zeros(self._action_count, dtype=np.int8)
            # PettingZoo removes the agents one by one through ``_was_dead_step``, in seat order.
            self.agent_selection = self.agents[0] if self.agents else self.possible_agents[0]
            return
        self._seat = seat
        self._legal = self.codec.representatives(self.engine, self._state)
        # A new mask each step (an agent may keep the last one), filled by index in a bytearray
        # (numpy's item assignment costs ten times as much) and viewed as int8.
        mask = bytearray(self._action_count)
        for action in self._legal:
            mask[action] = 1
        self._mask = np.frombuffer(mask, dtype=np.int8)
        self.agent_selection = self.possible_agents[seat]


# -- PettingZoo's checking wrappers, without the attribute chase --------------------------------------

#: The attributes every step reads through the wrappers. PettingZoo's wrappers find them by
#: ``__getattr__`` down the chain (a failed lookup and a call per wrapper, several times a step);
#: these read them from the environment itself.
_FORWARDED = ("agent_selection", "agents", "terminations", "truncations", "rewards", "infos", "_cumulative_rewards")


def _forward(name: str, checked: bool) -> property:
    if checked:
        def get(self: Any) -> Any:
            if not self._has_reset:
                # Let OrderEnforcingWrapper.__getattr__ raise its own "cannot be accessed before reset".
                raise AttributeError(name)
            return getattr(self._raw, name)
    else:
        def get(self: Any) -> Any:
            return getattr(self._raw, name)
    return property(get, doc=f"The environment's own ``{name}``.")


def _fast(wrapper: type, checked: bool = False) -> type:
    """``wrapper`` (a PettingZoo wrapper class) with the hot attributes read straight from the
    unwrapped environment; everything else, and every check, is the wrapper's own."""

    base_init: Any = vars(wrapper)["__init__"]

    def __init__(self: Any, env: Any, *args: Any, **kwargs: Any) -> None:
        base_init(self, env, *args, **kwargs)
        self._raw = env.unwrapped

    namespace: dict[str, Any] = {"__init__": __init__, "__doc__": wrapper.__doc__, "__module__": __name__}
    namespace.update({name: _forward(name, checked) for name in _FORWARDED})
    return type(wrapper.__name__, (wrapper,), namespace)


class TerminateIllegal(_fast(wrappers.TerminateIllegalWrapper)):  # type: ignore[misc]
    """PettingZoo's ``TerminateIllegalWrapper``, which judges an action by the mask it last observed,
    keeping its own copy of that observation: the agent's copy is the agent's to change."""

    def observe(self, agent: Any) -> Any:
        obs = super().observe(agent)
        kept: Any = getattr(self, "_prev_obs", None)
        if kept is obs:
            self._prev_obs = {key: value.copy() for key, value in obs.items()}
        return obs


AssertOutOfBounds = _fast(wrappers.AssertOutOfBoundsWrapper)


class OrderEnforcing(_fast(wrappers.OrderEnforcingWrapper, checked=True)):  # type: ignore[misc]
    """PettingZoo's ``OrderEnforcingWrapper`` outside ``AssertOutOfBounds`` and ``TerminateIllegal``
    (``env()``'s chain), with ``last`` and ``step`` of a live agent's legal action in range done
    straight on the environment, the inner wrappers' bookkeeping kept as they keep it (the mask
    ``TerminateIllegal`` checks an action against is the one last observed). Any other call (before
    ``reset``, a dead agent, an action out of range or not legal, ``last(observe=False)``) goes
    through the wrappers themselves, so every check and message is PettingZoo's."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        bounds: Any = env if isinstance(env, AssertOutOfBounds) else None
        inner: Any = bounds.env if bounds is not None else None
        found = isinstance(inner, TerminateIllegal) and getattr(inner, "env", None) is self._raw
        self._terminate: Any = inner if found else None

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        term = self._terminate
        if term is None or not self._has_reset or not observe:
            return super().last(observe)  # type: ignore[no-any-return]
        raw = self._raw
        agent = raw.agent_selection
        observation = raw.observe(agent)
        # What TerminateIllegalWrapper.observe keeps of the acting agent's observation: its mask, the
        # environment's own (the agent's copy is the agent's to change).
        term._prev_obs = {"observation": observation["observation"], "action_mask": raw._mask}
        infos = raw.infos
        term._prev_info = infos[agent] if agent in infos else {}
        return observation, raw._cumulative_rewards[agent], raw.terminations[agent], raw.truncations[agent], infos[agent]

    def step(self, action: Any) -> None:
        term = self._terminate
        raw = self._raw
        if term is not None and self._has_reset and type(action) is int and raw.agents and not term._terminated:
            agent = raw.agent_selection
            if not raw.terminations[agent] and not raw.truncations[agent] and 0 <= action < raw._action_count:
                # The environment's own mask, never the agent's copy (which the agent may have changed).
                if raw._mask[action]:
                    term._prev_obs = None
                    term._prev_info = None
                    self._has_updated = True
                    raw.step(action)
                    return
        super().step(action)


# Named as PettingZoo's own, so that ``str(env)`` reads as a classic game's ("OrderEnforcingWrapper<...>").
OrderEnforcing.__name__ = OrderEnforcing.__qualname__ = "OrderEnforcingWrapper"


# -- one environment module per game ---------------------------------------------------------------

#: The player count of an environment made without one (within the game's range).
DEFAULT_PLAYERS = 4
#: The version of every environment's observation and action spaces (PettingZoo's ``_v0`` suffix).
VERSION = 0


def environment_name(game: str) -> str:
    """The environment's name, as PettingZoo names its own (``<game>_v0``)."""
    return f"{game}_v{VERSION}"


def environment_module(game: str) -> ModuleType:
    """The module ``governor.envs.<game>_v0`` as PettingZoo's classic games have one: ``raw_env``
    (the environment class) and ``env(**kwargs)`` (it wrapped in PettingZoo's checking wrappers)."""
    title = game_title(game)
    engine = engine_for(game)
    default_players = min(max(DEFAULT_PLAYERS, engine.min_players), engine.max_players)

    class raw_env(GovernorEnv):  # noqa: N801 (PettingZoo's name)
        __doc__ = f"{title} without PettingZoo's checking wrappers."

        def __init__(self, players: int = default_players, render_mode: str | None = None,
                     options: dict[str, Any] | None = None) -> None:
            super().__init__(game, players, render_mode, options)

    def env(**kwargs: Any) -> Any:
        wrapped: Any = raw_env(**kwargs)
        wrapped = TerminateIllegal(wrapped, illegal_reward=-1)
        wrapped = AssertOutOfBounds(wrapped)
        return OrderEnforcing(wrapped)

    env.__doc__ = (f"{title} wrapped as PettingZoo's classic games are: an illegal action ends the game for "
                   "the agent that made it (reward -1), an action out of range is refused, and the API order "
                   "is enforced. Takes ``players``, ``render_mode`` (\"human\", \"ansi\") and ``options`` "
                   "(game variants).")
    name = f"{__name__.rpartition('.')[0]}.{environment_name(game)}"
    module = ModuleType(name, f"{title} as a PettingZoo AEC environment: ``{environment_name(game)}.env(players=...)``. "
                              "Observation: ``{\"observation\": float32 vector, \"action_mask\": int8 vector}``; "
                              "action: an index into the game's ``ACTIONS`` (docs/agents.md).")
    raw_env.__module__ = env.__module__ = name
    raw_env.__qualname__ = "raw_env"
    module.raw_env = raw_env  # type: ignore[attr-defined]
    module.env = env  # type: ignore[attr-defined]
    module.GAME = game  # type: ignore[attr-defined]
    return module
