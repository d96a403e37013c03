"""``generate fleet -j 2``'s workers never outlive it, and one that dies is a clear error.

A real ``python -m generator generate fleet`` renders a fleet; once its two workers exist the
test signals the run or a worker. A run that ended before its workers were seen is tried again
with a fleet four times larger (the verdict never depends on how fast the machine is).
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from generator.errors import ExitCode
from tests.processes import gone, reaped, start, stderr_of, wait_for_children

SIZES = (40, 160, 640, 2560)


def fleet_text(count: int) -> str:
    lines = [
        "defaults:",
        "  flavor: aks",
        "  kubernetesVersion: v1.31.1",
        "  namespace: fleet",
        "  values: {AZURE_LOCATION: westeurope}",
        "clusters:",
    ]
    lines.extend(f"  - name: c{number:04d}" for number in range(count))
    return "\n".join(lines) + "\n"


@pytest.fixture
def env(tmp_path: Path, session_cache: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(tmp_path / "home"),
        "LANG": "C.UTF-8",
        "CAPZGEN_CACHE_DIR": str(session_cache),
    }


Act = Callable[[subprocess.Popen[bytes], list[int], Path], bool]


def _with_workers(tmp_path: Path, env: dict[str, str], act: Act) -> None:
    """Run fleets of growing size until one's workers are seen; then ``act`` (whether it
    could judge: False when the run finished before the signal mattered)."""
    for size in SIZES:
        fleet = tmp_path / f"fleet-{size}.yaml"
        fleet.write_text(fleet_text(size))
        out = tmp_path / f"out-{size}"
        process = start(
            ["generate", "fleet", str(fleet), "--output-dir", str(out), "-j", "2"], env, tmp_path
        )
        found: list[int] = []
        with reaped(process, found.copy):
            found.extend(wait_for_children(process, 2))
            if found and act(process, found, out):
                return
    pytest.fail(f"no fleet up to {SIZES[-1]} clusters ran long enough to see its workers")


def test_sigkill_of_the_run_ends_its_workers(tmp_path: Path, env: dict[str, str]) -> None:
    def act(process: subprocess.Popen[bytes], found: list[int], out: Path) -> bool:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=120)
        assert gone(found), f"workers {found} outlived the run"
        return True

    _with_workers(tmp_path, env, act)


def test_sigterm_is_exit_143_with_nothing_written(tmp_path: Path, env: dict[str, str]) -> None:
    def act(process: subprocess.Popen[bytes], found: list[int], out: Path) -> bool:
        os.kill(process.pid, signal.SIGTERM)
        code = process.wait(timeout=120)
        assert gone(found), f"workers {found} outlived the run"
        if code == ExitCode.OK:
            return False  # it had finished: try a larger fleet
        said = stderr_of(process)
        assert code == ExitCode.TERMINATED, said
        assert "Terminated." in said
        assert not out.exists() or not [p for p in out.rglob("*") if p.is_file()]
        return True

    _with_workers(tmp_path, env, act)


def test_a_killed_worker_is_exit_2_naming_a_cluster(tmp_path: Path, env: dict[str, str]) -> None:
    def act(process: subprocess.Popen[bytes], found: list[int], out: Path) -> bool:
        os.kill(found[0], signal.SIGKILL)  # as the OOM killer does
        code = process.wait(timeout=120)
        said = stderr_of(process)
        if code == ExitCode.OK:
            return False  # every cluster was rendered before: try a larger fleet
        assert code == ExitCode.USAGE, said
        assert "a worker process died (killed by signal 9) while rendering cluster c" in said
        assert "internal error" not in said
        assert gone(found)
        assert not out.exists() or not [p for p in out.rglob("*") if p.is_file()]
        return True

    _with_workers(tmp_path, env, act)
