"""A small pool of forked worker processes whose death is always seen: :class:`ForkedPool`.

CPython's ``ProcessPoolExecutor`` sends every worker's results over one pipe whose write end the
parent holds too. A worker killed (SIGKILL, the OOM killer) half-way through writing a large
result leaves half a message in that pipe; the parent's reader waits for the rest, no end of
file ever comes (the parent itself still holds a writer), and the run hangs instead of naming
the worker's death. Here every worker has a private duplex connection, and the parent closes the
worker's end right after the fork: the worker is then the only process holding it, so when it
ends, however it ends, the parent reads end of file (``EOFError``, or ``OSError`` "got end of
file during message" after half a message) and the pool is broken at once.

Each worker has two threads in the parent: a sender that takes tasks from the pool's shared queue
(so a free worker takes the next one, as in ``ProcessPoolExecutor``) while fewer than ``ahead``
of its tasks are unanswered, and a reader that takes the results. A worker runs its tasks one at
a time, so they come back in the order they were sent and need no numbers. The reader never
sends: a reader blocked writing to a worker blocked writing its result would wait for ever.

A broken pool fails every future not yet answered, and every later ``submit``, with
``BrokenProcessPool`` (the type callers already handle). Stopping never kills a worker: tasks
already sent finish, then each worker is sent a stop message and ends.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import socket
import threading
import traceback
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from multiprocessing.reduction import ForkingPickler
from typing import Any, Final, NamedTuple, ParamSpec, TypeVar

from generator.validate.forking import Carry, Forker, WorkerProcess

P = ParamSpec("P")
T = TypeVar("T")

# Messages, pickled. To a worker: (function, args, kwargs), or None to stop. From a worker:
# (True, result), (False, exception, traceback text), or (None, exception, traceback text) when
# its initializer failed (the worker then ends).
_STOP = bytes(ForkingPickler.dumps(None))

# The parent's ends of every live worker connection of this process. A worker closes all of them
# (its own among them) as it starts: a worker holding another's parent end would keep that
# other worker from seeing end of file when the parent dies.
_PARENT_ENDS: weakref.WeakSet[Connection] = weakref.WeakSet()
_ENDS_LOCK = threading.Lock()

# In a worker: the connection it serves (see current_connection).
_CURRENT: Connection | None = None


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a worker, as text: set as the cause of the
    exception the caller gets, so that a report of an internal error still shows where in the
    worker it happened (a traceback does not travel with a pickled exception)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        """The worker's traceback, set off as ``ProcessPoolExecutor`` sets it off."""
        return f'\n"""\n{self.text}"""'


def current_connection() -> Connection | None:
    """In a worker, the connection its tasks come over and its results go back on; None in any
    other process. Tests use it to leave half a message, as a worker killed mid-write would."""
    return _CURRENT


# --- the worker's side ----------------------------------------------------------------------------


def _serve(
    connection: Connection,
    others: Sequence[Connection],
    initializer: Callable[..., object] | None,
    initargs: tuple[Any, ...],
) -> None:
    """A worker's life: close the parent ends it inherited, run the initializer, then run tasks
    one at a time until it is told to stop or the parent's end closes. Returning ends the
    process the way multiprocessing ends a process (no atexit handlers of the parent, no second
    flush of inherited buffers)."""
    global _CURRENT
    for other in others:
        with contextlib.suppress(OSError):  # closed in the parent just before the fork
            other.close()
    _CURRENT = connection
    if initializer is not None:
        try:
            initializer(*initargs)
        except BaseException as error:
            _reply(connection, (None, error, traceback.format_exc()))
            raise SystemExit(1) from None
    while True:
        try:
            data = connection.recv_bytes()
        except (EOFError, OSError):  # the parent has gone
            return
        reply = _run(data)
        if reply is None or not _reply(connection, reply):
            return


def serve(connection: Connection, failed: tuple[BaseException, str] | None = None) -> None:
    """A worker forked by the zygote (:mod:`generator.validate.zygote`): serve ``connection``
    as a worker this pool forked does; ``failed`` (what setting it up raised, and where) is
    reported as a failed initializer is, and the worker ends."""
    if failed is not None:
        global _CURRENT
        _CURRENT = connection
        _reply(connection, (None, *failed))
        raise SystemExit(1)
    _serve(connection, (), None, ())


def _run(data: bytes) -> tuple[Any, ...] | None:
    """One task's reply, or None for the stop message."""
    try:
        message = ForkingPickler.loads(data)
        if message is None:
            return None
        function, args, kwargs = message
        return (True, function(*args, **kwargs))
    except BaseException as error:  # any of it is the caller's to see, as ProcessPoolExecutor
        return (False, error, traceback.format_exc())


def _reply(connection: Connection, reply: tuple[Any, ...]) -> bool:
    """Send ``reply``, or an error saying why it cannot be pickled; whether the parent is still
    there to read it."""
    try:
        data = ForkingPickler.dumps(reply)
    except Exception as error:
        what = "result" if reply[0] else "exception"
        problem = RuntimeError(
            f"the task's {what} cannot be sent back: {type(error).__name__}: {error}"
        )
        tag = None if reply[0] is None else False
        data = ForkingPickler.dumps((tag, problem, "".join(traceback.format_exception(error))))
    try:
        connection.send_bytes(data)
    except OSError:  # the parent has gone
        return False
    return True


# --- the parent's side ----------------------------------------------------------------------------


class _Task(NamedTuple):
    future: Future[Any]
    function: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


class _Worker:
    """One worker process, the parent's end of its connection, and its futures sent and not yet
    answered (in the order sent: the order its results come back in)."""

    __slots__ = ("connection", "process", "sent", "stopping", "threads")

    def __init__(self, process: WorkerProcess, connection: Connection) -> None:
        self.process: Final = process
        self.connection: Final = connection
        self.sent: Final[deque[Future[Any]]] = deque()
        self.stopping = False  # its stop message is on its way: its end of file is no death
        self.threads: list[threading.Thread] = []


class ForkedPool(Executor):
    """``max_workers`` forked worker processes (see the module doc); ``initializer(*initargs)``
    runs in each the pool forks as it starts, and each is sent up to ``ahead`` tasks before it
    answers the first (one to run, the next ready on its connection).

    Given a ``zygote``, the pool has it fork the workers instead, after running ``carry`` in it
    (what a worker must start from that the zygote lacks: :mod:`generator.validate.zygote`); the
    zygote sets its workers up itself (they never outlive it), so ``initializer`` runs only in
    workers the pool forks, which it does when the zygote cannot."""

    def __init__(
        self,
        max_workers: int,
        *,
        initializer: Callable[..., object] | None = None,
        initargs: tuple[Any, ...] = (),
        ahead: int = 2,
        zygote: Forker | None = None,
        carry: Carry | None = None,
    ) -> None:
        if max_workers < 1 or ahead < 1:
            msg = "a pool needs at least one worker, each sent at least one task at a time"
            raise ValueError(msg)
        if "fork" not in multiprocessing.get_all_start_methods():  # pragma: no cover - not POSIX
            msg = "this platform cannot fork worker processes"
            raise NotImplementedError(msg)
        self._context = multiprocessing.get_context("fork")
        self._count = max_workers
        self._initializer = initializer
        self._initargs = initargs
        self._ahead = ahead
        # who forks the workers, and what they start from; None: this pool, from now on
        self._forker = None if zygote is None or carry is None else (zygote, carry)
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # tasks queued or answered, pool stopped
        self._queue: deque[_Task] = deque()  # submitted, not yet sent to a worker
        self._workers: list[_Worker] = []
        self._started = False
        self._closed = False  # shut down: no new tasks
        self._broken: tuple[str, BaseException | None] | None = None  # why, and its cause

    @property
    def processes(self) -> list[WorkerProcess]:
        """The worker processes, once forked (by the first ``submit``)."""
        with self._lock:
            return [worker.process for worker in self._workers]

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        """Queue ``fn(*args, **kwargs)`` for the next free worker. The first call forks the
        workers (callers hold SIGINT and SIGTERM meanwhile: ``lifeline.held_signals``); a broken
        pool raises ``BrokenProcessPool``, one shut down ``RuntimeError``."""
        with self._lock:
            if self._broken is not None:
                raise self._error()
            if self._closed:
                msg = "cannot schedule new futures after shutdown"
                raise RuntimeError(msg)
            if not self._started:
                self._started = True
                self._start()
            future: Future[T] = Future()
            self._queue.append(_Task(future, fn, args, kwargs))
            self._changed.notify_all()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop taking tasks; with ``cancel_futures``, cancel those not yet sent to a worker (the
        others run). Tasks already sent always finish: a worker is never killed to stop it. Each
        worker then gets its stop message and ends; with ``wait``, this returns once they and
        the pool's threads have. Calling it again does no harm."""
        with self._lock:
            self._closed = True
            dropped = [task.future for task in self._queue] if cancel_futures else []
            if cancel_futures:
                self._queue.clear()
            self._changed.notify_all()
            workers = list(self._workers)
        for future in dropped:
            future.cancel()
            future.set_running_or_notify_cancel()
        if not wait:
            return
        for worker in workers:
            for thread in worker.threads:
                if thread is not threading.current_thread():
                    thread.join()
        for worker in workers:
            worker.process.join()

    # --- starting ---

    def _start(self) -> None:
        """Fork every worker, then start their threads: forked while this process has fewer
        threads, a worker inherits less half-held state. A fork that fails breaks the pool (the
        workers forked already see their connection close and end)."""
        try:
            for _ in range(self._count):
                self._workers.append(self._fork())
        except BaseException as error:
            self._broken = (f"cannot start worker processes: {error}", error)
            for worker in self._workers:
                _close(worker.connection)
            raise
        for number, worker in enumerate(self._workers):
            # named by number: a worker the zygote forks has no pid here yet
            sender = threading.Thread(
                target=self._send, args=(worker,), name=f"forked-pool-send-{number}", daemon=True
            )
            reader = threading.Thread(
                target=self._read, args=(worker,), name=f"forked-pool-read-{number}", daemon=True
            )
            worker.threads = [sender, reader]
            sender.start()
            reader.start()

    def _fork(self) -> _Worker:
        """One worker, its end of the connection closed here once it is forked."""
        mine, theirs = self._context.Pipe(duplex=True)
        with _ENDS_LOCK:
            _PARENT_ENDS.add(mine)
            inherited = list(_PARENT_ENDS)
        forked = self._by_zygote(theirs)
        if forked is not None:
            return _Worker(forked, mine)
        process: BaseProcess = self._context.Process(
            target=_serve,
            args=(theirs, inherited, self._initializer, self._initargs),
            daemon=True,  # exitcode and sentinel, and never outlives this process's exit
        )
        try:
            process.start()
        except BaseException:
            _close(mine)
            raise
        finally:
            theirs.close()  # the worker's alone now: its death is end of file here
        return _Worker(process, mine)

    def _by_zygote(self, theirs: Connection) -> WorkerProcess | None:
        """The worker the zygote forked to serve ``theirs`` (closed here then), or None: there
        is no zygote, or it cannot fork (the pool forks its workers itself from then on)."""
        if self._forker is None:
            return None
        zygote, carry = self._forker
        forked = zygote.fork(theirs.fileno(), carry)
        if forked is None:
            self._forker = None
            return None
        theirs.close()  # the worker's alone now, as below
        return forked

    # --- the sender thread ---

    def _send(self, worker: _Worker) -> None:
        """Send ``worker`` tasks as it has room for them, then its stop message."""
        while True:
            task = self._next(worker)
            if task is None:
                break
            try:
                data = ForkingPickler.dumps((task.function, task.args, task.kwargs))
            except Exception as error:  # the task's function or arguments: its own failure
                self._unsent(worker, task.future, error)
                continue
            try:
                worker.connection.send_bytes(data)
            except OSError:  # the worker has gone: its reader tells (see _stop_reading)
                _stop_reading(worker.connection)
                return
        with contextlib.suppress(OSError):  # gone already: its reader sees it
            worker.connection.send_bytes(_STOP)

    def _next(self, worker: _Worker) -> _Task | None:
        """The next task for ``worker`` once it has room for one; None once the pool is broken,
        or shut down with nothing left to send."""
        with self._changed:
            while True:
                if self._broken is not None or (self._closed and not self._queue):
                    worker.stopping = True
                    return None
                if self._queue and len(worker.sent) < self._ahead:
                    task = self._queue.popleft()
                    if task.future.set_running_or_notify_cancel():  # else cancelled meanwhile
                        worker.sent.append(task.future)
                        return task
                    continue
                self._changed.wait()

    def _unsent(self, worker: _Worker, future: Future[Any], error: Exception) -> None:
        """A task that cannot be pickled fails on its own (nothing was sent)."""
        with self._lock:
            owed = future in worker.sent  # else the pool broke meanwhile and failed it
            if owed:
                worker.sent.remove(future)
                self._changed.notify_all()
        if owed:
            future.set_exception(error)

    # --- the reader thread ---

    def _read(self, worker: _Worker) -> None:
        """Settle ``worker``'s futures with its replies, in order, until its end of file."""
        connection = worker.connection
        while True:
            try:
                data = connection.recv_bytes()
            except (EOFError, OSError) as error:
                self._ended(worker, error)
                return
            try:
                reply = ForkingPickler.loads(data)
            except Exception as error:  # e.g. an exception whose class cannot be rebuilt
                reply = (False, _unreadable(error), "")
            if reply[0] is None:
                cause = _with_traceback(reply[1], reply[2])
                self._break(
                    f"a worker's initializer failed: {type(cause).__name__}: {cause}", cause
                )
                continue
            with self._lock:
                future = worker.sent.popleft() if worker.sent else None  # None: failed already
                self._changed.notify_all()
            if future is None:
                continue
            if reply[0]:
                future.set_result(reply[1])
            else:
                future.set_exception(_with_traceback(reply[1], reply[2]))

    def _ended(self, worker: _Worker, error: BaseException) -> None:
        """``worker``'s connection closed: a death, unless it was told to stop and owes
        nothing. Its sender ends too (told by the broken pool), then the connection is
        closed."""
        with self._lock:
            quiet = worker.stopping and not worker.sent
        if not quiet:
            self._break(f"a worker process (pid {worker.process.pid}) ended abruptly", error)
        sender = worker.threads[0]
        if sender is not threading.current_thread():
            sender.join()
        _close(worker.connection)

    # --- breaking ---

    def _break(self, reason: str, cause: BaseException | None) -> None:
        """The pool is broken (the first reason is kept): every future not yet answered fails
        with ``BrokenProcessPool``, and the senders send their stop messages (the workers alive
        finish what they run, unread)."""
        with self._lock:
            if self._broken is None:
                self._broken = (reason, cause)
            queued = [task.future for task in self._queue]
            self._queue.clear()
            sent = [future for worker in self._workers for future in worker.sent]
            for worker in self._workers:
                worker.sent.clear()
            self._changed.notify_all()
        for future in queued:
            if future.set_running_or_notify_cancel():
                future.set_exception(self._error())
        for future in sent:
            future.set_exception(self._error())

    def _error(self) -> BrokenProcessPool:
        """A new ``BrokenProcessPool`` for the pool's reason (one per future: an exception
        raised in several threads would pile up their tracebacks)."""
        assert self._broken is not None, "only asked once broken"
        reason, cause = self._broken
        error = BrokenProcessPool(reason)
        error.__cause__ = cause
        return error


def _with_traceback(error: BaseException, text: str) -> BaseException:
    """The worker's exception with its traceback text as cause."""
    if text:
        error.__cause__ = RemoteTraceback(text)
    return error


def _unreadable(error: Exception) -> RuntimeError:
    return RuntimeError(f"a worker's reply cannot be unpickled: {type(error).__name__}: {error}")


def _stop_reading(connection: Connection) -> None:
    """Make the reader of ``connection`` see end of file once it has read what is there: a
    worker's reply already sent (its initializer's failure, say) is still read, and the pool is
    broken by the reader alone, with the best reason it has. Sending failed, so the worker has
    closed its end or stopped reading; either way nothing more is to be sent or awaited."""
    with contextlib.suppress(OSError), socket.socket(fileno=os.dup(connection.fileno())) as end:
        end.shutdown(socket.SHUT_RD)


def _close(connection: Connection) -> None:
    """Close a parent end, forgotten first by the workers forked from now on."""
    with _ENDS_LOCK:
        _PARENT_ENDS.discard(connection)
    connection.close()
