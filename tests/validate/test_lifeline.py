"""generator/validate/lifeline.py and the kubeconform passthrough's signal forwarding, in this
process: how a dead worker is told, which signals are held while workers fork, killing a pool's
workers, and forwarding a signal to a child's group (the end-to-end runs are in
test_worker_death.py and tests/kubeconform/test_signals.py, in child processes)."""

from __future__ import annotations

import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest

from generator.cli import Terminated
from generator.cli import kubeconform as passthrough
from generator.errors import ExitCode, WorkerDied
from generator.validate import lifeline
from tests.processes import alive, kill_group, wait_until


@dataclass
class _Process:
    exitcode: int | None


class _Pool(ThreadPoolExecutor):
    """An executor with the worker processes a forked pool tells (what lifeline reads)."""

    def __init__(self, processes: list[Any]) -> None:
        super().__init__(max_workers=1)
        self.processes = processes


@pytest.mark.parametrize(
    ("codes", "told"),
    [
        ([-9], "killed by signal 9"),
        ([-15, -9], "killed by signal 9"),  # SIGTERM is how the pool stops the others
        ([3], "exited with status 3"),
        ([-15], "killed by signal 15"),
        ([0, 9], "exited with status 9"),  # the others are told to stop: they exit 0
        ([0], "exited with status 0"),
        ([None], "ended unexpectedly"),
    ],
)
def test_how_a_dead_worker_ended(codes: list[int | None], told: str) -> None:
    pool = _Pool([_Process(code) for code in codes])
    try:
        assert lifeline.how_ended(pool, settle=0) == told
    finally:
        pool.shutdown()


def test_a_dead_worker_is_a_usage_error_with_a_hint() -> None:
    died = lifeline.worker_died("killed by signal 9", "while validating a.yaml")
    assert isinstance(died, WorkerDied)
    assert died.exit_code == ExitCode.USAGE
    assert str(died) == "a worker process died (killed by signal 9) while validating a.yaml"
    assert died.hint is not None and "-j 1" in died.hint


def test_signals_are_held_while_workers_fork_and_restored_after() -> None:
    before = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    with lifeline.held_signals():
        held = signal.pthread_sigmask(signal.SIG_BLOCK, set())
        assert {signal.SIGINT, signal.SIGTERM} <= held
    assert signal.pthread_sigmask(signal.SIG_BLOCK, set()) == before


def test_the_signal_forwarded_is_the_one_received() -> None:
    assert passthrough._signal_of(Terminated()) == signal.SIGTERM
    assert passthrough._signal_of(KeyboardInterrupt()) == signal.SIGINT


def test_a_forwarded_signal_ends_the_childs_group_and_gives_its_status() -> None:
    script = "import signal, sys, time\nsignal.signal(signal.SIGTERM, lambda *_: sys.exit(7))\nprint('ready', flush=True)\ntime.sleep(300)\n"
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, start_new_session=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"
        assert passthrough._forward(child, signal.SIGTERM) == 7
    finally:
        kill_group(child)
        if child.stdout is not None:
            child.stdout.close()


def test_a_child_that_ignores_the_signal_is_killed_after_the_grace() -> None:
    script = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('ready', flush=True)\ntime.sleep(300)\n"
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, start_new_session=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"
        assert passthrough._forward(child, signal.SIGTERM, grace=0.2) == -signal.SIGKILL
        assert wait_until(lambda: not alive(child.pid))
    finally:
        kill_group(child)
        if child.stdout is not None:
            child.stdout.close()
