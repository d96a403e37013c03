"""generator.children.wait: a child's end is seen when it happens, not at the next poll."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from generator import children
from tests.processes import alive, grandchild_of, started, wait_until, with_grandchild

# Blocks until its standard input closes, then exits with status 3.
WAITS_FOR_STDIN = [sys.executable, "-c", "import sys; sys.stdin.read(); sys.exit(3)"]


def _close_soon(process: subprocess.Popen[bytes]) -> threading.Timer:
    assert process.stdin is not None
    closer = threading.Timer(0.2, process.stdin.close)
    closer.start()
    return closer


def _no_sleeping(*_: object) -> None:
    msg = "polled: slept while waiting for the child"
    raise AssertionError(msg)


def test_the_end_is_seen_without_polling(monkeypatch: pytest.MonkeyPatch) -> None:
    # Popen.wait(timeout=...) sleeps between looks (up to 50 ms late); the pidfd wakes at once.
    with started(WAITS_FOR_STDIN, stdin=subprocess.PIPE) as process:
        closer = _close_soon(process)
        monkeypatch.setattr(time, "sleep", _no_sleeping)
        assert children.wait(process, 600) == 3
        closer.join()


def test_the_limit_raises_and_leaves_the_child_running() -> None:
    with started(WAITS_FOR_STDIN, stdin=subprocess.PIPE) as process:
        with pytest.raises(subprocess.TimeoutExpired):
            children.wait(process, 0.05)
        assert process.poll() is None
        _close_soon(process).join()
        assert children.wait(process, 600) == 3


def test_without_a_pidfd_it_is_popen_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(_: int) -> int:
        msg = "no pidfd here"
        raise OSError(msg)

    monkeypatch.setattr(os, "pidfd_open", refused)
    with started(WAITS_FOR_STDIN, stdin=subprocess.PIPE) as process:
        with pytest.raises(subprocess.TimeoutExpired):
            children.wait(process, 0.05)
        _close_soon(process).join()
        assert children.wait(process, 600) == 3


def test_a_child_reaped_already_gives_its_status() -> None:
    with started(WAITS_FOR_STDIN, stdin=subprocess.PIPE) as process:
        _close_soon(process).join()
        assert process.wait() == 3
        assert children.wait(process, 0) == 3
        assert children.wait(process, None) == 3


def test_kill_group_stops_the_child_and_what_it_started(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild"
    with started(with_grandchild(pid_file)) as process:
        grandchild = grandchild_of(pid_file)
        children.kill_group(process, None)
        assert process.returncode == -signal.SIGKILL
        assert wait_until(lambda: not alive(grandchild))
        children.kill_group(process, 5)  # gone already: no error
