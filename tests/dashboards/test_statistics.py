"""The Statistics page: filters that never drop data silently, rates against their baselines, what each
n counts, the two ways of counting full ties, filters in the URL (AppTest on the sample databases)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from dashboards.stats import arrow, points_vs_chance, ranked, rate_label

PAGE = "views/statistics.py"


def chart(at, key: str) -> dict:
    """The plotly figure of the chart with this key, as its JSON spec."""
    for element in at.get("plotly_chart"):
        spec = json.loads(element.proto.spec)
        if element.proto.id and key in element.proto.id:
            return spec
    raise AssertionError(f"no chart {key}")


def values(data) -> list:
    """A plotly array from a figure's JSON: a plain list, or numpy's binary form."""
    if isinstance(data, dict) and "bdata" in data:
        import base64

        import numpy as np

        return np.frombuffer(base64.b64decode(data["bdata"]), dtype=data["dtype"]).tolist()
    return list(data)


def column_labels(frame_element) -> dict[str, str]:
    return {name: c.get("label", name) for name, c in json.loads(frame_element.proto.columns).items()}


def table_with(at, label: str):
    """The first dataframe element whose column labels include ``label``."""
    for element in at.dataframe:
        if label in column_labels(element).values():
            return element
    raise AssertionError(f"no table with a column {label!r}")


def test_changing_the_game_keeps_every_player_count(mixed_db: Path, open_page, sql) -> None:
    counts = dict(sql(mixed_db, "SELECT game, count(*) FROM games GROUP BY game"))
    at = open_page(mixed_db, PAGE, game="san_juan")
    assert at.metric[0].value == f"{counts['san_juan']:,}"
    at.selectbox(key="stats_game").set_value("puerto_rico").run()
    assert not at.exception
    assert at.multiselect(key="stats_counts").value == [3, 4, 5]
    assert at.metric[0].value == f"{counts['puerto_rico']:,}"
    at.selectbox(key="stats_game").set_value("san_juan").run()
    assert at.multiselect(key="stats_counts").value == [2, 3, 4]
    assert at.metric[0].value == f"{counts['san_juan']:,}"
    assert any("player counts 2, 3, 4 of 2, 3, 4" in c.value for c in at.caption)


def test_seats_are_numbered_from_zero_as_in_sql(dash_db: Path, open_page, sql) -> None:
    at = open_page(dash_db, PAGE)
    seats = table_with(at, "games (n)").value
    expected = sql(dash_db, "SELECT g.player_count, p.seat, count(*), sum(p.won::INT) FROM players p JOIN games g "
                            "USING (game_id) GROUP BY ALL ORDER BY 1, 2")
    assert [(int(c), s, n, int(w)) for c, s, n, w in zip(seats["player_count"], seats["seat"], seats["n"], seats["wins"])] \
        == [(c, s, n, w) for c, s, n, w in expected]
    assert list(seats["label"][:3]) == ["2p seat 0 (first)", "2p seat 1 (last)", "3p seat 0 (first)"]
    assert chart(at, "stats_seat_chart")["data"][0]["y"][0] == "2p seat 0 (first)"


def test_full_ties_count_for_each_tied_player_or_as_a_share(dated_db: Path, open_page, sql) -> None:
    at = open_page(dated_db, PAGE)
    seats = table_with(at, "games (n)").value
    two = seats[seats["player_count"] == 2]
    assert two["wins"].sum() == 11  # 10 games, one of them a full tie of both seats
    assert any("2p 110.0%" in c.value and "Above 100%" in c.value for c in at.caption)
    # The baseline of a 2-player seat: 11 wins over 20 players.
    assert two["baseline"].round(6).tolist() == [55.0, 55.0]  # percent
    at.radio(key="stats_ties").set_value("share").run()
    seats = table_with(at, "games (n)").value
    two = seats[seats["player_count"] == 2]
    assert two["wins"].sum() == 10
    assert sorted(two["wins"] % 1) == [0.5, 0.5]  # each tied seat has half a win
    assert two["baseline"].round(6).tolist() == [50.0, 50.0]
    assert (seats["baseline"].round(6) == (100 / seats["player_count"]).round(6)).all()
    assert ((seats["lift"] - seats["win_rate"] / seats["baseline"]).abs() < 1e-9).all()
    assert any("2p 100.0%" in c.value for c in at.caption)
    assert at.query_params["ties"] == "share"


def test_building_rates_have_baselines_and_rank_by_the_interval(dash_db: Path, open_page, sql) -> None:
    at = open_page(dash_db, PAGE)
    owned = table_with(at, "owners (n)").value
    truth = sql(dash_db, """
        WITH p0 AS (SELECT g.player_count, avg(p.won::INT) AS p0 FROM players p JOIN games g USING (game_id) GROUP BY 1)
        SELECT b, count(*), sum(won::INT), sum(p0) FROM (SELECT g.player_count, p.won, unnest(list_distinct(p.final_buildings)) AS b
        FROM players p JOIN games g USING (game_id)) JOIN p0 USING (player_count) GROUP BY b ORDER BY b""")
    assert [(b, n, int(w)) for b, n, w in zip(owned["building"], owned["n"], owned["wins"])] == [(b, n, w) for b, n, w, _ in truth]
    assert max(abs(x / 100 - e / n) for x, (_, n, _, e) in zip(owned["baseline"], truth)) < 1e-9
    # The chart: only rows with n >= 30, best lower interval end first; a building owned by few at a
    # high rate does not top it.
    bars = chart(at, "stats_building_chart")["data"][0]
    best, dropped = ranked(owned, 30, "lift_low")
    assert bars["y"] == list(best["building"]) and dropped == int((owned["n"] < 30).sum()) > 0
    assert all(n >= 30 for n in owned.set_index("building").loc[bars["y"], "n"])
    assert any(f"{dropped} rows with n < 30 left out" in c.value for c in at.caption)
    at.number_input(key="stats_min_n").set_value(0).run()
    at.radio(key="stats_rank").set_value("lift").run()
    bars = chart(at, "stats_building_chart")["data"][0]
    assert bars["y"] == list(owned.sort_values(["lift", "n"], ascending=False)["building"])
    assert at.query_params["min_n"] == "0" and at.query_params["rank"] == "lift"


def test_rates_split_by_player_count(dash_db: Path, open_page, sql) -> None:
    at = open_page(dash_db, PAGE, split="1")
    owned = table_with(at, "owners (n)").value
    truth = sql(dash_db, "SELECT g.player_count, b, count(*) FROM (SELECT game_id, unnest(list_distinct(final_buildings)) "
                         "AS b FROM players) JOIN games g USING (game_id) GROUP BY ALL ORDER BY 1, 2")
    assert [(int(c), b, n) for c, b, n in zip(owned["player_count"], owned["building"], owned["n"])] == truth
    assert ((owned["baseline"] - owned["player_count"].map({2: 50, 3: 100 / 3, 4: 25})).abs() < 1e-9).all()
    assert {t["name"] for t in chart(at, "stats_building_chart")["data"] if t["type"] == "bar"} <= {
        "2 players", "3 players", "4 players"}


def test_role_table_counts_choices_and_says_so(dash_db: Path, open_page, sql) -> None:
    at = open_page(dash_db, PAGE)
    roles = table_with(at, "choices (n)")
    truth = sql(dash_db, "SELECT json_extract_string(details, '$.role') AS r, count(*), count(DISTINCT game_id) "
                         "FROM moves WHERE kind = 'role' AND round = 1 GROUP BY 1 ORDER BY 1")
    assert [(r, n) for r, n in zip(roles.value["role"], roles.value["n"])] == [(r, n) for r, n, _ in truth]
    assert all(n == games for _, n, games in truth)  # a role is chosen at most once a round
    assert "one player in one game each" in json.loads(roles.proto.columns)["n"]["help"]


def test_filters_are_in_the_url(dated_db: Path, open_page, sql) -> None:
    at = open_page(dated_db, PAGE, game="san_juan", counts="2,3", player="Ana", ties="share", min_n="5",
                   dates="2024-01-02,2024-01-20", tab="Scores and length")
    assert at.multiselect(key="stats_counts").value == [2, 3]
    assert at.selectbox(key="stats_player").value == "Ana"
    assert at.radio(key="stats_ties").value == "share"
    assert at.number_input(key="stats_min_n").value == 5
    (games,) = sql(dated_db, "SELECT count(*) FROM games WHERE player_count IN (2, 3) AND list_contains(players, 'Ana') "
                             "AND played_at BETWEEN '2024-01-02' AND '2024-01-20'")[0]
    assert at.metric[0].value == str(games)
    assert chart(at, "stats_rounds")  # the tab from the URL is open
    at.multiselect(key="stats_counts").set_value([3]).run()
    assert at.query_params["counts"] == "3" and at.query_params["player"] == "Ana"
    assert at.query_params["dates"] == "2024-01-02,2024-01-20"
    # Values that make no sense are ignored, not obeyed and not fatal.
    at = open_page(dated_db, PAGE, game="chess", counts="9", min_n="many")
    assert at.selectbox(key="stats_game").value == "san_juan"
    assert at.multiselect(key="stats_counts").value == [2, 3, 4]
    assert at.number_input(key="stats_min_n").value == 30


def test_any_player_name_can_be_chosen(dash_db: Path, open_page, sql, monkeypatch: pytest.MonkeyPatch) -> None:
    from dashboards import stats_queries

    monkeypatch.setattr(stats_queries, "player_names", lambda game, limit=2000: ["Bruno"])  # a short suggestion list
    at = open_page(dash_db, PAGE, player="Diego")  # as typed into the box (AppTest cannot type a new option)
    assert at.selectbox(key="stats_player").options == ["Diego", "Bruno"]
    wins, n = sql(dash_db, "SELECT sum(won::INT), count(*) FROM players WHERE name = 'Diego'")[0]
    assert at.metric[0].value == str(n)
    assert at.metric[4].value == f"{wins / n:.1%}"
    at = open_page(dash_db, PAGE, player="Nobody")
    assert any("No San Juan game has a player of that exact name" in i.value for i in at.info)
    assert [t.value for t in at.text] == ["Nobody"]


def test_the_players_win_figure_is_whole_and_plain_text(dash_db: Path, open_page, sql) -> None:
    at = open_page(dash_db, PAGE, player="Ana")
    wins, n = sql(dash_db, "SELECT sum(won::INT), count(*) FROM players WHERE name = 'Ana'")[0]
    p0 = sql(dash_db, "SELECT sum(p0) FROM players p JOIN games g USING (game_id) JOIN (SELECT g.player_count, "
                      "avg(p.won::INT) AS p0 FROM players p JOIN games g USING (game_id) GROUP BY 1) USING (player_count) "
                      "WHERE p.name = 'Ana'")[0][0]
    assert at.metric[4].label == "The player's win rate" and at.metric[4].value == f"{wins / n:.1%}"
    assert at.metric[4].delta == f"lift {wins / n / (p0 / n):.2f}"
    assert [t.value for t in at.text] == [f"\u2068Ana\u2069: {rate_label(wins, n, p0 / n)}"]  # the name isolated


def test_one_game_is_one_game(dated_db: Path, open_page) -> None:
    at = open_page(dated_db, PAGE, dates="2024-01-05,2024-01-05")
    assert at.metric[0].value == "1"
    assert [w.value for w in at.warning] == ["Only 1 game matches: every rate below rests on few games (n < 30)."]
    at = open_page(dated_db, PAGE, dates="2024-01-05,2024-01-06")
    assert at.warning[0].value.startswith("Only 2 games match:")


def test_length_charts_put_groups_side_by_side(dash_db: Path, open_page, sql) -> None:
    at = open_page(dash_db, PAGE, tab="Scores and length")
    rounds = chart(at, "stats_rounds")
    assert rounds["layout"]["barmode"] == "group"
    truth = sql(dash_db, "SELECT player_count, rounds, count(*) FROM games GROUP BY ALL ORDER BY 1, 2")
    got = [(int(t["name"].split()[0]), x, y) for t in rounds["data"] for x, y in zip(values(t["x"]), values(t["y"]))]
    assert got == truth
    assert chart(at, "stats_moves")["layout"]["barmode"] == "group"
    assert chart(at, "stats_scores")["layout"]["barmode"] == "group"
    summary = at.dataframe[0].value
    assert isinstance(summary, pd.DataFrame) and summary["players"].sum() == 90


def test_a_database_without_summary_tables_gives_the_same_rates(dash_db: Path, tmp_path: Path, open_page) -> None:
    import shutil

    import duckdb

    old = tmp_path / "old.duckdb"
    shutil.copy(dash_db, old)
    with duckdb.connect(str(old)) as con:
        con.execute("DROP TABLE player_builds")
        con.execute("DROP TABLE player_roles")
        con.execute("DROP TABLE player_owned")
    for ties in ("full", "share"):
        for db in (dash_db, old):
            at = open_page(db, PAGE, ties=ties, split="1")
            tables = [table_with(at, label).value for label in ("owners (n)", "builders (n)", "choices (n)")]
            if db == dash_db:
                expected = tables
                assert [len(t) >= 5 for t in tables] == [True, True, True]
            else:
                for got, want in zip(tables, expected):
                    pd.testing.assert_frame_equal(got.reset_index(drop=True), want.reset_index(drop=True))


def test_an_arrow_says_above_or_below_chance_and_none_at_chance() -> None:
    """Streamlit draws a delta's arrow from the text's sign: "+0.0 pts vs chance" and "lift 0.00" got an
    up arrow. The arrow now follows the figure shown against chance."""
    assert [arrow(d) for d in (0.2, 0.0, -0.0, -1.0)] == ["up", "off", "off", "down"]
    assert points_vs_chance(0.5, 0.5) == ("+0.0 pts vs chance", "off")
    assert points_vs_chance(1 / 3 - 1e-9, 1 / 3) == ("+0.0 pts vs chance", "off")  # never "-0.0"
    assert points_vs_chance(0.3, 1 / 3) == ("-3.3 pts vs chance", "down")
    assert points_vs_chance(0.5, 1 / 3) == ("+16.7 pts vs chance", "up")


def test_a_player_who_never_won_has_a_lift_arrow_pointing_down(rating_db: Path, open_page) -> None:
    from streamlit.proto.Metric_pb2 import Metric as MetricProto

    at = open_page(rating_db, PAGE, player="Ana")  # two games, no win
    (metric,) = [m for m in at.metric if m.label == "The player's win rate"]
    assert (metric.value, metric.delta) == ("0.0%", "lift 0.00")
    assert metric.proto.direction == MetricProto.MetricDirection.DOWN


def test_an_agent_is_chosen_by_its_player_name(bots_db: Path, open_page, sql) -> None:
    # governor arena's agent is stored as heuristic v1 (its seats' names in the log: heuristic, heuristic#2).
    at = open_page(bots_db, PAGE, player="heuristic v1")
    assert not [i for i in at.info if "has a player of that exact name" in i.value]
    wins, seats = sql(bots_db, "SELECT sum(won::INT), count(*) FROM players WHERE name = 'heuristic v1'")[0]
    assert (at.metric[0].value, seats) == ("3", 6)
    assert at.metric[4].value == f"{wins / seats:.1%}"
