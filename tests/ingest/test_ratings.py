"""Skill ratings and openings, the tables derived at the end of every import."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import duckdb
import pytest
from openskill.models import PlackettLuce

from ingest.importer import import_paths
from ingest.openings import OPENING_ROUNDS
from ingest.ratings import METHOD, RatedGame, Seat, rate_games
from ingest.schema import SCHEMA_VERSION

SAMPLE_LOGS = Path(__file__).resolve().parents[2] / "sample_logs"


DERIVED = {
    "openings": "SELECT * FROM openings",
    "player_ratings": "SELECT * FROM player_ratings",
    "player_rating_history": "SELECT * FROM player_rating_history",
}


def rows(db: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def fingerprint(db: Path) -> dict[str, tuple[int, int]]:
    return {name: tuple(rows(db, f"SELECT count(*), coalesce(sum(hash(x)), 0) FROM ({sql}) x")[0])
            for name, sql in DERIVED.items()}


def expected_ratings(hostile: str) -> dict[str, tuple[float, float, int, int]]:
    """The three games rated with openskill directly, in date order: name -> (mu, sigma, games, wins)."""
    model = PlackettLuce()
    r = {n: model.rating() for n in ("Ana", "Bo", "Cy", hostile)}
    # 2026-01-01: Ana 21, Bo 23.
    [[r["Ana"]], [r["Bo"]]] = model.rate([[r["Ana"]], [r["Bo"]]], ranks=[2, 1])
    # 2026-01-02: Bo 20, Cy 33, hostile 30.
    [[r["Bo"]], [r["Cy"]], [r[hostile]]] = model.rate([[r["Bo"]], [r["Cy"]], [r[hostile]]], ranks=[3, 1, 2])
    # 2026-01-03: hostile 26, Ana 13, Bo 29.
    [[r[hostile]], [r["Ana"]], [r["Bo"]]] = model.rate([[r[hostile]], [r["Ana"]], [r["Bo"]]], ranks=[2, 3, 1])
    games = {"Ana": (2, 0), "Bo": (3, 2), "Cy": (1, 1), hostile: (2, 0)}
    return {n: (r[n].mu, r[n].sigma, *games[n]) for n in r}


def test_ratings_of_three_games_equal_openskill_run_directly(rating_db: Path, hostile_name: str) -> None:
    hostile = hostile_name
    expected = expected_ratings(hostile)
    table = rows(rating_db, "SELECT game, name, games, wins, mu, sigma, ordinal FROM player_ratings ORDER BY ordinal DESC")
    assert [r[1] for r in table] == sorted(expected, key=lambda n: -(expected[n][0] - 3 * expected[n][1]))
    for game, name, games, wins, mu, sigma, ordinal in table:
        e_mu, e_sigma, e_games, e_wins = expected[name]
        assert (game, games, wins) == ("san_juan", e_games, e_wins)
        assert mu == pytest.approx(e_mu, abs=1e-12) and sigma == pytest.approx(e_sigma, abs=1e-12)
        assert ordinal == pytest.approx(e_mu - 3 * e_sigma, abs=1e-12)
    # The exact figures, so that a change of library or model shows here.
    assert [(n, round(mu, 4), round(sigma, 4)) for _, n, _, _, mu, sigma, _ in table] == [
        ("Bo", 26.5574, 7.7048), ("Cy", 27.975, 8.2059), (hostile, 26.2646, 7.7846), ("Ana", 19.2796, 7.8078),
    ]
    history = rows(rating_db, "SELECT h.name, h.number, g.played_at FROM player_rating_history h "
                   "JOIN games g USING (game_id) WHERE h.name = 'Bo' ORDER BY h.number")
    assert history == [("Bo", 1, "2026-01-01"), ("Bo", 2, "2026-01-02"), ("Bo", 3, "2026-01-03")]
    (basis,) = rows(rating_db, "SELECT value FROM governor_meta WHERE key = 'ratings_basis'")[0]
    assert basis == f"3 games; {METHOD}"


def test_reimport_and_import_order_change_nothing(rating_db: Path, rating_logs: list[Path], tmp_path: Path) -> None:
    before = fingerprint(rating_db)
    again = tmp_path / "again.duckdb"
    shutil.copy(rating_db, again)
    files = rating_logs
    summary = import_paths(files, again, workers=1)
    assert (summary.imported, summary.duplicates) == (0, 3)
    assert fingerprint(again) == before
    # One game at a time, oldest last: the same ratings (they follow the dates, not the import order).
    one_by_one = tmp_path / "one.duckdb"
    for file in files:
        import_paths([file], one_by_one, workers=1)
    assert fingerprint(one_by_one) == before


def test_a_name_holding_two_seats_is_not_rated(tmp_path: Path) -> None:
    log = json.loads((SAMPLE_LOGS / "san_juan" / "san_juan-2p-seed2026-0000.json").read_text())
    log["players"] = [{"name": "Twin"}, {"name": "Twin"}]
    (tmp_path / "twin.json").write_text(json.dumps(log))
    db = tmp_path / "twin.duckdb"
    assert import_paths([tmp_path / "twin.json"], db, workers=1).imported == 1
    assert rows(db, "SELECT count(*) FROM player_ratings") == [(0,)]
    assert rows(db, "SELECT count(*) FROM openings") == [(1,)]


def test_rate_games_ties_share_a_rank() -> None:
    ratings, history = rate_games([
        RatedGame("san_juan", "g1", (Seat(0, "A", 1, True), Seat(1, "B", 1, True), Seat(2, "C", 3, False))),
    ])
    assert ratings[("san_juan", "A", False)].mu == ratings[("san_juan", "B", False)].mu > 25 > ratings[("san_juan", "C", False)].mu
    assert [(h["name"], h["number"]) for h in history] == [("A", 1), ("B", 1), ("C", 1)]


def test_openings_hold_the_first_decisions(sample_db: Path) -> None:
    log = json.loads((SAMPLE_LOGS / "san_juan" / "san_juan-2p-seed2026-0000.json").read_text())
    (game_id,) = rows(sample_db, "SELECT game_id FROM games WHERE source_id = 'sim-san_juan-2026-000000'")[0]
    decisions, seats, steps, count = rows(
        sample_db, f"SELECT decisions, seats, steps, player_count FROM openings WHERE game_id = '{game_id}'")[0]
    assert count == 2
    # The log's first moves: the governor (seat 0) chooses the builder and builds first.
    first = log["moves"][:3]
    assert first[0]["role"] == "builder" and first[1]["kind"] == "build" and first[2]["kind"] == "build"
    assert decisions[:3] == ["Builder", f"build {first[1]['building']}", f"build {first[2]['building']}"]
    assert decisions[:3] == ["Builder", "build Carpenter", "build Tower"]
    assert seats[:3] == [0, 0, 1] and steps[:3] == [1, 2, 3]
    # Only role choices and builds of the first rounds, in move order.
    last_round = rows(sample_db, f"SELECT max(round) FROM moves WHERE game_id = '{game_id}' AND step <= {steps[-1]}")
    assert last_round == [(OPENING_ROUNDS,)]
    assert steps == sorted(steps)
    (expected,) = rows(sample_db, f"""SELECT count(*) FROM moves WHERE game_id = '{game_id}' AND round <= {OPENING_ROUNDS}
        AND (kind = 'role' OR (role = 'builder' AND kind IN ('build', 'pass')))""")[0]
    assert len(decisions) == expected == 14
    assert rows(sample_db, "SELECT count(*) FROM openings") == rows(sample_db, "SELECT count(*) FROM games")


def test_version_1_database_is_migrated_with_its_derived_tables(rating_db: Path, tmp_path: Path) -> None:
    before = fingerprint(rating_db)
    old = tmp_path / "old.duckdb"
    shutil.copy(rating_db, old)
    with duckdb.connect(str(old)) as con:
        for name in DERIVED:
            con.execute(f"DROP TABLE {name}")
        con.execute("DELETE FROM governor_meta WHERE key = 'ratings_basis'")
        con.execute("UPDATE governor_meta SET value = '1' WHERE key = 'schema_version'")
    summary = import_paths([SAMPLE_LOGS / "san_juan" / "san_juan-2p-seed2026-0000.json"], old, workers=1)
    assert summary.imported == 1  # the sample game under its own names: a new game
    assert rows(old, "SELECT value FROM governor_meta WHERE key = 'schema_version'") == [(str(SCHEMA_VERSION),)]
    assert rows(old, "SELECT count(*) FROM openings") == [(4,)]
    assert rows(old, "SELECT count(*) FROM player_rating_history") == [(10,)]
    # Without the new game, the migration alone rebuilds exactly what the import had made.
    again = tmp_path / "again.duckdb"
    shutil.copy(rating_db, again)
    with duckdb.connect(str(again)) as con:
        for name in DERIVED:
            con.execute(f"DROP TABLE {name}")
        con.execute("UPDATE governor_meta SET value = '1' WHERE key = 'schema_version'")
    from ingest.db import writer

    with writer(again):
        pass
    assert fingerprint(again) == before


def test_large_database_rates_in_a_process_of_its_own(rating_db: Path, rating_logs: list[Path], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # From APART_FROM_GAMES stored games on, the end step runs in a spawned process (its memory is not
    # added to the importer's): the same openings and ratings as in the importer's own process.
    import ingest.derived
    import ingest.duckdb_store

    ran_apart: list[str] = []
    apart = ingest.derived.refresh_derived_apart

    def spy(db: str | Path) -> None:
        ran_apart.append(Path(db).name)
        apart(db)

    monkeypatch.setattr(ingest.duckdb_store, "APART_FROM_GAMES", 3)
    monkeypatch.setattr(ingest.duckdb_store, "refresh_derived_apart", spy)
    db = tmp_path / "apart.duckdb"
    assert import_paths(rating_logs[:2], db, workers=1).imported == 2
    assert ran_apart == []  # 2 games: in the importer's process
    assert import_paths(rating_logs[2:], db, workers=1).imported == 1
    assert ran_apart == ["apart.duckdb"]
    assert fingerprint(db) == fingerprint(rating_db)
    # A caller whose own process may be killed (the dashboard's upload) keeps the step in it.
    kept = tmp_path / "kept.duckdb"
    for logs in (rating_logs[:2], rating_logs[2:]):
        assert import_paths(logs, kept, workers=1, end_step_apart=False).imported == len(logs)
    assert ran_apart == ["apart.duckdb"]
    assert fingerprint(kept) == fingerprint(rating_db)


def test_the_end_step_apart_reports_its_error(tmp_path: Path) -> None:
    from ingest.db import DatabaseError
    from ingest.derived import refresh_derived_apart

    bad = tmp_path / "not-a-database.duckdb"
    bad.write_bytes(b"this is no DuckDB file" * 100)
    with pytest.raises(DatabaseError) as raised:
        refresh_derived_apart(bad)
    with pytest.raises(DatabaseError) as here:
        from ingest.derived import refresh_derived
        refresh_derived(bad)
    assert str(raised.value) == str(here.value)
    assert str(bad) in str(raised.value)


def _die(db: str) -> None:
    os._exit(3)  # the end step's process killed (out of memory, a signal)


def test_the_end_step_apart_dying_is_a_database_error(tmp_path: Path) -> None:
    from ingest.db import DatabaseError
    from ingest.derived import refresh_derived_apart

    db = tmp_path / "g.duckdb"
    with pytest.raises(DatabaseError, match=r"g\.duckdb: the step that rates the players ended before it finished "
                                            r"\(.*\); the games are stored, and the next import rates them"):
        refresh_derived_apart(db, step=_die)


def test_a_game_played_with_take_backs_is_stored_but_not_rated(tmp_path: Path) -> None:
    """``meta.takebacks`` above 0 (``governor play`` counts the moves a person took back) keeps a game out
    of the ratings, and only out of them; 0, or anything that is not a count, is rated as usual."""
    from replay.logfile import write_games
    from replay.simulate import simulate_game

    games = []
    for seed, names, takebacks in ((1, ["Ana", "Bo"], 0), (2, ["Cy", "Di"], 2), (3, ["Ed", "Flo"], "many")):
        game = simulate_game("san_juan", 2, seed)
        game["players"] = [{"name": name} for name in names]
        game["meta"]["takebacks"] = takebacks
        games.append(game)
    logs = tmp_path / "played.jsonl"
    write_games(logs, games)
    db = tmp_path / "g.duckdb"
    summary = import_paths([logs], db)
    assert (summary.imported, summary.rejected) == (3, 0)
    assert rows(db, "SELECT count(*) FROM games") == [(3,)]
    assert rows(db, "SELECT name FROM player_ratings ORDER BY name") == [("Ana",), ("Bo",), ("Ed",), ("Flo",)]
    assert rows(db, "SELECT DISTINCT name FROM player_rating_history ORDER BY name") == [
        ("Ana",), ("Bo",), ("Ed",), ("Flo",)]
