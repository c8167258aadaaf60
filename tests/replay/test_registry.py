"""A game declares itself once, in its package, and registers that declaration as an entry point of the
group ``governor.games``; the registry finds it there. Adding a third game is installing a package that
registers it (here: a package and its ``*.dist-info`` on a temporary ``sys.path`` entry, which
``importlib.metadata`` finds as it finds an installed distribution). The declarations are light
(reading them imports no engine)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from replay import game as declared
from replay import registry
from replay.errors import LogFormatError
from replay.game import GameDeclaration, GameDeclarationError
from replay.logfile import parse_game
from tests.replay.distributions import drop_modules, install_distribution

ROOT = Path(__file__).resolve().parents[2]

FAKE_INIT = '''
from replay.game import GameDeclaration, GameOption

GAME = GameDeclaration(
    name="{name}",
    title="Noughts and Crosses",
    min_players=2,
    max_players=2,
    engine="{name}.engine:ENGINE",
    view="{name}.view",
    catalogue="{name}.engine",
    bots=(("random", "replay.engine_base:RandomPlayer"),),
    log_schema="nc_",
    log_schema_file="{name}:log.schema.json",
    options=(GameOption("misere", "three in a row loses"),),
    opening_words="corners taken",
    order=1,
)
'''

FAKE_ENGINE = '''
class _Engine:
    game = "{name}"

    def legal_moves(self, state):
        return [m for m in range(9) if m not in state]


ENGINE = _Engine()
'''

FAKE_VIEW = 'TITLE = "Noughts and Crosses"\n'

FAKE_SCHEMA = {"options": {"type": "object", "properties": {"misere": {"type": "boolean"}}},
               "$defs": {"nc_setup": {"type": "object", "maxProperties": 0},
                         "nc_move": {"type": "object", "properties": {"cell": {"type": "integer", "minimum": 0,
                                                                               "maximum": 8}}}}}


def _forget_registry() -> None:
    declared.forget()
    for cache in (registry._ENGINES, registry._VIEWS):
        for name in [n for n in cache if n not in ("san_juan", "puerto_rico")]:
            del cache[name]


@pytest.fixture()
def third_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A package ``noughts`` outside Governor, installed as the distribution ``noughts-game`` that
    registers it in ``governor.games``."""
    name = "noughts"
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent(FAKE_INIT.format(name=name)), encoding="utf-8")
    (package / "engine.py").write_text(textwrap.dedent(FAKE_ENGINE.format(name=name)), encoding="utf-8")
    (package / "view.py").write_text(FAKE_VIEW, encoding="utf-8")
    (package / "log.schema.json").write_text(json.dumps(FAKE_SCHEMA), encoding="utf-8")
    install_distribution(tmp_path, "noughts_game", f"[governor.games]\n{name} = {name}:GAME\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    _forget_registry()
    yield name
    drop_modules(name)
    monkeypatch.undo()
    _forget_registry()


def _log(game: str, players: int) -> dict[str, object]:
    return {"format": "governor-log", "version": 1, "game": game, "players": [f"P{k}" for k in range(players)],
            "setup": {}, "moves": []}


def test_the_two_games_are_declared_in_order() -> None:
    assert registry.game_names() == ("san_juan", "puerto_rico")
    sj, pr = registry.game_of("san_juan"), registry.game_of("puerto_rico")
    assert (sj.title, sj.min_players, sj.max_players, sj.bot_kinds) == ("San Juan", 2, 4, ("heuristic", "random", "expert"))
    assert (pr.title, pr.min_players, pr.max_players, pr.bot_kinds) == ("Puerto Rico", 3, 5, ("heuristic", "random", "expert"))
    assert [o.name for o in sj.options] == ["draft_start"] and pr.options == ()
    for name in registry.game_names():
        engine = registry.engine_for(name)
        game = registry.game_of(name)
        assert (engine.game, engine.min_players, engine.max_players) == (name, game.min_players, game.max_players)
        assert registry.view_for(name).TITLE == game.title


def test_a_third_game_is_its_package_and_nothing_else(third_game: str) -> None:
    assert registry.game_names() == ("san_juan", "noughts", "puerto_rico")
    assert registry.game_title(third_game) == "Noughts and Crosses"
    assert registry.view_for(third_game).TITLE == "Noughts and Crosses"
    assert registry.game_of(third_game).opening_words == "corners taken"
    # The log reader knows it by name (the rest of the log is the game's engine's to check).
    assert parse_game(_log(third_game, 2)).game == third_game
    bot = registry.make_bot(third_game, "random", 5)
    assert bot.choose((0, 4)) in (1, 2, 3, 5, 6, 7, 8)
    with pytest.raises(KeyError, match="Noughts and Crosses has no 'heuristic' bot \\(bots: random\\)"):
        registry.make_bot(third_game, "heuristic", 5)
    from dashboards import ui

    assert ui.game_title(third_game) == "Noughts and Crosses"


def test_once_the_third_game_is_gone_it_is_unknown() -> None:
    with pytest.raises(LogFormatError, match=r"unknown game 'noughts' \(known: san_juan, puerto_rico\)"):
        parse_game(_log("noughts", 2))
    with pytest.raises(KeyError, match=r"unknown game 'noughts' \(known: san_juan, puerto_rico\)"):
        registry.engine_for("noughts")
    assert registry.game_title("noughts_two") == "Noughts Two"


OWN = "of the distribution governor"


@pytest.mark.parametrize(("module", "entry_points", "message"), [
    ("from replay.san_juan import GAME\n", "san_juan = twin:GAME",
     "^game 'san_juan' is declared twice: by the entry point san_juan = (twin|replay.san_juan):GAME of the "
     "distribution (twin_game|governor) and by the entry point san_juan = (replay.san_juan|twin):GAME of the "
     "distribution (governor|twin_game)$"),
    ("GAME = 'twin'\n", "twin = twin:GAME",
     "^entry point twin = twin:GAME of the distribution twin_game is a str, not a GameDeclaration$"),
    ("import no_such_module\n", "twin = twin:GAME",
     "^entry point twin = twin:GAME of the distribution twin_game cannot be loaded: ModuleNotFoundError: "
     "No module named 'no_such_module'$"),
    ("", "twin = twin:GAME",
     "^entry point twin = twin:GAME of the distribution twin_game cannot be loaded: AttributeError: module "
     "'twin' has no attribute 'GAME'$"),
    ("from replay.san_juan import GAME\n", "twin = twin:GAME",
     "^entry point twin = twin:GAME of the distribution twin_game declares the game 'san_juan': an entry point "
     "is named after its game$"),
])
def test_a_game_registered_twice_or_wrongly_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        module: str, entry_points: str, message: str) -> None:
    """A broken entry point is one error naming it and its distribution; once it is gone, the games are
    found again."""
    (tmp_path / "twin.py").write_text(module, encoding="utf-8")
    install_distribution(tmp_path, "twin_game", f"[governor.games]\n{entry_points}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    declared.forget()
    try:
        with pytest.raises(GameDeclarationError, match=message):
            declared.declarations()
    finally:
        drop_modules("twin")
        monkeypatch.undo()
        declared.forget()
    assert registry.game_names() == ("san_juan", "puerto_rico")


def test_governor_metadata_without_its_games_says_to_run_the_setup(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A checkout whose installed metadata predates the games' entry points (an old ``governor.egg-info``
    or ``dist-info`` found first on the path) finds no game of its own: that is one error saying to run
    the setup, not an empty list of games."""
    install_distribution(tmp_path, "governor", "[console_scripts]\ngovernor = governor.cli:main\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    declared.forget()
    try:
        with pytest.raises(GameDeclarationError, match=(
                f"^the installed metadata of governor in {re.escape(str(tmp_path))}/governor-1.0.dist-info "
                "registers no game \\(governor.games\\): it predates the games' entry points; run scripts/setup.sh in "
                "the checkout \\(or pip install -e . there\\)$")):
            declared.declarations()
    finally:
        monkeypatch.undo()
        declared.forget()
    assert registry.game_names() == ("san_juan", "puerto_rico")


def test_governor_not_installed_says_to_run_the_setup(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    def missing(name: str) -> object:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    declared.forget()
    try:
        with pytest.raises(GameDeclarationError, match=(
                "^governor is not installed, so its own games are not registered \\(governor.games\\): run "
                "scripts/setup.sh in the checkout \\(or pip install -e . there\\)$")):
            declared.declarations()
    finally:
        monkeypatch.undo()
        declared.forget()


def test_a_broken_game_is_one_line_from_the_command(tmp_path: Path) -> None:
    """The command says what is wrong in one line, exit status 2 (the installation, not the input), with
    no traceback; the engines then run as pure Python, and ``governor native`` says why."""
    (tmp_path / "twin.py").write_text("raise RuntimeError('half installed')\n", encoding="utf-8")
    install_distribution(tmp_path, "twin_game", "[governor.games]\ntwin = twin:GAME\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *os.environ.get("PYTHONPATH", "").split(os.pathsep)])}
    line = ("entry point twin = twin:GAME of the distribution twin_game cannot be loaded: RuntimeError: "
            "half installed")
    for command in (["validate", str(ROOT / "sample_logs")], ["native"]):
        run = subprocess.run([sys.executable, "-m", "governor.cli", *command], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=120)
        assert (run.returncode, run.stdout, run.stderr) == (2, "", f"governor {command[0]}: {line}\n")


@pytest.mark.parametrize(("fields", "message"), [
    ({"name": "San Juan"}, "game name 'San Juan': lower-case ASCII letters, digits and '_' only"),
    ({"min_players": 5}, "game x: player counts 5 to 4"),
    ({"bots": (("random", "a:b"), ("random", "c:d"))}, r"game x: a bot kind declared twice in \['random', 'random'\]"),
    ({"bots": (("random", "a:b"),), "rollout_bot": "expert"},
     r"game x: rollout bot 'expert' is not among its bots \['random'\]"),
    ({"board": "x/board.js"}, r"game x: board 'x/board.js' is not a file of a package \(package:file\)"),
    ({"board": "x:board.js", "board_style": "x:"}, r"game x: board style 'x:' is not a file of a package"),
    ({"board_style": "x:board.css"}, r"game x: a board style \(x:board.css\) without a board"),
])
def test_a_declaration_checks_itself(fields: dict[str, object], message: str) -> None:
    base: dict[str, object] = {"name": "x", "title": "X", "min_players": 2, "max_players": 4, "engine": "m:E",
                               "view": "m", "catalogue": "m", "bots": (), "log_schema": "x_",
                               "log_schema_file": "m:s.json"}
    with pytest.raises(ValueError, match=message):
        GameDeclaration(**{**base, **fields})  # type: ignore[arg-type]


def test_a_games_board_is_package_data_of_the_game(third_game: str, tmp_path: Path) -> None:
    """A game's board is its own: a script and a stylesheet its package ships, named in its declaration
    and read through the registry; the pages put the script in their table of boards under the game's
    name and the style after the page's own, in the games' order. A declared file that is missing is
    one line naming it."""
    package = tmp_path / third_game
    init = package / "__init__.py"
    init.write_text(init.read_text(encoding="utf-8").replace(
        "order=1,", f'order=1,\n    board="{third_game}:board.js",\n    board_style="{third_game}:board.css",'),
        encoding="utf-8")
    script = "function draw(game, step) { return { bar: '', panels: [], cls: 'players nc' }; }\n"
    (package / "board.js").write_text(script, encoding="utf-8")
    (package / "board.css").write_text(".players.nc { gap: 0; }\n", encoding="utf-8")
    assert registry.board_script(third_game) == script
    assert registry.board_style(third_game) == ".players.nc { gap: 0; }\n"
    from dashboards.board_parts import boards_css, boards_js

    assert f'BOARD_TABLE["{third_game}"] = (function () {{\n{script}\nreturn draw;\n}})();' in boards_js()
    css = boards_css()
    games = [registry.board_style(name) for name in ("san_juan", third_game, "puerto_rico")]
    assert css.index(games[0]) < css.index(games[1]) < css.index(games[2])
    # A game without a board has none (the pages show its moves and changes only).
    assert registry.board_script("chess") is None and registry.board_style("chess") == ""
    (package / "board.css").unlink()
    with pytest.raises(GameDeclarationError, match=rf"^{third_game}:board.css: cannot be read as package data: "
                                                   "FileNotFoundError: "):
        registry.board_style(third_game)


def test_the_two_games_boards_are_their_own() -> None:
    """San Juan's and Puerto Rico's boards ship in their packages, and their scripts draw only: the final
    scoring and its tie-break come from the game's view (``final_scoring``), not from the script."""
    for name in registry.game_names():
        script = registry.board_script(name)
        assert script is not None and "function draw(game, step)" in script
        assert not re.search(r"scoring\s*[:=]|tie-?break", script)
        assert registry.board_style(name).startswith(f"/* {registry.game_title(name)}'s board (board.js)")


def test_the_rollout_bot_is_declared_and_looked_up() -> None:
    """San Juan rolls out with its expert bot, Puerto Rico with its heuristic bot (its expert is too slow
    for a game under a minute), found through the registry; a game that names none rolls out with its
    first bot, and one without bots says so."""
    assert [registry.rollout_bot(name) for name in registry.game_names()] == ["expert", "heuristic"]
    modules = [type(registry.make_bot(name, registry.rollout_bot(name), 7)).__module__ for name in registry.game_names()]
    assert modules == ["replay.san_juan.expert", "replay.puerto_rico.bots"]
    assert type(registry.make_bot("puerto_rico", "expert", 7)).__module__ == "replay.puerto_rico.expert"
    plain = GameDeclaration(name="x", title="X", min_players=2, max_players=4, engine="m:E", view="m", catalogue="m",
                            bots=(("random", "a:b"), ("heuristic", "c:d")), log_schema="x_", log_schema_file="m:s.json")
    assert plain.rollout_kind == "random"
    bare = GameDeclaration(name="x", title="X", min_players=2, max_players=4, engine="m:E", view="m", catalogue="m",
                           bots=(), log_schema="x_", log_schema_file="m:s.json")
    with pytest.raises(KeyError, match="^'X declares no bot to play rollouts'$"):
        bare.rollout_kind  # noqa: B018


def test_reading_the_declarations_imports_no_engine() -> None:
    code = ("import sys; from replay.game import declarations; names = list(declarations()); "
            "print(names, sorted(m for m in sys.modules if m.startswith('replay.')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == ("['san_juan', 'puerto_rico'] ['replay.errors', 'replay.game', 'replay.native', "
                           "'replay.puerto_rico', 'replay.san_juan']")


def test_a_third_games_schema_part_joins_the_log_schema(third_game: str) -> None:
    """The composed schema lists the third game, with its player counts, options, setup and moves; a
    log of it validates against the schema, and a move outside its part does not."""
    jsonschema = pytest.importorskip("jsonschema")
    from replay.log_schema import full_schema

    schema = full_schema()
    assert schema["properties"]["game"]["enum"] == ["san_juan", third_game, "puerto_rico"]
    assert "for each game (San Juan, Noughts and Crosses, Puerto Rico) the setup" in schema["description"]
    branch = schema["allOf"][1]
    assert branch == {"if": {"properties": {"game": {"const": third_game}}, "required": ["game"]},
                      "then": {"properties": {"players": {"minItems": 2, "maxItems": 2},
                                              "options": FAKE_SCHEMA["options"],
                                              "setup": {"$ref": "#/$defs/nc_setup"},
                                              "moves": {"items": {"$ref": "#/$defs/nc_move"}}}}}
    validator = jsonschema.Draft202012Validator(schema)
    log = _log(third_game, 2)
    assert list(validator.iter_errors(log)) == []
    log["moves"] = [{"seat": 0, "kind": "cell", "cell": 9}]
    assert [e.message for e in validator.iter_errors(log)] == ["9 is greater than the maximum of 8"]


@pytest.mark.parametrize(("part", "message"), [
    ({"options": {}, "$defs": {"nc_setup": {}, "nc_move": {}, "sj_card": {}}},
     r"noughts:log.schema.json: definitions \['sj_card'\] are not under the game's prefix 'nc_'"),
    ({"options": {}, "$defs": {"nc_setup": {}}}, r"noughts:log.schema.json: no definition nc_move"),
    ({"$defs": {"nc_setup": {}, "nc_move": {}}},
     r"noughts:log.schema.json: a game's schema part holds 'options' and '\$defs' only"),
])
def test_a_wrong_schema_part_is_named(third_game: str, tmp_path: Path, part: dict[str, object], message: str) -> None:
    from replay.log_schema import full_schema

    (tmp_path / third_game / "log.schema.json").write_text(json.dumps(part), encoding="utf-8")
    with pytest.raises(GameDeclarationError, match=message):
        full_schema()


def test_the_log_schema_names_every_game_and_its_part() -> None:
    from replay.log_schema import full_schema

    schema = full_schema()
    assert tuple(schema["properties"]["game"]["enum"]) == registry.game_names()
    parts = {part["if"]["properties"]["game"]["const"]: part["then"]["properties"] for part in schema["allOf"]}
    for name in registry.game_names():
        game = registry.game_of(name)
        then = parts[name]
        assert (then["players"]["minItems"], then["players"]["maxItems"]) == (game.min_players, game.max_players)
        assert then["setup"]["$ref"] == f"#/$defs/{game.log_schema}setup"
        assert then["moves"]["items"]["$ref"] == f"#/$defs/{game.log_schema}move"


def test_spaces_are_found_from_the_declarations() -> None:
    """A game's observation vector and action space are the module its declaration names; a game
    without one is not listed and asking for it says so."""
    from dataclasses import replace

    from replay import game as game_module
    from replay import registry

    assert registry.games_with_spaces() == ("san_juan", "puerto_rico")
    assert registry.spaces_for("san_juan").__name__ == "replay.san_juan.spaces"
    assert registry.spaces_for("puerto_rico").__name__ == "replay.puerto_rico.spaces"
    found = game_module.declarations()
    without = replace(found["san_juan"], spaces="")
    try:
        game_module._FOUND["san_juan"] = without
        assert registry.games_with_spaces() == ("puerto_rico",)
        with pytest.raises(KeyError, match="San Juan has no observation vector for learning code"):
            registry.spaces_for("san_juan")
    finally:
        game_module._FOUND.update(found)
    with pytest.raises(KeyError, match="unknown game 'chess'"):
        registry.spaces_for("chess")


def test_a_catalogue_declares_the_names_of_its_things(third_game: str) -> None:
    """Every name a game gives its things is declared once by its catalogue (``NAMES``), so that the
    rest of the product can be checked for naming none of them (``tests/test_no_game_names.py``)."""
    from replay.puerto_rico import catalogue
    from replay.san_juan import cards

    assert registry.catalogue_names("san_juan") == cards.NAMES
    assert {"councillor", "silver", "Gold mine", "Palace"} <= set(cards.NAMES)
    assert {"mayor", "prospector_2", "corn", "quarry", "Hacienda", "Small indigo plant"} <= set(catalogue.NAMES)
    assert len(set(cards.NAMES)) == len(cards.NAMES) and len(set(catalogue.NAMES)) == len(catalogue.NAMES)
    with pytest.raises(GameDeclarationError, match=r"^noughts.engine: the catalogue of Noughts and Crosses declares "
                                                   r"no NAMES \(a tuple of the names it gives its things\)$"):
        registry.catalogue_names(third_game)


def test_the_legal_moves_are_grouped_as_each_game_declares() -> None:
    """A person choosing a move sees the legal moves in the groups its game declares (several kinds in
    one group), any other kind a group of its own named after it."""
    sj, pr = registry.game_of("san_juan"), registry.game_of("puerto_rico")
    assert [sj.group_of(k) for k in ("role", "build", "gold_mine", "hand_limit", "pass")] == \
        ["Roles", "Builds", "Gold mine", "Hand limit", "Pass"]
    assert [pr.group_of(k) for k in ("settle", "hacienda", "load", "store", "extra_good", "mayor")] == \
        ["Plantations", "Plantations", "Ship goods", "Store goods", "Craftsman's extra good", "Mayor"]


def test_a_games_module_that_does_not_load_is_one_line_naming_it(third_game: str, tmp_path: Path) -> None:
    """A declared module whose import fails (a half-installed package) is a ``GameDeclarationError`` naming
    what of which game did not load, as the command and the dashboard say it in one line."""
    (tmp_path / third_game / "engine.py").write_text("raise ImportError('numpy is missing')\n", encoding="utf-8")
    with pytest.raises(GameDeclarationError, match=r"^the engine of Noughts and Crosses \(noughts.engine:ENGINE\) "
                                                   r"cannot be loaded: ImportError: numpy is missing$"):
        registry.engine_for(third_game)
    # A bot is made for its game's engine: the engine's line again.
    with pytest.raises(GameDeclarationError, match=r"^the engine of Noughts and Crosses \(noughts.engine:ENGINE\)"):
        registry.make_bot(third_game, "random", 1)
    (tmp_path / third_game / "view.py").write_text("TITLE = \n", encoding="utf-8")
    with pytest.raises(GameDeclarationError, match=r"^the view of Noughts and Crosses \(noughts.view\) cannot be "
                                                   r"loaded: SyntaxError: "):
        registry.view_for(third_game)
