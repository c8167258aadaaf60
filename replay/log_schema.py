"""The JSON Schema of the log format, composed from the shared envelope and every game's part.

The envelope (``replay/schema/envelope.schema.json``) describes what every log has; each game's
package holds its own part (``log.schema.json`` beside its ``__init__.py``, named by its declaration's
``log_schema_file``): its options and, under its declared prefix, the definitions of its setup and
moves. ``full_schema`` puts them together: the game names, each game's player counts (from its
declaration) and one ``if game == name then ...`` branch per game. ``governor schema`` prints it.
"""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any

from replay.game import GameDeclaration, GameDeclarationError, declarations

#: The envelope's file inside the ``replay`` package.
ENVELOPE = "schema/envelope.schema.json"


def _read(package: str, name: str) -> Any:
    return json.loads(resources.files(package).joinpath(name).read_text(encoding="utf-8"))


def game_part(game: GameDeclaration) -> dict[str, Any]:
    """The game's part of the schema (``options`` and ``$defs``), read from its package. Raises
    ``GameDeclarationError`` when a definition is not under the game's prefix or a key is missing,
    ``FileNotFoundError`` when the file is not there."""
    package, _, name = game.log_schema_file.partition(":")
    part = _read(package, name)
    if not isinstance(part, dict) or set(part) - {"$comment"} != {"options", "$defs"}:
        raise GameDeclarationError(f"{game.log_schema_file}: a game's schema part holds 'options' and '$defs' only")
    outside = [key for key in part["$defs"] if not key.startswith(game.log_schema)]
    if outside:
        raise GameDeclarationError(f"{game.log_schema_file}: definitions {outside} are not under the game's "
                                   f"prefix {game.log_schema!r}")
    for kind in ("setup", "move"):
        if f"{game.log_schema}{kind}" not in part["$defs"]:
            raise GameDeclarationError(f"{game.log_schema_file}: no definition {game.log_schema}{kind}")
    return part


def full_schema() -> dict[str, Any]:
    """The whole schema (draft 2020-12) of a log of any declared game, a new dict each call. Raises
    what ``game_part`` raises for a game whose part is wrong."""
    schema: dict[str, Any] = copy.deepcopy(_read("replay", ENVELOPE))
    games = declarations()
    schema["description"] = schema["description"].replace("{games}", ", ".join(g.title for g in games.values()))
    schema["properties"]["game"] = {"enum": list(games)}
    for name, game in games.items():
        part = game_part(game)
        clash = set(part["$defs"]) & set(schema["$defs"])
        if clash:
            raise GameDeclarationError(f"{game.log_schema_file}: definitions {sorted(clash)} are defined twice")
        schema["$defs"].update(part["$defs"])
        schema["allOf"].append({
            "if": {"properties": {"game": {"const": name}}, "required": ["game"]},
            "then": {"properties": {
                "players": {"minItems": game.min_players, "maxItems": game.max_players},
                "options": part["options"],
                "setup": {"$ref": f"#/$defs/{game.log_schema}setup"},
                "moves": {"items": {"$ref": f"#/$defs/{game.log_schema}move"}},
            }},
        })
    return schema


def schema_text() -> str:
    """The whole schema as ``governor schema`` prints it (one-space indent, UTF-8, a final newline)."""
    return json.dumps(full_schema(), indent=1, ensure_ascii=False) + "\n"
