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
import functools
import os
import resource
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
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
    umask: int | None = None,
    merged: bool = False,
) -> Iterator[subprocess.Popen[bytes]]:
    """``argv`` running in its own session under the limits (``umask`` set in the child before
    it starts; ``merged``: stderr into stdout, in the order written); its group is killed on
    exit."""
    process = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=None if env is None else dict(env),
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merged else subprocess.PIPE,
        start_new_session=True,
        preexec_fn=None if umask is None else functools.partial(os.umask, umask),
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
    input_text: str | None = None,
    umask: int | None = None,
    merged: bool = False,
) -> Finished:
    """Run ``argv`` to the end (see the module doc), ``input_text`` on its standard input if
    given; never raises for the child's status. ``merged``: everything it wrote is in
    ``stdout`` (``stderr`` is empty)."""
    if input_text is not None:
        stdin = subprocess.PIPE
    data = None if input_text is None else input_text.encode()
    with started(
        argv,
        cwd=cwd,
        env=env,
        stdin=stdin,
        cpu_seconds=cpu_seconds,
        memory_bytes=memory_bytes,
        umask=umask,
        merged=merged,
    ) as process:
        try:
            out, err = process.communicate(data, timeout=safety_net)
            hung = False
        except subprocess.TimeoutExpired:
            kill_group(process)
            out, err = process.communicate()
            hung = True
    code = process.returncode if process.returncode is not None else -signal.SIGKILL
    errors = (err or b"").decode(errors="replace")
    return Finished(code, out.decode(errors="replace"), errors, hung)


def cli_env(home: Path, cache: Path, **extra: str) -> dict[str, str]:
    """The whole environment of a CLI child started from the source tree: this PATH, its own
    home and cache, and the repository on PYTHONPATH (``extra`` added)."""
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "CAPZGEN_CACHE_DIR": str(cache),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
        **extra,
    }


def cli_in_shell(
    tmp_path: Path, argv: Sequence[str], *, before: str = "", redirect: str = ""
) -> Finished:
    """``python -m generator ARGV`` as ``/bin/sh`` starts it in ``tmp_path``, after ``before``
    (``ulimit -n 8 &&``, a ``cd``) and with ``redirect`` (``> /dev/full``, ``>&-``): the
    environment a user's shell can hand the CLI. Its home and cache are below ``tmp_path``; it
    is reaped as :func:`run_reaped` reaps."""
    command = shlex.join([sys.executable, "-m", "generator", *argv])
    env = cli_env(tmp_path / "home", tmp_path / "cache")
    return run_reaped(
        ["/bin/sh", "-c", f"{before} exec {command} {redirect}"], cwd=tmp_path, env=env
    )


def run_like_subprocess(
    argv: list[str],
    *,
    input: str | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    check: bool = False,
    capture_output: bool = True,
    text: bool = True,
) -> Finished:
    """``subprocess.run(..., capture_output=True, text=True)`` as the older tests call it, through
    :func:`run_reaped` (its own session, its group reaped); ``check`` asserts a zero status."""
    del capture_output, text  # always captured, always text
    done = run_reaped(argv, env=env, cwd=cwd, input_text=input)
    if check:
        assert done.returncode == 0, done.stderr
    return done


# --- children that are signalled: started, found through /proc, waited for --------------------------

CLI_CPU_SECONDS = 120  # the CPU-time limit of a signalled CLI child (it needs a few)
POLL = 0.01  # seconds between two looks
SAFETY = 120.0  # seconds a wait may take at most, whatever the machine's load


def _limits() -> None:  # runs in the child, before exec
    resource.setrlimit(resource.RLIMIT_CPU, (CLI_CPU_SECONDS, CLI_CPU_SECONDS))


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


def with_grandchild(pid_file: Path) -> list[str]:
    """A child that starts a grandchild in its own process group, writes the grandchild's pid to
    ``pid_file`` and sleeps, for tests of stopping a whole group."""
    script = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(300)\n"
    )
    return [sys.executable, "-c", script]


def grandchild_of(pid_file: Path) -> int:
    """The pid :func:`with_grandchild` wrote, once it is there."""
    assert wait_until(lambda: pid_file.exists() and bool(pid_file.read_text()))
    return int(pid_file.read_text())


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


def descendants(pid: int) -> list[int]:
    """The live children of ``pid``, their children, and so on."""
    found: list[int] = []
    for child in children(pid):
        found += [child, *descendants(child)]
    return found


def wait_for_workers(process: subprocess.Popen[bytes], count: int) -> list[int]:
    """A ``validate -j N`` run's worker processes once there are ``count`` of them ([] if it
    ended first): the descendants with no child of their own, whether the run forked them or
    its zygote did (generator.validate.zygote, then the run's only child)."""
    found: list[int] = []

    def enough() -> bool:
        found[:] = [pid for pid in descendants(process.pid) if not children(pid)]
        return len(found) >= count

    return list(found) if wait_until(enough, process) else []


def gone(pids: Sequence[int]) -> bool:
    """Whether every one of ``pids`` has ended (polled a bounded number of times)."""
    return wait_until(lambda: not any(alive(pid) for pid in pids))


def stderr_of(process: subprocess.Popen[bytes]) -> str:
    """What the process printed on stderr (once it has ended)."""
    assert process.stderr is not None
    return process.stderr.read().decode("utf-8", errors="replace")
