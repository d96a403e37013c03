"""Child processes in tests: each in its own session, bounded by CPU time, reaped as a group.

A test that starts a process must not leave it (or anything it started: workers, kubeconform)
behind when it fails, times out or is interrupted, and its verdict must not depend on how busy
the machine is. So every child here runs in a new session (its own process group), under an
optional CPU-time limit (``RLIMIT_CPU``: a loaded machine slows the wall clock, not the CPU
seconds a run needs) and address-space limit, and its whole group is killed on the way out,
whatever happened. The wall-clock timeout is only a safety net for a child blocked without
using CPU; it is generous on purpose and says so when it fires.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

SAFETY_NET_SECONDS = 600.0  # a child blocked this long (not computing) is a hang


@dataclass(frozen=True)
class Finished:
    """What a child did: its exit status (negative: the signal that ended it) and output."""

    returncode: int
    stdout: str
    stderr: str
    hung: bool = False  # killed by the safety net, not finished on its own


def limit(pid: int, *, cpu_seconds: float | None, memory_bytes: int | None) -> None:
    """Apply the limits to a started child (Linux ``prlimit``; a child that already exited is
    left alone)."""
    with contextlib.suppress(ProcessLookupError):
        if cpu_seconds is not None:
            seconds = max(1, int(cpu_seconds))
            resource.prlimit(pid, resource.RLIMIT_CPU, (seconds, seconds + 1))
        if memory_bytes is not None:
            resource.prlimit(pid, resource.RLIMIT_AS, (memory_bytes, memory_bytes))


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the child's whole process group (it leads its own session) and wait for it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=30)


@contextlib.contextmanager
def started(
    argv: Sequence[str],
    *,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    stdin: IO[bytes] | int | None = subprocess.DEVNULL,
    cpu_seconds: float | None = None,
    memory_bytes: int | None = None,
) -> Iterator[subprocess.Popen[bytes]]:
    """``argv`` running in its own session under the limits; its group is killed on exit."""
    process = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=None if env is None else dict(env),
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        limit(process.pid, cpu_seconds=cpu_seconds, memory_bytes=memory_bytes)
        yield process
    finally:
        kill_group(process)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def run_reaped(
    argv: Sequence[str],
    *,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    stdin: IO[bytes] | int | None = subprocess.DEVNULL,
    cpu_seconds: float | None = None,
    memory_bytes: int | None = None,
    safety_net: float = SAFETY_NET_SECONDS,
) -> Finished:
    """Run ``argv`` to the end (see the module doc); never raises for the child's status."""
    with started(
        argv, cwd=cwd, env=env, stdin=stdin, cpu_seconds=cpu_seconds, memory_bytes=memory_bytes
    ) as process:
        try:
            out, err = process.communicate(timeout=safety_net)
            hung = False
        except subprocess.TimeoutExpired:
            kill_group(process)
            out, err = process.communicate()
            hung = True
    code = process.returncode if process.returncode is not None else -signal.SIGKILL
    return Finished(code, out.decode(errors="replace"), err.decode(errors="replace"), hung)
