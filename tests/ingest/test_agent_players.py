"""Agents as players: a seat the log's ``meta.agents`` says an agent played is stored under one identity
per agent name and version, marked as a bot (``players.bot``, schema 9), whichever copy of the agent
held it (``heuristic``, ``heuristic#2``); a player holding several seats of a game is rated once at the
mean of their ranks; undated games are rated in the order of their source ids, a trailing number
compared as a number, never by game id; a version-8 file is migrated; a lake's older files, without
``bot``, still read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq
import pytest
from openskill.models import PlackettLuce

from ingest.importer import import_paths
from ingest.ratings import RatedGame, Seat, rate_games
from ingest.rows import agent_identity, seat_players
from ingest.schema import SCHEMA_VERSION

SAN_JUAN = Path(__file__).resolve().parents[2] / "sample_logs" / "san_juan"


def rows(db: Path, sql: str, params: list[Any] | None = None) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql, params).fetchall()


def three_player_logs() -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(SAN_JUAN.glob("san_juan-3p-*.json"))]


def arena_log(log: dict[str, Any], names: list[str], versions: list[str], source_id: str) -> dict[str, Any]:
    """``log`` as ``governor arena`` writes it: its seats held by the agents ``names`` (a repeated agent
    marked ``#2``), each with its version in ``meta.agents``."""
    out = dict(log, players=[{"name": n} for n in names], source_id=source_id)
    out["meta"] = {"generator": "governor arena", "agents": [
        {"seat": s, "name": n, "spec": n.split("#")[0], "version": v} for s, (n, v) in enumerate(zip(names, versions))]}
    return out


def write(folder: Path, logs: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "games.jsonl"
    path.write_text("".join(json.dumps(log) + "\n" for log in logs))
    return path


@pytest.fixture(scope="module")
def arena_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four arena games (heuristic, heuristic#2 and last-move) and one game of people, one of whom is
    named like the agent."""
    logs = three_player_logs()
    games = [arena_log(log, ["heuristic", "heuristic#2", "last-move"], ["1", "1", "0.1"], f"arena-sj-3p-5-{i:06d}")
             for i, log in enumerate(logs[:4])]
    games.append(dict(logs[4], players=[{"name": "heuristic"}, {"name": "Ana"}, {"name": "Bo"}]))
    return write(tmp_path_factory.mktemp("arena_logs"), games)


@pytest.fixture(scope="module")
def arena_db(arena_logs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("arena_db") / "arena.duckdb"
    assert import_paths([arena_logs], db, workers=1).imported == 5
    return db


def test_an_agent_is_one_player_per_name_and_version() -> None:
    assert agent_identity("heuristic", "1") == "heuristic v1"
    assert agent_identity("heuristic#2", "1") == "heuristic v1"
    assert agent_identity("search:20#12", 2) == "search:20 v2"
    assert agent_identity("mine", "v2.1") == "mine v2.1"
    assert agent_identity("mine", "2.1") == "mine v2.1"
    # No usable version: the name alone (still a bot).
    for version in (None, "", " ", "\u200b", "x" * 41, "a\nb", True, ["1"]):
        assert agent_identity("mine#3", version) == "mine", version
    names = ["heuristic", "heuristic#2", "Ana", "x"]
    meta = {"agents": [
        {"seat": 0, "name": "heuristic", "version": "1"},
        {"seat": 1, "name": "heuristic#2", "version": "1"},
        {"seat": 2, "name": "Ana", "version": "1", "bot": False},  # a person playing through an agent
        {"seat": 3, "name": "someone else", "version": "1"},  # not this seat's player: ignored
        {"seat": True, "name": "heuristic", "version": "9"}, {"seat": 9, "name": "x"}, "garbage",
    ]}
    assert seat_players(names, meta) == [("heuristic v1", True), ("heuristic v1", True), ("Ana", False), ("x", False)]
    assert seat_players(names, {"agents": "no"}) == seat_players(names, {}) == [(n, False) for n in names]
    # The log's names are read in NFC: an entry's name is compared so too.
    assert seat_players(["Jos\u00e9"], {"agents": [{"seat": 0, "name": "Jose\u0301", "version": "1"}]}) == [("Jos\u00e9 v1", True)]


def test_agent_seats_are_stored_under_their_identity_and_marked(arena_db: Path) -> None:
    arena = rows(arena_db, "SELECT p.name, p.bot, count(*) FROM players p JOIN games g USING (game_id) "
                           "WHERE g.source_id LIKE 'arena-%' GROUP BY ALL ORDER BY ALL")
    assert arena == [("heuristic v1", True, 8), ("last-move v0.1", True, 4)]
    people = rows(arena_db, "SELECT p.name, p.bot FROM players p JOIN games g USING (game_id) "
                            "WHERE g.source_id NOT LIKE 'arena-%' ORDER BY p.seat")
    assert people == [("heuristic", False), ("Ana", False), ("Bo", False)]
    # The log's names stay where the game is shown as played; the summaries follow the players table.
    assert rows(arena_db, "SELECT DISTINCT players FROM games WHERE source_id LIKE 'arena-%'") == [
        (["heuristic", "heuristic#2", "last-move"],)]
    assert rows(arena_db, "SELECT DISTINCT name FROM player_roles ORDER BY 1") == [
        ("Ana",), ("Bo",), ("heuristic",), ("heuristic v1",), ("last-move v0.1",)]
    # One rating per player: the agent apart from the person of the same name.
    ratings = rows(arena_db, "SELECT name, bot, games FROM player_ratings ORDER BY name, bot")
    assert ratings == [("Ana", False, 1), ("Bo", False, 1), ("heuristic", False, 1), ("heuristic v1", True, 8),
                       ("last-move v0.1", True, 4)]
    # Its history has one row per game it was rated in, numbered by game.
    assert rows(arena_db, "SELECT number, seat FROM player_rating_history WHERE name = 'heuristic v1' ORDER BY number") == [
        (1, 0), (2, 0), (3, 0), (4, 0)]


def test_several_seats_of_one_player_are_rated_at_their_mean_rank() -> None:
    bot = "heuristic v1"
    ratings, history = rate_games([
        RatedGame("g", "1", (Seat(0, bot, 1, True, True), Seat(1, "last", 2, False, True), Seat(2, bot, 3, False, True))),
        RatedGame("g", "2", (Seat(0, bot, 1, True, True), Seat(1, bot, 2, False, True))),  # itself only: not rated
    ])
    model = PlackettLuce()
    [[mine], [last]] = model.rate([[model.rating()], [model.rating()]], ranks=[2.0, 2.0])
    assert (ratings[("g", bot, True)].mu, ratings[("g", bot, True)].sigma) == (mine.mu, mine.sigma)
    assert (ratings[("g", "last", True)].mu, ratings[("g", "last", True)].sigma) == (last.mu, last.sigma)
    # games and wins count seats; the history has one row per player and rated game.
    assert (ratings[("g", bot, True)].games, ratings[("g", bot, True)].wins) == (2, 1)
    assert [(h["game_id"], h["name"], h["seat"], h["number"]) for h in history] == [("1", bot, 0, 1), ("1", "last", 1, 1)]


def test_undated_games_are_rated_by_source_id_never_by_game_id(tmp_path: Path) -> None:
    from replay.logfile import parse_game

    logs = three_player_logs()[:3]
    for log in logs:
        log["players"] = [{"name": "Ana"}, {"name": "Bo"}, {"name": "Cy"}]
    by_id = sorted(logs, key=lambda log: parse_game(log).game_id)
    # Source ids whose order (9 < 10 < 11, a trailing number compared as a number) is not the game ids'.
    order = [by_id[2], by_id[0], by_id[1]]
    for log, source in zip(order, ("run-9", "run-10", "run-000011")):
        log["source_id"] = source
    db = tmp_path / "ordered.duckdb"
    import_paths([write(tmp_path / "logs", logs)], db, workers=1)
    ids = [parse_game(log).game_id for log in order]
    history = rows(db, "SELECT game_id FROM player_rating_history WHERE name = 'Ana' ORDER BY number")
    assert [g for (g,) in history] == ids != sorted(ids)
    # The same as rating them directly in that order.
    stored = {g: tuple(Seat(s, n, r, w) for s, n, r, w in rows(
        db, "SELECT seat, name, rank, won FROM players WHERE game_id = ? ORDER BY seat", [g])) for g in ids}
    expected, _ = rate_games([RatedGame("san_juan", g, stored[g]) for g in ids])
    got = rows(db, "SELECT name, mu, sigma FROM player_ratings ORDER BY name")
    assert got == [(n, expected[("san_juan", n, False)].mu, expected[("san_juan", n, False)].sigma)
                   for n in ("Ana", "Bo", "Cy")]


def fingerprint(db: Path) -> dict[str, list[tuple]]:
    return {table: rows(db, f"SELECT * FROM {table} ORDER BY ALL") for table in
            ("players", "player_ratings", "player_rating_history", "player_roles", "player_builds", "player_owned")}


def test_a_version_8_file_is_migrated(arena_db: Path, tmp_path: Path) -> None:
    from ingest.db import writer

    old = tmp_path / "old.duckdb"
    shutil.copy(arena_db, old)
    with duckdb.connect(str(old)) as con:
        # As version 8 stored the games: the seats under the log's names, no bot column.
        con.execute("UPDATE players p SET name = g.players[p.seat + 1] FROM games g WHERE g.game_id = p.game_id")
        for summary in ("player_roles", "player_builds", "player_owned"):
            con.execute(f"UPDATE {summary} t SET name = p.name FROM players p WHERE t.game_id = p.game_id AND t.seat = p.seat")
        for table in ("players", "player_ratings", "player_rating_history"):
            con.execute(f"ALTER TABLE {table} DROP COLUMN bot")
        con.execute("DELETE FROM player_ratings")
        con.execute("UPDATE governor_meta SET value = '8' WHERE key = 'schema_version'")
    assert rows(old, "SELECT count(DISTINCT name) FROM players WHERE name LIKE 'heuristic%'") == [(2,)]
    with writer(old):
        pass
    assert rows(old, "SELECT value FROM governor_meta WHERE key = 'schema_version'") == [(str(SCHEMA_VERSION),)]
    assert fingerprint(old) == fingerprint(arena_db)


def test_a_lake_file_written_before_bot_reads_as_people(arena_logs: Path, arena_db: Path, tmp_path: Path) -> None:
    from ingest.importer import import_paths
    from ingest.lake import Lake
    from ingest.lake_read import connect_lake

    lake = tmp_path / "lake"
    import_paths([arena_logs], str(lake), lake=True, workers=1)
    con = connect_lake(Lake(str(lake)))
    try:
        assert con.execute("SELECT name, bot FROM players ORDER BY ALL").fetchall() == rows(
            arena_db, "SELECT name, bot FROM players ORDER BY ALL")
    finally:
        con.close()
    # The players file as schema 8 wrote it: no bot column.
    (part,) = (lake / "players").rglob("*.parquet")
    pq.write_table(pq.read_table(part).drop_columns(["bot"]), part)
    con = connect_lake(Lake(str(lake)))
    try:
        assert con.execute("SELECT count(*), count(bot) FROM players").fetchall() == [(15, 0)]
    finally:
        con.close()
