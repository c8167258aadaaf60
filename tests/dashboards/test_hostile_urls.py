"""Every URL parameter of every page is hostile until checked: a number of 400 digits, a value of
thousands of characters, a negative number or text where a number belongs gives the page's default
(a number is clamped to its range), never an error box, a traceback or a server path."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboards import launch, url_state
from dashboards.stats import FEW_GAMES, MAX_MIN_N

#: Every parameter each page reads from its URL.
PAGE_PARAMS = {
    "views/games.py": ["q", "types", "counts", "player", "winner", "building", "owner", "end", "compare", "ids",
                       "rounds", "score", "dates"],
    "views/statistics.py": ["game", "counts", "player", "ties", "min_n", "rank", "split", "tab", "dates", "k", "round"],
    "views/explorer.py": ["type", "players", "path"],
    "views/players.py": ["type", "name", "min_games"],
    "views/sql.py": ["q"],
    "views/import_logs.py": ["q"],
}


def hostile_values() -> dict[str, str]:
    """Values built at run time: huge numbers both ways, a long text, numbers Python's float reads as
    infinite or not a number, and markup with a control character."""
    return {
        "nines": "9" * 400,
        "minus_nines": "-" + "9" * 400,
        "long": "x" * 5000 + ",2,3",
        "odd_numbers": "1e999,nan,inf,-1,,0x10",
        "markup": "<b>x</b>\x00[a](https://example.com),2024-13-45",
    }


@pytest.mark.parametrize("value_name", list(hostile_values()))
@pytest.mark.parametrize("page", list(PAGE_PARAMS))
def test_hostile_url_parameters_give_defaults_not_errors(dash_db: Path, open_page, page: str, value_name: str) -> None:
    value = hostile_values()[value_name]
    at = open_page(dash_db, page, **{name: value for name in PAGE_PARAMS[page]})  # asserts no exception
    assert not at.error, [e.value for e in at.error]
    shown = " ".join(str(getattr(e, "value", "")) for e in at.main)
    assert "Traceback" not in shown and "OverflowError" not in shown and str(Path(url_state.__file__).parent) not in shown


@pytest.mark.parametrize(("raw", "expected"), [("9" * 400, MAX_MIN_N), ("-" + "9" * 400, 0), ("-7", 0),
                                               ("50", 50), ("1e3", FEW_GAMES), ("", FEW_GAMES)])
def test_statistics_min_n_from_the_url_is_clamped(dash_db: Path, open_page, raw: str, expected: int) -> None:
    at = open_page(dash_db, "views/statistics.py", min_n=raw)
    assert at.number_input(key="stats_min_n").value == expected
    assert not at.error


def test_whole_numbers_are_clamped_and_anything_else_refused() -> None:
    parse = url_state.int_in(0, 10)
    assert parse("7") == 7 and parse(" 12 ") == 10 and parse("-3") == 0 and parse("9" * 5000) == 10
    for bad in ("1e3", "nan", "", "٣", "0x1"):
        with pytest.raises(ValueError, match="not a whole number"):
            parse(bad)


def test_the_launched_server_shows_no_error_details() -> None:
    command = launch.streamlit_command("/tmp/x.duckdb", 8501, True)
    assert command[command.index("--client.showErrorDetails") + 1] == "none"

