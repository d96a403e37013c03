"""Helpers of the tests that start ``python -m generator`` and signal it: start it in its own
session under a CPU-time limit, find its processes through /proc, and reap the whole group.

No verdict depends on the machine's speed: waits poll a bounded number of times and the
wall-clock bounds are generous safety nets only; the child's CPU time is capped
(``RLIMIT_CPU``) so that a runaway child ends by itself.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

CPU_SECONDS = 120  # the child's CPU-time limit (it needs a few)
POLL = 0.01  # seconds between two looks
SAFETY = 120.0  # seconds a wait may take at most, whatever the machine's load


def _limits() -> None:  # runs in the child, before exec
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))


def start(
    args: Sequence[str], env: Mapping[str, str], cwd: Path, *, stdout: int | None = None
) -> subprocess.Popen[bytes]:
    """``python -m generator ARGS`` in its own session (its workers in its group)."""
    return subprocess.Popen(
        [sys.executable, "-m", "generator", *args],
        env=dict(env),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL if stdout is None else stdout,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=_limits,
    )


def start_script(script: Path, env: Mapping[str, str], cwd: Path) -> subprocess.Popen[bytes]:
    """``python SCRIPT`` in its own session, as :func:`start` does."""
    return subprocess.Popen(
        [sys.executable, str(script)],
        env=dict(env),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=_limits,
    )


@contextlib.contextmanager
def reaped(
    process: subprocess.Popen[bytes], *others: Callable[[], Sequence[int]]
) -> Iterator[None]:
    """On the way out, SIGKILL the process's whole group, and every pid ``others`` name (a
    worker that left the group would be one), then reap the process."""
    try:
        yield
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        for found in others:
            for pid in found():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
        process.wait()
        if process.stderr is not None:
            process.stderr.close()


def children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (from /proc, every thread's list)."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                text = Path(f"/proc/{pid}/task/{task}/children").read_text()
                found.extend(int(word) for word in text.split())
    return [child for child in found if alive(child)]


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for a parent that does not reap it does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def wait_until(seen: Callable[[], bool], process: subprocess.Popen[bytes] | None = None) -> bool:
    """Poll until ``seen()`` (True), or the process ends or the safety bound passes (False)."""
    deadline = time.monotonic() + SAFETY
    while time.monotonic() < deadline:
        if seen():
            return True
        if process is not None and process.poll() is not None:
            return seen()
        time.sleep(POLL)
    return False


def wait_for_children(process: subprocess.Popen[bytes], count: int) -> list[int]:
    """The process's children once there are ``count`` of them ([] if it ended first)."""
    found: list[int] = []

    def enough() -> bool:
        found[:] = children(process.pid)
        return len(found) >= count

    return list(found) if wait_until(enough, process) else []


def gone(pids: Sequence[int]) -> bool:
    """Whether every one of ``pids`` has ended (polled a bounded number of times)."""
    return wait_until(lambda: not any(alive(pid) for pid in pids))


def stderr_of(process: subprocess.Popen[bytes]) -> str:
    """What the process printed on stderr (once it has ended)."""
    assert process.stderr is not None
    return process.stderr.read().decode("utf-8", errors="replace")
