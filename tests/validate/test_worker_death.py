"""``validate -j 2``'s workers never outlive it, and one that dies is a clear error.

A real ``python -m generator validate -j 2`` runs on a file large enough for worker processes;
once both are forked the test stops the run (SIGSTOP), so its workers are there for as long as
the test wants, finishing what they were sent and then waiting on their pipes. Then the test
kills the run (SIGKILL, SIGTERM, SIGINT) or one worker (as the OOM killer would, whatever the
worker was doing: idle, computing, or writing a result the stopped run does not read), and lets
the run go on (SIGCONT). (A FIFO given after the file held runs here before; inputs that can be
read only once are now read before anything else, so it holds a run before its workers exist.)
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from generator.errors import ExitCode
from generator.validate.tuning import Tuning
from tests.processes import (
    children,
    cli_in_shell,
    descendants,
    gone,
    reaped,
    start,
    start_script,
    stderr_of,
    wait_for_workers,
)


def clusters(count: int) -> str:
    """``count`` Cluster and AzureManagedCluster pairs (about 450 bytes each)."""
    parts = []
    for number in range(count):
        name = f"c{number:04d}"
        parts.append(
            f"apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\n"
            f"metadata: {{name: {name}, namespace: ns}}\nspec:\n"
            f"  infrastructureRef: {{apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, "
            f"kind: AzureManagedCluster, name: {name}}}\n---\n"
            f"apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedCluster\n"
            f"metadata: {{name: {name}, namespace: ns}}\n"
        )
    return "---\n".join(parts)


@pytest.fixture
def args(tmp_path: Path) -> list[str]:
    big = tmp_path / "big.yaml"
    # well above Tuning.parallel_from (the run forks its workers), and much more work after
    # that than before, so that the run is still going when the test stops it, however busy
    # the machine: 4,000 clusters took 0.26 s in all (the sources, -j 2), and on a loaded
    # machine a run was once held only after its last result; 16,000 take 0.7 s, and stay below
    # the size whose pieces the workers read from the file themselves
    big.write_text(clusters(16000))
    assert 4 * Tuning().parallel_from < big.stat().st_size < Tuning().keep_parsed_below
    return ["validate", "--no-cache", "-j", "2", str(big)]


def _held(process: subprocess.Popen[bytes]) -> tuple[list[int], list[int]]:
    """The run's two workers, once forked, with the run stopped (SIGSTOP); and every process
    below the run (the workers, and the zygote that forked them: generator.validate.zygote)."""
    found = wait_for_workers(process, 2)
    assert len(found) == 2, stderr_of(process) if process.poll() is not None else "no workers"
    below = descendants(process.pid)
    os.kill(process.pid, signal.SIGSTOP)
    assert process.poll() is None, "the run ended before it could be held"
    return found, below


@pytest.mark.parametrize(
    ("signum", "code"),
    [
        (signal.SIGKILL, -signal.SIGKILL),
        (signal.SIGTERM, ExitCode.TERMINATED),
        (signal.SIGINT, ExitCode.INTERRUPTED),
    ],
    ids=["sigkill", "sigterm", "sigint"],
)
def test_the_workers_end_with_the_run(
    args: list[str],
    tmp_path: Path,
    cli_env: dict[str, str],
    signum: signal.Signals,
    code: int,
) -> None:
    process = start(args, cli_env, tmp_path)
    found: list[int] = []
    with reaped(process, lambda: found):
        found.extend(_held(process)[1])
        assert len(found) == 3  # the zygote and its two workers
        os.kill(process.pid, signum)
        os.kill(process.pid, signal.SIGCONT)  # a stopped process takes the signal as it goes on
        assert process.wait(timeout=120) == code
        assert gone(found), f"workers {found} outlived the run"
        if signum != signal.SIGKILL:
            said = stderr_of(process)
            assert ("Terminated." if signum == signal.SIGTERM else "Interrupted.") in said
            assert "Traceback" not in said


def test_a_worker_killed_while_the_run_is_held_is_exit_2_naming_the_file(
    args: list[str], tmp_path: Path, cli_env: dict[str, str]
) -> None:
    process = start(args, cli_env, tmp_path)
    found: list[int] = []
    with reaped(process, lambda: found):
        workers, below = _held(process)
        found.extend(below)
        os.kill(workers[0], signal.SIGKILL)  # as the OOM killer does
        assert gone(workers[:1])
        os.kill(process.pid, signal.SIGCONT)
        assert process.wait(timeout=120) == ExitCode.USAGE
        said = stderr_of(process)
        assert "a worker process died (killed by signal 9)" in said
        assert "big.yaml" in said  # what it was doing, or to do next
        assert "-j 1" in said
        assert "internal error" not in said
        assert gone(found)
        assert children(process.pid) == []


DURING_A_TASK = """
import os, signal
import pytest
from generator.checks import ValidationOptions
from generator.errors import ExitCode, WorkerDied
from generator.validate import workers
from generator.validate.passes import RunInputs
from generator.validate.stream import fork_pool
from generator.validate.tuning import Tuning
from generator.validate.workers import Piece


def die(task):
    os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer ends a process
    return len(task)


workers.start(RunInputs(["a.yaml", "b.yaml"], ["a.yaml", "b.yaml"], None, ValidationOptions(), Tuning()))
pool = fork_pool(1)
try:
    with pytest.raises(WorkerDied) as raised:
        pool.submit(0, die, [Piece(1, "digest", [])]).result(timeout=120)
    assert str(raised.value) == "a worker process died (killed by signal 9) while reading b.yaml"
    assert raised.value.exit_code == ExitCode.USAGE
    with pytest.raises(WorkerDied, match="before reading a.yaml"):
        pool.submit(0, die, [Piece(0, "digest", [])])
finally:
    pool.shutdown()
print("ok")
"""


def test_a_worker_killed_during_a_task_names_the_tasks_files(tmp_path: Path) -> None:
    """The pool itself, in a child process of its own (the test's only one)."""
    script = tmp_path / "during.py"
    script.write_text(DURING_A_TASK)
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(tmp_path)}
    process = start_script(script, env, tmp_path)
    with reaped(process):
        assert process.wait(timeout=120) == 0, stderr_of(process)


def test_workers_the_system_refuses_are_one_clear_error(tmp_path: Path, args: list[str]) -> None:
    """Under a shell's descriptor limit too low for the workers' connections (``ulimit -n``),
    ``-j 2`` stops with one error that says so and how to get on (exit 2), never "internal
    error" (the fork's OSError reached the CLI as a bug before)."""
    # 6: the standard streams, the zygote's socket and one worker's connection; the second
    # worker's is refused (the zygote forks them, so the run itself needs no more: at 7 it runs)
    result = cli_in_shell(tmp_path, args, before="ulimit -n 6 &&")
    assert result.returncode == ExitCode.USAGE, result.stderr
    assert result.stderr.startswith(
        "Error: cannot start the worker processes: Too many open files\n"
    ), result.stderr
    assert "ulimit -n, ulimit -u), or run with -j 1" in result.stderr
