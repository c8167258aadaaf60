"""The Import page's upload box: one ``st.components.v2`` component that sends each chosen file to the
dashboard's own route ``PUT /upload`` (``dashboards.upload_route.receive_upload``), one at a time, the
bytes streamed from the browser's file (never read whole into the page), with its progress; files
past the size limit per file are sent without their bytes, so the server refuses them unread.

The box holds no file itself: what arrived, accepted or refused, is in the session's
``dashboards.upload_box.UploadBox``, which the page lists. The component says when a file has been
answered (``sent``), so the page runs again and shows it. Its JavaScript and CSS ship in this folder
(``upload.js``, ``upload.css``): no build step, nothing fetched from elsewhere."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from dashboards.upload_files import MAX_FILE_BYTES
from dashboards.upload_route import NAME_HEADER, SIZE_HEADER, TOKEN_HEADER

HERE = Path(__file__).resolve().parent
JS = (HERE / "upload.js").read_text(encoding="utf-8")
CSS = (HERE / "upload.css").read_text(encoding="utf-8")

_mount = st.components.v2.component("governor_upload", js=JS, css=CSS, isolate_styles=True)


def upload_box(token: str, note: str, key: str = "import_upload") -> Any:
    """Show the upload box for the ``UploadBox`` named ``token``, with ``note`` (the limits) under its
    prompt; returns what the browser last said: a number, new each time a file was answered, or None."""
    data = {"token": token, "url": "/upload", "note": note, "max_file_bytes": MAX_FILE_BYTES,
            "headers": {"token": TOKEN_HEADER, "name": NAME_HEADER, "size": SIZE_HEADER}}
    result = _mount(key=key, data=data, on_sent_change=lambda: None)
    return getattr(result, "sent", None)
