"""Luck and skill on the Players page: each player's sums over the games whose luck is stored, in the
leaderboard and beside one player's results in those games, with exact numbers on a small database;
a database made before the table ``luck`` shows the page without them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

#: Two 2-player games' luck by hand: (luck, skill) of seat 0 at each of two moves (seat 1 the opposite).
MOVES = [[(0.5, -0.25), (0.35, 0.05)], [(-0.125, 0.5), (0.1, 0.3)]]


@pytest.fixture
def luck_db(dash_db_copy: Path, sql: Callable) -> tuple[Path, list[str], list[bool]]:
    """The San Juan sample with the luck of two 2-player games stored (``MOVES``): the database, the
    two games' seat-0 players and whether each won."""
    games = sql(dash_db_copy, "SELECT g.game_id, p.name, p.won FROM games g JOIN players p USING (game_id) "
                              "WHERE g.player_count = 2 AND p.seat = 0 ORDER BY g.game_id LIMIT 2")
    with duckdb.connect(str(dash_db_copy)) as con:
        for (game_id, _, _), moves in zip(games, MOVES, strict=True):
            for step, (luck, skill) in enumerate(moves, start=1):
                con.execute("INSERT INTO luck VALUES (?, ?, 0, ?, ?), (?, ?, 1, ?, ?)",
                            [game_id, step, luck, skill, game_id, step, -luck, -skill])
    return dash_db_copy, [g[1] for g in games], [g[2] for g in games]


def test_the_leaderboard_and_a_players_results_beside_its_luck(luck_db: tuple, open_page: Callable, sql: Callable) -> None:
    db, names, won = luck_db
    assert set(names) == {"Ana"}  # both games: Ana in seat 0, Bruno in seat 1
    at = open_page(db, "views/players.py", type="san_juan")
    board = at.dataframe[0].value
    assert list(board.columns[:9]) == ["place", "name", "bot", "games", "wins", "win_rate", "luck_games", "luck", "skill"]
    rows = {name[1:-1]: row for name, row in zip(board["name"], board.to_dict("records"), strict=True)}
    assert rows["Ana"]["luck_games"] == 2 and rows["Bruno"]["luck_games"] == 2
    assert rows["Ana"]["luck"] == pytest.approx(0.825) and rows["Ana"]["skill"] == pytest.approx(0.6)
    assert rows["Bruno"]["luck"] == pytest.approx(-0.825) and rows["Bruno"]["skill"] == pytest.approx(-0.6)
    # A player of no game with luck has none (not 0).
    others = [row for name, row in rows.items() if name not in ("Ana", "Bruno")]
    assert others and all(row["luck_games"] != row["luck_games"] for row in others)  # NaN

    played = sql(db, "SELECT count(*) FROM players p JOIN games g USING (game_id) "
                     "WHERE g.game = 'san_juan' AND p.name = 'Ana'")[0][0]
    ana = open_page(db, "views/players.py", type="san_juan", name="Ana")
    lines = [h.value for h in ana.html if 'class="gv-text gv-luck"' in h.value]
    assert lines == [f'<div class="gv-text gv-luck">won {sum(won)} of 2; luck +0.8 games; skill +0.6 games '
                     f"(luck known for 2 of its {played} games)</div>"]


def test_a_database_made_before_the_luck_table(dash_db_copy: Path, open_page: Callable) -> None:
    with duckdb.connect(str(dash_db_copy)) as con:
        con.execute("DROP TABLE luck")
    older = open_page(dash_db_copy, "views/players.py", type="san_juan", name="Ana")
    assert "luck" not in older.dataframe[0].value.columns
    assert not [h for h in older.html if "gv-luck" in h.value]


def test_the_numbers_of_games_in_words() -> None:
    from dashboards.player_queries import luck_words

    assert luck_words({"games": 20, "wins": 12, "luck": 1.84, "skill": -0.04}, 31) == (
        "won 12 of 20; luck +1.8 games; skill 0.0 games (luck known for 20 of its 31 games)")
    assert luck_words({"games": 0, "wins": 0, "luck": None, "skill": None}, 31) is None
