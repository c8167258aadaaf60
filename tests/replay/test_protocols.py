"""The engine is four small typed protocols (``Rules``, ``Words``, ``StorageRows``, ``Simulation``)
and the determinisation; each game's engine has every hook of each, and code outside the games asks
for the narrowest one (no ``engine: Any``)."""

from __future__ import annotations

import re
from pathlib import Path

from replay import protocol, registry
from replay.engine_base import RandomPlayer, SnapshotWorking
from replay.protocol import Engine, Rules, Simulation, StorageRows, Words

ROOT = Path(__file__).resolve().parents[2]
PARTS = (Rules, Words, StorageRows, Simulation)


def _members(cls: type) -> set[str]:
    return {name for name in vars(cls) if not name.startswith("_")} | set(getattr(cls, "__annotations__", {}))


def test_every_engine_has_every_hook_of_each_protocol() -> None:
    for name in registry.game_names():
        engine = registry.engine_for(name)
        for part in (*PARTS, Engine):
            assert isinstance(engine, part), (name, part.__name__)
        assert engine.determinise is not None


def test_the_protocols_split_the_hooks_without_overlap() -> None:
    seen: dict[str, str] = {}
    for part in PARTS:
        for member in _members(part):
            assert member not in seen, f"{member} in both {seen.get(member)} and {part.__name__}"
            seen[member] = part.__name__
    assert _members(Engine) == {"determinise"}
    assert {"apply", "legal_moves", "scores", "winners"} <= {m for m, p in seen.items() if p == "Rules"}
    assert {"describe_move", "render", "to_view"} <= {m for m, p in seen.items() if p == "Words"}
    assert {"global_schema", "player_rows", "state_rows"} <= {m for m, p in seen.items() if p == "StorageRows"}
    assert {"new_random_game", "simulation_state", "finish_log", "redraw"} == {m for m, p in seen.items() if p == "Simulation"}


def test_an_object_without_a_hook_is_no_engine() -> None:
    class OnlyRules:
        game, version, min_players, max_players = "x", "1", 2, 2

    assert not isinstance(OnlyRules(), Rules)
    assert not isinstance(registry.view_for("san_juan"), Engine)


def test_the_shared_helpers_take_the_rules_only() -> None:
    engine = registry.engine_for("san_juan")
    log = engine.new_random_game(["A", "B"], 1, {})
    state = engine.simulation_state(log, 1)
    work = SnapshotWorking(engine, state)
    move = RandomPlayer(engine, 4).choose_working(work)
    assert move in engine.legal_moves(state)
    work.apply(move)
    assert work.snapshot() == engine.apply(state, move)


def test_no_engine_typed_any_in_the_registry_replay_and_import() -> None:
    files = [ROOT / "replay" / "replayer.py", ROOT / "replay" / "registry.py", ROOT / "replay" / "engine_base.py",
             ROOT / "replay" / "simulate.py", *sorted((ROOT / "ingest").glob("*.py")),
             *sorted((ROOT / "replay").glob("*/engine.py"))]
    pattern = re.compile(r"\bengine: (?:Any|object)\b|def engine_for\(.*\) -> Any\b")
    found = [f"{p.relative_to(ROOT)}:{n}" for p in files
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert found == []
    assert protocol.Engine.__mro__[1:5] == PARTS


def test_chance_drawn_in_play_is_recorded_where_the_game_says() -> None:
    """The engine base records the chance outcomes a game draws in play under the setup key the game
    declares (San Juan's and Puerto Rico's ``reshuffles``), and a game that declares none (its setup
    holds every outcome from the start) gets its setup back as it was, with nothing refused."""
    from types import SimpleNamespace

    from replay.engine_base import RulesEngine
    from replay.logfile import GameLog

    class Dealt(RulesEngine):
        game = "dealt"

        def scores(self, state: object) -> list[protocol.Score]:
            return [protocol.Score(3), protocol.Score(1)]

        def winners(self, state: object) -> list[int]:
            return [0]

    class Drawing(Dealt):
        drawn_setup_key = "draws"
        drawn_state_attribute = "drawn"
        drawn_unused = "drew {used}, recorded {given}"

    log = GameLog(game="dealt", players=("A", "B"), setup={"deck": [1, 2]}, moves=(), options={})
    state = SimpleNamespace(drawn=((2, 1),))
    assert Dealt().finish_log(log, state, [])["setup"] == {"deck": [1, 2]}
    assert Dealt().unused_setup(log, state) is None
    assert Drawing().finish_log(log, state, [])["setup"] == {"deck": [1, 2], "draws": [[2, 1]]}
    extra = GameLog(game="dealt", players=("A", "B"), setup={"draws": [[2, 1], [1, 2]]}, moves=(), options={})
    error = Drawing().unused_setup(extra, state)
    assert error is not None and str(error) == "setup.draws[1]: drew 1, recorded 2"
    assert [registry.engine_for(g).drawn_setup_key for g in registry.game_names()] == ["reshuffles", "reshuffles"]


def test_the_protocol_is_typed_by_each_games_state_and_move_not_any() -> None:
    """States and moves are the protocols' type variables (each game's own types); ``Any`` is left
    only where a JSON object's values are (``protocol.JSON``), each line saying why."""
    lines = (ROOT / "replay" / "protocol.py").read_text(encoding="utf-8").splitlines()
    code = [(number, line) for number, line in enumerate(lines, 1) if not line.lstrip().startswith(("#", '"'))]
    anys = [(number, line.strip()) for number, line in code if re.search(r"\bAny\b", line)]
    assert [line for _, line in anys] == ["from typing import Any, ClassVar, Protocol, TypeAlias, TypeVar, runtime_checkable",
                                          "JSON: TypeAlias = dict[str, Any]"]
    assert lines[anys[1][0] - 2].startswith("#:")  # the alias is justified in its comment


def test_a_variation_draws_anew_what_the_log_recorded_once_it_no_longer_fits() -> None:
    """``redraw``: an error about a recorded chance outcome (in the setup's declared key) gives the state
    drawing from the seed, the recorded outcomes dropped; any other error, or a state that draws from a
    seed already, gives None; so does a game that draws nothing in play."""
    from dataclasses import dataclass

    from replay.engine_base import RulesEngine
    from replay.errors import FieldError

    @dataclass(frozen=True)
    class State:
        draws: tuple[int, ...] = (3, 1)
        seed: int | None = None

    class Drawing(RulesEngine):
        drawn_setup_key = "draws"
        drawn_state_attribute = "drawn"
        drawn_seed_attribute = "seed"

    misfit = FieldError("setup.draws[0]", "not an order of the discard pile")
    assert Drawing().redraw(State(), misfit, 9) == State(draws=(), seed=9)
    assert Drawing().redraw(State(seed=4), misfit, 9) is None
    assert Drawing().redraw(State(), FieldError("moves[3].card", "not in hand"), 9) is None
    assert RulesEngine().redraw(State(), misfit, 9) is None


def test_an_engine_takes_its_name_player_counts_and_view_from_its_declaration() -> None:
    """Said once, in the declaration: an engine naming it gets its ``game``, ``min_players``,
    ``max_players`` and ``view`` module from it (and a version unless it sets one); each game's engine
    agrees with its declaration; a game whose deck is reshuffled in play says so by its base class."""
    import importlib

    from replay.engine_base import ReshufflingEngine, RulesEngine
    from replay.game import GameDeclaration

    declared = GameDeclaration(name="dealt", title="Dealt", min_players=2, max_players=6, engine="x:ENGINE",
                               view="replay.san_juan.view", catalogue="x", bots=(), log_schema="d_",
                               log_schema_file="x:y")

    class Dealt(RulesEngine):
        declaration = declared

    assert (Dealt.game, Dealt.min_players, Dealt.max_players, Dealt.version) == ("dealt", 2, 6, "1.0")
    assert Dealt.view is importlib.import_module("replay.san_juan.view")
    for name in registry.game_names():
        engine = registry.engine_for(name)
        game = registry.declaration(name)
        assert isinstance(engine, RulesEngine) and type(engine).declaration is game
        assert (engine.game, engine.min_players, engine.max_players) == (name, game.min_players, game.max_players)
        assert type(engine).view is importlib.import_module(game.view)
        assert isinstance(engine, ReshufflingEngine)
        assert (engine.drawn_setup_key, engine.drawn_state_attribute, engine.drawn_seed_attribute) == (
            "reshuffles", "reshuffles_used", "shuffle_seed")
