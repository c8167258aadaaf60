"""The toy game, registered (its metadata on the path, as pip leaves it), is a Governor game with no
change to Governor: the registry lists it, its log schema part joins the log schema, its compiled
modules follow Governor's, and a seat's view renders without what it hides. The command's whole path
runs on the game installed by pip for real: ``test_installed.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from replay import registry
from replay.protocol import Engine
from tests.examples.conftest import TOY


def test_the_installed_toy_game_is_found(installed_toy: Path) -> None:
    from replay.log_schema import full_schema

    assert registry.game_names() == ("san_juan", "puerto_rico", "toy")
    assert (registry.game_title("toy"), registry.view_for("toy").TITLE) == ("Climb", "Climb")
    assert isinstance(registry.engine_for("toy"), Engine)
    assert type(registry.make_bot("toy", "random", 1)).__name__ == "RandomPlayer"
    assert full_schema()["properties"]["game"]["enum"] == ["san_juan", "puerto_rico", "toy"]


def test_the_toy_games_logs_match_the_composed_log_schema(installed_toy: Path) -> None:
    """Simulated toy logs validate against the log schema ``governor schema`` composes; a climb without
    its card does not."""
    jsonschema = pytest.importorskip("jsonschema")
    from replay.log_schema import full_schema
    from replay.simulate import simulate_game

    validator = jsonschema.Draft202012Validator(full_schema())
    for seed in range(3):
        log = simulate_game("toy", 2 + seed, seed, "mixed")
        assert list(validator.iter_errors(log)) == []
    log["moves"][1] = {"seat": 0, "kind": "climb"}
    assert [e.message for e in validator.iter_errors(log)] == ["'card' is a required property"]


def test_the_toy_games_compiled_modules_follow_governors_and_keep_their_constants_final(installed_toy: Path) -> None:
    """``governor native build`` compiles the modules the toy game declares after Governor's own, and
    those keep their module constants Final, as compiled modules must (``tests/replay/test_native.py``)."""
    from replay import native
    from tests.replay.test_native import _unfinal_constants

    modules = native.compiled_modules()
    declared = registry.game_of("toy").compiled
    assert declared and modules[-len(declared):] == declared
    sources = {name: (TOY / Path(*name.split("."))).with_suffix(".py").read_text(encoding="utf-8") for name in declared}
    assert {name: found for name, source in sources.items() if (found := _unfinal_constants(source))} == {}


def test_a_seat_view_is_rendered_without_what_it_hides(installed_toy: Path) -> None:
    from toy_game import rules, view
    from toy_game.cards import deck

    from replay.protocol import Viewer

    state = rules.new_game(2, {}, {"deck": deck()})
    engine = registry.engine_for("toy")
    text = engine.render_view(view.view_state(state, Viewer.of_seat(0), ["Ana", "Bruno"]), ["Ana", "Bruno"])
    assert text.splitlines()[-2:] == ["Ana (seat 0): -3 points; ladder -; hand (3): 1, 1, 1",
                                      "Bruno (seat 1): score hidden; ladder -; hand (3): hidden"]
