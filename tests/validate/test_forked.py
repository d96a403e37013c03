"""generator/validate/forked.py: a pool of forked workers whose death is always seen.

A worker's own loop (``_serve``) runs here in the test's thread, over a connection whose other
end the test holds. The pool forks real workers: what ends well (results in order, errors sent
back, cancelling, stopping) runs in this process, every worker stopped and reaped on the way out
whatever happens; the deaths (a worker SIGKILLed mid-task, one that leaves half a message, the
parent SIGKILLed) run in a child Python process of their own, reaped with its process group.

No verdict waits on the clock: where the order of events matters, a task tells the test it runs
(its pid, on a pipe) and then waits for the test's go (a byte on another pipe), both pipes made
before the workers fork. Timeouts are safety nets only.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import socket
import struct
from collections.abc import Callable, Iterator
from concurrent.futures import CancelledError
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection, Pipe
from multiprocessing.context import ForkProcess
from multiprocessing.reduction import ForkingPickler
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from generator.validate import forked
from generator.validate.forked import ForkedPool, RemoteTraceback
from generator.validate.lifeline import how_ended
from tests.processes import SAFETY, alive, gone, reaped, start_script, stderr_of, wait_for_children

# --- tasks (module functions: a worker gets them by name) -------------------------------------------


def square(number: int) -> int:
    return number * number


def fail(message: str) -> None:
    raise ValueError(message)


class Picky(Exception):
    """An exception that pickles but cannot be rebuilt (its class wants two arguments)."""

    def __init__(self, first: str, second: str) -> None:
        super().__init__(first)
        self.second = second


def raise_picky() -> None:
    first = "first"
    raise Picky(first, "second")


def return_a_lambda() -> object:
    return lambda: None


def raise_with_a_lambda() -> None:
    raise ValueError(lambda: None)


def gated(started: int, gate: int) -> int:
    """Tell the test this task runs (this worker's pid), then wait for its go."""
    os.write(started, struct.pack("!i", os.getpid()))
    os.read(gate, 1)
    return os.getpid()


def exit_when_let(started: int, gate: int, status: int) -> None:
    """Wait as :func:`gated` does, then end the worker with ``status`` (no clean-up)."""
    gated(started, gate)
    os._exit(status)


def stop_reading(started: int, gate: int) -> int:
    """Stop reading this worker's connection (as a worker that closed it would), then wait as
    :func:`gated` does."""
    connection = forked.current_connection()
    assert connection is not None
    with socket.socket(fileno=os.dup(connection.fileno())) as end:
        end.shutdown(socket.SHUT_RD)
    return gated(started, gate)


# --- in this process ------------------------------------------------------------------------------


class Gate(NamedTuple):
    """Two pipes (made before a pool forks): tasks write their pid on ``started``, and wait for
    a byte on ``gate``."""

    started_r: int
    started_w: int
    gate_r: int
    gate_w: int

    def running(self) -> int:
        """The pid of the next task to run (waits for it)."""
        data = b""
        while len(data) < 4:
            chunk = os.read(self.started_r, 4 - len(data))
            assert chunk, "the tasks' pipe closed"
            data += chunk
        pid: int = struct.unpack("!i", data)[0]
        return pid

    def open(self, tasks: int = 1) -> None:
        """Let ``tasks`` waiting tasks go on."""
        os.write(self.gate_w, b"x" * tasks)


@pytest.fixture
def gate() -> Iterator[Gate]:
    made = Gate(*os.pipe(), *os.pipe())
    try:
        yield made
    finally:
        for fd in made:
            os.close(fd)


Pools = Callable[..., ForkedPool]


@pytest.fixture
def pools() -> Iterator[Pools]:
    """Pools made here; on the way out each is stopped, and any worker still running (a test
    that failed half-way) is killed, and all are reaped."""
    made: list[ForkedPool] = []

    def make(*args: Any, **kwargs: Any) -> ForkedPool:
        pool = ForkedPool(*args, **kwargs)
        made.append(pool)
        return pool

    try:
        yield make
    finally:
        for pool in made:
            for process in pool.processes:
                if process.exitcode is None and process.pid is not None:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(process.pid, signal.SIGKILL)
            pool.shutdown(wait=True, cancel_futures=True)
            assert not any(alive(p.pid) for p in pool.processes if p.pid is not None)


def test_results_come_back_in_submission_order_from_both_workers(pools: Pools, gate: Gate) -> None:
    pool = pools(2, ahead=1)
    first = [pool.submit(gated, gate.started_w, gate.gate_r) for _ in range(2)]
    rest = [pool.submit(square, number) for number in range(200)]
    # A worker holds one task at a time (ahead=1): both run one gated task, both wait.
    running = {gate.running(), gate.running()}
    assert running == {process.pid for process in pool.processes}
    gate.open(2)
    assert {future.result(timeout=SAFETY) for future in first} == running
    assert [future.result(timeout=SAFETY) for future in rest] == [n * n for n in range(200)]
    assert list(pool.map(square, range(500), timeout=SAFETY)) == [n * n for n in range(500)]
    pool.shutdown()
    assert [process.exitcode for process in pool.processes] == [0, 0]


def test_a_remote_exception_has_the_workers_traceback_as_cause(pools: Pools) -> None:
    pool = pools(1)
    with pytest.raises(ValueError, match=r"^bad input$") as raised:
        pool.submit(fail, "bad input").result(timeout=SAFETY)
    cause = raised.value.__cause__
    assert isinstance(cause, RemoteTraceback)
    assert "in fail" in cause.text
    assert "raise ValueError(message)" in cause.text
    assert str(cause) == f'\n"""\n{cause.text}"""'
    assert pool.submit(square, 3).result(timeout=SAFETY) == 9  # the worker goes on


@pytest.mark.parametrize(
    ("task", "error"),
    [
        (return_a_lambda, "the task's result cannot be sent back: "),
        (raise_with_a_lambda, "the task's exception cannot be sent back: "),
        (raise_picky, "a worker's reply cannot be unpickled: TypeError"),
    ],
    ids=["result", "exception", "unreadable"],
)
def test_a_reply_that_cannot_travel_is_an_error_of_its_task_only(
    pools: Pools, task: Callable[[], object], error: str
) -> None:
    pool = pools(1)
    with pytest.raises(RuntimeError, match="^" + error):
        pool.submit(task).result(timeout=SAFETY)
    assert pool.submit(square, 4).result(timeout=SAFETY) == 16


def test_a_task_that_cannot_be_sent_is_an_error_of_its_own(pools: Pools) -> None:
    pool = pools(1)
    with pytest.raises((pickle.PicklingError, AttributeError)):
        pool.submit(square, lambda: 2).result(timeout=SAFETY)  # type: ignore[arg-type]
    assert pool.submit(square, 5).result(timeout=SAFETY) == 25


def test_a_worker_that_exits_breaks_the_pool(pools: Pools, gate: Gate) -> None:
    pool = pools(1)
    doomed = pool.submit(exit_when_let, gate.started_w, gate.gate_r, 3)
    gate.running()
    # queued while the worker still runs (an exit before this would refuse them at submit: the
    # pool is broken by then, which the last lines check)
    queued = [pool.submit(square, number) for number in range(5)]
    gate.open()
    with pytest.raises(BrokenProcessPool, match="ended abruptly"):
        doomed.result(timeout=SAFETY)
    for future in queued:
        with pytest.raises(BrokenProcessPool, match="ended abruptly"):
            future.result(timeout=SAFETY)
    for process in pool.processes:  # how_ended looks only briefly: a loaded machine is slower
        process.join(SAFETY)
    assert how_ended(pool) == "exited with status 3"
    with pytest.raises(BrokenProcessPool, match="ended abruptly"):
        pool.submit(square, 2)


def test_a_worker_that_cannot_be_sent_to_breaks_the_pool(pools: Pools, gate: Gate) -> None:
    pool = pools(1)
    running = pool.submit(stop_reading, gate.started_w, gate.gate_r)
    gate.running()  # it reads no more
    unsendable = pool.submit(square, 6)
    for future in (running, unsendable):
        with pytest.raises(BrokenProcessPool):
            future.result(timeout=SAFETY)
    gate.open()  # its reply goes nowhere: it ends


def test_an_initializer_that_raises_breaks_the_pool(pools: Pools) -> None:
    pool = pools(2, initializer=fail, initargs=("no context",))
    future = pool.submit(square, 2)
    with pytest.raises(
        BrokenProcessPool, match="initializer failed: ValueError: no context"
    ) as raised:
        future.result(timeout=SAFETY)
    cause = raised.value.__cause__
    assert isinstance(cause, ValueError)
    assert isinstance(cause.__cause__, RemoteTraceback)
    with pytest.raises(BrokenProcessPool, match="initializer failed"):
        pool.submit(square, 2)
    pool.shutdown()
    assert [process.exitcode for process in pool.processes] == [1, 1]


def test_a_pool_that_cannot_fork_is_broken(pools: Pools, monkeypatch: pytest.MonkeyPatch) -> None:
    real = ForkProcess.start
    forks: list[ForkProcess] = []

    def fork_once(process: ForkProcess) -> None:
        forks.append(process)
        if len(forks) > 1:
            raise OSError(11, "Resource temporarily unavailable")
        real(process)

    monkeypatch.setattr(ForkProcess, "start", fork_once)
    pool = pools(3)
    with pytest.raises(OSError, match="temporarily unavailable"):
        pool.submit(square, 2)
    monkeypatch.undo()
    with pytest.raises(BrokenProcessPool, match="cannot start worker processes"):
        pool.submit(square, 2)
    pool.shutdown()
    assert [process.exitcode for process in pool.processes] == [0]  # its connection closed


def test_a_task_cancelled_while_queued_is_passed_over(pools: Pools, gate: Gate) -> None:
    pool = pools(1, ahead=1)
    running = pool.submit(gated, gate.started_w, gate.gate_r)
    cancelled = pool.submit(square, 7)
    after = pool.submit(square, 8)
    gate.running()  # with ahead=1 the others wait here, not sent
    assert cancelled.cancel()
    gate.open()
    assert after.result(timeout=SAFETY) == 64
    assert running.result(timeout=0) == pool.processes[0].pid


def test_replies_that_come_after_the_pool_broke_are_dropped(pools: Pools, gate: Gate) -> None:
    pool = pools(2, ahead=1)
    running = pool.submit(gated, gate.started_w, gate.gate_r)
    gate.running()  # one worker is busy: the next task goes to the other
    doomed = pool.submit(os._exit, 3)
    with pytest.raises(BrokenProcessPool):
        doomed.result(timeout=SAFETY)
    with pytest.raises(BrokenProcessPool):
        running.result(timeout=SAFETY)  # failed with the pool, still running
    gate.open()  # its reply comes, for no one; then its stop message
    pool.shutdown()
    assert sorted(process.exitcode or 0 for process in pool.processes) == [0, 3]


def test_shutdown_cancels_what_was_not_sent_and_lets_the_rest_finish(
    pools: Pools, gate: Gate
) -> None:
    pool = pools(1, ahead=1)
    running = pool.submit(gated, gate.started_w, gate.gate_r)
    queued = [pool.submit(square, number) for number in range(3)]
    gate.running()  # the first task runs; with ahead=1 the others wait here, not sent
    pool.shutdown(wait=False, cancel_futures=True)
    with pytest.raises(RuntimeError, match="after shutdown"):
        pool.submit(square, 2)
    for future in queued:
        assert future.cancelled()
        with pytest.raises(CancelledError):
            future.result(timeout=SAFETY)
    gate.open()
    pool.shutdown()  # again: waits for the running task and the worker's end
    pool.shutdown()
    assert running.result(timeout=0) == pool.processes[0].pid
    assert [process.exitcode for process in pool.processes] == [0]
    assert gone([p.pid for p in pool.processes if p.pid is not None])


def test_shutdown_without_cancelling_runs_what_was_queued(pools: Pools, gate: Gate) -> None:
    pool = pools(2, ahead=1)
    running = pool.submit(gated, gate.started_w, gate.gate_r)
    queued = [pool.submit(square, number) for number in range(20)]
    gate.running()
    pool.shutdown(wait=False)
    gate.open()
    pool.shutdown()
    assert [future.result(timeout=0) for future in queued] == [n * n for n in range(20)]
    assert running.done()
    assert [process.exitcode for process in pool.processes] == [0, 0]


def test_a_pool_never_used_has_no_process() -> None:
    with ForkedPool(2) as pool:
        assert pool.processes == []
    with pytest.raises(ValueError, match="at least one worker"):
        ForkedPool(0)


# --- a worker's own loop, here in the test's thread -------------------------------------------------


def _served(
    messages: list[object],
    *,
    others: tuple[Connection, ...] = (),
) -> list[Any]:
    """The replies of ``_serve`` to ``messages``, then end of file."""
    mine, theirs = Pipe(duplex=True)
    try:
        for message in messages:
            data = message if isinstance(message, bytes) else ForkingPickler.dumps(message)
            mine.send_bytes(data)
        with socket.socket(fileno=os.dup(mine.fileno())) as end:
            end.shutdown(socket.SHUT_WR)  # the worker reads end of file after them
        forked._serve(theirs, others, None, ())
        assert forked.current_connection() is theirs
        replies = []
        while mine.poll():
            replies.append(pickle.loads(mine.recv_bytes()))
        return replies
    finally:
        forked._CURRENT = None
        mine.close()
        theirs.close()


def test_a_worker_answers_each_task_and_stops_when_told() -> None:
    replies = _served([(square, (3,), {}), (fail, ("no",), {}), None, (square, (4,), {})])
    assert replies[0] == (True, 9)
    ok, error, text = replies[1]
    assert ok is False and isinstance(error, ValueError) and "raise ValueError" in text
    assert len(replies) == 2  # the stop message ends it: the last task is never run


def test_a_worker_ends_at_end_of_file_and_closes_the_parent_ends_it_inherited() -> None:
    inherited, other = Pipe(duplex=True)
    try:
        assert _served([(square, (2,), {})], others=(inherited,)) == [(True, 4)]
        assert inherited.closed
    finally:
        inherited.close()
        other.close()


def test_a_worker_says_why_a_reply_cannot_be_sent() -> None:
    replies = _served([(return_a_lambda, (), {}), (raise_with_a_lambda, (), {})])
    for (ok, error, text), what in zip(replies, ["result", "exception"], strict=True):
        assert ok is False
        assert isinstance(error, RuntimeError)
        assert str(error).startswith(f"the task's {what} cannot be sent back: ")
        assert "Traceback" in text


def test_a_worker_says_why_a_message_cannot_be_read() -> None:
    [(ok, error, _)] = _served([b"not a pickle"])
    assert ok is False
    assert isinstance(error, pickle.UnpicklingError)


def test_a_worker_ends_when_its_reply_has_nowhere_to_go() -> None:
    mine, theirs = Pipe(duplex=True)
    try:
        mine.send_bytes(ForkingPickler.dumps((square, (5,), {})))
        with socket.socket(fileno=os.dup(mine.fileno())) as end:
            end.shutdown(socket.SHUT_RD)  # the parent reads no more
        forked._serve(theirs, (), None, ())  # returns: nothing more to do
    finally:
        forked._CURRENT = None
        mine.close()
        theirs.close()


def test_the_initializers_failure_is_the_first_reply() -> None:
    mine, theirs = Pipe(duplex=True)
    try:
        with pytest.raises(SystemExit):
            forked._serve(theirs, (), fail, ("no schemas",))
        tag, error, text = pickle.loads(mine.recv_bytes())
        assert tag is None
        assert isinstance(error, ValueError) and str(error) == "no schemas"
        assert "raise ValueError(message)" in text
    finally:
        forked._CURRENT = None
        mine.close()
        theirs.close()


# --- deaths, in a child process -----------------------------------------------------------------

SCRIPT_HEAD = """
import os, signal, struct, sys
import pytest
from concurrent.futures.process import BrokenProcessPool
from generator.validate import forked
from generator.validate.forked import ForkedPool
from generator.validate.lifeline import guard_parent, how_ended


def square(number):
    return number * number
"""

KILLED_DURING_A_TASK = (
    SCRIPT_HEAD
    + """
GATE_R, GATE_W = os.pipe()  # the doomed task waits until the next one is queued


def die(_):
    os.read(GATE_R, 1)
    os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer ends a process


pool = ForkedPool(1)
try:
    assert pool.submit(square, 3).result(timeout=120) == 9
    doomed = pool.submit(die, None)
    queued = pool.submit(square, 4)
    os.write(GATE_W, b"x")
    for future in (doomed, queued):
        with pytest.raises(BrokenProcessPool):
            future.result(timeout=120)
    for process in pool.processes:  # how_ended looks only briefly; a loaded machine is slower
        process.join(120)
    assert how_ended(pool) == "killed by signal 9", how_ended(pool)
    with pytest.raises(BrokenProcessPool):
        pool.submit(square, 5)
finally:
    pool.shutdown()
print("ok")
"""
)

HALF_A_MESSAGE = (
    SCRIPT_HEAD
    + """
def write_half_and_die(_):
    # What a worker killed while writing a large result leaves: a length header claiming
    # 1,000,000 bytes, then a few of them.
    fd = forked.current_connection().fileno()
    os.write(fd, struct.pack("!i", 1_000_000) + b"abcdef")
    os._exit(9)


pool = ForkedPool(2)
try:
    futures = [pool.submit(square, n) for n in range(4)]
    futures.append(pool.submit(write_half_and_die, None))
    futures.extend(pool.submit(square, n) for n in range(4))
    with pytest.raises(BrokenProcessPool) as raised:
        for future in futures:
            future.result(timeout=120)
    assert isinstance(raised.value.__cause__, OSError), repr(raised.value.__cause__)
    for process in pool.processes:  # the other worker was told to stop: it ends too
        process.join(120)
    assert how_ended(pool) == "exited with status 9", how_ended(pool)
finally:
    pool.shutdown()
print("ok")
"""
)

PARENT_KILLED = (
    SCRIPT_HEAD
    + """
def wait_for_ever(_):
    signal.pause()


pool = ForkedPool(2, initializer=guard_parent, initargs=(os.getpid(),))
futures = [pool.submit(wait_for_ever, n) for n in range(4)]
futures[0].result()  # never: the test kills this process
"""
)


def _run_script(tmp_path: Path, text: str) -> None:
    script = tmp_path / "pool.py"
    script.write_text(text)
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(tmp_path)}
    process = start_script(script, env, tmp_path)
    with reaped(process):
        assert process.wait(timeout=SAFETY) == 0, stderr_of(process)


def test_a_worker_killed_during_a_task_breaks_the_pool(tmp_path: Path) -> None:
    _run_script(tmp_path, KILLED_DURING_A_TASK)


def test_a_worker_that_dies_after_half_a_message_breaks_the_pool(tmp_path: Path) -> None:
    """CPython's pool waits for the rest of such a message for ever (its parent holds the
    writer too); here the worker's end of file is seen at once."""
    _run_script(tmp_path, HALF_A_MESSAGE)


def test_the_workers_die_with_their_parent(tmp_path: Path) -> None:
    script = tmp_path / "pool.py"
    script.write_text(PARENT_KILLED)
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(tmp_path)}
    process = start_script(script, env, tmp_path)
    found: list[int] = []
    with reaped(process, lambda: found):
        found.extend(wait_for_children(process, 2))
        assert len(found) == 2, stderr_of(process) if process.poll() is not None else "no workers"
        os.kill(process.pid, signal.SIGKILL)  # the parent alone, not its group
        assert process.wait(timeout=SAFETY) == -signal.SIGKILL
        assert gone(found), f"workers {found} outlived their parent"
