"""A copy of a stored game is checked like any other game: a recorded result it does not reach, or
another source id, is a rejection (with the message ``validate`` gives), never a silent skip."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from governor.cli import main
from ingest import duckdb_store as importer
from ingest.cli import run_import
from ingest.importer import import_paths
from tests.hostile import SJ, line, sample

NAME = "san_juan-3p-seed2026-0001.json"


def wrong_result() -> dict[str, Any]:
    game = sample(NAME)
    game["result"]["scores"] = [20, 33, 31]
    return game


def other_source() -> dict[str, Any]:
    game = sample(NAME)
    game["source_id"] = "bga-123"
    return game


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_a_copy_with_a_wrong_result_is_rejected_as_validate_rejects_it(
    sample_db_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "copy.json"
    path.write_text(json.dumps(wrong_result()))
    assert main(["validate", str(path)]) == 1
    message = capsys.readouterr().out.removeprefix("bad: ").rstrip("\n")
    assert message == f"{path}, game 1: result.scores: the log records [20, 33, 31] but the replay scores [20, 33, 30]"
    assert run_import([str(path)], str(sample_db_copy), workers=1) == 1
    err = capsys.readouterr().err
    assert err.splitlines()[0] == f"rejected: {message}"
    assert "0 imported, 0 duplicates skipped, 1 rejected" in err
    assert rows(sample_db_copy, "SELECT kind, rule, message FROM rejections") == [("result", "result.scores", message)]


def test_a_copy_with_another_source_id_is_rejected_and_an_agreeing_copy_skipped(sample_db_copy: Path, tmp_path: Path) -> None:
    (tmp_path / "other.json").write_text(json.dumps(other_source()))
    same = sample(NAME)
    same["meta"] = {"note": "copied from elsewhere"}
    (tmp_path / "same.json").write_text(json.dumps(same))
    summary = import_paths([tmp_path], sample_db_copy, workers=1)
    assert (summary.imported, summary.duplicates, summary.rejected) == (0, 1, 1)
    assert summary.messages == [
        f"{tmp_path / 'other.json'}, game 1: source_id: this game is already stored with source id "
        f"'sim-san_juan-2026-000001' (from {SJ / NAME}), not 'bga-123'"
    ]
    assert rows(sample_db_copy, "SELECT kind, rule FROM rejections") == [("duplicate", "source_id")]


@pytest.mark.parametrize(("chunk", "batch"), [(64, 1024), (1, 1024), (1, 1)])
def test_copies_within_one_jsonl_are_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int,
                                             batch: int) -> None:
    """Copies in one task are checked against the first replay; in different tasks (chunk 1), the
    copy's own replay rejects a wrong result and the write rejects another source id, in the same
    write batch or a later one (batch 1: from the ids the import wrote)."""
    monkeypatch.setattr(importer, "CHUNK", chunk)
    monkeypatch.setattr(importer, "WRITE_BATCH", batch)
    path = tmp_path / "copies.jsonl"
    path.write_bytes(line(sample(NAME)) + line(wrong_result()) + line(copy.deepcopy(sample(NAME))) + line(other_source()))
    db = tmp_path / "c.duckdb"
    summary = import_paths([path], db, workers=1)
    assert (summary.imported, summary.duplicates, summary.rejected) == (1, 1, 2)
    assert rows(db, "SELECT count(*) FROM players") == [(3,)]  # the rows of one game, however many copies
    assert sorted(rows(db, "SELECT game_index, kind, rule FROM rejections")) == [
        (1, "result", "result.scores"), (3, "duplicate", "source_id"),
    ]
    assert summary.messages[-1] == (
        f"{path}, game 4: source_id: this game is already stored with source id 'sim-san_juan-2026-000001' "
        f"(from {path}), not 'bga-123'"
    )
    # Importing again adds nothing and records nothing new.
    again = import_paths([path], db, workers=1)
    assert (again.imported, again.duplicates, again.rejected) == (0, 2, 2)
    assert rows(db, "SELECT count(*) FROM players") == [(3,)]
    assert rows(db, "SELECT count(*) FROM rejections") == [(2,)]


def test_a_game_stored_by_another_import_between_two_batches_is_a_duplicate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch looks up only the ids its own import wrote while the database holds the number of games
    it left; when another import wrote in between, it looks every id up."""
    monkeypatch.setattr(importer, "CHUNK", 1)
    monkeypatch.setattr(importer, "WRITE_BATCH", 1)
    ours = tmp_path / "ours.jsonl"
    # Batch 1, then the other import, then batch 2 (another game), then batch 3 (the other's game).
    ours.write_bytes(line(sample("san_juan-2p-seed2026-0000.json")) + line(sample("san_juan-4p-seed2026-0002.json"))
                     + line(other_source()))
    theirs = tmp_path / "theirs.json"
    theirs.write_bytes(line(sample(NAME)))
    db = tmp_path / "d.duckdb"
    real = importer.write_batch
    calls: list[int] = []

    def write_then_another_import(*args: Any, **kwargs: Any) -> None:
        real(*args, **kwargs)
        calls.append(1)
        if len(calls) == 1:  # the other import stores the game our second batch holds a copy of
            assert import_paths([theirs], db, workers=1).imported == 1

    monkeypatch.setattr(importer, "write_batch", write_then_another_import)
    summary = import_paths([ours], db, workers=1)
    assert (summary.imported, summary.duplicates, summary.rejected) == (2, 0, 1)
    assert summary.messages == [
        f"{ours}, game 3: source_id: this game is already stored with source id 'sim-san_juan-2026-000001' "
        f"(from {theirs}), not 'bga-123'"
    ]
    assert rows(db, "SELECT count(*) FROM games") == [(3,)]
    # Where each game's rows sit: the import keeps the tables' row counts from batch to batch instead
    # of counting them, and counts again once another writer came in (else the other's rows would be
    # located a second time, under the wrong start).
    for table in ("moves", "san_juan_states", "san_juan_player_states"):
        located = rows(db, f"""SELECT r.row_count, r.first_row, r.last_row, count(*), min(t.rowid), max(t.rowid)
                               FROM game_rows r JOIN "{table}" t USING (game_id) WHERE r.table_name = '{table}'
                               GROUP BY r.game_id, r.row_count, r.first_row, r.last_row""")
        assert len(located) == 3 and all(r[:3] == r[3:] for r in located), located
        assert rows(db, f"SELECT count(*), count(DISTINCT game_id), sum(row_count) FROM game_rows WHERE table_name = '{table}'") == [
            (3, 3, rows(db, f'SELECT count(*) FROM "{table}"')[0][0])]


def test_written_games_name_every_id_written_and_few_others() -> None:
    written = importer.WrittenGames(5)
    assert written.maybe_written(["a", "b"]) == []
    def game_id(i: int) -> str:  # like a real id: the hex of a SHA-256
        return hashlib.sha256(str(i).encode()).hexdigest()[:20]

    ids = [game_id(i) for i in range(0, 3000, 3)]
    written.add(ids[:500], 505, {"moves": 9})
    written.add(ids[500:], 1005, None)  # a batch that wrote no rows leaves the counts
    assert written.games == 1005 and written.rows == {"moves": 9}
    assert written.maybe_written(ids) == ids
    others = [game_id(i) for i in range(1, 3000, 3)]
    assert written.maybe_written(others + ids[:2]) == ids[:2]


def test_stored_games_find_every_game_of_the_database(sample_db: Path) -> None:
    from ingest.duckdb_store import stored_games
    from ingest.stored import StoredGame

    stored = stored_games(sample_db)
    expected = {
        game_id: StoredGame(tuple(scores), tuple(winners), source_id, file)
        for game_id, source_id, file, winners, scores in rows(
            sample_db, "SELECT g.game_id, g.source_id, g.file, g.winners, list(p.score ORDER BY p.seat) "
                       "FROM games g JOIN players p USING (game_id) GROUP BY ALL")
    }
    assert len(stored) == len(expected) == 30
    assert sorted(stored) == sorted(expected)
    assert {game_id: stored[game_id] for game_id in expected} == expected
    assert "0" * 20 not in stored and 12 not in stored
    with pytest.raises(KeyError):
        stored["0" * 20]


def test_stored_games_tell_apart_ids_with_one_key() -> None:
    import pyarrow as pa

    from ingest.stored import StoredGame, StoredGames, id_keys

    ids = ["0123456789abcdef0000", "0123456789abcdef1111", "not hex at all", "fedcba9876543210ffff"]
    assert id_keys(ids[:2])[0] == id_keys(ids[:2])[1]
    table = pa.table({
        "game_id": ids, "source_id": ["a", None, "c", "d"], "file": ["f.jsonl"] * 4,
        "winners": [[0], [1], [0, 1], [2]], "scores": [[3, 1], [1, 3], [2, 2], [1, 1, 5]],
    })
    stored = StoredGames(table)
    assert stored["0123456789abcdef1111"] == StoredGame((1, 3), (1,), None, "f.jsonl")
    assert stored["0123456789abcdef0000"] == StoredGame((3, 1), (0,), "a", "f.jsonl")
    assert stored["not hex at all"].winners == (0, 1)
    assert "0123456789abcdef2222" not in stored
    assert list(stored) == ids and len(stored) == 4
    assert len(StoredGames()) == 0 and "x" not in StoredGames()


def test_a_lake_checks_copies_of_its_games_as_the_database_does(tmp_path: Path) -> None:
    """A copy of a game already in a lake, with a wrong result or another source id, is a rejection
    row of the lake, not a silent skip; an agreeing copy is skipped."""
    from ingest.importer import import_paths

    lake = tmp_path / "lake"
    first = import_paths([SJ / NAME], str(lake), lake=True, workers=1)
    assert (first.imported, first.duplicates, first.rejected) == (1, 0, 0)
    copies = tmp_path / "copies"
    copies.mkdir()
    (copies / "a-wrong.json").write_text(json.dumps(wrong_result()))
    (copies / "b-other.json").write_text(json.dumps(other_source()))
    (copies / "c-same.json").write_text(json.dumps(sample(NAME)))
    summary = import_paths([copies], str(lake), lake=True, workers=1)
    assert (summary.imported, summary.duplicates, summary.rejected) == (0, 1, 2)
    assert summary.messages == [
        f"{copies / 'a-wrong.json'}, game 1: result.scores: the log records [20, 33, 31] but the replay scores [20, 33, 30]",
        f"{copies / 'b-other.json'}, game 1: source_id: this game is already stored with source id "
        f"'sim-san_juan-2026-000001' (from {SJ / NAME}), not 'bga-123'",
    ]
    from ingest.db import reader

    with reader(lake) as con:
        assert sorted(con.execute("SELECT kind, rule FROM rejections").fetchall()) == [
            ("duplicate", "source_id"), ("result", "result.scores"),
        ]
        assert con.execute("SELECT count(*) FROM players").fetchall() == [(3,)]
