"""No game's words outside its own package: the generic layers (``governor``, ``ingest``, ``analysis``,
``play``, ``dashboards`` and ``replay`` beside the games' packages) never name a game (its name or its
title) nor anything of a game's catalogue (a role, a building, a good, a card), in code, comments,
docstrings, SQL, scripts or styles. Whatever they need of a game they ask its declaration and the
registry (``replay.registry``), so that adding a game is installing its package.

The words are every registered game's: its name and title, and the names its catalogue declares
(``NAMES`` of the module its declaration names as ``catalogue``), matched as whole words whatever the
case and whatever joins their parts (``Gold mine``, ``gold_mine``, ``gold-mine``)."""

from __future__ import annotations

import re
from pathlib import Path

from replay import registry

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("governor", "replay", "ingest", "analysis", "play", "dashboards")
#: Every kind of text file those layers hold (code, queries, scripts, styles, data, settings, docs).
SUFFIXES = {".py", ".js", ".css", ".sql", ".json", ".toml", ".md", ".html", ".txt", ".cfg", ".ini", ".yaml", ".yml"}
#: Other projects' names that hold a game's word by chance, read as the one word they are (Python's
#: ``dataclasses.field(default_factory=...)``): nothing else is exempt.
FOREIGN = re.compile(r"\bdefault_factory\b")


def game_words() -> dict[str, str]:
    """Every registered game's words, each with the game it belongs to: its name, its title and every
    name of its catalogue."""
    words: dict[str, str] = {}
    for game in registry.game_names():
        for word in (game, registry.game_title(game), *registry.catalogue_names(game)):
            words.setdefault(word.casefold(), game)
    return words


def _pattern(words: list[str]) -> re.Pattern[str]:
    # A word's parts joined by anything or nothing (a space, "_", "-": "gold mine", "gold_mine",
    # "GoldMine"), never inside a longer word; the longest first, so that "Indigo plant" is one hit.
    parts = [r"[\s_-]*".join(re.escape(part) for part in re.split(r"[\s_-]+", word) if part)
             for word in sorted(words, key=len, reverse=True)]
    return re.compile(rf"(?<![A-Za-z0-9])(?:{'|'.join(parts)})(?![A-Za-z0-9])", re.IGNORECASE)


def _game_packages() -> set[Path]:
    """The folders of the registered games' packages (the package of each declaration's view)."""
    found = set()
    for game in registry.game_names():
        package = registry.game_of(game).view.partition(":")[0].rpartition(".")[0]
        found.add((ROOT / package.replace(".", "/")).resolve())
    return found


def hits() -> list[str]:
    """Every line of the generic layers that names a game's word: ``file:line: word (game): line``."""
    words = game_words()
    pattern = _pattern(list(words))
    packages = _game_packages()
    found = []
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*")):
            if not path.is_file() or path.suffix not in SUFFIXES or "__pycache__" in path.parts:
                continue
            if any(path.resolve().is_relative_to(package) for package in packages):
                continue
            relative = path.relative_to(ROOT).as_posix()
            for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                for match in pattern.finditer(FOREIGN.sub(lambda m: " " * len(m.group(0)), line)):
                    word = re.sub(r"[\s_-]+", " ", match.group(0)).casefold()
                    game = words.get(word) or next(g for w, g in words.items() if re.sub(r"[\s_-]+", "", w) ==
                                                   re.sub(r"[\s_-]+", "", word))
                    found.append(f"{relative}:{number}: {match.group(0)!r} ({game}): {line.strip()}")
    return found


def test_no_file_outside_a_game_names_a_game_or_its_things() -> None:
    found = hits()
    assert found == [], f"{len(found)} lines name a game's words:\n" + "\n".join(found)


def test_the_words_are_every_games_catalogue() -> None:
    """The words checked are the games' own: their names, titles, roles, buildings, goods and cards."""
    words = game_words()
    for word in ("san_juan", "san juan", "puerto rico", "councillor", "gold mine", "silver", "settler", "wharf",
                 "corn", "quarry", "hacienda", "indigo plant", "small indigo plant", "prospector"):
        assert word in words, word
    pattern = _pattern(list(words))
    for text in ("dashboards/board_san_juan.py", "a GoldMine", "SMITHY", "the Gold-mine", "'puerto_rico'", "mayor's"):
        assert pattern.search(text), text
    for text in ("goldmines", "smithyx", "x_wellness", "prospectors2", "sjuan"):
        assert not pattern.search(text), text
    assert not pattern.search(FOREIGN.sub(" ", "field(default_factory=list)"))
    assert pattern.search(FOREIGN.sub(" ", "a factory_default"))


def test_the_pages_words_of_a_game_come_from_its_declaration() -> None:
    """What the Explorer counts is each game's to say (its declaration's ``opening_words``)."""
    assert registry.game_of("puerto_rico").opening_words == "role choices and builds, plantations and quarries taken"
    assert registry.game_of("san_juan").opening_words == "role choices and builds"
