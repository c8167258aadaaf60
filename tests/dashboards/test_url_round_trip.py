"""Every page's filters survive a visit to another page: they live in the URL and, since a visit
through the sidebar comes with an empty query string, in the session too (AppTest; the browser
round trip is in test_browser_round_trip.py). The SQL page keeps its query in the URL and says
when a query was stopped by leaving the page."""

from __future__ import annotations

import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

from .conftest import alerts


def sidebar_round_trip(at: AppTest, page: str) -> AppTest:
    """Leave for another page and come back as the sidebar does: with no query string."""
    at.switch_page("views/import_logs.py").run()
    at.query_params.clear()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_statistics_filters_and_tab_come_back(dash_db: Path, open_page) -> None:
    at = open_page(dash_db, "views/statistics.py", counts="3,4", min_n="50", tab="VP curves", ties="share")
    at = sidebar_round_trip(at, "views/statistics.py")
    assert at.multiselect(key="stats_counts").value == [3, 4]
    assert at.number_input(key="stats_min_n").value == 50
    assert at.radio(key="stats_ties").value == "share"
    assert dict(at.query_params) == {"game": "san_juan", "counts": "3,4", "min_n": "50", "ties": "share",
                                     "tab": "VP curves"}


def test_statistics_sliders_are_in_the_url_whichever_tab_is_open(dash_db: Path, open_page) -> None:
    at = open_page(dash_db, "views/statistics.py", k="3", round="2")
    assert at.slider(key="stats_round_k").value == 3 and at.slider(key="stats_role_round").value == 2
    at.slider(key="stats_round_k").set_value(4).run()
    assert at.query_params["k"] == "4" and at.query_params["round"] == "2"
    at = sidebar_round_trip(at, "views/statistics.py")
    assert at.slider(key="stats_round_k").value == 4 and at.slider(key="stats_role_round").value == 2
    at = open_page(dash_db, "views/statistics.py", k="9" * 400)
    assert at.slider(key="stats_round_k").value == at.slider(key="stats_round_k").max


def test_games_search_comes_back(dash_db: Path, open_page) -> None:
    at = open_page(dash_db, "views/import_logs.py")
    at.query_params.update({"q": "Ana", "counts": "3"})
    at.switch_page("views/games.py").run()  # (AppTest drops the query string on a switch to the page it shows)
    assert at.text_input(key="games_search").value == "Ana"
    at = sidebar_round_trip(at, "views/games.py")
    assert at.text_input(key="games_search").value == "Ana"
    assert at.multiselect(key="games_counts").value == [3]
    assert dict(at.query_params) == {"q": "Ana", "counts": "3"}


def test_explorer_and_players_come_back(dash_db: Path, open_page, sql) -> None:
    at = open_page(dash_db, "views/explorer.py", players="3", path="Builder")
    at = sidebar_round_trip(at, "views/explorer.py")
    assert at.multiselect(key="explorer_counts").value == [3]
    assert at.query_params["path"] == "Builder"
    (name,) = sql(dash_db, "SELECT name FROM players GROUP BY name ORDER BY count(*) DESC, name LIMIT 1")[0]
    at = open_page(dash_db, "views/players.py", name=name, min_games="3")
    at = sidebar_round_trip(at, "views/players.py")
    assert at.selectbox(key="players_name").value == (name, False)
    assert at.number_input(key="players_min_games").value == 3


def test_the_sql_query_is_in_the_url_and_comes_back(dash_db: Path, open_page) -> None:
    at = open_page(dash_db, "views/sql.py", q="SELECT 6 * 7 AS answer")
    assert at.text_area(key="sql_text").value == "SELECT 6 * 7 AS answer"
    at.text_area(key="sql_text").set_value("SELECT 2 AS two")
    at.button(key="sql_run").click().run()
    assert at.query_params["q"] == "SELECT 2 AS two"
    assert "1 row in" in at.caption[1].value
    at = sidebar_round_trip(at, "views/sql.py")
    assert at.text_area(key="sql_text").value == "SELECT 2 AS two" and at.query_params["q"] == "SELECT 2 AS two"


def test_a_query_stopped_by_leaving_the_page_says_so(dash_db: Path, open_page) -> None:
    at = open_page(dash_db, "views/sql.py")
    # What a run stopped by a page switch leaves behind: the query marked as running, no outcome.
    at.session_state["sql_pending"] = {"sql": "SELECT 1 AS slow", "at": time.time() - 3}
    at.run()
    (message,) = alerts(at, "error")
    assert message == ("The query was stopped after about 3 s because the page was left (or used) while it ran; run "
                       "it again to see its result.")
    assert at.selectbox(key="sql_history_pick").label == "History (1)"
    at.run()
    assert len(alerts(at, "error")) == 1 and at.selectbox(key="sql_history_pick").label == "History (1)"
