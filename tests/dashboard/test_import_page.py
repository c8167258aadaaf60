"""The Import page: uploads written under generated names, size limits, duplicates and rejections."""

from __future__ import annotations

import gzip
from pathlib import Path

from dashboards.uploads import MAX_FILE_BYTES, check_upload, import_uploads, log_suffix

from .conftest import alerts

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs" / "san_juan"


def test_upload_names_never_become_paths() -> None:
    assert log_suffix("../../etc/evil.JSON") == ".json"
    assert log_suffix("games.jsonl.gz") == ".jsonl.gz"
    assert log_suffix("notes.txt") is None
    assert "not a log file" in check_upload("notes.txt", b"{}")
    assert ".json.gz or .jsonl.gz" in check_upload("x.gz", b"123")
    assert "empty" in check_upload("a.json", b"  ")
    assert "limit of 50 MB" in check_upload("a.json", b" " * (MAX_FILE_BYTES + 1))


def test_import_uploads_counts_imports_duplicates_and_rejections(dash_db_copy: Path, tmp_path: Path, sql) -> None:
    fresh = tmp_path / "fresh.duckdb"
    sample = sorted(SAMPLES.glob("*.json"))[:2]
    files = [("../../../tmp/evil name.json", sample[0].read_bytes()),
             ("second.json.gz", gzip.compress(sample[1].read_bytes())),
             ("broken.json", b'{"format": "governor-log", "game": "san_juan"'),
             ("readme.txt", b"hello")]
    report = import_uploads(files, str(fresh))
    assert report.error is None
    assert report.imported == 2 and report.duplicates == 0 and report.rejected == 1
    assert report.refused == [("readme.txt", "not a log file (.json, .jsonl, .json.gz or .jsonl.gz)")]
    assert len(report.messages) == 1 and "broken.json" in report.messages[0]
    assert not Path("/tmp/evil name.json").exists()
    assert sql(fresh, "SELECT count(*) FROM games")[0][0] == 2
    # The database records the uploaded names, never the temporary paths.
    assert sql(fresh, "SELECT file FROM rejections") == [("broken.json",)]
    assert sorted(sql(fresh, "SELECT file FROM games")) == [("../../../tmp/evil name.json",), ("second.json.gz",)]
    again = import_uploads(files[:1], str(fresh))
    assert again.imported == 0 and again.duplicates == 1


def test_import_page_uploads_and_reports(dash_db_copy: Path, open_page, sql) -> None:
    at = open_page(dash_db_copy, "views/import_logs.py")
    before = sql(dash_db_copy, "SELECT count(*) FROM games")[0][0]
    log = sorted(SAMPLES.glob("*.json"))[0].read_bytes()
    at.file_uploader(key="import_files").set_value(
        [("dup.json", log, "application/json"), ("bad.json", b"{not json", "application/json")]
    )
    at.run()
    at.button(key="import_run").click().run()
    assert not at.exception
    values = {m.label: m.value for m in at.metric}
    assert values["Imported"] == "0" and values["Duplicates skipped"] == "1" and values["Rejected"] == "1"
    assert any("bad.json" in e for e in alerts(at, "error"))
    assert sql(dash_db_copy, "SELECT count(*) FROM games")[0][0] == before
