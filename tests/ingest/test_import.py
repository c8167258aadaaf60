"""Importing logs: exact row counts, idempotence, rejections, schema versions, query and export."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import threading
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from ingest.db import DatabaseError
from ingest.importer import import_paths
from ingest.schema import SCHEMA_VERSION
from replay.log_reader import read_records

ROOT = Path(__file__).resolve().parents[2]
SJ = ROOT / "sample_logs" / "san_juan"


def _count(db: Path, sql: str) -> int:
    with duckdb.connect(str(db), read_only=True) as con:
        return int(con.execute(sql).fetchall()[0][0])


def _expected_counts(files: list[Path]) -> dict[str, int]:
    games = [json.loads(p.read_text()) for p in files]
    moves = sum(len(g["moves"]) for g in games)
    return {
        "games": len(games),
        "players": sum(len(g["players"]) for g in games),
        "moves": moves,
        "san_juan_states": moves + len(games),
        "san_juan_player_states": sum((len(g["moves"]) + 1) * len(g["players"]) for g in games),
    }


def test_import_stores_every_row(sample_db: Path) -> None:
    expected = _expected_counts(sorted(SJ.glob("*.json")))
    for table, count in expected.items():
        assert _count(sample_db, f"SELECT count(*) FROM {table}") == count, table
    assert _count(sample_db, "SELECT count(*) FROM rejections") == 0
    # One row per (game, step, seat), and the stored final VP equals the players table's score.
    assert _count(sample_db, "SELECT count(*) - count(DISTINCT (game_id, step, seat)) FROM san_juan_player_states") == 0
    assert _count(sample_db, """
        SELECT count(*) FROM players p JOIN games g USING (game_id)
        JOIN san_juan_player_states s ON s.game_id = p.game_id AND s.seat = p.seat AND s.step = g.moves
        WHERE s.vp <> p.score""") == 0


def test_stored_result_matches_recorded_result(sample_db: Path) -> None:
    with duckdb.connect(str(sample_db), read_only=True) as con:
        rows = con.execute("SELECT log, winners FROM games").fetchall()
        scores = dict(con.execute("SELECT game_id, list(score ORDER BY seat) FROM players GROUP BY game_id").fetchall())
        ids = [r[0] for r in con.execute("SELECT game_id FROM games").fetchall()]
    for (log, winners), game_id in zip(rows, ids):
        obj = json.loads(log)
        assert obj["result"]["winners"] == list(winners)
        assert obj["result"]["scores"] == scores[game_id]


def test_reimport_adds_nothing(sample_db_copy: Path) -> None:
    before = _count(sample_db_copy, "SELECT count(*) FROM san_juan_player_states")
    summary = import_paths([SJ], sample_db_copy, workers=2)
    assert (summary.imported, summary.duplicates, summary.rejected) == (0, 30, 0)
    assert _count(sample_db_copy, "SELECT count(*) FROM games") == 30
    assert _count(sample_db_copy, "SELECT count(*) FROM san_juan_player_states") == before


def _bad_batch(folder: Path) -> dict[str, str]:
    """Good games mixed with one bad game of each kind; returns the expected message by file name."""
    files = sorted(SJ.glob("*.json"))
    good = [json.loads(p.read_text()) for p in files[:5]]
    lines = [json.dumps(g) for g in good[:2]]
    lines.insert(1, '{"format": "governor-log", "version": 1, "game": "san_juan", ')  # truncated JSON
    (folder / "mixed.jsonl").write_text("\n".join(lines) + "\n")
    illegal = json.loads(json.dumps(good[2]))
    first_build = next(i for i, m in enumerate(illegal["moves"]) if m["kind"] == "build" and m["pay"])
    illegal["moves"][first_build]["pay"] = illegal["moves"][first_build]["pay"][:-1] or []
    (folder / "illegal.json").write_text(json.dumps(illegal))
    unknown = json.loads(json.dumps(good[3]))
    unknown["setup"]["deck"][0] = "Space station"
    (folder / "unknown.json").write_text(json.dumps(unknown))
    wrong = json.loads(json.dumps(good[4]))
    wrong["result"]["scores"][0] += 1
    (folder / "wrong_result.json").write_text(json.dumps(wrong))
    (folder / "duplicate.json.gz").write_bytes(gzip.compress(json.dumps(good[0]).encode()))
    (folder / "good.json").write_text(json.dumps(good[3]))
    return {"illegal": f"move {first_build + 1}", "unknown": "unknown card 'Space station'"}


def test_bad_games_are_rejected_once_and_good_ones_kept(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    hints = _bad_batch(logs)
    db = tmp_path / "mixed.duckdb"
    summary = import_paths([logs], db, workers=2)
    assert summary.games == 8
    assert summary.imported == 3  # the two good games of the .jsonl file and good.json
    assert summary.duplicates == 1
    assert summary.rejected == 4
    with duckdb.connect(str(db), read_only=True) as con:
        rejected = con.execute(
            "SELECT file, game_index, kind, move_number, rule, message FROM rejections ORDER BY file, game_index"
        ).fetchall()
        stored = con.execute("SELECT count(*) FROM games").fetchall()[0][0]
        orphan_moves = con.execute("SELECT count(*) FROM moves WHERE game_id NOT IN (SELECT game_id FROM games)").fetchall()[0][0]
    assert stored == 3
    assert orphan_moves == 0
    by_file = {Path(r[0]).name: r for r in rejected}
    assert sorted(by_file) == ["illegal.json", "mixed.jsonl", "unknown.json", "wrong_result.json"]
    assert by_file["mixed.jsonl"][1] == 1 and by_file["mixed.jsonl"][2] == "format"
    assert "malformed JSON" in by_file["mixed.jsonl"][5]
    assert by_file["illegal.json"][2] == "illegal"
    assert by_file["illegal.json"][4] == "builder.cost"
    assert hints["illegal"] in by_file["illegal.json"][5]
    assert by_file["unknown.json"][4] == "setup.deck[0]"
    assert hints["unknown"] in by_file["unknown.json"][5]
    assert by_file["wrong_result.json"][2] == "result"
    assert by_file["wrong_result.json"][4] == "result.scores"
    # Importing the same batch again records no rejection twice and stores nothing new.
    again = import_paths([logs], db, workers=1)
    assert (again.imported, again.duplicates, again.rejected) == (0, 4, 4)
    assert _count(db, "SELECT count(*) FROM rejections") == 4
    assert _count(db, "SELECT count(*) FROM games") == 3


def test_rejections_are_reported_as_they_come_and_a_summary_keeps_a_bounded_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ingest import pipeline as importer

    logs = tmp_path / "logs"
    logs.mkdir()
    _bad_batch(logs)
    monkeypatch.setattr(importer, "KEPT_MESSAGES", 2)
    heard: list[str] = []
    problems: list[str] = []
    summary = import_paths([logs, tmp_path / "nothing-here"], tmp_path / "b.duckdb", workers=1,
                           on_rejection=heard.append, on_problem=problems.append, keep_ids=False)
    assert problems == summary.problems == [f"no such file or folder: {tmp_path / 'nothing-here'}"]
    # Every rejection is heard, once; the summary keeps the first two and counts them all; no ids.
    assert summary.rejected == len(heard) == 4 and summary.messages == heard[:2]
    with duckdb.connect(str(tmp_path / "b.duckdb"), read_only=True) as con:
        assert sorted(heard) == sorted(r[0] for r in con.execute("SELECT message FROM rejections").fetchall())
    assert summary.imported == 3 and summary.game_ids == []
    kept = import_paths([logs], tmp_path / "c.duckdb", workers=1)
    with duckdb.connect(str(tmp_path / "c.duckdb"), read_only=True) as con:
        assert sorted(kept.game_ids) == sorted(r[0] for r in con.execute("SELECT game_id FROM games").fetchall())
    assert len(kept.game_ids) == 3


def test_a_message_printed_during_the_progress_bar_clears_its_line() -> None:
    import io

    from ingest.progress import Progress

    stream = io.StringIO()
    printed: list[str] = []
    bar = Progress(10, True, stream)
    bar.update(4, 0, 0)
    write = bar.printer(printed.append)
    assert write is not None and Progress(10, False).printer(None) is None
    write("bad game")
    bar.update(5, 1, 0)  # drawn again at once, under the message
    assert printed == ["bad game"]
    assert stream.getvalue() == (
        "\r[############------------------] 4/10 games  "
        + stream.getvalue().split("games  ")[1].split("rejected")[0] + "rejected 0  duplicates 0 "
        + "\r\x1b[2K"
        + "\r[###############---------------] 5/10 games  "
        + stream.getvalue().split("games  ")[2].split("rejected")[0] + "rejected 1  duplicates 0 "
    )


def test_cli_import_exit_status_and_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # In this process (a started interpreter costs about a second of CPU): the command's status and
    # lines are what is checked.
    from governor.cli import main

    logs = tmp_path / "logs"
    logs.mkdir()
    _bad_batch(logs)
    db = tmp_path / "cli.duckdb"
    assert main(["import", str(logs), "--db", str(db), "--progress", "always"]) == 1
    stderr = capsys.readouterr().err
    assert "3 imported, 1 duplicates skipped, 4 rejected" in stderr
    assert "8/8 games" in stderr
    assert stderr.count("rejected: ") == 4
    assert main(["import", str(SJ / "san_juan-2p-seed2026-0000.json"), "--db", str(db)]) == 0, capsys.readouterr().err


def test_default_database_is_governor_db_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from governor.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GOVERNOR_DB", str(tmp_path / "env.duckdb"))
    assert main(["import", str(SJ / "san_juan-2p-seed2026-0000.json")]) == 0, capsys.readouterr().err
    assert (tmp_path / "env.duckdb").exists()
    monkeypatch.delenv("GOVERNOR_DB")
    assert main(["import", str(SJ / "san_juan-2p-seed2026-0000.json")]) == 0, capsys.readouterr().err
    assert (tmp_path / "governor.duckdb").exists()


def test_newer_schema_is_refused(sample_db_copy: Path) -> None:
    with duckdb.connect(str(sample_db_copy)) as con:
        con.execute("UPDATE governor_meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(DatabaseError) as err:
        import_paths([SJ / "san_juan-2p-seed2026-0000.json"], sample_db_copy, workers=1)
    assert str(err.value) == (
        f"{sample_db_copy}: the database has schema version 99, newer than this governor's {SCHEMA_VERSION}; "
        "upgrade governor to use it"
    )


def test_foreign_database_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "other.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("CREATE TABLE customers (id INTEGER)")
    with pytest.raises(DatabaseError, match="not a Governor database"):
        import_paths([SJ / "san_juan-2p-seed2026-0000.json"], db, workers=1)


def test_query_formats(sample_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from governor.cli import main

    def query(*args: str) -> subprocess.CompletedProcess[str]:
        """``governor query ARGS`` in this process: its status and output."""
        code = main(["query", *args, "--db", str(sample_db)])
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["governor", "query", *args], code, out, err)

    table = query("SELECT player_count, count(*) AS n FROM games GROUP BY 1 ORDER BY 1")
    assert table.returncode == 0
    assert table.stdout.splitlines() == [
        "player_count | n ", "-------------+---", "2            | 10", "3            | 10", "4            | 10", "(3 rows)",
    ]
    csv_out = query("SELECT player_count, count(*) AS n FROM games GROUP BY 1 ORDER BY 1", "--format", "csv")
    assert csv_out.stdout.splitlines() == ["player_count,n", "2,10", "3,10", "4,10"]
    js = query("SELECT count(*) AS n FROM moves", "--format", "json")
    assert json.loads(js.stdout) == [{"n": _count(sample_db, "SELECT count(*) FROM moves")}]
    out = tmp_path / "q.parquet"
    pq_run = query("SELECT * FROM players", "--format", "parquet", "--out", str(out))
    assert pq_run.returncode == 0
    assert pq.read_table(out).num_rows == 90
    bad = query("SELECT nope FROM games")
    assert bad.returncode == 1
    assert 'Referenced column "nope" not found' in bad.stderr


def test_query_table_shows_a_bounded_part_of_a_large_result(sample_db: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from ingest import query as cli
    from ingest import query_output

    monkeypatch.setattr(query_output, "TABLE_MAX_ROWS", 3)
    monkeypatch.setattr(cli, "QUERY_BATCH_ROWS", 2)
    code = cli.run_query("SELECT i, repeat('x', 250) AS long FROM range(7) t(i) ORDER BY i", str(sample_db))
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    cut = "x" * 199 + "…"
    assert lines == [
        "i | long" + " " * 196, "--+-" + "-" * 200, f"0 | {cut}", f"1 | {cut}", f"2 | {cut}",
        "(3 of 7 rows shown; --format csv or json, or parquet with --out FILE, writes every row)",
    ]
    monkeypatch.setattr(query_output, "TABLE_MAX_ROWS", 7)
    assert cli.run_query("SELECT i FROM range(7) t(i) ORDER BY i", str(sample_db)) == 0
    assert capsys.readouterr().out.splitlines()[-2:] == ["6", "(7 rows)"]


def test_export_parquet(sample_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from governor.cli import main

    out = tmp_path / "export"
    assert main(["export", "--parquet", str(out), "--db", str(sample_db), "--games"]) == 0, capsys.readouterr().err
    for table in ("games", "players", "moves", "rejections", "san_juan_states", "san_juan_player_states"):
        assert pq.read_table(out / f"{table}.parquet").num_rows == _count(sample_db, f"SELECT count(*) FROM {table}")
    # The exported logs import again as the very same games.
    records = list(read_records(out / "games.jsonl"))
    assert len(records) == 30 and all(r.error is None for r in records)
    db2 = tmp_path / "again.duckdb"
    summary = import_paths([out / "games.jsonl"], db2, workers=1)
    assert summary.imported == 30
    with duckdb.connect(str(db2), read_only=True) as a, duckdb.connect(str(sample_db), read_only=True) as b:
        assert sorted(a.execute("SELECT game_id FROM games").fetchall()) == sorted(b.execute("SELECT game_id FROM games").fetchall())


def test_query_results_are_written_batch_by_batch(sample_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from ingest import query as cli

    monkeypatch.setattr(cli, "QUERY_BATCH_ROWS", 4)  # 90 players: 23 batches
    sql = "SELECT game_id, seat, name, score, final_buildings FROM players ORDER BY game_id, seat"
    with duckdb.connect(str(sample_db), read_only=True) as con:
        expected = con.sql(sql).to_arrow_table()
    # JSON: exactly what json.dump of the whole list with indent=1 writes.
    assert cli.run_query(sql, str(sample_db), "json") == 0
    assert capsys.readouterr().out == json.dumps(expected.to_pylist(), indent=1, default=str, ensure_ascii=False) + "\n"
    assert cli.run_query("SELECT 1 AS a WHERE false", str(sample_db), "json") == 0
    assert capsys.readouterr().out == "[]\n"
    # CSV by position: two columns may share a name.
    assert cli.run_query("SELECT 1 AS a, 2 AS a", str(sample_db), "csv") == 0
    assert capsys.readouterr().out.splitlines() == ["a,a", "1,2"]
    out = tmp_path / "players.parquet"
    assert cli.run_query(sql, str(sample_db), "parquet", str(out)) == 0
    assert pq.read_table(out).equals(expected) and capsys.readouterr().err == f"wrote 90 rows to {out}\n"
    # A query that fails after its first batches: an error, exit 1, and no half-written file.
    failing = "SELECT CASE WHEN i > 3000 THEN error('boom at ' || i) ELSE i END AS x FROM range(5000) t(i)"
    for fmt in ("csv", "json", "parquet"):
        partial = tmp_path / f"failing.{fmt}"
        assert cli.run_query(failing, str(sample_db), fmt, str(partial)) == 1
        assert capsys.readouterr().err == "governor query: Invalid Input Error: boom at 3001\n"
        assert not partial.exists()
    # An output that cannot be written: exit 2 with the reason.
    assert cli.run_query(sql, str(sample_db), "csv", str(tmp_path / "no" / "such" / "x.csv")) == 2
    assert capsys.readouterr().err == f"governor query: cannot write {tmp_path / 'no' / 'such' / 'x.csv'}: No such file or directory\n"


def test_export_streams_every_table_in_batches_unchanged(sample_db: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from ingest import export as cli_export

    monkeypatch.setattr(cli_export, "EXPORT_BATCH_ROWS", 7)  # many batches per table, a last one cut short
    monkeypatch.setattr(cli_export, "EXPORT_BATCH_LOGS", 4)
    assert cli_export.run_export(str(sample_db), tmp_path / "out", games=True) == 0
    with duckdb.connect(str(sample_db), read_only=True) as con:
        for table in ("games", "players", "moves", "san_juan_states", "san_juan_player_states", "rejections"):
            written = pq.read_table(tmp_path / "out" / f"{table}.parquet")
            assert written.equals(con.sql(f"SELECT * FROM {table}").to_arrow_table()), table
        logs = [r[0].strip() for r in con.execute("SELECT log FROM games ORDER BY file, file_index").fetchall()]
    lines = (tmp_path / "out" / "games.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [json.loads(text) for text in logs] and len(lines) == 30


def test_views_answer_the_common_questions(sample_db: Path) -> None:
    with duckdb.connect(str(sample_db), read_only=True) as con:
        seats = con.execute("SELECT sum(games), sum(wins) FROM win_rate_by_seat").fetchall()[0]
        winners = con.execute("SELECT count(*) FROM players WHERE won").fetchall()[0][0]
        assert seats == (90, winners)
        lengths = con.execute("SELECT sum(games) FROM game_length").fetchall()[0][0]
        assert lengths == 30
        roles = con.execute("SELECT sum(choices) FROM win_rate_by_role").fetchall()[0][0]
        assert roles == con.execute("SELECT count(*) FROM moves WHERE kind = 'role'").fetchall()[0][0]
        owners = con.execute("SELECT sum(owners) FROM win_rate_by_building WHERE building = 'Indigo plant'").fetchall()[0][0]
        assert owners == con.execute(
            "SELECT count(*) FROM players WHERE list_contains(final_buildings, 'Indigo plant')"
        ).fetchall()[0][0]
        built = con.execute("SELECT sum(builders) FROM win_rate_by_building_round").fetchall()[0][0]
        assert built == con.execute(
            "SELECT count(*) FROM (SELECT DISTINCT game_id, seat, json_extract_string(details, '$.building') FROM moves WHERE kind = 'build')"
        ).fetchall()[0][0]
        assert con.execute("SELECT sum(players) FROM score_distribution").fetchall()[0][0] == 90
        assert con.execute("SELECT count(*) FROM vp_by_step").fetchall()[0][0] == con.execute(
            "SELECT count(*) FROM san_juan_player_states").fetchall()[0][0]


def test_batches_stay_row_groups_of_their_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Merging small row groups at checkpoints rewrote many batches' logs at once (the import's memory
    # grew with its size): each batch of 4 games must stay one row group of `games`.
    import ingest.duckdb_store

    monkeypatch.setattr(ingest.duckdb_store, "WRITE_BATCH", 4)
    files = sorted(SJ.glob("*.json"))
    db = tmp_path / "g.duckdb"
    summary = import_paths(files, db, workers=1)
    assert summary.imported == len(files) == 30
    assert _count(db, "SELECT count(DISTINCT row_group_id) FROM pragma_storage_info('games')") == 8
    assert _count(db, "SELECT count(*) FROM games") == 30
    from ingest.db import writer

    with writer(db) as con:
        assert con.execute("SELECT current_setting('max_vacuum_tasks')").fetchall() == [(0,)]
        # the import draws its own progress bar; DuckDB's, on the same terminal, broke its lines
        assert con.execute("SELECT current_setting('enable_progress_bar')").fetchall() == [(False,)]


def test_views_are_made_again_when_the_schema_digest_differs(sample_db_copy: Path) -> None:
    from ingest.db import writer

    with duckdb.connect(str(sample_db_copy)) as con:
        con.execute("DROP VIEW game_length")
    with writer(sample_db_copy):  # the digest is this build's: nothing is made
        pass
    assert _count(sample_db_copy, "SELECT count(*) FROM duckdb_views() WHERE view_name = 'game_length'") == 0
    with duckdb.connect(str(sample_db_copy)) as con:
        con.execute("UPDATE governor_meta SET value = 'another build' WHERE key = 'schema_digest'")
    with writer(sample_db_copy):
        pass
    assert _count(sample_db_copy, "SELECT count(*) FROM duckdb_views() WHERE view_name = 'game_length'") == 1
    assert _count(sample_db_copy, "SELECT count(*) FROM game_length") > 0


def test_the_games_are_counted_ahead_only_for_a_progress_bar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Counting reads every file once more (minutes on a million games that do not fit the page cache).
    from ingest import pipeline as importer

    counted: list[Path] = []
    real = importer.count_games

    def spy(file: Path) -> int:
        counted.append(file)
        return real(file)

    monkeypatch.setattr(importer, "count_games", spy)
    log = SJ / "san_juan-2p-seed2026-0000.json"
    assert import_paths([log], tmp_path / "quiet.duckdb", workers=1, progress=False).imported == 1
    assert counted == []
    assert import_paths([log], tmp_path / "bar.duckdb", workers=1, progress=True).imported == 1
    for thread in threading.enumerate():  # the count runs beside the import
        if thread.name == "governor-count":
            thread.join(timeout=30)
    assert counted == [log]


def test_the_bar_shows_the_games_done_until_they_are_counted() -> None:
    import io
    import re

    from ingest.progress import Progress

    stream = io.StringIO()
    bar = Progress(None, True, stream)
    bar.update(3, 0, 0)
    bar.set_total(10)
    bar.last_draw = 0.0
    bar.update(4, 0, 1)
    bar.close()
    rate = re.compile(r"  [\d,]+ games/s  ")
    assert rate.sub("  R games/s  ", stream.getvalue()) == (
        "\r[" + "?" * 30 + "] 3/? games (counting)  R games/s  rejected 0  duplicates 0 "
        "\r[############------------------] 4/10 games  R games/s  rejected 0  duplicates 1 "
        "\r[############------------------] 4/10 games  R games/s  rejected 0  duplicates 1 \n"
    )
    # An import done before its count: the games done are all there were.
    quick = Progress(None, True, io.StringIO())
    quick.update(2, 0, 0)
    quick.close()
    assert quick.total == 2


def test_a_new_file_has_small_blocks_and_a_one_game_import_adds_little(tmp_path: Path) -> None:
    # Each commit writes the tables it appended to into blocks of their own: with DuckDB's 256 KiB
    # blocks a one-game import (a dashboard upload) added about 2.6 MB to the file.
    files = sorted(SJ.glob("*.json"))
    db = tmp_path / "g.duckdb"
    assert import_paths(files[:-1], db, workers=1).imported == 29
    assert _count(db, "SELECT block_size FROM pragma_database_size()") == 65536
    before = db.stat().st_size
    assert import_paths(files[-1:], db, workers=1).imported == 1
    assert db.stat().st_size - before <= 1024 * 1024
    assert _count(db, "SELECT count(*) FROM games") == 30


def test_a_file_made_with_other_blocks_keeps_them(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    duckdb.connect(str(db)).close()  # DuckDB's default, 256 KiB
    files = sorted(SJ.glob("*.json"))
    assert import_paths(files[:3], db, workers=1).imported == 3
    assert import_paths(files[3:5], db, workers=1).imported == 2
    assert _count(db, "SELECT block_size FROM pragma_database_size()") == 262144
    assert _count(db, "SELECT count(*) FROM games") == 5


def test_a_worker_lays_out_a_chunk_with_the_collector_paused_and_leaves_no_cycle() -> None:
    """``_work`` pauses the cycle collector (its rows make no cycles, and its passes over them cost a
    fifth of a worker's time): the chunk's tables come out whole, nothing is left for the collector,
    and the collector is on again afterwards, or still off when it was off. Run in a fresh interpreter: another test's thread (a
    module still importing in the background) would leave garbage of its own meanwhile."""
    code = """
import gc, sys
from pathlib import Path
from ingest import rows
from ingest.duckdb_store import _work
from replay.log_reader import read_records
seen = []
real = rows.process
def process(*args):
    seen.append(gc.isenabled())
    return real(*args)
rows.process = process
records = [r for path in sorted(Path("sample_logs").rglob("*.json"))[:6] for r in read_records(path)]
_work(records[:1])  # the first game builds the schemas and caches kept for later ones
gc.collect()
tables, game_ids, skipped, count = _work(records)
print(len(game_ids), skipped, count, tables["games"].num_rows,
      tables["moves"].num_rows == sum(len(r.log.moves) for r in records), gc.isenabled(), gc.collect(), seen)
gc.disable()
_work(records[:2])
print("still off" if not gc.isenabled() else "turned on")
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["6 0 6 6 True True 0 [False, False]", "still off"]
