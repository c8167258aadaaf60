"""Filters kept per page across page switches and Back (``dashboards.url_state``), run with AppTest."""

from __future__ import annotations

from pathlib import Path

from dashboards import launch


def test_back_with_the_page_lefts_query_string_brings_the_filters_back(dash_db: Path, monkeypatch) -> None:
    """Back pressed while the page left was writing its URL reruns the page gone back to with the page
    left's query string: the filters that page had come back, not the other page's."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("GOVERNOR_DB", str(dash_db))
    at = AppTest.from_file(str(Path(launch.APP)), default_timeout=60)
    at.query_params["q"] = "Ana"
    at.run()
    assert at.text_input(key="games_search").value == "Ana"

    def query() -> dict[str, str]:
        return {k: at.query_params[k] for k in at.query_params}

    at.query_params.clear()
    at.switch_page("views/statistics.py")
    at.run()
    left = query()
    assert left and "q" not in left  # the Statistics page wrote its own filters
    at.switch_page("views/games.py")  # with the Statistics page's query string still in the URL
    at.run()
    assert not at.exception
    assert at.text_input(key="games_search").value == "Ana"
    assert query() == {"q": "Ana"}
    # A query string of the page's own (a link typed or shared) is read as it is.
    at.query_params.clear()
    at.switch_page("views/statistics.py")
    at.run()
    at.query_params.clear()
    at.query_params["q"] = "Bruno"
    at.switch_page("views/games.py")
    at.run()
    assert at.text_input(key="games_search").value == "Bruno"
