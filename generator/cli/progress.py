"""The fleet's progress bar, with an estimate only once there is a rate to base it on; and
``validate``'s document count, which only a run longer than a second shows.

click's bar divides the time since the start by the items done, so the start-up of the worker
processes (and the first schema compilations) counts as if every cluster took that long: an
18-second fleet showed "44 minutes" at first. Here the clock starts at the first completed
cluster, and no estimate is shown until :data:`MIN_ITEMS` more have completed over at least
:data:`MIN_SECONDS`; then the estimate is the remaining count divided by the rate measured since.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType
from typing import TextIO

MIN_ITEMS = 3
MIN_SECONDS = 0.5
BAR_WIDTH = 30


class RateTracker:
    """Completions over time, measured from the first one (start-up is not a rate)."""

    __slots__ = ("done", "first_at", "total")

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.first_at: float | None = None

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


DELAY_SECONDS = 1.0  # a run shorter than this shows no progress at all


def wants_progress(stream: TextIO, environ: Mapping[str, str]) -> bool:
    """Whether ``stream`` is a terminal that redraws a line: never for a pipe or a file (a CI log
    would fill with carriage returns), nor for ``TERM=dumb``, which may not honour ``\\r``. The
    line is plain text, no colour codes, so ``NO_COLOR`` is honoured whatever it is set to."""
    return stream.isatty() and environ.get("TERM") != "dumb"


class DocumentProgress:
    """``Validating  1,234 documents  0:03`` on a terminal, redrawn as batches finish, shown only
    once the run has lasted :data:`DELAY_SECONDS` (a quick run stays silent) and erased at the
    end, so the report that follows starts on a clean line. ``validate`` streams its input and
    knows no total in advance, hence a count and the time so far instead of a bar."""

    def __init__(
        self,
        stream: TextIO,
        *,
        label: str = "Validating",
        clock: Callable[[], float] = time.monotonic,
        delay: float = DELAY_SECONDS,
    ) -> None:
        self.stream = stream
        self.label = label
        self.clock = clock
        self.delay = delay
        self.started = clock()
        self._shown = 0

    def __call__(self, documents: int) -> None:
        """``documents`` checked so far: redraw, once the delay has passed."""
        elapsed = self.clock() - self.started
        if elapsed < self.delay:
            return
        line = f"{self.label}  {documents:,} documents  {format_duration(elapsed)}"
        padding = " " * max(0, self._shown - len(line))
        self.stream.write(f"\r{line}{padding}")
        self.stream.flush()
        self._shown = len(line)

    def close(self) -> None:
        """Erase the line, if one was drawn."""
        if self._shown:
            self.stream.write("\r" + " " * self._shown + "\r")
            self.stream.flush()
            self._shown = 0


@contextmanager
def document_progress(
    stream: TextIO, environ: Mapping[str, str]
) -> Iterator[Callable[[int], None] | None]:
    """A :class:`DocumentProgress` for the run when ``stream`` wants one, else None."""
    if not wants_progress(stream, environ):
        yield None
        return
    progress = DocumentProgress(stream)
    try:
        yield progress
    finally:
        progress.close()
