"""generator/validate/zygote.py: the process the console script forks for ``validate -j N``,
which loads the engine while the CLI loads and then forks the run's workers.

The pool's side runs in this process (a zygote begun here, closed on the way out): what a
worker is carried, a carry that fails, a worker killed, a zygote gone before it forks. The
CLI's side runs ``python -m generator`` (the console script) in a session of its own, reaped
with its process group: the run's process tree, the same findings as ``-j 1``, the log level,
a zygote killed before the run or during it, and a zygote never outliving its caller.
"""

from __future__ import annotations

import errno
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Pipe
from multiprocessing.reduction import ForkingPickler
from pathlib import Path
from typing import NoReturn

import pytest

from generator.checks import ValidationOptions
from generator.errors import ExitCode
from generator.validate import engine_load, forked, zygote
from generator.validate.forked import ForkedPool
from generator.validate.lifeline import how_ended
from generator.validate.passes import RunInputs
from generator.validate.sample import head_sample
from generator.validate.tuning import Tuning
from generator.validate.zygote import Zygote, wanted
from tests.processes import (
    children,
    descendants,
    gone,
    reaped,
    start,
    started,
    stderr_of,
    wait_for_workers,
)
from tests.validate.test_worker_death import clusters

pytestmark = pytest.mark.skipif(not zygote.SUPPORTED, reason="the zygote is Linux's")


# --- which command lines begin one ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "cores", "expected"),
    [
        (["validate", "a.yaml"], 2, True),
        (["-v", "validate", "a.yaml"], 8, True),
        (["validate", "a.yaml"], 1, False),  # the default is one process
        (["validate", "-j", "4", "a.yaml"], 1, True),
        (["validate", "-j", "1", "a.yaml"], 8, False),
        (["validate", "-j1", "a.yaml"], 8, False),
        (["validate", "--jobs", "1", "a.yaml"], 8, False),
        (["validate", "--jobs=1", "a.yaml"], 8, False),
        (["validate", "a.yaml"], None, False),  # cores unknown: one, as default_jobs says
        (["generate", "cluster", "validate"], 8, False),  # a cluster named "validate"
        (["--version"], 8, False),
        ([], 8, False),
    ],
)
def test_a_validate_run_that_may_fork_workers_wants_one(
    args: list[str], cores: int | None, expected: bool
) -> None:
    assert wanted(args, cores) is expected


def test_inputs_too_small_for_workers_want_none(tmp_path: Path) -> None:
    """Files named that add up to less than the size from which a run forks workers: no
    zygote (it would cost such a run ~5 ms); a folder or standard input may be any size."""
    small, large = tmp_path / "small.yaml", tmp_path / "large.yaml"
    small.write_text("k: v\n" * 10)
    large.write_text("k: v\n" * 100)
    limit = 200
    assert not wanted(["validate", str(small)], 2, limit)
    assert not wanted(["validate", "--output", "json", str(small)], 2, limit)  # "json": no file
    assert wanted(["validate", str(small), str(large)], 2, limit)
    assert wanted(["validate", str(tmp_path)], 2, limit)
    assert wanted(["validate", "-"], 2, limit)
    assert not wanted(["validate", str(tmp_path / "missing.yaml")], 2, limit)


# --- the pool's side --------------------------------------------------------------------------------

_CARRIED: list[int] = []  # what the carry below left in the zygote (its workers inherit it)


def carry(value: int) -> None:
    _CARRIED.append(value)


def refuse() -> None:
    msg = "no run for this worker"
    raise RuntimeError(msg)


def carried_and_parent() -> tuple[list[int], int]:
    return _CARRIED, os.getppid()


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer ends a process


@pytest.fixture
def begun() -> Iterator[Zygote]:
    started = zygote.begin()
    assert started is not None
    try:
        yield started
    finally:
        started.close()
    assert not children(os.getpid())  # the zygote and its workers reaped


def test_the_zygote_forks_workers_that_start_from_what_it_was_carried(begun: Zygote) -> None:
    pool = ForkedPool(2, zygote=begun, carry=(carry, (42,)))
    try:
        found = [pool.submit(carried_and_parent).result(timeout=60) for _ in range(4)]
        for process in pool.processes:  # alive: a bounded wait returns, nothing known yet
            process.join(timeout=0.01)
            assert process.exitcode is None
    finally:
        pool.shutdown()
    assert all(result == ([42], begun.pid) for result in found)  # carried once, not per worker
    assert not _CARRIED  # nothing carried here: only in the zygote
    assert sorted(process.exitcode or 0 for process in pool.processes) == [0, 0]


def test_a_carry_that_fails_is_a_failed_initializer(begun: Zygote) -> None:
    pool = ForkedPool(1, zygote=begun, carry=(refuse, ()))
    try:
        with pytest.raises(BrokenProcessPool) as raised:
            pool.submit(carried_and_parent).result(timeout=60)
    finally:
        pool.shutdown()
    assert str(raised.value) == (
        "a worker's initializer failed: RuntimeError: no run for this worker"
    )


def test_a_worker_the_zygote_forked_is_named_as_it_died(begun: Zygote) -> None:
    pool = ForkedPool(1, zygote=begun, carry=(carry, (1,)))
    try:
        with pytest.raises(BrokenProcessPool):
            pool.submit(die).result(timeout=60)
        assert how_ended(pool, settle=60) == "killed by signal 9"
    finally:
        pool.shutdown()


def test_a_zygote_whose_import_failed_has_its_workers_say_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken() -> None:
        msg = "No module named 'jsonschema_rs'"
        raise ImportError(msg)

    monkeypatch.setattr(engine_load, "load_engine", broken)  # before the zygote forks
    started = zygote.begin()
    assert started is not None
    pool = ForkedPool(1, zygote=started, carry=(carry, (1,)))
    try:
        with pytest.raises(BrokenProcessPool) as raised:
            pool.submit(carried_and_parent).result(timeout=60)
    finally:
        pool.shutdown()
        started.close()
    assert str(raised.value) == (
        "a worker's initializer failed: ImportError: No module named 'jsonschema_rs'"
    )


def test_a_pool_whose_zygote_is_gone_forks_its_workers_itself(begun: Zygote) -> None:
    os.kill(begun.pid, signal.SIGKILL)
    os.waitpid(begun.pid, 0)  # gone, not only signalled
    pool = ForkedPool(2, zygote=begun, carry=(carry, (7,)))
    try:
        found = [pool.submit(carried_and_parent).result(timeout=60) for _ in range(2)]
    finally:
        pool.shutdown()
    assert found == [([], os.getpid())] * 2
    assert begun.gone


# --- the CLI's side ---------------------------------------------------------------------------------


@pytest.fixture
def big(tmp_path: Path) -> Path:
    """A file that takes a run seconds, with one error: well above ``parallel_from``."""
    path = tmp_path / "big.yaml"
    planted = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name}\n---\n"
    path.write_text(planted + clusters(4000))
    assert path.stat().st_size > 4 * Tuning().parallel_from
    return path


def _finished(process: subprocess.Popen[bytes]) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=300)
    return process.returncode, (out or b"").decode(), (err or b"").decode()


def test_a_run_forks_its_workers_from_the_zygote_and_finds_what_one_process_finds(
    big: Path, tmp_path: Path, cli_env: dict[str, str]
) -> None:
    args = ["validate", "--no-cache", "--output", "json", str(big)]
    alone = start([*args, "-j", "1"], cli_env, tmp_path, stdout=subprocess.PIPE)
    with reaped(alone):
        expected = _finished(alone)
    process = start([*args, "-j", "2"], cli_env, tmp_path, stdout=subprocess.PIPE)
    with reaped(process):
        workers = wait_for_workers(process, 2)
        assert len(workers) == 2, stderr_of(process) if process.poll() is not None else ""
        os.kill(process.pid, signal.SIGSTOP)  # held while its tree is read (see test_worker_death)
        below = descendants(process.pid)
        (forker,) = children(process.pid)  # the run's only child: the zygote
        os.kill(process.pid, signal.SIGCONT)
        assert forker not in workers
        assert set(below) == {forker, *workers}
        assert _finished(process) == expected
        assert expected[0] == ExitCode.INVALID
        assert gone(below)


def test_the_zygote_and_its_workers_log_at_the_run_s_level(
    big: Path, tmp_path: Path, cli_env: dict[str, str]
) -> None:
    """``-vv``'s debug lines come from the zygote and the workers too (the parent of a plain
    run looks no schema up): they left before the CLI set the level, the carry brings it. The
    kinds of the input's head are looked up once, by the zygote's warm-up for every worker; a
    kind further on, by the worker that meets it."""
    with big.open("a") as tail:
        tail.write("---\napiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: ns}\n")
    process = start(["-vv", "validate", "--no-cache", "-j", "2", str(big)], cli_env, tmp_path)
    with reaped(process):
        code, _, said = _finished(process)
    assert code == ExitCode.INVALID
    head = [line for line in said.splitlines() if "Kind=AzureManagedCluster from" in line]
    assert len(head) == 1, said
    assert head[0].startswith("capzgen: schema for ")
    assert "Kind=Secret from" in said


KILLED_FIRST = """
import os, signal, sys
from generator.validate import zygote
real = zygote.begin
def begin():
    started = real()
    os.kill(started.pid, signal.SIGKILL)
    os.waitpid(started.pid, 0)  # gone, not only signalled
    return started
zygote.begin = begin
sys.argv = ["capzgen", "validate", "--no-cache", "-j", "2", {path!r}]
from generator.__main__ import main
main()
"""


def test_a_run_whose_zygote_died_forks_its_workers_itself(
    big: Path, tmp_path: Path, cli_env: dict[str, str]
) -> None:
    script = tmp_path / "killed_first.py"
    script.write_text(KILLED_FIRST.format(path=str(big)))
    process = subprocess.Popen(
        [sys.executable, str(script)],
        env=cli_env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    with reaped(process):
        workers = wait_for_workers(process, 2)
        os.kill(process.pid, signal.SIGSTOP)
        forked_here = children(process.pid)
        os.kill(process.pid, signal.SIGCONT)
        assert len(workers) == 2
        assert set(workers) <= set(forked_here)  # forked by the run itself
        code, out, said = _finished(process)
    assert code == ExitCode.INVALID, said
    assert "8001 documents checked: 1 error" in out


def test_a_zygote_killed_during_the_run_is_a_worker_death_not_a_hang(
    big: Path, tmp_path: Path, cli_env: dict[str, str]
) -> None:
    process = start(["validate", "--no-cache", "-j", "2", str(big)], cli_env, tmp_path)
    below: list[int] = []
    with reaped(process, lambda: below):
        assert len(wait_for_workers(process, 2)) == 2
        below.extend(descendants(process.pid))
        (forker,) = children(process.pid)
        os.kill(process.pid, signal.SIGSTOP)
        os.kill(forker, signal.SIGKILL)
        assert gone(below)  # its workers end with it
        os.kill(process.pid, signal.SIGCONT)
        code, _, said = _finished(process)
    assert code == ExitCode.USAGE, said
    assert "a worker process died" in said
    assert "Traceback" not in said


def test_the_zygote_never_outlives_its_caller(tmp_path: Path, cli_env: dict[str, str]) -> None:
    script = (
        "import os, sys\n"
        "from generator.validate import zygote\n"
        "started = zygote.begin()\n"
        "print(started.pid, flush=True)\n"
        "os._exit(0)\n"
    )
    with started([sys.executable, "-c", script], env=cli_env, cwd=tmp_path) as process:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        assert gone([int(out)])  # checked before the group is killed on the way out


# --- what the zygote warms up on ---------------------------------------------------------------------


def _run_of(path: str, held: dict[str, str] | None = None) -> RunInputs:
    return RunInputs([path], [path], None, ValidationOptions(), Tuning(), held=held)


def test_the_sample_is_the_first_documents_of_the_first_input(big: Path) -> None:
    sample = head_sample(_run_of(str(big)))
    assert [doc.obj["kind"] for doc in sample][:3] == [
        "ConfigMap",
        "Cluster",
        "AzureManagedCluster",
    ]
    assert len(sample) == Tuning().sample_documents
    assert [doc.index for doc in sample] == list(range(len(sample)))


def test_a_held_input_gives_its_sample_and_a_broken_one_none(tmp_path: Path) -> None:
    held = {"-": "kind: A\n---\nkind: B\n---\nkind: C\n"}
    assert [doc.obj["kind"] for doc in head_sample(_run_of("-", held))] == ["A", "B"]
    broken = tmp_path / "broken.yaml"
    broken.write_text("kind: A\n---\nkind: [\n---\nkind: C\n")
    assert head_sample(_run_of(str(broken))) == []
    assert head_sample(_run_of("-")) == []  # standard input not held: not read twice


# --- the zygote's own loop, run here on a thread ------------------------------------------------------

_LOOP_CARRIED: list[int] = []  # what the loop's carry left in this process (the loop's own)


def carry_into_loop(value: int) -> None:
    _LOOP_CARRIED.append(value)


def loop_carried_and_parent() -> tuple[list[int], int]:
    return _LOOP_CARRIED, os.getppid()


def test_the_zygote_s_loop_forks_reports_each_end_and_stops_at_its_caller_s(tmp_path: Path) -> None:
    """``_forks``, what the zygote runs once imported, run on a thread of this process (which is
    then the workers' parent): each request's carry run once, a worker forked per request, each
    worker's end reported, a carry that fails reported by the workers it forks, and the loop's
    end when the caller closes its socket."""
    ours, theirs = socket.socketpair()
    loop = threading.Thread(target=zygote._forks, args=(theirs, None), daemon=True)
    loop.start()
    caller = Zygote(os.getpid(), ours)  # never closed with close(): it would kill this process
    pool = ForkedPool(2, zygote=caller, carry=(carry_into_loop, (5,)))
    try:
        found = [pool.submit(loop_carried_and_parent).result(timeout=60) for _ in range(2)]
    finally:
        pool.shutdown()
    assert found == [([5], os.getpid())] * 2
    assert _LOOP_CARRIED == [5]  # once for both workers
    for process in pool.processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    broken = ForkedPool(1, zygote=caller, carry=(refuse, ()))
    try:
        with pytest.raises(BrokenProcessPool, match="initializer failed: RuntimeError"):
            broken.submit(loop_carried_and_parent).result(timeout=60)
    finally:
        broken.shutdown()
    ours.close()
    loop.join(timeout=60)
    assert not loop.is_alive()


def test_a_worker_whose_start_failed_says_so_and_ends() -> None:
    """What a worker the zygote forked does with a carry that failed: it reports it as a failed
    initializer (the pool breaks with the error and its traceback) and ends."""
    mine, theirs = Pipe(duplex=True)
    with pytest.raises(SystemExit):
        forked.serve(theirs, (RuntimeError("no run"), "Traceback (most recent call last): ..."))
    tag, error, text = ForkingPickler.loads(mine.recv_bytes())
    assert tag is None
    assert str(error) == "no run"
    assert text.startswith("Traceback")


def test_no_zygote_where_the_system_refuses_its_socket_or_its_fork(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*_args: object, **_kwargs: object) -> NoReturn:
        raise OSError(errno.EMFILE, "Too many open files")

    open_before = len(os.listdir("/proc/self/fd"))
    mask_before = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    monkeypatch.setattr(socket, "socketpair", refuse)
    assert zygote.begin() is None
    monkeypatch.undo()
    monkeypatch.setattr(os, "fork", refuse)
    assert zygote.begin() is None
    monkeypatch.undo()
    assert len(os.listdir("/proc/self/fd")) == open_before  # its sockets closed
    assert signal.pthread_sigmask(signal.SIG_BLOCK, set()) == mask_before  # signals let in
