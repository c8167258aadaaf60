"""The environments' fast observation (``replay/<game>/spaces.py: encode_state``, made from the game
state) is exactly the vector of what the seat may see: ``encode(seat_view(...))``, for every seat at
every step of random and heuristic games of both games at every player count. This is what proves
that the fast path leaks nothing ``view.py`` hides."""

from __future__ import annotations

import random
from typing import Any

import pytest

pytest.importorskip("numpy", reason="missing optional dependency: the env extra (pip install 'governor[env]')")
pytest.importorskip("pettingzoo", reason="missing optional dependency: the env extra (pip install 'governor[env]')")

import numpy as np  # noqa: E402

from governor.envs import puerto_rico_v0, san_juan_v0  # noqa: E402
from play.views import seat_view  # noqa: E402
from replay.registry import engine_for, spaces_for  # noqa: E402
from replay.simulate import make_bot  # noqa: E402

GAMES = [("san_juan", p) for p in (2, 3, 4)] + [("puerto_rico", p) for p in (3, 4, 5)]


def _differences(game: str, state: Any, names: list[str]) -> list[str]:
    """Every seat whose fast vector differs from its view's vector, with the indices that differ."""
    codec = spaces_for(game)
    out = []
    for seat in range(len(names)):
        slow = codec.encode(seat_view(game, state, seat, names))
        fast = codec.encode_state(state, seat)
        assert fast.dtype == np.float32 and fast.shape == (codec.SIZE,)
        if not np.array_equal(slow, fast):
            out.append(f"seat {seat}: indices {np.flatnonzero(slow != fast).tolist()}")
    return out


@pytest.mark.parametrize(("game", "players"), GAMES)
@pytest.mark.parametrize("agent", ["random", "heuristic"])
@pytest.mark.parametrize("game_number", [0, 1])
def test_fast_vector_is_the_seat_views_vector_at_every_step(game: str, players: int, agent: str, game_number: int) -> None:
    engine = engine_for(game)
    codec = spaces_for(game)
    names = [f"P{i}" for i in range(players)]
    seed = 100 * game_number + 11 * players + (agent == "heuristic")
    state = engine.simulation_state(engine.new_random_game(names, seed, {}), seed)
    rng = random.Random(seed)
    bots = [make_bot(game, "heuristic", seed + s) for s in range(players)]
    steps = 0
    while True:
        wrong = _differences(game, state, names)
        assert wrong == [], f"step {steps}: {wrong}"
        if engine.is_over(state):
            break
        if agent == "random":
            move = rng.choice(list(codec.representatives(engine, state).values()))
        else:
            seat = engine.current_seat(state)
            move = bots[seat].choose(state)
        state = engine.apply(state, move)
        steps += 1
        assert steps < 5000
    # The final state too (Puerto Rico turns every VP chip up at the end).
    assert steps > 50


def test_hidden_things_do_not_move_the_vector() -> None:
    # Another seat's hand (San Juan) and VP chips (Puerto Rico) changed: the seat's vector stays.
    from dataclasses import replace

    engine = engine_for("san_juan")
    codec = spaces_for("san_juan")
    state = engine.simulation_state(engine.new_random_game(["A", "B", "C"], 5, {}), 5)
    other = state.players[1]
    swapped = replace(other, hand=tuple(sorted(other.hand, reverse=True)[:-1]) + ("Prefecture",))
    changed = replace(state, players=(state.players[0], swapped, state.players[2]))
    assert changed.players[1].hand != state.players[1].hand
    assert np.array_equal(codec.encode_state(state, 0), codec.encode_state(changed, 0))
    assert not np.array_equal(codec.encode_state(state, 1), codec.encode_state(changed, 1))

    engine = engine_for("puerto_rico")
    codec = spaces_for("puerto_rico")
    state = engine.simulation_state(engine.new_random_game(["A", "B", "C"], 5, {}), 5)
    rich = replace(state.players[2], vp_chips=7)
    changed = replace(state, players=(state.players[0], state.players[1], rich))
    assert np.array_equal(codec.encode_state(state, 0), codec.encode_state(changed, 0))
    mine = codec.encode_state(changed, 2)
    assert mine[codec._SEATS[0] + 2] == 1 and mine[codec._SEATS[0] + 3] == 7  # chips_known, vp_chips


@pytest.mark.parametrize("game", ["san_juan", "puerto_rico"])
def test_each_vector_is_a_new_array_and_a_bad_seat_is_refused(game: str) -> None:
    engine = engine_for(game)
    codec = spaces_for(game)
    names = ["A", "B", "C"]
    state = engine.simulation_state(engine.new_random_game(names, 2, {}), 2)
    first = codec.encode_state(state, 0)
    first[:] = 999.0  # an agent may scribble on what it was given
    again = codec.encode_state(state, 0)
    assert np.array_equal(again, codec.encode(seat_view(game, state, 0, names)))
    with pytest.raises(IndexError, match=r"^seat 3 is not in a 3-player game$"):
        codec.encode_state(state, 3)


@pytest.mark.parametrize(("module", "players"), [(san_juan_v0, 3), (puerto_rico_v0, 4)], ids=["san_juan", "puerto_rico"])
def test_environment_observes_what_the_seat_view_encodes(module: Any, players: int) -> None:
    env = module.raw_env(players=players)
    env.reset(seed=8)
    rng = random.Random(8)
    steps = 0
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        for other, name in enumerate(env.possible_agents):
            seen = env.observe(name)
            expected = env.codec.encode(seat_view(env.game, env._state, other, env.names))
            assert np.array_equal(seen["observation"], expected)
            assert seen["action_mask"].sum() == (len(env.legal_moves()) if other == seat else 0)
        mask = observation["action_mask"]
        assert sorted(np.flatnonzero(mask).tolist()) == sorted(env.legal_moves())
        env.step(int(rng.choice(np.flatnonzero(mask).tolist())))
        steps += 1
    assert steps > 50


def test_action_space_answers_as_discrete_does() -> None:
    from gymnasium.spaces import Discrete

    from governor.envs.aec import ActionSpace

    fast, slow = ActionSpace(7), Discrete(7)
    for x in (0, 6, 7, -1, 2**70, np.int64(3), np.int8(9), 2.0, True, None, "1", np.array([1])):
        assert fast.contains(x) == slow.contains(x), repr(x)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_wrappers_keep_pettingzoos_checks() -> None:
    from pettingzoo.utils import wrappers

    env = puerto_rico_v0.env(players=3)
    assert isinstance(env, wrappers.OrderEnforcingWrapper)
    assert isinstance(env.env, wrappers.AssertOutOfBoundsWrapper)
    assert isinstance(env.env.env, wrappers.TerminateIllegalWrapper)
    assert str(env) == "OrderEnforcingWrapper<puerto_rico_v0>"
    with pytest.raises(AttributeError, match=r"^agents cannot be accessed before reset$"):
        env.agents  # noqa: B018
    with pytest.raises(AttributeError, match=r"^agent_selection cannot be accessed before reset$"):
        env.agent_selection  # noqa: B018
    env.reset(seed=3)
    assert env.agents == ["player_0", "player_1", "player_2"]
    with pytest.raises(AssertionError, match=r"^action is not in action space$"):
        env.step(len(env.unwrapped.codec.ACTIONS))
    observation, *_ = env.last()
    acting = env.agent_selection
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    env.step(illegal)
    assert env.terminations == dict.fromkeys(env.possible_agents, True)
    assert env.rewards == {a: (-1.0 if a == acting else 0) for a in env.possible_agents}


def _pettingzoos_own(module: Any, players: int) -> Any:
    from pettingzoo.utils import wrappers

    raw = module.raw_env(players=players)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(
        wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)))


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("illegal_at", [None, 40], ids=["legal", "illegal"])
@pytest.mark.parametrize(("module", "players"), [(san_juan_v0, 2), (puerto_rico_v0, 3)], ids=["san_juan", "puerto_rico"])
def test_the_wrappers_short_cut_plays_as_pettingzoos_own(module: Any, players: int, illegal_at: int | None) -> None:
    """``env()``'s wrappers answer ``last`` and ``step`` of a legal action without going down the
    chain: the episode is the one PettingZoo's own wrappers give, step by step (observations, masks,
    rewards, ends), with actions as ``int`` and as numpy integers, with and without ``last`` before a
    step, and with an illegal action that ends the game for the agent that made it."""
    ours, theirs = module.env(players=players), _pettingzoos_own(module, players)
    for env in (ours, theirs):
        env.reset(seed=11)
    rng = random.Random(11)
    steps = 0
    for agent in ours.agent_iter(max_iter=5000):
        assert theirs.agent_selection == agent
        look = steps % 5 != 3
        if look:
            got, want = ours.last(), theirs.last()
            assert np.array_equal(got[0]["observation"], want[0]["observation"])
            assert np.array_equal(got[0]["action_mask"], want[0]["action_mask"])
            assert got[1:] == want[1:]
        if ours.terminations[agent] or ours.truncations[agent]:
            action: Any = None
        else:
            legal = sorted(ours.unwrapped.legal_moves())
            if steps == illegal_at:
                action = next(a for a in range(len(ours.unwrapped.codec.ACTIONS)) if a not in legal)
            else:
                action = rng.choice(legal)
            if steps % 7 == 2:
                action = np.int64(action)
        ours.step(action)
        theirs.step(action)
        assert (ours.rewards, ours.terminations, ours.truncations, ours._cumulative_rewards) == (
            theirs.rewards, theirs.terminations, theirs.truncations, theirs._cumulative_rewards)
        if steps == illegal_at:
            assert ours.rewards[agent] == -1.0 and all(ours.terminations.values())
        steps += 1
    assert ours.agents == theirs.agents == []  # played to the end
    if illegal_at is not None:
        assert steps == illegal_at + 1 + players  # the illegal step, then each agent's dead step
    else:
        assert steps > 100 and ours.unwrapped.engine.is_over(ours.unwrapped._state)
