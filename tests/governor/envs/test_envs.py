"""The PettingZoo environments of both games: PettingZoo's own api_test and seed_test at every player
count, observations that hold nothing a seat cannot see, and episodes written as logs that validate
and import."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo", reason="missing optional dependency: the env extra (pip install 'governor[env]')")
pytest.importorskip("numpy", reason="missing optional dependency: the env extra (pip install 'governor[env]')")

import numpy as np  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from governor.envs import puerto_rico_v0, san_juan_v0  # noqa: E402
from play.views import seat_view  # noqa: E402
from replay.logfile import parse_game, write_games  # noqa: E402
from replay.puerto_rico import spaces as puerto_rico_spaces  # noqa: E402
from replay.registry import engine_for, view_for  # noqa: E402
from replay.replayer import final_state  # noqa: E402
from replay.san_juan import spaces as san_juan_spaces  # noqa: E402

COUNTS = [(san_juan_v0, p) for p in (2, 3, 4)] + [(puerto_rico_v0, p) for p in (3, 4, 5)]


# PettingZoo warns so for every environment with a dict observation, its classic games' included.
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize(("module", "players"), COUNTS, ids=lambda v: getattr(v, "__name__", str(v)).split(".")[-1])
def test_pettingzoo_api_and_seed(module: object, players: int) -> None:
    api_test(module.env(players=players), num_cycles=200)  # type: ignore[attr-defined]
    seed_test(lambda **kw: module.env(players=players, **kw), num_cycles=100)  # type: ignore[attr-defined]


def play_episode(module: object, players: int, seed: int) -> object:
    env = module.raw_env(players=players)  # type: ignore[attr-defined]
    env.reset(seed=seed)
    rng = random.Random(seed)
    for _agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        assert observation["observation"].shape == (env.codec.SIZE,)
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(rng.choice(list(legal))))
    return env


@pytest.mark.parametrize(("module", "players"), [(san_juan_v0, 4), (puerto_rico_v0, 5)],
                         ids=["san_juan", "puerto_rico"])
def test_episode_is_a_log_that_validates_and_imports(module: object, players: int, tmp_path: Path) -> None:
    from ingest.importer import import_paths

    env = play_episode(module, players, seed=4)
    log = env.to_log()  # type: ignore[attr-defined]
    assert log["result"]["winners"]
    rewards = env._cumulative_rewards  # type: ignore[attr-defined]
    assert sum(rewards.values()) == pytest.approx(0.0) or len(log["result"]["winners"]) == players
    parsed = parse_game(json.loads(json.dumps(log)), file="episode")
    assert engine_for(parsed.game).is_over(final_state(parsed))
    path = tmp_path / "episode.json"
    write_games(path, [log])
    summary = import_paths([path], tmp_path / "env.duckdb", workers=1)
    assert (summary.imported, summary.rejected) == (1, 0)


@pytest.mark.parametrize("game", ["san_juan", "puerto_rico"])
def test_observation_is_blind_to_what_the_seat_cannot_see(game: str) -> None:
    # Dealing again everything a seat cannot see changes nothing of its observation: it holds no
    # hidden card of another seat.
    codec = san_juan_spaces if game == "san_juan" else puerto_rico_spaces
    engine = engine_for(game)
    view = view_for(game)
    names = ["a", "b", "c", "d"]
    log = engine.new_random_game(names, 21, {})
    state = engine.simulation_state(log, 21)
    rng = random.Random(5)
    checked = 0
    while not engine.is_over(state):
        seat = engine.current_seat(state)
        for other in range(4):
            mine = codec.encode(seat_view(game, state, other, names))
            dealt = view.determinise(state, other, random.Random(checked))
            assert np.array_equal(mine, codec.encode(seat_view(game, dealt, other, names)))
            checked += 1
        legal = codec.representatives(engine, state)
        for move in engine.legal_moves(state)[:200] if game == "san_juan" or state.stage.value != "mayor" else ():
            assert 0 <= codec.action_of(move) < len(codec.ACTIONS)
        assert seat is not None
        state = engine.apply(state, legal[rng.choice(sorted(legal))])
    assert checked > 200


def test_action_names_and_layout_are_documented() -> None:
    assert len(san_juan_spaces.ACTIONS) == len(set(san_juan_spaces.ACTIONS)) == 247
    assert len(puerto_rico_spaces.ACTIONS) == len(set(puerto_rico_spaces.ACTIONS)) == 301
    docs = (Path(__file__).resolve().parents[3] / "docs" / "agents.md").read_text()
    for codec in (san_juan_spaces, puerto_rico_spaces):
        assert codec.LAYOUT.markdown() in docs
        assert f"{codec.SIZE} values" in docs


def test_puerto_rico_observation_hides_other_seats_chips_until_the_end() -> None:
    from dataclasses import replace

    engine = engine_for("puerto_rico")
    names = ["a", "b", "c"]
    log = engine.new_random_game(names, 3, {})
    state = engine.simulation_state(log, 3)
    players = list(state.players)
    players[1] = replace(players[1], vp_chips=7)
    state = replace(state, players=tuple(players))
    layout = {f.name: f for f in puerto_rico_spaces.LAYOUT.fields}
    mine, theirs = layout["seat+0"], layout["seat+1"]
    chips_known = theirs.labels.index("chips_known")
    # Seat 0 sees seat 1 (its seat+1) without chips; seat 1 sees its own 7.
    seen_by_0 = puerto_rico_spaces.encode(seat_view("puerto_rico", state, 0, names))
    seen_by_1 = puerto_rico_spaces.encode(seat_view("puerto_rico", state, 1, names))
    assert seen_by_0[theirs.start + chips_known] == 0 and seen_by_0[theirs.start + chips_known + 1] == 0
    assert seen_by_1[mine.start + chips_known] == 1 and seen_by_1[mine.start + chips_known + 1] == 7
    assert seen_by_0[theirs.start + theirs.labels.index("vp")] == seen_by_1[mine.start + mine.labels.index("vp")] - 7


def test_an_environment_per_declared_game_found_both_ways() -> None:
    """The environment modules are made from the games' declarations (``spaces``): ``from governor.envs
    import`` and ``import governor.envs.<game>_v0`` give the same module; the raw environment plays the
    game its name says, with the declared spaces; an unknown name is an AttributeError."""
    import importlib

    import governor.envs
    from replay.registry import games_with_spaces, spaces_for

    assert governor.envs.__all__ == sorted(f"{game}_v0" for game in games_with_spaces()) == [
        "puerto_rico_v0", "san_juan_v0"]
    assert importlib.import_module("governor.envs.puerto_rico_v0") is puerto_rico_v0
    for module, game, players in ((san_juan_v0, "san_juan", 4), (puerto_rico_v0, "puerto_rico", 4)):
        raw = module.raw_env()  # type: ignore[attr-defined]
        assert (raw.game, raw.players, raw.codec, raw.metadata["name"]) == (game, players, spaces_for(game),
                                                                            f"{game}_v0")
    with pytest.raises(AttributeError, match="has no attribute 'chess_v0'"):
        governor.envs.chess_v0  # noqa: B018
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("governor.envs.chess_v0")


@pytest.mark.parametrize("module", [san_juan_v0, puerto_rico_v0], ids=["san_juan", "puerto_rico"])
def test_an_agent_that_changes_its_observation_changes_nothing_of_the_environment(module: object) -> None:
    """An agent may keep or change the arrays it is handed: zeroing its mask, or writing into its
    vector, neither refuses a later legal action nor changes what the next observer sees."""
    env = module.env(players=3)  # type: ignore[attr-defined]
    env.reset(seed=11)
    rng = random.Random(5)
    steps = 0
    while env.agents and steps < 300:
        observation, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        kept = observation["observation"].copy()
        observation["action_mask"][:] = 0
        observation["observation"][:] = -7.0
        again = env.observe(env.agent_selection)
        assert np.array_equal(again["observation"], kept)
        assert again["action_mask"][legal].all()
        again["action_mask"][:] = 0
        env.step(int(rng.choice(legal)))
        # An action refused as illegal would end the game truncated for everyone (TerminateIllegal).
        assert not any(env.unwrapped.truncations.values())
        steps += 1
    assert steps >= 150  # a real stretch of the game was played, to its end or to 300 steps
