"""The dashboard's side of uploads: its route ``PUT /upload`` (added in ``dashboards/server.py``),
which writes each file of the Import page's upload box (``dashboards/upload_component``) to the
session's ``UploadBox`` as it arrives, so that the server never holds more of a file than one chunk;
and the cap on Streamlit's own in-memory upload store, which the pages do not use.

(Streamlit's ``st.file_uploader`` kept each file whole in the server's memory until the page read it:
ten 45 MB files took the server from 195 to 564 MB at its peak; through this route, to 199 MB:
docs/dashboard.md.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from dashboards.upload_box import MAX_HELD_BYTES, MAX_NAME_CHARS, Unavailable, find_box
from dashboards.upload_files import MAX_FILE_BYTES, MAX_UPLOAD_BYTES, Refused

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

#: The headers of ``PUT /upload``: the box's token, the file's name (percent-encoded UTF-8) and its
#: size as the browser knows it (a file past ``MAX_FILE_BYTES`` is sent without its bytes).
TOKEN_HEADER, NAME_HEADER, SIZE_HEADER = "X-Governor-Upload", "X-Governor-Name", "X-Governor-Size"
#: What the route still reads of a refused file's body, discarding it, so that the browser gets the
#: answer rather than a closed connection (a body past this is cut off).
DRAIN_BYTES = MAX_FILE_BYTES + 2**20


class HeldUploadsFull(Exception):
    """A file would take what Streamlit holds of uploads past its bound; the message says which."""


def cap_held_uploads(manager: Any, per_session: int | None = None, total: int = MAX_HELD_BYTES) -> bool:
    """Make Streamlit's in-memory upload store (``Runtime.instance().uploaded_file_mgr``) refuse a file
    that would take one session's files past ``per_session`` bytes (default ``MAX_UPLOAD_BYTES``, what
    one import takes) or all sessions' past ``total``: Streamlit limits each file (``maxUploadSize``)
    but not how many a visitor adds, and holds every one in memory until the page reads it. The
    refused file's upload fails (HTTP 413) before it is stored. Installs once; returns whether it did
    now (False for a store of another kind, or one already capped).

    The wrapped ``add_file`` raises ``starlette.exceptions.HTTPException`` (413) when Starlette is
    the server, else ``HeldUploadsFull``."""
    if getattr(manager, "_governor_capped", False) or not hasattr(manager, "file_storage"):
        return False
    limit = MAX_UPLOAD_BYTES if per_session is None else per_session
    original = manager.add_file

    def add_file(session_id: str, file: Any) -> None:
        with manager._lock:
            mine = sum(len(held.data) for key, held in manager.file_storage.get(session_id, {}).items()
                       if key != file.file_id)
            everyone = int(getattr(manager, "_total_bytes", 0))
        if mine + len(file.data) > limit:
            _refuse(f"the files in the upload box would hold more than {limit // 2**20} MB: import these first")
        if everyone + len(file.data) > total:
            _refuse("the server holds as many uploads as it may: try again in a moment")
        original(session_id, file)

    manager.add_file = add_file
    manager._governor_capped = True
    return True


def _refuse(reason: str) -> None:
    try:
        from starlette.exceptions import HTTPException
    except ImportError:  # another server: its handler turns any exception into an error status
        raise HeldUploadsFull(reason) from None
    raise HTTPException(status_code=413, detail=reason)



async def receive_upload(request: Request) -> Response:
    """``PUT /upload``: one file into the box the ``X-Governor-Upload`` header names, its name in
    ``X-Governor-Name`` and its size in ``X-Governor-Size`` (or Content-Length). The body is written
    to the box's folder as it arrives, counted against the limits, and checked once whole in a worker
    thread (the event loop serves the other sessions meanwhile). The answer is JSON: ``{"name",
    "accepted", "games", "bytes", "reason"}``; a refused file's status is 413 (too large) or 422,
    and its reason is recorded in the box; 404 names no open box, 503 a file that cannot be taken now.
    A refused file's body is still read (and discarded), up to ``DRAIN_BYTES``, so that the browser
    gets the answer rather than a closed connection."""
    import anyio
    from starlette.requests import ClientDisconnect
    from starlette.responses import JSONResponse

    name = unquote(request.headers.get(NAME_HEADER, ""))[:MAX_NAME_CHARS]

    def answer(status: int, **fields: Any) -> JSONResponse:
        body = {"name": name, "accepted": status == 200, "games": 0, "bytes": 0, "reason": None, **fields}
        return JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})

    box = find_box(request.headers.get(TOKEN_HEADER, ""))
    if box is None:
        return answer(404, reason="this upload box is closed (the page was reloaded or left): upload the files again")
    if not name.strip():
        return answer(400, reason="the file has no name")
    declared = _declared_size(request)
    stream = request.stream()
    try:
        arrival = box.begin(name, declared)
    except Refused as err:
        await _drain(stream)
        return answer(413 if err.limit else 422, reason=str(err))
    except Unavailable as err:
        await _drain(stream)
        return answer(503, reason=str(err))
    read = 0
    try:
        async for chunk in stream:
            read += len(chunk)
            arrival.write(chunk)
        upload = await anyio.to_thread.run_sync(arrival.finish)
        return answer(200, games=upload.games, bytes=upload.size)
    except Refused as err:
        await _drain(stream, read)
        return answer(413 if err.limit else 422, reason=str(err))
    except Unavailable as err:
        await _drain(stream, read)
        return answer(503, reason=str(err))
    except ClientDisconnect:  # the browser went away: nothing is kept, nobody reads the answer
        return answer(400, reason="the upload was interrupted")
    finally:
        arrival.close()


def _declared_size(request: Request) -> int | None:
    """The size the browser says the file has (``X-Governor-Size``, else Content-Length), or None."""
    for header in (SIZE_HEADER, "content-length"):
        text = request.headers.get(header, "")
        if text.isdigit() and len(text) < 19:
            return int(text)
    return None


async def _drain(stream: Any, read: int = 0) -> None:
    """Read and discard the rest of a refused file's body, up to ``DRAIN_BYTES`` in all."""
    try:
        async for chunk in stream:
            read += len(chunk)
            if read > DRAIN_BYTES:
                return
    except Exception:  # noqa: BLE001 - the body is ended or gone: the answer is sent anyway
        return
