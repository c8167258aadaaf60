"""ingest/export.py: ``governor export --parquet DIR`` writes only its own files, each complete, and
never through a link or a file planted at a name it could guess."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ingest.db import reader
from ingest.export import run_export
from ingest.schema import table_schemas


def _tables(db: Path) -> list[str]:
    with reader(str(db)) as con:
        present = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    return [name for name in table_schemas() if name in present]


def test_planted_links_at_the_old_temporary_names_are_never_written_through(
        sample_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out = tmp_path / "out"
    out.mkdir()
    planted = [".players.parquet.part", ".games.parquet.part", ".games.jsonl.part", "players.parquet.part"]
    for name in planted:
        (out / name).symlink_to(victim)
    assert run_export(str(sample_db), out, games=True) == 0
    assert victim.read_text() == "precious\n"
    tables = _tables(sample_db)
    # The planted links are not the export's: left as they were, beside every table and the logs.
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [*planted, *(f"{t}.parquet" for t in tables), "games.jsonl"])
    assert all(os.readlink(out / name) == str(victim) for name in planted)
    assert pq.read_table(out / "players.parquet").num_rows > 0
    assert capsys.readouterr().err.splitlines()[1] == f"players: {pq.read_table(out / 'players.parquet').num_rows} rows -> {out}/players.parquet"


def test_a_link_at_a_tables_own_name_is_replaced_not_followed(sample_db: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "games.parquet").symlink_to(victim)
    (out / "games.jsonl").symlink_to(victim)
    assert run_export(str(sample_db), out, games=True) == 0
    assert victim.read_text() == "precious\n"
    for name in ("games.parquet", "games.jsonl"):
        assert not (out / name).is_symlink() and (out / name).is_file()
    assert pq.read_table(out / "games.parquet").num_rows == 30
    assert len((out / "games.jsonl").read_text().splitlines()) == 30
