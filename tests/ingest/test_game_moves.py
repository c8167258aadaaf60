"""The moves the views, the summary tables, the Explorer's openings and the Statistics page count are
the ones each game declares (``GameDeclaration.choice``, ``build``, ``openings``): a game whose moves
are named otherwise is read by its own names, and a kind of move another game declares is not counted
for a game that does not."""

from __future__ import annotations

import json

import duckdb
import pytest

from ingest import game_moves
from ingest.game_moves import literal, opening_filter, opening_token, part_filter, part_value
from replay.game import GameDeclaration, MovePart, OpeningMove


def _declared(name: str, **fields: object) -> GameDeclaration:
    return GameDeclaration(name=name, title=name.title(), min_players=2, max_players=4, engine="m:E", view="m",
                           catalogue="m", bots=(), log_schema=f"{name}_", log_schema_file="m:s.json",
                           **fields)  # type: ignore[arg-type]


GAMES = {
    "towers": _declared("towers", choice=MovePart("role", "role"), build=MovePart("build", "building"),
                        openings=(OpeningMove("role", key="role"),
                                  OpeningMove("build", phase="raise", words="build", key="building"))),
    "cards": _declared("cards", choice=MovePart("pick", "card"),
                       openings=(OpeningMove("pick", words="pick", key="card"), OpeningMove("rest"))),
    "plain": _declared("plain"),
}

MOVES = [
    # game, step, round, phase, kind, JSON form
    ("t1", "towers", 1, 1, "raise", "role", {"role": "raise"}),
    ("t1", "towers", 2, 1, "raise", "build", {"building": "Keep"}),
    ("t1", "towers", 3, 1, "raise", "pick", {"card": "Ace"}),
    ("t1", "towers", 4, 2, "other", "build", {"building": "Wall"}),
    ("c1", "cards", 1, 1, None, "pick", {"card": "Ace"}),
    ("c1", "cards", 2, 1, None, "role", {"role": "raise"}),
    ("c1", "cards", 3, 1, None, "rest", {}),
    ("p1", "plain", 1, 1, None, "role", {"role": "raise"}),
]


@pytest.fixture()
def con(monkeypatch: pytest.MonkeyPatch) -> duckdb.DuckDBPyConnection:
    monkeypatch.setattr(game_moves, "game_names", lambda: tuple(GAMES))
    monkeypatch.setattr(game_moves, "game_of", GAMES.__getitem__)
    con = duckdb.connect()
    con.execute("CREATE TABLE games (game_id VARCHAR, game VARCHAR)")
    con.execute("CREATE TABLE moves (game_id VARCHAR, step INT, round INT, role VARCHAR, kind VARCHAR, details VARCHAR)")
    con.executemany("INSERT INTO games VALUES (?, ?)", sorted({(m[0], m[1]) for m in MOVES}))
    con.executemany("INSERT INTO moves VALUES (?, ?, ?, ?, ?, ?)",
                    [(g, s, r, p, k, json.dumps({"kind": k, **d})) for g, _, s, r, p, k, d in MOVES])
    return con


def _select(con: duckdb.DuckDBPyConnection, value: str, where: str) -> list[tuple[str, int, str]]:
    return [tuple(r) for r in con.execute(f"SELECT m.game_id, m.step, {value} FROM moves m JOIN games g USING (game_id) "
                                          f"WHERE {where} ORDER BY m.game_id, m.step").fetchall()]


def test_each_games_choices_and_builds_are_its_own(con: duckdb.DuckDBPyConnection) -> None:
    assert _select(con, part_value("choice"), part_filter("choice")) == [("c1", 1, "Ace"), ("t1", 1, "raise")]
    assert _select(con, part_value("build"), part_filter("build")) == [("t1", 2, "Keep"), ("t1", 4, "Wall")]


def test_each_games_first_decisions_are_its_own_with_its_tokens(con: duckdb.DuckDBPyConnection) -> None:
    assert _select(con, opening_token(), opening_filter()) == [
        ("c1", 1, "pick Ace"), ("c1", 3, "rest"), ("t1", 1, "Raise"), ("t1", 2, "build Keep")]


def test_no_game_declaring_a_sort_selects_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(game_moves, "game_names", lambda: ("plain",))
    monkeypatch.setattr(game_moves, "game_of", GAMES.__getitem__)
    assert (part_filter("build"), part_value("build"), opening_filter(), opening_token()) == (
        "false", "NULL::VARCHAR", "false", "m.kind")
    with pytest.raises(ValueError, match=r"no sort of move 'colour' \(sorts: choice, build\)"):
        game_moves.declared("colour")


def test_a_games_words_reach_the_sql_as_literals_only() -> None:
    assert literal("it's") == "'it''s'"
    with pytest.raises(ValueError, match="a kind and a key"):
        MovePart("pick", "card'; DROP TABLE games; --")
