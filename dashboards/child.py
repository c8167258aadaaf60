"""Work the dashboard's server hands to a process of its own: a write to the database (DuckDB lets one
process write, and the server's own connections read), bounded in time and killed at its limit."""

from __future__ import annotations

import time
from collections.abc import Callable
from multiprocessing import get_context
from typing import Any


def run_in_child(target: Callable[..., None], args: tuple[Any, ...], name: str, timeout: float) -> Any:
    """Run ``target(sender, *args)`` in a new (spawned) process named ``name`` and return the one
    message it sends on ``sender``, or None when it sent none within ``timeout`` seconds (it is then
    killed) or ended without one. The process is gone when this returns."""
    context = get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=target, args=(sender, *args), name=name)
    deadline = time.monotonic() + timeout
    message: Any = None
    try:
        process.start()
        sender.close()
        if receiver.poll(max(0.0, deadline - time.monotonic())):
            try:
                message = receiver.recv()
            except EOFError:
                message = None
    finally:
        receiver.close()
        if process.is_alive():
            process.kill()
        process.join()
        process.close()
    return message


