"""The lives of worker processes: they never outlive the process that forked them, signals are
held while they are forked, and one that died is named the way a user can act on.

Shared by the validate run's pool (:mod:`generator.validate.stream`) and the fleet's
(:mod:`generator.fleet.render`): both fork workers, and both must leave none behind when they are
killed, and say which input a worker was on when the OOM killer ended it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Executor

from generator.errors import WorkerDied

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def guard_parent(parent: int, poll_seconds: float = 1.0) -> None:
    """Worker start (a pool's initializer): never outlive ``parent``, the process that forked
    this one. On Linux the kernel sends SIGKILL when the parent ends (``PR_SET_PDEATHSIG``; the
    pools are forked by the caller's main thread, whose end is the process's); elsewhere a
    thread polls the parent every ``poll_seconds``. Either way the parent is checked once more
    afterwards: it may have ended before the guard was set. Ctrl-C is the parent's to handle
    (it stops the workers), and SIGTERM ends a worker at once, not through the parent's handler
    it inherited."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):  # held back while it was forked (held_signals)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)
    if not _die_with_parent():
        threading.Thread(
            target=_watch_parent, args=(parent, poll_seconds), name="parent-watch", daemon=True
        ).start()
    if os.getppid() != parent:
        os._exit(1)


_HELD = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def held_signals() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back while a pool may fork its workers (their first task): the
    handlers raise, and raised in the fork's callbacks (``os.register_at_fork``), where Python
    prints and ignores exceptions, SIGTERM was lost and the run went on. Held, the signal
    arrives as the block ends. The threads a pool starts meanwhile keep them held: Python runs
    handlers in the main thread anyway."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - not POSIX
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _die_with_parent() -> bool:
    """Ask the kernel for SIGKILL when the parent ends; whether it agreed."""
    if not sys.platform.startswith("linux"):  # pragma: no cover - not Linux
        return False
    try:
        # lazy: only worker processes load ctypes, once each
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError):  # pragma: no cover - no libc prctl
        return False


def _watch_parent(parent: int, poll_seconds: float) -> None:  # pragma: no cover - not Linux
    while os.getppid() == parent:
        time.sleep(poll_seconds)
    os._exit(1)


def how_ended(executor: Executor, settle: float = 2.0) -> str:
    """How a broken pool's dead worker ended, as in "killed by signal 9", from the pool's
    ``processes`` (:class:`generator.validate.forked.ForkedPool`'s). Its connection closes a
    moment before it can be reaped, so this looks again for up to ``settle`` seconds. Status 0
    and SIGTERM are named only when nothing else is known: that is how the other workers end
    (told to stop once the pool broke, or signalled with the whole run)."""
    processes = list(getattr(executor, "processes", None) or ())
    deadline = time.monotonic() + settle
    while True:
        codes = [p.exitcode for p in processes if p.exitcode is not None]
        codes.sort(key=_ordinary)
        if (codes and not _ordinary(codes[0])) or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    if not codes:
        return "ended unexpectedly"
    code = codes[0]
    return f"killed by signal {-code}" if code < 0 else f"exited with status {code}"


def _ordinary(code: int) -> bool:
    """Whether a worker's exit status is how a worker ends that did not break the pool."""
    return code in (0, -signal.SIGTERM)


def worker_died(how: str, when: str) -> WorkerDied:
    """The error of a worker that died ``when`` (e.g. "while validating a.yaml")."""
    return WorkerDied(
        f"a worker process died ({how}) {when}",
        hint="rerun with -j 1, or with more memory (the OOM killer ends the largest process)",
    )
