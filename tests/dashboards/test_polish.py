"""Small things a reader notices: role cards in words on the Players page ("Prospector (2nd)", never
``prospector_2``), whole headers and no empty Date column in the Games table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dashboards.stats import ordinal, role_words


@pytest.mark.parametrize(("card", "words"), [("builder", "Builder"), ("prospector_2", "Prospector (2nd)"),
                                             ("prospector", "Prospector"), ("craftsman_3", "Craftsman (3rd)"),
                                             ("trade_ship_11", "Trade ship (11th)")])
def test_role_cards_in_words(card: str, words: str) -> None:
    assert role_words(card) == words
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"]


def test_players_show_the_second_prospector_in_words(mixed_db: Path, open_page, sql) -> None:
    found = sql(mixed_db, "SELECT name, count(*) FROM player_roles WHERE game = 'puerto_rico' AND role = 'prospector_2' "
                          "GROUP BY name ORDER BY 2 DESC, name LIMIT 1")
    assert found, "the 5-player Puerto Rico samples choose the second prospector"
    name, times = found[0]
    at = open_page(mixed_db, "views/players.py", type="puerto_rico", name=name)
    roles = next(d.value for d in at.dataframe if "role" in d.value.columns)
    assert dict(zip(roles["role"], roles["choices"]))["Prospector (2nd)"] == times
    assert not any("_" in r for r in roles["role"])


def games_table(at):
    return next(d for d in at.dataframe if "game_id" in d.value.columns)


def test_games_headers_are_whole_and_no_date_column_without_dates(dash_db: Path, dated_db: Path, open_page) -> None:
    at = open_page(dash_db, "views/games.py")
    table = games_table(at)
    assert "played_at" not in list(table.proto.column_order)  # no game of the sample has a date
    columns = json.loads(table.proto.columns)
    # About 7.5 px a character of the header plus the sort mark: "small" (75 px) cut them.
    for column in ("top_score", "moves", "rounds", "player_count"):
        label = columns[column]["label"]
        assert columns[column]["width"] >= 7.5 * len(label) + 16, (label, columns[column]["width"])
    at = open_page(dated_db, "views/games.py")
    assert "played_at" in list(games_table(at).proto.column_order)


def test_the_theme_choice_is_kept_across_pages(dash_db: Path, open_page) -> None:
    at = open_page(dash_db, "views/statistics.py")
    switch = at.radio(key="gv_theme")
    assert switch.value == "system" and switch.options == ["Follow the system", "Light", "Dark"]
    switch.set_value("dark").run()
    at.switch_page("views/players.py").run()
    assert at.radio(key="gv_theme").value == "dark"
    scripts = [e.proto.body for e in at.get("html") if "stActiveTheme" in e.proto.body]
    assert len(scripts) == 1 and 'const choice = "dark", stored = "Dark"' in scripts[0]
