"""docs/adding-a-game.md walks through the toy game as it is: its declaration and its ``pyproject.toml``
as the page shows them are the package's own, every field of a declaration is explained, and the page's
layout of the package lists every file it has."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from typing import Any

from replay.game import GameDeclaration
from tests.examples.conftest import ROOT, TOY, built_beside

PAGE = ROOT / "docs" / "adding-a-game.md"


def _text() -> str:
    return PAGE.read_text(encoding="utf-8")


def test_the_declaration_shown_is_the_packages() -> None:
    from toy_game import GAME

    shown = re.search(r"```python\n(from replay\.game import GameDeclaration\n\nGAME = GameDeclaration\(.*?\n\))\n```",
                      _text(), re.S)
    assert shown is not None
    namespace: dict[str, object] = {}
    exec(shown.group(1), namespace)  # noqa: S102 (the page's own snippet, run to compare it)
    assert namespace["GAME"] == GAME


def _within(shown: dict[str, Any], real: dict[str, Any]) -> list[str]:
    """The keys of ``shown`` (nested tables by dotted path) whose value ``real`` does not hold."""
    wrong = []
    for key, value in shown.items():
        if isinstance(value, dict) and isinstance(real.get(key), dict):
            wrong += [f"{key}.{inner}" for inner in _within(value, real[key])]
        elif real.get(key) != value:
            wrong.append(key)
    return wrong


def test_the_pyproject_shown_is_the_packages() -> None:
    shown = re.search(r"```toml\n(\[build-system\]\n.*?)```", _text(), re.S)
    assert shown is not None
    real = tomllib.loads((TOY / "pyproject.toml").read_text(encoding="utf-8"))
    assert _within(tomllib.loads(shown.group(1)), real) == []


def test_every_field_of_a_declaration_is_explained() -> None:
    rows = re.findall(r"^\| `([a-z_]+)`(?:, `([a-z_]+)`)? \|", _text(), re.M)
    explained = {name for row in rows for name in row if name}
    assert {f.name for f in dataclasses.fields(GameDeclaration)} <= explained


def test_the_package_layout_lists_every_file() -> None:
    tree = _text().split("```\nexamples/toy_game/\n", 1)[1].split("```", 1)[0]
    shown = set(re.findall(r"[\w./]+\.(?:py|toml|md|json|js|css)", tree))
    files = {p.relative_to(TOY).as_posix() for p in TOY.rglob("*")
             if p.is_file() and "__pycache__" not in p.parts and not built_beside(p.relative_to(TOY).parts[0])}
    assert {f.split("/")[-1] for f in files} == {s.split("/")[-1] for s in shown}
