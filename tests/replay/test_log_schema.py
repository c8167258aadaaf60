"""The JSON Schema of the log format (replay/schema/log.schema.json) agrees with the reader.

Every sample log and freshly simulated games (every move kind, the draft variant) validate; a handful of
bad logs are refused by both the schema and ``replay`` (the schema checks shape, the replay checks rules).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

jsonschema = pytest.importorskip("jsonschema")

from replay.errors import GovernorError  # noqa: E402
from replay.log_schema import full_schema  # noqa: E402
from replay.logfile import parse_game  # noqa: E402
from replay.replayer import final_state  # noqa: E402
from replay.san_juan.cards import CATALOGUE, Good, Role  # noqa: E402
from replay.san_juan.moves import _FIELDS  # noqa: E402
from replay.simulate import simulate_game  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "sample_logs").rglob("*.json"))
SAN_JUAN_SAMPLE = sorted((ROOT / "sample_logs" / "san_juan").glob("*.json"))[0]


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return full_schema()


@pytest.fixture(scope="module")
def validator(schema: dict[str, Any]) -> Any:
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture(scope="module")
def simulated() -> list[dict[str, Any]]:
    games = []
    for seed, (players, bot, draft) in enumerate(
        [(2, "random", True), (3, "random", False), (4, "random", True), (2, "mixed", False), (4, "heuristic", True)]
    ):
        games.append(simulate_game("san_juan", players, 500 + seed, bot, {"draft_start": True} if draft else {}))
    return games


def test_schema_is_draft_2020_12(schema: dict[str, Any]) -> None:
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_schema_lists_the_catalogue(schema: dict[str, Any]) -> None:
    defs = schema["$defs"]
    assert defs["sj_card"]["enum"] == [card.name for card in CATALOGUE]
    assert defs["sj_good"]["enum"] == [g.value for g in Good]
    kinds = [branch["properties"]["kind"]["const"] for branch in defs["sj_move"]["oneOf"]]
    assert kinds == list(_FIELDS) == defs["sj_move"]["properties"]["kind"]["enum"]
    for branch in defs["sj_move"]["oneOf"]:
        kind = branch["properties"]["kind"]["const"]
        assert set(branch["properties"]) == _FIELDS[kind] | {"kind", "seat"}, kind
    role_branch = defs["sj_move"]["oneOf"][0]
    assert role_branch["properties"]["role"]["enum"] == [r.value for r in Role]


def test_there_are_sample_logs() -> None:
    assert len(SAMPLES) >= 30


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_sample_log_matches_schema(path: Path, validator: Any) -> None:
    errors = sorted(validator.iter_errors(json.loads(path.read_text(encoding="utf-8"))), key=str)
    assert not errors, f"{path.name}: {errors[0].message} at {errors[0].json_path}"


def test_simulated_logs_match_schema(simulated: list[dict[str, Any]], validator: Any) -> None:
    kinds = set()
    for game in simulated:
        errors = list(validator.iter_errors(game))
        assert not errors, f"{errors[0].message} at {errors[0].json_path}"
        kinds |= {m["kind"] for m in game["moves"]}
    assert kinds >= {"role", "build", "produce", "sell", "councillor", "chapel", "draft", "pass"}


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(game: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = game
        for key in parents:
            node = node[int(key)] if key.isdigit() else node[key]
        node[int(last) if last.isdigit() else last] = value
    return change


def _first_move(kind: str, update: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def change(game: dict[str, Any]) -> None:
        move = next(m for m in game["moves"] if m["kind"] == kind)
        move.update(update)
    return change


def _delete(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda game: game.pop(key)


BAD = {
    "wrong format name": _set("format", "governor"),
    "wrong version": _set("version", 2),
    "unknown top-level field": _set("winner", 0),
    "missing setup": _delete("setup"),
    "one player": _set("players", [{"name": "Ana"}]),
    "empty player name": _set("players.0.name", " "),
    "unknown card in deck": _set("setup.deck.0", "Cathedral"),
    "tiles not an order of 1..5": _set("setup.tiles", [1, 1, 2, 3, 4]),
    "unknown option": _set("options", {"draft": True}),
    "unknown move kind": _set("moves.0", {"kind": "trade"}),
    "unknown role": _set("moves.0", {"kind": "role", "role": "mayor"}),
    "unknown good": _first_move("produce", {"goods": ["corn"]}),
    "extra field on a move": _first_move("build", {"cost": 2}),
    "councillor with keep and discard": _first_move("councillor", {"discard": []}),
    "seat not a number": _first_move("role", {"seat": "0"}),
    "winners not a list": _set("result.winners", 0),
    "a winner twice": _set("result.winners", [1, 1]),
    "unknown result field": _set("result.margin", 3),
    "newline in a player name": _set("players.0.name", "Ana\nBruno"),
    "escape code in a source id": _set("source_id", "\x1b[31mred"),
    "padded card name": _first_move("build", {"building": " Palace "}),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_log_fails_schema_and_replay(name: str, validator: Any) -> None:
    good = json.loads(SAN_JUAN_SAMPLE.read_text(encoding="utf-8"))
    bad = copy.deepcopy(good)
    BAD[name](bad)
    assert not validator.is_valid(bad), f"the schema accepts a log with {name}"
    with pytest.raises(GovernorError):
        final_state(parse_game(bad, file="bad.json"))
