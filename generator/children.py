"""Waiting for a child process with a time limit, woken the moment it ends.

``Popen.wait(timeout=...)`` polls: it sleeps between looks, each sleep twice the last, up to 50 ms,
so a child that ends just after a look is seen up to 50 ms late. ``validate --kubeconform`` waits
for kubeconform at the very end of its run, and that delay was the run's: 24-35 ms between
kubeconform's exit and capzgen seeing it, on the 1,000-cluster fleet. On Linux (5.3 and later) a
pidfd becomes readable when its process ends, so :func:`wait` blocks in ``poll`` on one, with
the same limit, and reaps the child once it is readable. Elsewhere, or where the pidfd cannot be
had, it is ``Popen.wait`` as before: the same result, later.

Every child capzgen starts (kubeconform, git) leads its own process group, so that stopping it
stops whatever it started too: :func:`kill_group`.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
from typing import Any


def wait(process: subprocess.Popen[Any], timeout: float | None) -> int:
    """``process``'s exit status once it ends (``TimeoutExpired`` after ``timeout`` seconds, the
    process left running, as ``Popen.wait`` does; None: no limit)."""
    if process.returncode is not None or timeout is None:
        return process.wait()
    ended = _ended_within(process.pid, max(0.0, timeout))
    if ended is None:
        return process.wait(timeout=timeout)
    if not ended:
        raise subprocess.TimeoutExpired(process.args, timeout)
    return process.wait()


def _ended_within(pid: int, timeout: float) -> bool | None:
    """Whether ``pid`` (a child not yet reaped) ends within ``timeout`` seconds; None when no
    pidfd can be had. Until it is reaped, the child keeps its pid, so the pidfd is this
    child's. A signal's handler that raises (Ctrl-C) interrupts the wait; others resume it."""
    try:
        handle = os.pidfd_open(pid)
    except (AttributeError, OSError):  # not Linux 5.3+, or reaped by another thread meanwhile
        return None
    try:
        poller = select.poll()
        poller.register(handle, select.POLLIN)
        return bool(poller.poll(timeout * 1000))
    finally:
        os.close(handle)


def kill_group(process: subprocess.Popen[Any], wait_seconds: float | None) -> None:
    """SIGKILL ``process``'s process group (it leads one: ``start_new_session``), then reap it,
    waiting at most ``wait_seconds`` (None: until it is gone). A group gone already is no
    error."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if hasattr(os, "killpg"):
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows
            process.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=wait_seconds)
