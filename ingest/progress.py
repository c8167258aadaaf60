"""A dependency-free progress bar for terminals: games done, games/s, rejected so far."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO


class Progress:
    """Draws one updating line on ``stream`` when enabled; silent otherwise."""

    def __init__(self, total: int | None, enabled: bool, stream: TextIO | None = None) -> None:
        #: None while the games are still being counted (``set_total``): the bar shows what is done.
        self.total = total
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.start = time.monotonic()
        self.last_draw = 0.0
        self.done = 0
        self.rejected = 0
        self.duplicates = 0

    def update(self, done: int, rejected: int, duplicates: int) -> None:
        self.done, self.rejected, self.duplicates = done, rejected, duplicates
        now = time.monotonic()
        if self.enabled and (now - self.last_draw > 0.1 or (self.total is not None and done >= self.total)):
            self.last_draw = now
            self._draw(now)

    def set_total(self, total: int) -> None:
        """The number of games, once counted (from another thread: drawn at the next update)."""
        self.total = total

    def printer(self, write: Callable[[str], None] | None) -> Callable[[str], None] | None:
        """``write`` made to print over the bar: the bar's line is cleared first (the next update draws
        it again under the printed line). None when ``write`` is None."""
        if write is None:
            return None

        def over_the_bar(text: str) -> None:
            if self.enabled and self.last_draw:
                self.stream.write("\r\x1b[2K")
                self.last_draw = 0.0  # drawn again at the next update
            write(text)

        return over_the_bar

    def _draw(self, now: float) -> None:
        elapsed = max(now - self.start, 1e-9)
        width = 30
        total = self.total
        if total is None:  # still counting
            bar, of = "?" * width, f"{self.done}/? games (counting)"
        else:
            frac = min(self.done / total, 1.0) if total else 1.0
            bar, of = "#" * int(width * frac) + "-" * (width - int(width * frac)), f"{self.done}/{total} games"
        rate = self.done / elapsed
        self.stream.write(
            f"\r[{bar}] {of}  {rate:,.0f} games/s  "
            f"rejected {self.rejected}  duplicates {self.duplicates} "
        )
        self.stream.flush()

    def close(self) -> None:
        if self.total is None:  # done before the count: what was done is every game
            self.total = self.done
        if self.enabled:
            self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()
