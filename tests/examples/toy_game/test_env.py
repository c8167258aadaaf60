"""The toy game, installed, gets a PettingZoo environment from its declaration alone (``spaces=``):
``governor.envs.toy_v0`` passes PettingZoo's own api_test and seed_test at every player count, plays a
seeded random game to its end as a log that validates and imports, and observes exactly what the
seat's view shows (nothing of another seat's hand before the end)."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pettingzoo", reason="missing optional dependency: the env extra (pip install 'governor[env]')")
pytest.importorskip("numpy", reason="missing optional dependency: the env extra (pip install 'governor[env]')")

import numpy as np  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

# Imported before the toy game is registered, so that the package's list of environments (``__all__``,
# made once, which other tests read) holds Governor's own games only.
import governor.envs  # noqa: E402
from play.views import seat_view  # noqa: E402
from replay.logfile import parse_game, write_games  # noqa: E402
from replay.registry import engine_for, spaces_for, view_for  # noqa: E402
from replay.replayer import final_state  # noqa: E402
from tests.examples.conftest import TOY  # noqa: E402


@pytest.fixture()
def toy_v0(installed_toy: Path) -> Iterator[Any]:
    """The environment module of the installed toy game, forgotten again afterwards (the game is
    registered for this test only)."""
    yield governor.envs.toy_v0  # type: ignore[attr-defined]
    sys.modules.pop("governor.envs.toy_v0", None)
    vars(governor.envs).pop("toy_v0", None)


def play_episode(module: Any, players: int, seed: int) -> tuple[Any, dict[str, float]]:
    """A game of random legal actions, played to its end on the raw environment: the environment, and
    each agent's return as ``last`` gave it at the end."""
    env = module.raw_env(players=players)
    env.reset(seed=seed)
    rng = random.Random(seed)
    returns: dict[str, float] = {}
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            returns[agent] = reward
            env.step(None)
            continue
        assert observation["observation"].shape == (env.codec.SIZE,)
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]).tolist())))
    return env, returns


# PettingZoo warns so for every environment with a dict observation, its classic games' included.
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_api_and_seed(toy_v0: Any, players: int) -> None:
    api_test(toy_v0.env(players=players), num_cycles=200)
    seed_test(lambda **kw: toy_v0.env(players=players, **kw), num_cycles=100)


def test_the_environment_is_made_from_the_declaration(toy_v0: Any) -> None:
    import importlib

    raw = toy_v0.raw_env()
    assert (raw.game, raw.players, raw.codec, raw.metadata["name"]) == ("toy", 4, spaces_for("toy"), "toy_v0")
    assert importlib.import_module("governor.envs.toy_v0") is toy_v0
    assert raw.action_spaces["player_0"].n == len(raw.codec.ACTIONS) == 12
    assert [raw.action_name(a) for a in (0, 1, 2, 10, 11, 12)] == ["draw", "stay", "climb 1", "climb 9", "rest",
                                                                  "out of range"]
    with pytest.raises(ValueError, match=r"^toy is played by 2 to 4 players, not 5$"):
        toy_v0.raw_env(players=5)


def test_a_seeded_random_game_is_played_to_its_end_as_a_log_that_validates_and_imports(
        toy_v0: Any, tmp_path: Path) -> None:
    from ingest.importer import import_paths

    env, returns = play_episode(toy_v0, 3, seed=4)
    assert env.agents == [] and engine_for("toy").is_over(env._state)
    log = env.to_log()
    assert log["source_id"] == f"env-toy-3p-{env.seed_used}" and log["result"]["winners"]
    # A sole winner +1, each other seat -1/2 (a tie shares them: none in this game).
    assert log["result"]["winners"] == [max(range(3), key=lambda seat: returns[f"player_{seat}"])]
    assert sorted(returns.values()) == [-0.5, -0.5, 1.0]
    # The same seed plays the same game.
    assert play_episode(toy_v0, 3, seed=4)[0].to_log() == log
    parsed = parse_game(json.loads(json.dumps(log)), file="episode")
    assert final_state(parsed) == env._state
    path = tmp_path / "episode.json"
    write_games(path, [log])
    summary = import_paths([path], tmp_path / "env.duckdb", workers=1)
    assert (summary.imported, summary.rejected) == (1, 0)


@pytest.mark.parametrize("players", [2, 4])
def test_the_observation_is_the_seat_views_vector_and_blind_to_what_the_seat_cannot_see(
        toy_v0: Any, players: int) -> None:
    """At every step, for every seat: the environment's vector (``encode_state``) is ``encode`` of the
    seat's view, and dealing again what the seat cannot see (the pile, the other hands) changes
    nothing of it; once the game is over every hand is in every vector."""
    del toy_v0
    engine, view, codec = engine_for("toy"), view_for("toy"), spaces_for("toy")
    names = [f"P{k}" for k in range(players)]
    state = engine.simulation_state(engine.new_random_game(names, 7, {}), 7)
    rng = random.Random(7)
    steps = 0
    while True:
        for seat in range(players):
            fast = codec.encode_state(state, seat)
            assert fast.dtype == np.float32 and fast.shape == (codec.SIZE,)
            assert np.array_equal(fast, codec.encode(seat_view("toy", state, seat, names))), (steps, seat)
            dealt = view.determinise(state, seat, random.Random(steps))
            assert np.array_equal(fast, codec.encode_state(dealt, seat)), (steps, seat)
        if engine.is_over(state):
            break
        legal = codec.representatives(engine, state)
        assert sorted(legal) == sorted(codec.action_of(m) for m in engine.legal_moves(state))
        state = engine.apply(state, legal[rng.choice(sorted(legal))])
        steps += 1
    assert steps > 8 * players
    layout = {f.name: f for f in codec.LAYOUT.fields}
    other = codec.encode_state(state, 0)[layout["seat+1"].start:layout["seat+1"].stop]
    assert other[2] == 1 and other[3:12].sum() == len(state.players[1].hand)


def test_another_seats_hand_is_its_size_only(installed_toy: Path) -> None:
    from toy_game import rules
    from toy_game.cards import deck

    codec = spaces_for("toy")
    state = rules.new_game(2, {}, {"deck": deck()})  # seat 0 holds 1 1 1, seat 1 holds 1 2 2
    layout = {f.name: f for f in codec.LAYOUT.fields}
    mine, theirs = layout["seat+0"], layout["seat+1"]
    seen = codec.encode_state(state, 0)
    assert seen[mine.start:mine.stop].tolist()[:4] == [1, 3, 1, 3]  # present, 3 cards, seen, three 1s
    assert seen[theirs.start:theirs.stop].tolist() == [1, 3] + [0] * (len(theirs.labels) - 2)
    assert codec.encode_state(state, 1)[mine.start + 3:mine.start + 5].tolist() == [1, 2]  # one 1, two 2s
    with pytest.raises(IndexError, match=r"^seat 2 is not in a 2-player game$"):
        codec.encode_state(state, 2)
    with pytest.raises(TypeError, match=r"^not a Climb move: str$"):
        codec.action_of("draw")


def test_the_vector_and_actions_are_documented_in_the_games_readme(installed_toy: Path) -> None:
    from replay.layout import action_table

    codec = spaces_for("toy")
    readme = (TOY / "README.md").read_text(encoding="utf-8")
    assert codec.LAYOUT.markdown() in readme
    assert action_table(codec.ACTIONS) in readme
    assert f"{codec.SIZE} values" in readme
