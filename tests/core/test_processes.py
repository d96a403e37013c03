"""tests/processes.py: children run in their own session, under CPU limits, and are reaped."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests.processes import run_reaped, started


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purposes (its parent, the child, was killed).
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().split()[2] != "Z"


def _wait_for(condition: Callable[[], bool], steps: int = 3000) -> bool:
    """Poll ``condition`` every 10 ms, at most ``steps`` times (a safety net, not a speed bound)."""
    for _ in range(steps):
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def test_a_grandchild_is_killed_with_its_parent(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild"
    script = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(300)\n"
    )
    with started([sys.executable, "-c", script]):
        assert _wait_for(lambda: pid_file.exists() and bool(pid_file.read_text()))
        grandchild = int(pid_file.read_text())
        assert _alive(grandchild)
    assert _wait_for(lambda: not _alive(grandchild))


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
