"""Games of any legal length are stored in full, in the DuckDB file and in the lake; a game whose rows
fail to lay out (a bug) is rejected alone, never with the other games of its task; an older file with
16-bit columns is widened when a writer opens it."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ingest.db import writer
from ingest.importer import import_paths
from ingest.lake import Lake
from ingest.lake_read import connect_lake
from ingest.schema import SCHEMA_VERSION, table_schemas
from replay.registry import engine_for
from replay.san_juan.moves import Build, Pass
from replay.simulate import NAMES, make_bot

ROOT = Path(__file__).resolve().parents[2]
#: Columns that name a seat, a player count or a position on the table: bounded by the rules (at most
#: five seats, a dozen city spaces), so they stay narrow.
BOUNDED = {"seat", "player_count", "governor", "chooser", "to_act", "winners", "tile", "next_tile",
           "quarries_left", "role_seats", "city_occupancy", "city_spaces", "rank", "seats"}


def quiet_game(quiet_rounds: int, seed: int = 7) -> dict[str, Any]:
    """A legal two-player San Juan game in which nobody builds for the first ``quiet_rounds`` rounds
    (the rules allow it: a builder may pass), then played out by the heuristic bots."""
    engine = engine_for("san_juan")
    log = engine.new_random_game(NAMES[:2], seed, {})
    rng = random.Random(seed)
    bots = [make_bot("san_juan", "heuristic", rng.randrange(2**31)) for _ in range(2)]
    play = engine.working(engine.simulation_state(log, seed))
    moves: list[dict[str, Any]] = []
    while not play.is_over():
        seat = play.current_seat()
        move = bots[seat].choose_working(play)
        if isinstance(move, Build) and play.table.round <= quiet_rounds:
            move = Pass()
        default = play.default_move()
        play.apply(move)
        if default is None or move != default:
            moves.append({"seat": seat, **move.to_json()})
    game = engine.finish_log(log, play.snapshot(), moves)
    game["source_id"] = f"quiet-{quiet_rounds}"
    return game


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 60 sample games and one game of more than 255 rounds."""
    out = tmp_path_factory.mktemp("long_logs")
    shutil.copytree(ROOT / "sample_logs", out / "sample_logs")
    (out / "quiet.json").write_text(json.dumps(quiet_game(300)))
    return out


def test_every_counting_column_is_32_bits() -> None:
    """Rounds, steps, scores and every count of the state tables hold any value a 16 MiB log can reach
    (fewer than 2**24 moves, so fewer rounds and points than 2**31)."""
    narrow = []
    for name, schema in table_schemas().items():
        if name == "analysis":
            continue
        for column in schema:
            kind = column.type
            while pa.types.is_list(kind) or pa.types.is_map(kind):
                kind = kind.item_type if pa.types.is_map(kind) else kind.value_type
            if pa.types.is_integer(kind) and kind.bit_width < 32 and column.name not in BOUNDED:
                narrow.append(f"{name}.{column.name}")
    assert narrow == []
    assert table_schemas()["games"].field("rounds").type == pa.int32()
    assert table_schemas()["moves"].field("round").type == pa.int32()
    assert table_schemas()["puerto_rico_player_states"].field("doubloons").type == pa.int32()


def test_a_game_of_hundreds_of_rounds_is_stored_in_full(folder: Path, tmp_path: Path) -> None:
    game = json.loads((folder / "quiet.json").read_text())
    db = tmp_path / "g.duckdb"
    summary = import_paths([folder], db, workers=2)
    assert (summary.imported, summary.rejected, summary.internal_errors) == (61, 0, 0)
    lake = tmp_path / "lake"
    summary = import_paths([folder], str(lake), lake=True, workers=2)
    assert (summary.imported, summary.rejected) == (61, 0)
    for target in (str(db), str(lake)):
        con = connect_lake(Lake(target)) if target == str(lake) else duckdb.connect(target, read_only=True)
        try:
            rounds, moves = con.execute(
                "SELECT rounds, moves FROM games WHERE source_id = 'quiet-300'").fetchall()[0]
            assert rounds > 300 and moves == len(game["moves"])
            assert con.execute("SELECT count(*) FROM games").fetchall() == [(61,)]
            assert con.execute(
                "SELECT max(m.round) FROM moves m JOIN games g USING (game_id) WHERE g.source_id = 'quiet-300'"
            ).fetchall() == [(rounds,)]
            steps = con.execute(
                "SELECT count(*) FROM moves m JOIN games g USING (game_id) WHERE g.source_id = 'quiet-300'"
            ).fetchall()[0][0]
            assert steps >= len(game["moves"])
            assert con.execute(
                "SELECT count(*) FROM san_juan_states s JOIN games g USING (game_id) WHERE g.source_id = 'quiet-300'"
            ).fetchall() == [(steps + 1,)]
        finally:
            con.close()
    assert pq.read_schema(next((lake / "games").rglob("*.parquet"))).field("rounds").type == pa.int32()


def test_a_game_whose_rows_fail_is_rejected_alone(folder: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A value no column holds (as 39,049 rounds were for 16 bits) is a bug of that game: it is
    reported as one, and every other game of its task (all 61 share one task in a lake batch and in
    a chunk of 64) is stored."""
    engine = type(engine_for("san_juan"))
    real = engine.round_of
    monkeypatch.setattr(engine, "round_of", lambda self, state: 2**40 if real(self, state) > 300 else real(self, state))
    messages: list[str] = []
    db = tmp_path / "g.duckdb"
    summary = import_paths([folder], db, workers=1, on_rejection=messages.append)
    assert (summary.imported, summary.rejected, summary.internal_errors) == (60, 1, 1)
    assert len(messages) == 1 and "quiet.json" in messages[0] and "bug in governor" in messages[0]
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM games").fetchall() == [(60,)]
        assert con.execute("SELECT kind, file FROM rejections").fetchall() == [("internal", str(folder / "quiet.json"))]
    lake_messages: list[str] = []
    summary = import_paths([folder], str(tmp_path / "lake"), lake=True, workers=1, on_rejection=lake_messages.append)
    assert (summary.imported, summary.rejected) == (60, 1)
    assert lake_messages == messages
    con = connect_lake(Lake(str(tmp_path / "lake")))
    try:
        assert con.execute("SELECT count(*) FROM games").fetchall() == [(60,)]
    finally:
        con.close()


def test_an_older_file_with_16_bit_columns_is_widened(folder: Path, tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    assert import_paths([folder / "sample_logs" / "san_juan"], db, workers=1).imported == 30
    narrowed = [("games", "rounds"), ("moves", "round"), ("players", "score"), ("san_juan_states", "round"),
                ("san_juan_player_states", "vp"), ("player_builds", "round")]
    with duckdb.connect(str(db)) as con:
        before = con.execute("SELECT game_id, rounds FROM games ORDER BY game_id").fetchall()
        for table, column in narrowed:
            con.execute(f'ALTER TABLE "{table}" ALTER COLUMN "{column}" TYPE SMALLINT')
        con.execute("ALTER TABLE players ALTER COLUMN parts TYPE MAP(VARCHAR, SMALLINT)")
        con.execute("UPDATE governor_meta SET value = '6' WHERE key = 'schema_version'")
        con.execute("DELETE FROM governor_meta WHERE key = 'schema_digest'")
    with writer(db):
        pass
    with duckdb.connect(str(db), read_only=True) as con:
        types = dict(((t, c), k) for t, c, k in con.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns").fetchall())
        assert [types[key] for key in narrowed] == ["INTEGER"] * len(narrowed)
        assert types[("players", "parts")] == "MAP(VARCHAR, INTEGER)"
        assert con.execute("SELECT value FROM governor_meta WHERE key = 'schema_version'").fetchall() == [
            (str(SCHEMA_VERSION),)]
        assert con.execute("SELECT game_id, rounds FROM games ORDER BY game_id").fetchall() == before
    summary = import_paths([folder], db, workers=1)
    assert (summary.imported, summary.duplicates, summary.rejected) == (31, 30, 0)


@pytest.mark.opt_in("GOVERNOR_LONG_GAME")  # builds and imports a 16 MiB game twice (minutes)
def test_a_game_of_more_than_32767_rounds_is_stored_in_full(tmp_path: Path) -> None:
    """The audit's case itself: a legal game of more than 32,767 rounds (16-bit columns refused it and
    lost every game of its import), in a folder with the 60 samples: all 61 stored, in both stores."""
    folder = tmp_path / "logs"
    shutil.copytree(ROOT / "sample_logs", folder / "sample_logs")
    text = json.dumps(quiet_game(32_760), separators=(",", ":"))
    assert len(text.encode()) < 16 * 1024 * 1024
    (folder / "long.json").write_text(text)
    db = tmp_path / "g.duckdb"
    assert (import_paths([folder], db, workers=2).imported, import_paths([folder], str(tmp_path / "lake"), lake=True,
                                                                         workers=2).imported) == (61, 61)
    for con in (duckdb.connect(str(db), read_only=True), connect_lake(Lake(str(tmp_path / "lake")))):
        try:
            assert con.execute("SELECT count(*), max(rounds) FROM games").fetchall() == [(61, 32_775)]
            assert con.execute("SELECT max(round) FROM moves").fetchall() == [(32_775,)]
        finally:
            con.close()
