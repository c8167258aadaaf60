"""``PUT /upload``, the dashboard's own route that takes the Import page's files: each body is written
to the session's upload box a chunk at a time as it arrives, bytes and files counted against the
limits as they arrive, a refused file named with the limit it is past, and nothing held whole in
memory (Streamlit's uploader held each file whole: ten 45 MB files took the server from 195 to
564 MB; through this route, to 199 MB). The route is called as the server calls it (an ASGI request), the body made as it is read."""

from __future__ import annotations

import gc
import json
import tracemalloc
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import pytest
from starlette.requests import Request

from dashboards import upload_box, upload_files, upload_route
from dashboards.upload_box import UploadBox
from dashboards.upload_files import MAX_FILE_BYTES
from dashboards.upload_route import receive_upload

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs" / "san_juan"
#: What a browser sends at a time (about what uvicorn hands the app).
PIECE = 64 * 2**10


class Body:
    """A request body made as it is read, ``size`` bytes of ``line`` repeated (a length that divides
    ``PIECE``), counting what was read."""

    def __init__(self, size: int, line: bytes = b"{}\n") -> None:
        self.size, self.line, self.read = size, line, 0

    def pieces(self) -> Iterator[bytes]:
        block = (self.line * (PIECE // len(self.line) + 1))[:PIECE]
        while self.read < self.size:
            piece = block[: min(PIECE, self.size - self.read)]
            self.read += len(piece)
            yield piece


def put(box: UploadBox | None, name: str, body: Iterable[bytes], size: int | None = None,
        token: str | None = None) -> tuple[int, dict[str, Any]]:
    """Call the route with one file; its status and JSON answer."""
    pieces = iter(body)

    async def receive() -> dict[str, Any]:
        piece = next(pieces, None)
        if piece is None:
            return {"type": "http.request", "body": b"", "more_body": False}
        return {"type": "http.request", "body": piece, "more_body": True}

    headers = [(b"x-governor-upload", (token if token is not None else box.token if box else "").encode()),
               (b"x-governor-name", quote(name).encode())]
    if size is not None:
        headers.append((b"x-governor-size", str(size).encode()))
    scope = {"type": "http", "method": "PUT", "path": "/upload", "headers": headers, "query_string": b""}
    response = anyio.run(receive_upload, Request(scope, receive))
    return response.status_code, json.loads(bytes(response.body))


@pytest.fixture
def box() -> Iterator[UploadBox]:
    made = UploadBox()
    yield made
    made.close()


def test_ten_45_mb_files_are_taken_as_they_arrive_and_refused_past_the_limit(
        box: UploadBox, monkeypatch: pytest.MonkeyPatch) -> None:
    # The limit of size is the one met here.
    monkeypatch.setattr(upload_files, "MAX_GAMES", 10**9)
    monkeypatch.setattr(upload_box, "MAX_GAMES", 10**9)
    line = b"{}" + b" " * 125 + b"\n"  # 128 bytes
    answers, bodies = [], []
    tracemalloc.start()
    try:
        for i in range(10):
            body = Body(45 * 2**20, line)
            bodies.append(body)
            answers.append(put(box, f"big{i}.jsonl", body.pieces(), size=45 * 2**20))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # A few pieces and chunks at a time, never a file (45 MB) whole.
    assert peak < 8 * upload_files.CHUNK, peak
    games = 45 * 2**20 // len(line)
    assert answers[:4] == [(200, {"name": f"big{i}.jsonl", "accepted": True, "games": games, "bytes": 45 * 2**20,
                                  "reason": None}) for i in range(4)]
    full = "the upload would hold more than 200 MB: import this file separately"
    assert answers[4:] == [(413, {"name": f"big{i}.jsonl", "accepted": False, "games": 0, "bytes": 0, "reason": full})
                           for i in range(4, 10)]
    # Refused by its size before a byte was kept; the body is still read (and dropped) so the browser
    # gets the answer, not a closed connection.
    assert all(b.read == 45 * 2**20 for b in bodies)
    assert sorted(p.name for p in box.folder.iterdir()) == [f"upload-{i:03d}.jsonl" for i in range(4)]
    assert box.files()[4:] == [(f"big{i}.jsonl", None, None, full) for i in range(4, 10)]
    assert upload_box.HELD.bytes >= 4 * 45 * 2**20


def test_a_file_past_the_limit_per_file_is_refused_as_it_arrives(box: UploadBox) -> None:
    # It says it is small and sends more: cut at the limit, saying which limit.
    liar = Body(MAX_FILE_BYTES + 10 * 2**20)
    assert put(box, "liar.jsonl", liar.pieces(), size=10) == (
        413, {"name": "liar.jsonl", "accepted": False, "games": 0, "bytes": 0,
              "reason": "the file holds more than the limit of 50 MB per file"})
    assert liar.read <= upload_route.DRAIN_BYTES + PIECE and list(box.folder.iterdir()) == []
    # The browser sends a file past the limit without its bytes: refused by the size it declares.
    assert put(box, "huge.json", [], size=60 * 2**20)[1]["reason"] == "60.0 MB is more than the limit of 50 MB per file"
    assert put(box, "notes.txt", [b"{}"])[1]["reason"] == "not a log file (.json, .jsonl, .json.gz or .jsonl.gz)"
    assert [f[0] for f in box.files()] == ["liar.jsonl", "huge.json", "notes.txt"]


def test_files_and_games_are_counted_as_they_arrive(box: UploadBox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(upload_files, "MAX_GAMES", 3)
    monkeypatch.setattr(upload_box, "MAX_GAMES", 3)
    monkeypatch.setattr(upload_box, "MAX_FILES", 4)
    assert put(box, "a.jsonl", [b"{}\n{}\n"])[0] == 200
    assert put(box, "b.jsonl", [b"{}\n{}\n"]) == (
        413, {"name": "b.jsonl", "accepted": False, "games": 0, "bytes": 0,
              "reason": "the upload would hold more than 3 games: import this file separately"})
    assert put(box, "c.json", [b"{}"])[0] == 200
    assert put(box, "d.json", [b"{not json"])[0] == 422
    assert put(box, "e.json", [b"{}"]) == (
        413, {"name": "e.json", "accepted": False, "games": 0, "bytes": 0,
              "reason": "the upload would hold more than 4 files: import these first"})
    assert [(f[0], f[2]) for f in box.files()] == [("a.jsonl", 2), ("c.json", 1), ("b.jsonl", None), ("d.json", None)]


def test_an_unknown_box_a_busy_box_and_a_full_server_take_nothing(box: UploadBox, monkeypatch: pytest.MonkeyPatch) -> None:
    assert put(None, "a.json", [b"{}"], token="forged") == (404, {
        "name": "a.json", "accepted": False, "games": 0, "bytes": 0,
        "reason": "this upload box is closed (the page was reloaded or left): upload the files again"})
    box.take_all()  # an import runs
    status, answer = put(box, "a.json", [b"{}"])
    assert status == 503 and answer["reason"].startswith("another file is arriving in this box or it is being imported")
    box.clear()
    # Every box together holds at most MAX_HELD_BYTES on disk: past it, a file waits for room.
    monkeypatch.setattr(upload_box, "MAX_HELD_BYTES", upload_box.HELD.bytes + 100)
    status, answer = put(box, "a.jsonl", [b"{}\n" * 100])
    assert (status, answer["reason"]) == (503, "the server holds as many uploads as it may: try again in a moment")
    # Neither is recorded: the same file may be sent again.
    assert box.files() == [] and list(box.folder.iterdir()) == []


def test_a_box_goes_with_its_session(tmp_path: Path) -> None:
    made = UploadBox()
    folder, token = made.folder, made.token
    made.add_file(("a.jsonl", b"{}\n"))
    assert folder.is_dir() and oct(folder.stat().st_mode & 0o777) == "0o700"
    held = upload_box.HELD.bytes
    del made  # the session's state is dropped when the session ends
    gc.collect()
    assert not folder.exists() and upload_box.find_box(token) is None and upload_box.HELD.bytes == held - 3


def test_a_name_is_never_a_path(box: UploadBox) -> None:
    log = sorted(SAMPLES.glob("*.json"))[0].read_bytes()
    assert put(box, "../../evil \u05e9.json", [log])[0] == 200
    assert [p.name for p in box.folder.iterdir()] == ["upload-000.json"]
    assert box.files()[0][0] == "../../evil \u05e9.json"
