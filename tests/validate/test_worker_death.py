"""``validate -j 2``'s workers never outlive it, and one that dies is a clear error.

A real ``python -m generator validate`` runs on a file large enough for worker processes and on
a FIFO after it: the run forks its workers for the file, then blocks opening the FIFO, so the
workers are there, idle and waiting on their pipe, for as long as the test wants. Then the test
kills the run (SIGKILL, SIGTERM, SIGINT) or one worker (as the OOM killer would).
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
from pathlib import Path

import pytest

from generator.errors import ExitCode
from generator.validate.tuning import Tuning
from tests.processes import (
    children,
    gone,
    reaped,
    start,
    start_script,
    stderr_of,
    wait_for_children,
    wait_until,
)

HELD = "held.yaml"


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
def held(tmp_path: Path, cli_env: dict[str, str]) -> tuple[Path, list[str]]:
    big = tmp_path / "big.yaml"
    big.write_text(clusters(1000))  # above Tuning.parallel_from: the run forks its workers
    assert big.stat().st_size > Tuning().parallel_from
    fifo = tmp_path / HELD
    os.mkfifo(fifo)
    return fifo, ["validate", "--no-cache", "-j", "2", str(big), str(fifo)]


def _release(fifo: Path, process: subprocess.Popen[bytes]) -> None:
    """Let the run go on, if it is opening the FIFO (it may have stopped before): it reads one
    small document from it. A worker reads the file again for its text, and a FIFO gives its
    content once: before the run can reach the end of the FIFO (the writer closes last), a
    regular file with the same document takes its name, and that is what a worker reads."""
    handle: list[int] = []

    def opened() -> bool:
        try:
            handle.append(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # ENXIO: no reader yet
        except OSError as error:
            if error.errno != errno.ENXIO:
                raise
            return False
        return True

    if wait_until(opened, process):
        try:
            os.write(handle[0], DOCUMENT)
            again = fifo.with_name(fifo.name + ".again")
            again.write_bytes(DOCUMENT)
            os.replace(again, fifo)
        finally:
            os.close(handle[0])


DOCUMENT = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"


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
    held: tuple[Path, list[str]],
    tmp_path: Path,
    cli_env: dict[str, str],
    signum: signal.Signals,
    code: int,
) -> None:
    _, args = held
    process = start(args, cli_env, tmp_path)
    found: list[int] = []
    with reaped(process, lambda: found):
        found.extend(wait_for_children(process, 2))
        assert len(found) == 2, stderr_of(process) if process.poll() is not None else "no workers"
        os.kill(process.pid, signum)
        assert process.wait(timeout=120) == code
        assert gone(found), f"workers {found} outlived the run"
        if signum != signal.SIGKILL:
            said = stderr_of(process)
            assert ("Terminated." if signum == signal.SIGTERM else "Interrupted.") in said
            assert "Traceback" not in said


def test_a_worker_killed_between_tasks_is_exit_2_naming_the_file(
    held: tuple[Path, list[str]], tmp_path: Path, cli_env: dict[str, str]
) -> None:
    fifo, args = held
    process = start(args, cli_env, tmp_path)
    found: list[int] = []
    with reaped(process, lambda: found):
        found.extend(wait_for_children(process, 2))
        assert len(found) == 2, "no workers"
        os.kill(found[0], signal.SIGKILL)  # as the OOM killer does
        assert gone(found[:1])
        _release(fifo, process)
        assert process.wait(timeout=120) == ExitCode.USAGE
        said = stderr_of(process)
        assert "a worker process died (killed by signal 9)" in said
        assert "big.yaml" in said or HELD in said  # what it was to do next
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
