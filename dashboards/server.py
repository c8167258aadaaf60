"""The dashboard's server: Streamlit's, serving ``dashboards/app.py``, and one route of its own.

``/replay`` answers with Streamlit's page plus the board the URL names, drawn before Streamlit has
started (``dashboards.first_paint``): a Replay link opened in a new tab shows its board at once. Every
other page's address answers with Streamlit's page naming the server's base (no 404 in the console).
``PUT /upload`` takes one file of the Import page's upload box, written to disk as it arrives
(``dashboards.upload_route.receive_upload``).
``governor dashboard`` runs ``streamlit run`` on this file (``dashboards.launch``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import streamlit as st
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

HERE = Path(__file__).resolve().parent


@asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    """Load the first paint's modules (its reads, the component's script) as the server starts, not
    on the first request; here, once Streamlit's runtime runs: their cached functions, decorated at
    import, would otherwise be made without it (Streamlit logs "No runtime found" for each)."""
    from dashboards import first_paint  # noqa: F401

    yield


async def replay_page(request: Request) -> StreamingResponse:
    """Streamlit's page for ``/replay`` with the URL's board drawn first: the page's head goes at once
    (the browser fetches Streamlit's styles and scripts meanwhile), the board and the rest once the
    game is read, in a worker thread (the event loop serves the other sessions meanwhile)."""
    from dashboards import first_paint

    params = dict(request.query_params)

    async def parts() -> AsyncIterator[str]:
        yield first_paint.shell().head
        yield await anyio.to_thread.run_sync(first_paint.drawn, params)

    # As Streamlit serves its page: never cached (the board changes with the database).
    return StreamingResponse(parts(), media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-cache"})


#: The address of every page of the app (``dashboards/app.py``'s ``url_path``s, checked by a test) but
#: the Replay page's, which has a route of its own.
PAGE_PATHS = ("home", "games", "statistics", "explorer", "players", "sql", "import", "play")


async def other_page(request: Request) -> Response:
    """Streamlit's page at a page's own address, naming the server's base so that Streamlit's script
    does not first look for the server under the page's path (two 404s)."""
    from dashboards import first_paint

    return Response(first_paint.plain_page(), media_type="text/html; charset=utf-8",
                    headers={"Cache-Control": "no-cache"})


async def upload(request: Request) -> Response:
    """One file of the Import page's upload box (``dashboards.upload_route.receive_upload``)."""
    from dashboards.upload_route import receive_upload

    return await receive_upload(request)


app = st.App(str(HERE / "app.py"), lifespan=lifespan, routes=[
    Route("/replay", replay_page, methods=["GET"]),
    Route("/upload", upload, methods=["PUT"]),
    *(Route(f"/{path}", other_page, methods=["GET"]) for path in PAGE_PATHS),
])
