"""The moves table's columns of the phase a move is made in are the games' own, as each declares them
(``GameDeclaration.step_columns``): the table holds every registered game's, in the registry's order;
a game registered later adds its own to an older file; two games cannot give one column two types."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from ingest import schema
from ingest.migrations import ensure_schema
from replay import registry
from replay.game import GameDeclarationError


def test_the_built_in_games_declare_the_columns_the_table_has_always_had() -> None:
    assert schema.moves_schema().names == ["game_id", "step", "round", "governor", "role", "seat", "player", "kind",
                                           "text", "words", "details", "events"]
    assert [registry.game_of(g).step_columns for g in registry.game_names()] == [
        (("governor", "int8"), ("role", "string"))] * 2


@pytest.fixture()
def declared(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, object]]:
    """The registry's declarations, to be changed by a test (``schema`` reads them through ``game_of``)."""
    found = {name: registry.game_of(name) for name in registry.game_names()}
    monkeypatch.setattr(schema, "game_names", lambda: tuple(found))
    monkeypatch.setattr(schema, "game_of", found.__getitem__)
    # The digest of what a file holds is made once per process: the games change here.
    schema.schema_digest.cache_clear()
    yield found  # type: ignore[misc]
    monkeypatch.undo()
    schema.schema_digest.cache_clear()


def test_a_game_with_columns_of_its_own_adds_them(declared: dict, tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    with duckdb.connect(str(db)) as con:
        ensure_schema(con, str(db))
    first = registry.game_names()[0]
    declared["dice"] = replace(declared[first], name="dice", title="Dice",
                               step_columns=(("role", "string"), ("throws", "int16")))
    assert schema.moves_schema().field("throws").type == pa.int16()
    assert schema.moves_schema().names[3:6] == ["governor", "role", "throws"]
    schema.schema_digest.cache_clear()
    with duckdb.connect(str(db)) as con:
        ensure_schema(con, str(db))
        columns = con.execute("SELECT column_name, data_type FROM information_schema.columns "
                              "WHERE table_name = 'moves' ORDER BY ordinal_position").fetchall()
    assert columns[-1] == ("throws", "SMALLINT")


def test_two_types_of_one_column_are_refused(declared: dict) -> None:
    first = registry.game_names()[0]
    declared["dice"] = replace(declared[first], name="dice", title="Dice", step_columns=(("governor", "string"),))
    with pytest.raises(GameDeclarationError, match="the step column 'governor' of the moves table is declared as "
                                                   f"int8 by {first} and as string by dice"):
        schema.moves_schema()


@pytest.mark.parametrize("column", [("seat", "int8"), ("turn", "decimal"), ("two words", "string")])
def test_a_step_column_is_a_new_name_of_a_known_type(column: tuple[str, str]) -> None:
    with pytest.raises(ValueError, match="step column"):
        replace(registry.game_of(registry.game_names()[0]), step_columns=(column,))
