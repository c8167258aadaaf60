"""The Explorer page on the San Juan sample games: node counts and wins checked against the logs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from dashboards.stats import wilson

SAMPLE = Path(__file__).resolve().parents[2] / "sample_logs"


def first_moves(game: str, players: int) -> list[tuple[list[dict], list[int]]]:
    """(moves, winners) of each sample game of a type and player count, read from the logs."""
    out = []
    for file in sorted((SAMPLE / game).glob(f"*-{players}p-*.json")):
        log = json.loads(file.read_text())
        out.append((log["moves"], log["result"]["winners"]))
    return out


def token(move: dict) -> str:
    if move["kind"] == "role":
        return move["role"].capitalize()
    return f"{move['kind']} {move['building']}" if move["kind"] == "build" else move["kind"]


def records(at) -> list[dict]:
    return at.dataframe[0].value.to_dict("records")


def test_root_node_counts_and_wins_match_the_logs(dash_db: Path, open_page) -> None:
    at = open_page(dash_db, "views/explorer.py", type="san_juan", players="3")
    games = first_moves("san_juan", 3)
    firsts = Counter(token(moves[0]) for moves, _ in games)
    wins = Counter(token(moves[0]) for moves, winners in games if 0 in winners)
    assert at.metric[0].value == "10"
    assert at.metric[1].label == "Baseline (chance)" and at.metric[1].value == "33.3%"
    table = records(at)
    assert [(r["decision"], r["seats"], r["games"], r["wins"]) for r in table] == [
        (t, "0", n, wins[t]) for t, n in firsts.most_common()
    ]
    # The sample's heuristic bots always open with the builder; the governor won 3 of the 10.
    assert [(r["decision"], r["games"], r["wins"]) for r in table] == [("Builder", 10, 3)]
    row = table[0]
    low, high = wilson(3, 10)
    assert (row["win_rate"], row["share"]) == (30.0, 100.0)
    assert abs(row["baseline"] - 100 / 3) < 1e-9 and abs(row["lift"] - (30 - 100 / 3)) < 1e-9
    assert row["ci"] == f"{low:.1%}-{high:.1%}".replace("%-", "-") == "10.8-60.3%"
    assert row["few_games"]


def test_selecting_a_row_goes_deeper_and_back(dash_db: Path, open_page) -> None:
    at = open_page(dash_db, "views/explorer.py", type="san_juan", players="3")
    at.session_state["explorer_moves_0"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert not at.exception
    assert at.query_params["path"] in ("Builder", ["Builder"])
    games = first_moves("san_juan", 3)
    seconds = Counter(token(moves[1]) for moves, _ in games)
    wins = Counter(token(moves[1]) for moves, winners in games if 0 in winners)
    table = records(at)
    assert sorted((r["decision"], r["games"], r["wins"]) for r in table) == sorted(
        (t, n, wins[t]) for t, n in seconds.items()
    )
    assert table[0]["decision"] == "build Tobacco storage" and (table[0]["games"], table[0]["wins"]) == (3, 1)
    assert {r["seats"] for r in table} == {"0"}  # the builder builds first
    assert [(m.label, m.value) for m in at.metric] == [
        ("Games here", "10"), ("Baseline (chance)", "33.3%"), ("Win rate of seat 0", "30.0%"), ("95% interval", "10.8-60.3%"),
    ]
    assert at.metric[2].delta == "-3.3 pts vs chance"
    assert [c.value for c in at.caption if c.value.startswith("Few games")] == ["Few games (fewer than 30): the rate says little."]
    assert "1. Builder" in at.get("html")[0].proto.body
    at.button(key="explorer_back").click().run()
    assert not at.exception
    assert "path" not in at.query_params
    assert [r["decision"] for r in records(at)] == ["Builder"]


def test_deep_link_and_example_games(dash_db: Path, open_page, sql) -> None:
    at = open_page(dash_db, "views/explorer.py", type="san_juan", players="2,4", path="Builder,build Prefecture")
    games = first_moves("san_juan", 2) + first_moves("san_juan", 4)
    here = [(m, w) for m, w in games if [token(x) for x in m[:2]] == ["Builder", "build Prefecture"]]
    assert at.metric[0].value == str(len(here)) == "5"
    won = sum(0 in w for _, w in here)
    assert at.metric[2].value == f"{won / len(here):.1%}" == "60.0%"
    assert at.metric[1].value == f"{(3 * 0.5 + 2 * 0.25) / 5:.1%}"  # three 2p games, two 4p games
    examples = at.dataframe[1].value
    assert len(examples) == 5 and set(examples["step"]) == {2}
    assert set(examples["player_count"]) == {2, 4}
    first = examples.iloc[0]
    assert first["open"] == f"replay?game={first['game_id']}&step=2"
    ids = {r[0] for r in sql(dash_db, "SELECT game_id FROM openings WHERE decisions[1:2] = ['Builder', 'build Prefecture'] "
                              "AND player_count IN (2, 4)")}
    assert set(examples["game_id"]) == ids


def test_unknown_path_falls_back_to_the_start(dash_db: Path, open_page) -> None:
    at = open_page(dash_db, "views/explorer.py", type="san_juan", path="Builder,build Nothing")
    assert [w.value for w in at.warning] == ["No game of this selection goes through this path; back to the start."]
    assert at.metric[0].value == "30"
    assert "path" not in at.query_params


def test_puerto_rico_tree_has_settler_and_builder_decisions(mixed_db: Path, open_page, sql) -> None:
    at = open_page(mixed_db, "views/explorer.py", type="puerto_rico")
    (games,) = sql(mixed_db, "SELECT count(*) FROM games WHERE game = 'puerto_rico'")[0]
    assert at.metric[0].value == str(games)
    first = {r["decision"]: r["games"] for r in records(at)}
    expected = dict(sql(mixed_db, "SELECT decisions[1], count(*) FROM openings WHERE game = 'puerto_rico' GROUP BY 1"))
    assert first == expected and sum(first.values()) == games
    tokens = {t for (t,) in sql(mixed_db, "SELECT DISTINCT unnest(decisions) FROM openings WHERE game = 'puerto_rico'")}
    assert {"Settler", "Builder"} <= tokens
    assert any(t.startswith("settle ") for t in tokens) and any(t.startswith("build ") for t in tokens)


def test_a_new_game_resets_the_player_counts_to_its_own(mixed_db: Path, open_page, sql) -> None:
    # Switching from San Juan (2-4 players) to Puerto Rico (3-5) used to keep players=2,3,4 in the URL
    # and count only the 3- and 4-player games.
    at = open_page(mixed_db, "views/explorer.py", type="san_juan", players="2,3,4", path="Builder")
    assert at.multiselect(key="explorer_counts").value == [2, 3, 4]
    at.selectbox(key="explorer_type").set_value("puerto_rico").run()
    assert not at.exception
    assert at.multiselect(key="explorer_counts").value == [3, 4, 5]
    assert dict(at.query_params) == {"type": "puerto_rico"}
    (games,) = sql(mixed_db, "SELECT count(*) FROM games WHERE game = 'puerto_rico'")[0]
    assert games == 30 and at.metric[0].value == "30"


def test_player_counts_in_the_url_that_do_not_fit_the_game_give_its_defaults(mixed_db: Path, open_page) -> None:
    at = open_page(mixed_db, "views/explorer.py", type="puerto_rico", players="2,3,4")
    assert at.multiselect(key="explorer_counts").value == [3, 4, 5]
    assert "players" not in at.query_params and at.metric[0].value == "30"
    # Counts that fit are kept; choosing them all leaves no parameter.
    at = open_page(mixed_db, "views/explorer.py", type="puerto_rico", players="5")
    assert at.multiselect(key="explorer_counts").value == [5] and at.metric[0].value == "10"
    at.multiselect(key="explorer_counts").set_value([3, 4, 5]).run()
    assert dict(at.query_params) == {"type": "puerto_rico"}
    at.multiselect(key="explorer_counts").set_value([4, 5]).run()
    assert at.query_params["players"] == "4,5" and at.metric[0].value == "20"
