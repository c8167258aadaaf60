"""The bad-input corpus (tests/replay/bad_logs): each log is rejected with its own clear message, and
importing the whole corpus stores no game and exactly one rejection per bad game."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from ingest.importer import import_paths
from replay.errors import GovernorError
from replay.log_reader import read_records
from replay.replayer import final_state

CORPUS = Path(__file__).resolve().parent / "bad_logs" / "logs"
EXPECTED: dict[str, dict[str, str | None]] = json.loads((CORPUS.parent / "expected.json").read_text())


def rejection(path: Path) -> GovernorError:
    records = list(read_records(path))
    assert len(records) == 1, f"{path.name}: one game per corpus file"
    record = records[0]
    if record.error is not None:
        return record.error
    assert record.log is not None
    with pytest.raises(GovernorError) as err:
        final_state(record.log)
    return err.value


def test_corpus_is_large_enough() -> None:
    assert len(EXPECTED) >= 60
    assert sorted(EXPECTED) == sorted(p.name for p in CORPUS.iterdir())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_bad_log_is_rejected_with_its_message(name: str) -> None:
    spec = EXPECTED[name]
    error = rejection(CORPUS / name)
    record = error.as_record()
    assert record["kind"] == spec["kind"], error.message
    if spec["rule"] is not None:
        assert record["rule"] == spec["rule"], error.message
    assert spec["contains"] in error.message
    # Every message says which file it is about.
    assert str(CORPUS / name) in error.message
    if record["kind"] == "illegal":
        assert f"move {record['move_number']}" in error.message
        assert "[rule " in error.message


def test_messages_are_distinct() -> None:
    messages = [rejection(CORPUS / name).message.split(": ", 1)[1] for name in sorted(EXPECTED)]
    assert len(set(messages)) == len(messages)


def test_importing_the_corpus_stores_nothing_but_rejections(tmp_path: Path) -> None:
    db = tmp_path / "bad.duckdb"
    summary = import_paths([CORPUS], db, workers=2)
    assert (summary.imported, summary.rejected) == (0, len(EXPECTED))
    with duckdb.connect(str(db), read_only=True) as con:
        for table in ("games", "players", "moves", "san_juan_states", "san_juan_player_states"):
            assert con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0] == 0, table
        rows = con.execute("SELECT file, kind, rule, message FROM rejections").fetchall()
    assert len(rows) == len(EXPECTED)
    for file, kind, rule, message in rows:
        spec = EXPECTED[Path(file).name]
        assert kind == spec["kind"]
        if spec["rule"] is not None:
            assert rule == spec["rule"]
        assert spec["contains"] in message


def test_huge_game_is_refused_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    path.write_bytes(b'{"format": "governor-log", "meta": {"pad": "' + b"x" * (17 * 1024 * 1024) + b'"}}')
    error = rejection(path)
    assert error.message == f"{path}, game 1: game is {path.stat().st_size} bytes, more than the limit of 16777216"
