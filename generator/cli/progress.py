"""The fleet's progress bar, with an estimate only once there is a rate to base it on.

click's bar divides the time since the start by the items done, so the start-up of the worker
processes (and the first schema compilations) counts as if every cluster took that long: an
18-second fleet showed "44 minutes" at first. Here the clock starts at the first completed
cluster, and no estimate is shown until :data:`MIN_ITEMS` more have completed over at least
:data:`MIN_SECONDS`; then the estimate is the remaining count divided by the rate measured since.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import TextIO

MIN_ITEMS = 3
MIN_SECONDS = 0.5
BAR_WIDTH = 30


@dataclass
class RateTracker:
    """Completions over time, measured from the first one (start-up is not a rate)."""

    total: int
    done: int = 0
    first_at: float | None = None

    def add(self, count: int, now: float) -> None:
        """Record ``count`` completions at ``now``."""
        if count <= 0:
            return
        if self.first_at is None:
            self.first_at = now
            count -= 1
            self.done += 1
        self.done += count

    def remaining_seconds(self, now: float) -> float | None:
        """Time left at the measured rate, or None while the rate is not known yet."""
        if self.first_at is None:
            return None
        measured = self.done - 1  # completions after the first, over the time since it
        elapsed = now - self.first_at
        if measured < MIN_ITEMS or elapsed < MIN_SECONDS:
            return None
        return max(0, self.total - self.done) * elapsed / measured


def format_duration(seconds: float) -> str:
    """``0:09``, ``1:05``, ``1:02:03``: minutes and seconds, hours when there are any."""
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def progress_line(label: str, tracker: RateTracker, now: float) -> str:
    """One redraw of the bar: label, bar, count and, when known, ``ETA m:ss``."""
    total = max(tracker.total, 1)
    filled = BAR_WIDTH * min(tracker.done, total) // total
    bar = "#" * filled + "-" * (BAR_WIDTH - filled)
    width = len(str(tracker.total))
    line = f"{label}  [{bar}]  {tracker.done:>{width}}/{tracker.total}"
    remaining = tracker.remaining_seconds(now)
    if remaining is not None and tracker.done < tracker.total:
        line += f"  ETA {format_duration(remaining)}"
    return line


class ProgressBar:
    """A one-line bar on a terminal stream, redrawn on every update and ended with a newline."""

    def __init__(
        self,
        total: int,
        stream: TextIO,
        *,
        label: str = "Rendering clusters",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.tracker = RateTracker(total)
        self.stream = stream
        self.label = label
        self.clock = clock
        self._shown = 0

    def update(self, count: int) -> None:
        """Record ``count`` more completions and redraw."""
        now = self.clock()
        self.tracker.add(count, now)
        self._draw(progress_line(self.label, self.tracker, now))

    def _draw(self, line: str) -> None:
        padding = " " * max(0, self._shown - len(line))  # clear what a longer line left
        self.stream.write(f"\r{line}{padding}")
        self.stream.flush()
        self._shown = len(line)

    def __enter__(self) -> ProgressBar:
        self._draw(progress_line(self.label, self.tracker, self.clock()))
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stream.write("\n")
        self.stream.flush()
