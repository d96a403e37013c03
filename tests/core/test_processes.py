"""tests/processes.py: children run in their own session, under CPU limits, and are reaped."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from tests.processes import (
    alive,
    grandchild_of,
    run_reaped,
    started,
    wait_until,
    with_grandchild,
)


def test_a_grandchild_is_killed_with_its_parent(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild"
    with started(with_grandchild(pid_file)):
        grandchild = grandchild_of(pid_file)
        assert alive(grandchild)
    assert wait_until(lambda: not alive(grandchild))


def test_a_busy_child_is_stopped_by_its_cpu_limit() -> None:
    done = run_reaped([sys.executable, "-c", "while True: pass"], cpu_seconds=1)
    assert not done.hung
    assert done.returncode in (-signal.SIGXCPU, -signal.SIGKILL)


def test_output_and_status_come_back() -> None:
    done = run_reaped(
        [
            sys.executable,
            "-c",
            "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)",
        ]
    )
    assert (done.returncode, done.stdout, done.stderr, done.hung) == (3, "out\n", "err\n", False)


def test_a_blocked_child_is_caught_by_the_safety_net() -> None:
    done = run_reaped([sys.executable, "-c", "import time; time.sleep(300)"], safety_net=0.5)
    assert done.hung
