"""The model file: data only (no pickle), refused with one line when tampered with or made for other
features, and the chances it gives: summing to 1, the result itself once a game is over."""

from __future__ import annotations

import gzip
import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from analysis.winchance import model as model_file
from analysis.winchance.features import FEATURES_VERSION
from analysis.winchance.model import ModelError, load, loads
from analysis.winchance.predict import chances
from replay.logfile import parse_game
from replay.registry import engine_for
from replay.replayer import iter_replay
from replay.simulate import simulate_game


def _parts(path: Path) -> dict[str, object]:
    return json.loads(gzip.decompress(path.read_bytes()))  # type: ignore[no-any-return]


def _written(obj: object) -> bytes:
    return gzip.compress(json.dumps(obj).encode(), mtime=0)


def test_a_model_loads_without_pickle(models: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("a model file was unpickled")

    for name in ("load", "loads", "Unpickler"):
        monkeypatch.setattr(pickle, name, refused)
    loaded = load("san_juan", 2, models / "san_juan-2.json.gz")
    assert loaded.header["game"] == "san_juan" and loaded.header["players"] == 2
    assert loaded.header["package"].startswith("lightgbm ")
    assert set(loaded.views) == {"everything", "seat"}
    # The file is gzip'd JSON: the trees in LightGBM's text format, the calibration a table.
    body = _parts(models / "san_juan-2.json.gz")["body"]
    assert isinstance(body, dict)
    assert body["seat"]["trees"].startswith("tree\n")
    assert set(body["seat"]["calibration"]) == {"x", "y"}


def test_a_tampered_header_is_refused(models: Path) -> None:
    obj = _parts(models / "san_juan-2.json.gz")
    header = obj["header"]
    assert isinstance(header, dict)
    header["features"]["seat"]["names"][0] = "viewer:something else"
    with pytest.raises(ModelError) as err:
        loads(_written(obj), "m.json.gz", "san_juan", 2)
    assert str(err.value) == ("m.json.gz: made for other features of san_juan (seat view) than this Governor's "
                              f"(version {FEATURES_VERSION}); rebuild it with governor train")


@pytest.mark.parametrize("view", ["everything", "seat"])
def test_a_model_of_another_features_version_is_refused(models: Path, view: str) -> None:
    """A model made when the features meant something else (an older ``FEATURES_VERSION``: the same
    observation, other columns) is refused even though its names and digest are otherwise intact."""
    obj = _parts(models / "san_juan-2.json.gz")
    header = obj["header"]
    assert isinstance(header, dict)
    assert loads(_written(obj), "m.json.gz", "san_juan", 2).header["features"][view]["version"] == FEATURES_VERSION
    header["features"][view]["version"] = FEATURES_VERSION - 1
    with pytest.raises(ModelError) as err:
        loads(_written(obj), "m.json.gz", "san_juan", 2)
    assert str(err.value) == (f"m.json.gz: made for other features of san_juan ({view} view) than this Governor's "
                              f"(version {FEATURES_VERSION}); rebuild it with governor train")


def test_a_changed_body_or_count_is_refused(models: Path) -> None:
    obj = _parts(models / "san_juan-2.json.gz")
    body = obj["body"]
    assert isinstance(body, dict)
    body["everything"]["trees"] = body["everything"]["trees"].replace("leaf_value=", "leaf_value=1", 1)
    with pytest.raises(ModelError, match=r"^m\.json\.gz: the model does not match its header's hash \(the file was changed\)$"):
        loads(_written(obj), "m.json.gz", "san_juan", 2)
    obj = _parts(models / "san_juan-2.json.gz")
    obj["header"]["players"] = 3  # type: ignore[index]
    with pytest.raises(ModelError, match=r"made for other features of san_juan \(everything view\)"):
        loads(_written(obj), "m.json.gz", "san_juan", 3)
    with pytest.raises(ModelError, match=r"^m\.json\.gz: not a win-chance model \(gzip'd JSON\): "):
        loads(b"\x80\x04 not a model", "m.json.gz", "san_juan", 2)


def test_a_missing_model_names_the_command_that_builds_it(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as err:
        load("san_juan", 4, tmp_path / "none.json.gz")
    assert str(err.value) == (f"{tmp_path / 'none.json.gz'}: no win-chance model of san_juan with 4 players "
                              "(build it with governor train --game san_juan --players 4)")


@pytest.mark.parametrize("game", ["san_juan", "puerto_rico"])
def test_the_chances_sum_to_one_and_a_finished_game_ends_at_one_for_its_winner(models: Path, game: str) -> None:
    players = 2 if game == "san_juan" else 3
    loaded = load(game, players, models / f"{game}-{players}.json.gz")
    engine = engine_for(game)
    moves: dict[str, list[float]] = {"everything": [], "seat": []}
    for seed in (101, 102, 103):
        log = parse_game(simulate_game(game, players, seed, "heuristic"))
        states = [state for state, _ in iter_replay(log, describe=False, steps=False)]
        final = states[-1]
        winners = engine.winners(final)
        for view, viewer in (("everything", None), ("seat", seed % players)):
            found = chances(loaded, engine, states, view, viewer)
            assert found.shape == (len(states), players)
            assert np.allclose(found.sum(axis=1), 1.0, atol=1e-9)
            assert ((found >= 0) & (found <= 1)).all()
            assert found[-1].tolist() == [1.0 / len(winners) if seat in winners else 0.0 for seat in range(players)]
            # Before the end, the model's own chances, not the result.
            assert 0 < found[0].max() < 1
            moves[view].append(float(found[:-1].std(axis=0).max()))
    # And they move with the games (a view that learnt nothing would give every seat an even share at
    # every step of every game); a small model may see one game as settled from its start.
    assert max(moves["everything"]) > 0.02 and max(moves["seat"]) > 0.02


def test_a_tie_gives_each_winner_an_equal_share(monkeypatch: pytest.MonkeyPatch, models: Path) -> None:
    loaded = load("san_juan", 2, models / "san_juan-2.json.gz")
    engine = engine_for("san_juan")
    log = parse_game(simulate_game("san_juan", 2, 7, "heuristic"))
    final = [state for state, _ in iter_replay(log, describe=False, steps=False)][-1]
    monkeypatch.setattr(engine, "winners", lambda state: [0, 1])
    assert chances(loaded, engine, [final]).tolist() == [[0.5, 0.5]]


def test_the_shipped_model_is_where_train_writes_it() -> None:
    assert model_file.shipped_path("san_juan", 3).name == "san_juan-3.json.gz"
    assert model_file.shipped_path("san_juan", 3).parent.name == "models"


def test_the_calibration_is_monotone_and_keeps_apart_what_the_trees_tell_apart() -> None:
    """Centred isotonic regression: a block of pooled chances is one breakpoint at their mean, so two
    chances inside one block still get different values (flat steps gave them one)."""
    from analysis.winchance.calibration import fit

    rng = np.random.default_rng(1)
    chances = rng.uniform(0, 1, 4000)
    outcomes = (rng.uniform(0, 1, 4000) < chances).astype(float)
    fitted = fit(chances, outcomes)
    assert all(b >= a for a, b in zip(fitted.x, fitted.x[1:])) and all(b >= a for a, b in zip(fitted.y, fitted.y[1:]))
    assert len(fitted.x) == len(set(fitted.x))
    middle = fitted.apply(np.linspace(0.2, 0.8, 61))
    assert len(set(middle.round(9).tolist())) == 61
    assert abs(fitted.apply(np.asarray([0.5]))[0] - 0.5) < 0.05
