"""The command names no game of its own: wherever a help text lists the games (their names, their
titles, their options), the list is the registry's, so a third game installed is listed with the two
built-in ones; a game option's flag of ``simulate`` is the one the game declares."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from governor.cli import COMMANDS, build_parser, main
from replay import game as declared
from replay import registry
from tests.replay.distributions import drop_modules, install_distribution

BUILT_IN = ("san_juan", "puerto_rico")

THIRD = '''
from replay.game import GameDeclaration, GameOption

GAME = GameDeclaration(
    name="third",
    title="Third Board",
    min_players=2,
    max_players=6,
    engine="third_game:ENGINE",
    view="third_game",
    catalogue="third_game",
    bots=(("heuristic", "third_game:bot"),),
    log_schema="th_",
    log_schema_file="third_game:log.schema.json",
    options=(GameOption("long_game", "two more rounds", flag={flag!r}, summary="the long variant"),),
    order=50,
)
'''


def _install(folder: Path, monkeypatch: pytest.MonkeyPatch, flag: str) -> None:
    """A game ``third`` (title "Third Board", 2 to 6 players, an option with the flag ``flag``) in a
    package outside Governor, installed as a distribution registering it: its declaration only (a
    help text loads no engine)."""
    package = folder / "third_game"
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent(THIRD.format(flag=flag)), encoding="utf-8")
    install_distribution(folder, "third_game", "[governor.games]\nthird = third_game:GAME\n")
    monkeypatch.syspath_prepend(str(folder))
    declared.forget()


@pytest.fixture()
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    """Help texts on one line each (argparse wraps them at the terminal's width)."""
    monkeypatch.setenv("COLUMNS", "400")


@pytest.fixture()
def third_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wide: None) -> Iterator[str]:
    _install(tmp_path, monkeypatch, "long-game")
    assert registry.game_names() == ("san_juan", "puerto_rico", "third")
    yield "third"
    drop_modules("third_game")
    monkeypatch.undo()
    declared.forget()


def _help(capsys: pytest.CaptureFixture[str], *command: str) -> str:
    assert main([*command, "--help"]) == 0
    return capsys.readouterr().out


def _line(text: str, start: str) -> str:
    """The line of ``text`` that starts (once stripped) with ``start``."""
    (found,) = [line.strip() for line in text.splitlines() if line.strip().startswith(start)]
    return found


#: Where a help text lists the games, by subcommand: the line's start and what it says with the two
#: built-in games and with the third one installed (in the games' declared order).
LISTS = [
    ((), "Replay, check, import",
     "Replay, check, import and study San Juan and Puerto Rico game logs.",
     "Replay, check, import and study San Juan, Puerto Rico and Third Board game logs."),
    (("simulate",), "--game GAME", "--game GAME san_juan or puerto_rico",
     "--game GAME san_juan, puerto_rico or third"),
    (("simulate",), "--draft", "--draft San Juan: use the draft-start variant",
     "--draft San Juan: use the draft-start variant"),
    (("arena",), "--game GAME", "--game GAME san_juan or puerto_rico", "--game GAME san_juan, puerto_rico or third"),
    (("play",), "Play ", "Play San Juan or Puerto Rico against bots",
     "Play San Juan, Puerto Rico or Third Board against bots"),
    (("play",), "--game GAME", "--game GAME san_juan or puerto_rico", "--game GAME san_juan, puerto_rico or third"),
    (("play",), "--option NAME", "--option NAME turn on one of the game's options (San Juan: draft_start)",
     "--option NAME turn on one of the game's options (San Juan: draft_start; Third Board: long_game)"),
    (("analyse",), "--rollout-bot KIND", "(heuristic, random, expert; default: the one the game declares for "
     "rollouts, San Juan: expert, Puerto Rico: heuristic)",
     "(heuristic, random, expert; default: the one the game declares for rollouts, San Juan: expert, "
     "Puerto Rico: heuristic, Third Board: heuristic)"),
]


def _squeezed(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize(("command", "start", "two", "three"), LISTS)
def test_the_built_in_games_are_listed_as_before(capsys: pytest.CaptureFixture[str], wide: None,
                                                 command: tuple[str, ...], start: str, two: str, three: str) -> None:
    assert two in _squeezed(_line(_help(capsys, *command), start))


@pytest.mark.parametrize(("command", "start", "two", "three"), LISTS)
def test_a_third_game_installed_is_listed_with_them(capsys: pytest.CaptureFixture[str], third_game: str,
                                                    command: tuple[str, ...], start: str, two: str, three: str) -> None:
    assert three in _squeezed(_line(_help(capsys, *command), start))


def test_every_help_naming_a_game_names_every_registered_game(capsys: pytest.CaptureFixture[str],
                                                              third_game: str) -> None:
    """Whatever subcommand's help lists games (a line naming two or more, by name or by title) names
    every registered game there; ``--option`` lists the games that have options."""
    games = registry.game_names()
    with_options = [name for name in games if registry.game_of(name).options]
    listing = []
    for command in [(), *((name,) for name in sorted(COMMANDS))]:
        for line in _help(capsys, *command).splitlines():
            named = [name for name in games if name in line or registry.game_title(name) in line]
            if len(named) >= 2:
                listing.append(command)
                assert named == (with_options if line.strip().startswith("--option") else list(games)), (command, line)
    assert sorted(set(listing)) == [(), ("analyse",), ("analyze",), ("arena",), ("play",), ("simulate",), ("train",)]


def test_the_arena_seats_as_many_as_the_games_allow(capsys: pytest.CaptureFixture[str], third_game: str) -> None:
    assert main(["arena", "--game", "third", "--players", "7", "--agents", "random", "random"]) == 2
    assert capsys.readouterr().err == ("governor arena: argument --players: must be an integer from 2 to 6, not '7' "
                                       "(see governor arena --help)\n")


def test_a_flag_turns_on_its_games_option_only(third_game: str, tmp_path: Path) -> None:
    from governor.commands.simulate import options_of

    parser = build_parser()
    args = parser.parse_args(["simulate", "--game", "third", "--long-game", "--out", str(tmp_path)])
    assert options_of(args) == {"long_game": True}
    assert options_of(parser.parse_args(["simulate", "--game", "third", "--out", str(tmp_path)])) == {}
    assert options_of(parser.parse_args(["simulate", "--game", "san_juan", "--draft", "--out", str(tmp_path)])) == {
        "draft_start": True}


def test_another_games_flag_is_one_line(capsys: pytest.CaptureFixture[str], third_game: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["simulate", "--game", "san_juan", "--long-game", "--out", str(out)]) == 2
    assert capsys.readouterr().err == "governor simulate: --long-game is an option of Third Board, not of San Juan\n"
    assert not out.exists()


def test_a_built_in_games_flag_for_the_other_game_is_one_line(capsys: pytest.CaptureFixture[str],
                                                               tmp_path: Path) -> None:
    """``--draft`` with a game that has no draft start: it was a traceback and status 3 (the game's rules
    refused the option once the simulation had begun), and left an empty output folder."""
    out = tmp_path / "out"
    assert main(["simulate", "--game", "puerto_rico", "--games", "1", "--draft", "--out", str(out)]) == 2
    assert capsys.readouterr() == ("", "governor simulate: --draft is an option of San Juan, not of Puerto Rico\n")
    assert not out.exists()


def test_a_flag_that_is_one_of_simulates_own_options_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    _install(tmp_path, monkeypatch, "seed")
    try:
        assert main(["simulate", "--help"]) == 2
        assert capsys.readouterr() == ("", "governor simulate: game third: the flag --seed of its option long_game "
                                           "is one of governor simulate's own options\n")
    finally:
        drop_modules("third_game")
        monkeypatch.undo()
        declared.forget()
