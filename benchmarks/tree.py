"""One benchmark run of a command, its whole process tree counted.

A command's processes may outlive it by a moment: ``capzgen validate -j N`` run from its console
script tells its workers (and the zygote that forked them) to stop and exits without waiting for
them to give their memory back. ``wait4`` on the command counts only the children it reaped, so
their CPU would go uncounted. The benchmark process is therefore the subreaper of what it runs
(Linux's ``PR_SET_CHILD_SUBREAPER``): every process the command leaves behind becomes its child
once orphaned, is waited for before the next run, and its CPU time joins the command's. The wall
time stays the command's own (its exit, and its output closed: a worker holding stderr is waited
for there), which is what a caller sees.
"""

from __future__ import annotations

import ctypes
import functools
import os
import resource
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


@dataclass(frozen=True, slots=True)
class Finished:
    """A command's exit code, stderr, wall seconds, CPU seconds of every process of its tree,
    and the largest peak RSS (MiB) of any of them."""

    returncode: int
    stderr: bytes
    wall: float
    cpu: float
    peak_mib: float


@functools.cache
def adopt_orphans() -> None:
    """Become the subreaper of everything this process starts (once; a no-op elsewhere)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def run_tree(argv: Sequence[str], env: Mapping[str, str]) -> Finished:
    """Run ``argv`` to its end, then wait for every process it left behind."""
    adopt_orphans()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(
        list(argv), env=dict(env), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert process.stderr is not None
    err = process.stderr.read()
    _, status, _usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.stderr.close()
    while True:  # the orphans: this process's children now
        try:
            os.wait()
        except ChildProcessError:
            break
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Finished(os.waitstatus_to_exitcode(status), err, wall, cpu, after.ru_maxrss / 1024)
