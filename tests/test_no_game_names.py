"""No game names outside the games: a game's name is written only in its own package
(``replay/<game>/``) and its board module (``dashboards/board_<game>.py``); everything else asks the
registry (``replay.registry``), so that adding a game is adding its package and its board."""

from __future__ import annotations

import re
from pathlib import Path

from replay import registry

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("governor", "replay", "ingest", "analysis", "play", "dashboards")


def _quoted_names() -> re.Pattern[str]:
    names = "|".join(re.escape(name) for name in registry.game_names())
    return re.compile(rf"""["'](?:{names})["']""")


def _allowed(relative: str) -> bool:
    games = registry.game_names()
    return (any(relative.startswith(f"replay/{game}/") for game in games)
            or relative in {f"dashboards/board_{game}.py" for game in games})


def test_no_file_outside_a_game_names_a_game() -> None:
    pattern = _quoted_names()
    found = []
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*")):
            if not path.is_file() or path.suffix not in {".py", ".json", ".js", ".sql", ".css", ".toml"}:
                continue
            relative = path.relative_to(ROOT).as_posix()
            if _allowed(relative):
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                if pattern.search(line):
                    found.append(f"{relative}:{number}: {line.strip()}")
    assert found == []


def test_the_pages_words_of_a_game_come_from_its_declaration() -> None:
    assert registry.game_of("puerto_rico").opening_words == ", plantations and quarries taken"
    assert registry.game_of("san_juan").opening_words == ""
