"""Letting what a page has drawn so far leave the server before the page goes on.

Streamlit sends a session's messages from its event loop, on the server's main thread, while the
page's script runs on a thread of its own. Both need Python's interpreter lock, and a script busy
in Python code (building a payload, reading a game, drawing panels) keeps the event loop from
sending: on the 2-core machine a board already drawn sat in the queue for 0.25 to 0.3 s while the
page went on with the panels under it. ``send_now`` waits, sleeping, until the event loop has taken
every queued message of this session, so the browser gets them (and starts its own work on them) in
parallel with the rest of the page.
"""

from __future__ import annotations

import time
from typing import Any

#: Longest wait: past it the page goes on (a slow or gone browser must not hold the page).
MAX_WAIT_S = 0.25
#: How long each sleep gives the event loop; it sends one message per turn of its loop.
_TICK_S = 0.002


def _queue() -> Any | None:
    """This session's queue of messages for the browser, or None outside a running Streamlit server
    (a headless ``AppTest`` run, a script run without a browser). Streamlit has no public way to
    reach it, so any change of its internals means None, never an error."""
    try:
        from streamlit.runtime import Runtime
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        if ctx is None or not Runtime.exists():
            return None
        info = Runtime.instance()._session_mgr.get_active_session_info(ctx.session_id)
        queue = getattr(getattr(info, "session", None), "_browser_queue", None)
        return queue if callable(getattr(queue, "is_empty", None)) else None
    except Exception:  # noqa: BLE001 - Streamlit's internals moved: the page simply goes on
        return None


def live() -> bool:
    """Whether a browser is behind this session (a running server), not a headless test run."""
    return _queue() is not None


def send_now(max_wait: float = MAX_WAIT_S) -> bool:
    """Wait (at most ``max_wait`` seconds) until the event loop has taken every message this session
    queued so far; returns whether it did. Without a server behind the session (a headless test)
    returns False at once. Raises nothing."""
    queue = _queue()
    if queue is None:
        return False
    deadline = time.monotonic() + max_wait
    while not queue.is_empty():
        if time.monotonic() >= deadline:
            return False
        time.sleep(_TICK_S)
    # The event loop took the messages; one more turn lets it write them to the web socket.
    time.sleep(_TICK_S)
    return True
