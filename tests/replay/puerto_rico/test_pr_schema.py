"""The JSON Schema's Puerto Rico part (replay/schema/log.schema.json) agrees with the reader: the
catalogue and move kinds match, every sample, simulated and declining log validates, and malformed moves
are refused by both the schema and the reader."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

jsonschema = pytest.importorskip("jsonschema")

from replay.errors import LogFormatError  # noqa: E402
from replay.log_schema import full_schema  # noqa: E402
from replay.logfile import parse_game  # noqa: E402
from replay.puerto_rico.catalogue import CATALOGUE, GOODS, TILE_KINDS  # noqa: E402
from replay.puerto_rico.moves import _FIELDS, ROLE_CARDS  # noqa: E402
from replay.replayer import final_state  # noqa: E402
from replay.simulate import simulate_game  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = full_schema()
DECLINES = Path(__file__).with_name("declines_3p.json")


@pytest.fixture(scope="module")
def validator() -> Any:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    return jsonschema.Draft202012Validator(SCHEMA)


def test_schema_lists_the_puerto_rico_catalogue_and_moves() -> None:
    defs = SCHEMA["$defs"]
    assert defs["pr_building"]["enum"] == [b.name for b in CATALOGUE]
    assert defs["pr_good"]["enum"] == [g.value for g in GOODS]
    assert defs["pr_island_tile"]["enum"] == list(TILE_KINDS)
    branches = defs["pr_move"]["oneOf"]
    kinds = [branch["properties"]["kind"]["const"] for branch in branches]
    assert kinds == list(_FIELDS) == defs["pr_move"]["properties"]["kind"]["enum"]
    for branch in branches:
        kind = branch["properties"]["kind"]["const"]
        assert set(branch["properties"]) == _FIELDS[kind] | {"kind", "seat"}, kind
    assert branches[0]["properties"]["role"]["enum"] == list(ROLE_CARDS)


def test_simulated_and_declining_logs_match_schema(validator: Any) -> None:
    games = [simulate_game("puerto_rico", players, 40 + players, bot) for players, bot in
             [(3, "random"), (4, "mixed"), (5, "random"), (4, "heuristic")]]
    games.append(json.loads(DECLINES.read_text(encoding="utf-8")))
    declines = set()
    for game in games:
        errors = sorted(validator.iter_errors(game), key=str)
        assert not errors, f"{errors[0].message} at {errors[0].json_path}"
        for move in game["moves"]:
            declines.update(key for key in ("privilege", "hospice", "university") if move.get(key) is False)
    assert declines == {"privilege", "hospice", "university"}


@pytest.mark.parametrize(
    ("kind", "change", "field"),
    [
        ("role", {"privilege": "no"}, "privilege"),
        ("role", {"role": "governor"}, "role"),
        ("settle", {"hospice": 0}, "hospice"),
        ("build", {"university": None}, "university"),
        ("store", {"keep": "gold"}, "keep"),
        ("settle", {"colour": "red"}, "colour"),
    ],
)
def test_bad_moves_refused_by_schema_and_reader(validator: Any, kind: str, change: dict, field: str) -> None:
    bad = json.loads(DECLINES.read_text(encoding="utf-8"))
    index = next(i for i, move in enumerate(bad["moves"]) if move["kind"] == kind)
    bad["moves"][index].update(change)
    assert list(validator.iter_errors(bad))
    with pytest.raises(LogFormatError) as err:
        final_state(parse_game(bad))
    assert err.value.path == f"moves[{index}].{field}"
