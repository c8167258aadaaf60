"""The Import page: uploads received a chunk at a time to disk by the dashboard's route ``PUT /upload``
(bounded as they arrive: size as uploaded and expanded, games, files), written under generated names,
files that are not JSON refused as files, an honest time limit, links to Replay."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from dashboards import upload_box, upload_files, upload_route, uploads
from dashboards.upload_files import MAX_FILE_BYTES, check_upload, log_suffix
from dashboards.uploads import import_uploads

from .conftest import alerts

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs" / "san_juan"
PR_SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs" / "puerto_rico"


def jsonl(folder: Path) -> bytes:
    """Every sample log of ``folder`` as one .jsonl file."""
    return b"".join(json.dumps(json.loads(p.read_bytes())).encode() + b"\n" for p in sorted(folder.glob("*.json")))


def test_upload_names_never_become_paths() -> None:
    assert log_suffix("../../etc/evil.JSON") == ".json"
    assert log_suffix("games.jsonl.gz") == ".jsonl.gz"
    assert log_suffix("notes.txt") is None
    assert "not a log file" in check_upload("notes.txt", b"{}")
    assert ".json.gz or .jsonl.gz" in check_upload("x.gz", b"123")
    assert "empty" in check_upload("a.json", b"  ")
    assert "limit of 50 MB" in check_upload("a.json", b" " * (MAX_FILE_BYTES + 1))


def test_files_that_are_not_json_are_refused_with_the_reason() -> None:
    assert check_upload("bad.json", b"{not json") == (
        "not JSON: Expecting property name enclosed in double quotes at line 1 column 2"
    )
    assert check_upload("bad.jsonl", b"abc\n\ndef\n") == (
        "not JSON lines: no line is JSON (line 1: Expecting value at line 1 column 1)"
    )
    assert check_upload("bin.json", b"\xff\xfe{}") == "not UTF-8 text (byte 0xff at offset 0)"
    assert check_upload("x.json.gz", b"hello") == "not gzip data (Error -3 while decompressing data: incorrect header check)"
    assert check_upload("x.json.gz", gzip.compress(b'{"a": 1}')[:-6]) == "the gzip data is cut short"
    # One bad line among good ones is a rejected game, not a refused file.
    assert check_upload("mixed.jsonl", b"{}\nnot json\n") is None


def test_decompression_is_bounded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bomb = gzip.compress(b" " * (16 * 2**20 + 1))  # 16 kB that expand past the limit per game
    assert check_upload("bomb.json.gz", bomb) == "expands to more than 16 MB, the limit per game (a .json file holds one game)"
    packed, expanded = tmp_path / "bomb.gz", tmp_path / "bomb"
    packed.write_bytes(bomb)
    assert upload_files._gunzip_file(packed, expanded, 1001) == 1001  # never more than the limit + 1 written
    assert expanded.stat().st_size == 1001
    monkeypatch.setattr(upload_files, "MAX_EXPANDED_BYTES", 2**20)  # the limit per .jsonl file (200 MB), made small
    lines = gzip.compress(b"\n" * (2**20 + 1))
    assert check_upload("bomb.jsonl.gz", lines) == "expands to more than 1 MB, the limit per .jsonl file"
    # Members of a multi-member gzip file are all read.
    two = gzip.compress(b'{"a": 1}\n') + gzip.compress(b'{"b": 2}\n')
    assert upload_files.spool_upload(upload_files.BytesSource("two.jsonl.gz", two), tmp_path, 1).games == 2
    assert (tmp_path / "upload-001.jsonl").read_bytes() == b'{"a": 1}\n{"b": 2}\n'
    # Zero padding after the last member is allowed.
    assert check_upload("pad.jsonl.gz", two + b"\x00" * 100) is None


def test_games_per_upload_are_capped() -> None:
    # 200,000 lines of "{}" (600 kB) used to make 200,000 rejections and messages.
    assert check_upload("many.jsonl", b"{}\n" * 200_000) == (
        "more than 10,000 games (non-empty lines), the most one upload may hold: split the file or import it "
        "with governor import"
    )


def test_an_upload_is_capped_across_its_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(upload_files, "MAX_GAMES", 3)
    monkeypatch.setattr(upload_box, "MAX_GAMES", 3)
    report = import_uploads([("a.jsonl", b"{}\n{}\n"), ("b.jsonl", b"{}\n{}\n")], str(tmp_path / "db.duckdb"))
    assert report.refused == [("b.jsonl", "the upload would hold more than 3 games: import this file separately")]
    assert report.rejected == 2


def test_rejection_messages_are_capped_with_a_summary(tmp_path: Path, sql) -> None:
    db = tmp_path / "db.duckdb"
    report = import_uploads([("bad.jsonl", b"{}\n" * 300)], str(db))
    assert report.error is None and report.rejected == 300 and report.imported == 0
    assert len(report.messages) == 20 and all(m.startswith("bad.jsonl") for m in report.messages)
    assert report.messages_note() == "300 games rejected: the first 20 messages are shown (all are in the rejections table)."
    assert sql(db, "SELECT count(*) FROM rejections")[0][0] == 300


def test_import_uploads_counts_imports_duplicates_and_rejections(tmp_path: Path, sql) -> None:
    fresh = tmp_path / "fresh.duckdb"
    sample = sorted(SAMPLES.glob("*.json"))[:2]
    files = [("../../../tmp/evil name.json", sample[0].read_bytes()),
             ("second.json.gz", gzip.compress(sample[1].read_bytes())),
             ("broken.json", b'{"format": "governor-log", "game": "san_juan"}'),
             ("readme.txt", b"hello")]
    report = import_uploads(files, str(fresh))
    assert report.error is None
    assert report.imported == 2 and report.duplicates == 0 and report.rejected == 1
    assert report.refused == [("readme.txt", "not a log file (.json, .jsonl, .json.gz or .jsonl.gz)")]
    assert len(report.messages) == 1 and report.messages[0].startswith("broken.json")
    assert not Path("/tmp/evil name.json").exists()
    assert sql(fresh, "SELECT count(*) FROM games")[0][0] == 2
    # The database records the uploaded names, never the temporary paths.
    assert sql(fresh, "SELECT file FROM rejections") == [("broken.json",)]
    assert sorted(sql(fresh, "SELECT file FROM games")) == [("../../../tmp/evil name.json",), ("second.json.gz",)]
    again = import_uploads(files[:1], str(fresh))
    assert again.imported == 0 and again.duplicates == 1


def assert_released(db: Path) -> None:
    from ingest.db import writer

    with writer(db, timeout=0):
        pass


def test_the_time_limit_stops_the_import_and_says_so(dash_db_copy: Path, sql) -> None:
    # It used to wait for the whole import, then say "The import failed: TimeoutError" with every game stored.
    report = import_uploads([("pr.jsonl", jsonl(PR_SAMPLES))], str(dash_db_copy), timeout=0.01)
    assert report.error == (
        "The import stopped at the time limit of 0.01 s. Before it stopped, 0 games of this upload were stored and "
        "0 rejected; the rest were not imported. Upload the files again to import the rest: games already stored "
        "are skipped."
    )
    assert_released(dash_db_copy)
    assert sql(dash_db_copy, "SELECT count(*) FROM games WHERE game = 'puerto_rico'")[0][0] == 0


def test_what_a_stopped_import_stored_is_reported(dash_db_copy: Path, sql, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOVERNOR_WRITE_BATCH", "1")  # one transaction a game: a kill can fall between games
    report = import_uploads([("pr.jsonl", jsonl(PR_SAMPLES))], str(dash_db_copy), timeout=4.0)
    assert_released(dash_db_copy)
    stored = [r[0] for r in sql(dash_db_copy, "SELECT game_id FROM games WHERE file = 'pr.jsonl' ORDER BY file_index")]
    assert report.imported == len(stored) and sorted(report.game_ids) == sorted(stored)
    if report.error is None:  # the machine was quick enough to finish within the limit
        assert len(stored) == 30
    else:
        assert report.error.startswith(f"The import stopped at the time limit of 4 s. Before it stopped, {len(stored)} games")


def files_html(at) -> str:
    """The HTML of the page's list of the box's files ("" when there is none)."""
    return next((h.proto.body for h in at.get("html") if 'class="gv-files"' in h.proto.body), "")


def listed(at) -> list[list[str]]:
    """The cells of the list of the box's files, as text."""
    import html
    import re

    rows = re.findall(r"<tr class=[^>]*>(.*?)</tr>", files_html(at), re.S)
    return [[html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)] for r in rows]


def page_box(at) -> upload_box.UploadBox:
    """The upload box of the page's session (the page makes it; the browser's files go into it through
    ``PUT /upload``, here through ``UploadBox.add_file``, the same path)."""
    box = at.session_state["import_box"]
    assert isinstance(box, upload_box.UploadBox) and upload_box.find_box(box.token) is box
    return box


def test_import_page_refuses_a_file_that_is_not_json_and_says_why(dash_db_copy: Path, open_page, sql) -> None:
    at = open_page(dash_db_copy, "views/import_logs.py")
    before = sql(dash_db_copy, "SELECT count(*) FROM games")[0][0]
    log = sorted(SAMPLES.glob("*.json"))[0].read_bytes()
    box = page_box(at)
    box.add_file(("dup.json", log))
    box.add_file(("**bad** :smile:.json", b"{not json"))
    at.run()
    # The box's files are listed before the import, a refused one with its reason, names as text.
    assert listed(at) == [
        ["dup.json", "ready", "1", f"{len(log) / 2**20:.1f}", ""],
        ["**bad** :smile:.json", "refused", "", "",
         "not JSON: Expecting property name enclosed in double quotes at line 1 column 2"],
    ]
    assert "<bdi>**bad** :smile:.json</bdi>" in files_html(at)
    at.button(key="import_run").click().run()
    assert not at.exception
    values = {m.label: m.value for m in at.metric}
    assert values == {"Imported": "0", "Duplicates skipped": "1", "Rejected games": "0", "Files refused": "1"}
    # The reason is on the page as text (never Markdown), not in a tooltip.
    assert alerts(at, "warning") == [  # the file name isolated (U+2068 ... U+2069)
        "\u2068**bad** :smile:.json\u2069: not JSON: Expecting property name enclosed in double quotes at line 1 column 2"
    ]
    assert not alerts(at, "error")
    assert sql(dash_db_copy, "SELECT count(*) FROM games")[0][0] == before


def test_imported_games_link_to_the_replay_page(dash_db_copy: Path, open_page, sql) -> None:
    at = open_page(dash_db_copy, "views/import_logs.py")
    for log in sorted(PR_SAMPLES.glob("*.json"))[:2]:
        page_box(at).add_file((log.name, log.read_bytes()))
    at.run()
    at.button(key="import_run").click().run()
    assert not at.exception and {m.label: m.value for m in at.metric}["Imported"] == "2"
    ids = [r[0] for r in sql(dash_db_copy, "SELECT game_id FROM games WHERE game = 'puerto_rico' ORDER BY file")]
    table = at.dataframe[0].value
    assert table["replay"].tolist() == [f"replay?game={game_id}" for game_id in ids]
    assert table["game_id"].tolist() == ids


class CountingUpload:
    """An uploaded file that holds no bytes: it says its size and makes its bytes as they are read,
    counting them (a 45 MB upload costs nothing to build)."""

    def __init__(self, name: str, size: int, line: bytes = b"{}\n", holds: int | None = None) -> None:
        self.name, self.size, self.line, self.served = name, size, line, 0
        self.holds = size if holds is None else holds

    def read(self, size: int = -1) -> bytes:
        left = self.holds - self.served
        size = left if size < 0 else min(size, left)
        self.served += size
        return (self.line * (size // len(self.line) + 1))[:size]


def test_files_past_the_upload_limits_are_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Ten 45 MB files used to add 1.2 GB to the server: each was held whole before a limit applied.
    monkeypatch.setattr(upload_files, "MAX_GAMES", 10**9)
    monkeypatch.setattr(upload_box, "MAX_GAMES", 10**9)
    files = [CountingUpload(f"big{i}.jsonl", 45 * 2**20, b"{}" + b" " * 97 + b"\n") for i in range(10)]
    files.append(CountingUpload("huge.jsonl", MAX_FILE_BYTES + 1))
    imported: list[list[str]] = []
    monkeypatch.setattr(uploads, "_import", lambda report, folder, db, names, timeout: imported.append(
        sorted((Path(p).name, Path(p).stat().st_size) for p in names)))
    report = uploads.import_uploads(files, str(tmp_path / "db.duckdb"))
    # Four fit in 200 MB; the fifth to tenth would not and are never read, nor is the file past 50 MB.
    assert [f.served for f in files] == [45 * 2**20] * 4 + [0] * 7
    assert report.refused == [(f"big{i}.jsonl", "the upload would hold more than 200 MB: import this file separately")
                              for i in range(4, 10)] + [("huge.jsonl", "50.0 MB is more than the limit of 50 MB per file")]
    assert imported == [[(f"upload-{i:03d}.jsonl", 45 * 2**20) for i in range(4)]]


def test_a_file_is_read_in_chunks_never_whole(tmp_path: Path) -> None:
    import tracemalloc

    line = b'{"a": "' + b"x" * 8182 + b'"}\n'  # 8 kB: 5,120 games in 40 MB
    upload = CountingUpload("big.jsonl", 40 * 2**20, line)
    tracemalloc.start()
    try:
        spooled = upload_files.spool_upload(upload, tmp_path, 0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(line) == 8192 and spooled.games == 5120
    assert upload.served == 40 * 2**20 and spooled.path.stat().st_size == 40 * 2**20
    assert peak < 8 * upload_files.CHUNK  # a few chunks, not 40 MB


def test_a_file_that_says_less_than_it_holds_is_cut_at_the_limit(tmp_path: Path) -> None:
    liar = CountingUpload("liar.json", 10, holds=100 * 2**20)  # it says 10 bytes
    with pytest.raises(upload_files.Refused, match="^the file holds more than the limit of 50 MB per file$"):
        upload_files.spool_upload(liar, tmp_path, 0)
    assert liar.served == MAX_FILE_BYTES + 1 and list(tmp_path.iterdir()) == []


def test_the_upload_box_is_emptied_after_an_import(dash_db_copy: Path, open_page) -> None:
    at = open_page(dash_db_copy, "views/import_logs.py")
    assert at.button(key="import_run").disabled and at.button(key="import_clear").disabled
    log = sorted(SAMPLES.glob("*.json"))[0].read_bytes()
    box = page_box(at)
    box.add_file(("dup.json", log))
    at.run()
    assert not at.button(key="import_run").disabled
    at.button(key="import_run").click().run()
    assert not at.exception
    assert {m.label: m.value for m in at.metric}["Duplicates skipped"] == "1"
    # The same box, emptied: its files are deleted from the server.
    assert page_box(at) is box and box.files() == [] and list(box.folder.iterdir()) == []
    assert at.button(key="import_run").disabled


def test_clear_empties_the_box(dash_db_copy: Path, open_page) -> None:
    at = open_page(dash_db_copy, "views/import_logs.py")
    box = page_box(at)
    box.add_file(("a.jsonl", b"{}\n"))
    box.add_file(("b.txt", b"{}"))
    at.run()
    assert [row[:2] for row in listed(at)] == [["a.jsonl", "ready"], ["b.txt", "refused"]]
    at.button(key="import_clear").click().run()
    assert not at.exception and box.files() == [] and list(box.folder.iterdir()) == []
    assert files_html(at) == "" and at.button(key="import_run").disabled


def test_streamlit_holds_no_more_uploads_than_one_import_takes() -> None:
    from starlette.exceptions import HTTPException
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
    from streamlit.runtime.uploaded_file_manager import UploadedFileRec

    store = MemoryUploadedFileManager("/_stcore/upload_file")
    assert upload_route.cap_held_uploads(store, per_session=450, total=1000)
    assert not upload_route.cap_held_uploads(store)  # once only

    def put(session: str, file_id: str, size: int) -> None:
        store.add_file(session, UploadedFileRec(file_id, f"{file_id}.json", "application/json", b" " * size))

    for i in range(4):  # ten 45 MB files, scaled down: the first four fit
        put("s1", f"f{i}", 100)
    put("s1", "f0", 150)  # a file sent again replaces itself
    with pytest.raises(HTTPException) as refused:
        put("s1", "f4", 100)
    assert refused.value.status_code == 413
    assert refused.value.detail == "the files in the upload box would hold more than 0 MB: import these first"
    assert sorted(store.file_storage["s1"]) == ["f0", "f1", "f2", "f3"]
    put("s2", "g0", 400)
    with pytest.raises(HTTPException, match="413"):
        put("s3", "h0", 200)  # all sessions together: 450 + 400 held, 1,000 at most
    store.remove_file("s1", "f1")
    put("s1", "f4", 100)
    assert sorted(store.file_storage["s1"]) == ["f0", "f2", "f3", "f4"] and store._total_bytes == 850


def test_the_import_page_names_every_registered_game(dash_db_copy: Path, open_page,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The page says which games' logs it takes: every registered game by its title, in the registry's
    order (none written in the page), a third one too."""
    from replay import registry

    at = open_page(dash_db_copy, "views/import_logs.py")
    titles = [registry.game_title(g) for g in registry.game_names()]
    assert at.caption[0].value.startswith(f"Upload {titles[0]} or {titles[1]} logs: .json (one game)")
    names = registry.game_names()
    monkeypatch.setattr(registry, "game_names", lambda: (names[0], "noughts_and_crosses", *names[1:]))
    at.run()
    assert at.caption[0].value.startswith(f"Upload {titles[0]}, Noughts And Crosses or {titles[1]} logs: ")
