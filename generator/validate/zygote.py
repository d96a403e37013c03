"""The zygote: a process forked as the console script starts a ``validate`` run, which imports
the validation engine while the CLI loads, then forks the run's workers from itself.

Why: until a ``-j N`` run's workers start, one core works (the interpreter, the CLI's imports,
the options, the inputs: ~75 ms before the 1,000-cluster fleet's first piece) and the others
wait. Then the caller forks each worker (~5 ms of its own time apiece: the page tables of a
process that has loaded the CLI) and each imports the engine (rules, CEL, the admission chain,
jsonschema-rs: ~23 ms of CPU) on a thread beside its parsing and beside the caller's reading.
Forked at the start, the zygote imports the engine once, on a core that would otherwise wait,
and the forks are its work, not the caller's.

How (Linux: the zygote needs pidfds and ``PR_SET_PDEATHSIG``):

* :func:`begin`, called by the console script before the CLI loads (:func:`wanted` says when),
  forks it with a private socket; it imports the engine.
* A pool (:class:`generator.validate.forked.ForkedPool`) given the zygote sends it, for each
  worker, the worker's end of its connection (``SCM_RIGHTS``) and what a worker must start from
  that the zygote does not have, because the caller made it after the zygote left (the run:
  ``carry``, run in the zygote before it forks, as the caller's state is before its own forks).
  The child serves the connection as a worker the pool forked would.
* The zygote reaps its workers and tells the caller how each ended, so that a dead worker is
  named as one the caller forked ("killed by signal 9").
* Lifetimes: the zygote never outlives the caller and its workers never outlive it (the kernel
  kills each when its parent ends: ``lifeline.guard_parent``), so whatever ends the caller ends
  all of them. It ignores Ctrl-C, as workers do: stopping them is the caller's.
* The caller never waits for it: a request sent while it still imports is read when it is
  done. A zygote gone before a request (killed) makes the pool fork its workers itself, as
  without one; one whose import failed forks workers that report the failure as a worker whose
  initializer failed does.

The protocol, both ways: frames of a 4-byte length and a pickled tuple. To the zygote: ``("fork",
carry or None)`` (None: the same as the last), with the connection's descriptor attached to the
length. From it: ``("forked", pid)`` per fork, in order, and ``("ended", pid, exitcode)`` as each
worker is reaped (exitcode as ``multiprocessing`` has it: -N for signal N).
"""

from __future__ import annotations

import os
import select
import signal
import socket
import stat
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any, NoReturn

from generator.validate.forking import Carry

SUPPORTED = (
    sys.platform.startswith("linux")
    and hasattr(os, "pidfd_open")
    and hasattr(socket, "send_fds")
    and hasattr(signal, "pthread_sigmask")
)

_HELD = {signal.SIGINT, signal.SIGTERM}
_LENGTH = 4


def wanted(args: Sequence[str], cores: int | None, small: int = 0) -> bool:
    """Whether the command line ``args`` is a ``validate`` run that may fork workers: its first
    word that is not an option is ``validate``, ``-j``/``--jobs`` (default: the ``cores``) is at
    least 2, and its inputs may reach ``small`` bytes (the size from which a run forks workers):
    a folder or standard input may, files named may (the words that name no file are taken for
    option values). A wrong guess costs the zygote's imports on another core, and ~5 ms of a run
    that forks no worker (a small input, ``--list-rules``, a usage error)."""
    if not SUPPORTED:  # pragma: no cover - not Linux
        return False
    words = [arg for arg in args if not arg.startswith("-")]
    if words[:1] != ["validate"] or not _may_be_large(words[1:], args, small):
        return False
    jobs = cores or 1
    for number, arg in enumerate(args):
        value = None
        if arg in ("-j", "--jobs") and number + 1 < len(args):
            value = args[number + 1]
        elif arg.startswith("--jobs="):
            value = arg.partition("=")[2]
        elif arg.startswith("-j") and not arg.startswith("--"):
            value = arg[2:]
        if value is not None and value.isdigit():
            jobs = int(value)
    return jobs >= 2


def _may_be_large(words: Sequence[str], args: Sequence[str], small: int) -> bool:
    """Whether the inputs among ``words`` may add up to ``small`` bytes or more."""
    if "-" in args:  # standard input: any size
        return True
    total = 0
    for word in words:
        try:
            found = os.stat(word)
        except (OSError, ValueError):  # an option's value, or a file the run will report
            continue
        if stat.S_ISDIR(found.st_mode):
            return True
        total += found.st_size if stat.S_ISREG(found.st_mode) else small
    return total >= small


def begin() -> Zygote | None:
    """Fork the zygote; None where it cannot be (the platform, a fork or socket refused)."""
    if not SUPPORTED:  # pragma: no cover - not Linux
        return None
    try:
        ours, theirs = socket.socketpair()
    except OSError:
        return None
    caller = os.getpid()
    # Held while forking: the zygote ignores SIGINT and takes SIGTERM's default before it lets
    # them in (guard_parent), so neither can reach it as the caller's handlers.
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        pid = os.fork()
    except OSError:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        ours.close()
        theirs.close()
        return None
    if pid == 0:  # pragma: no cover - the zygote's own process (it never returns here)
        ours.close()
        _zygote(theirs, caller)
    signal.pthread_sigmask(signal.SIG_SETMASK, before)
    theirs.close()
    return Zygote(pid, ours)


# --- the caller's side ------------------------------------------------------------------------------


class Zygote:
    """The caller's handle on its zygote (see the module doc). Safe to use from several threads
    (a pool's readers ask how a worker ended while its main thread forks)."""

    def __init__(self, pid: int, channel: socket.socket) -> None:
        self.pid = pid
        self._channel = channel
        self._lock = threading.Lock()
        self._gone = False
        self._asked = 0  # forks asked for
        self._pids: list[int] = []  # their pids, in the order asked
        self._ended: dict[int, int] = {}  # pid -> exit code
        self._carried: Carry | None = None

    @property
    def gone(self) -> bool:
        """Whether it can no longer fork (ended, or closed)."""
        return self._gone

    def fork(self, connection: int, carry: Carry) -> ZygoteChild | None:
        """Have the zygote run ``carry`` in itself (unless it was the last one sent) and fork a
        worker serving the connection whose descriptor is ``connection`` (the caller closes its
        copy); None where it cannot (it ended, or its socket failed). Never waits for the
        zygote: still importing, it forks the worker when it is done (the task sent meanwhile
        waits on the connection), and the caller reads its input meanwhile."""
        with self._lock:
            if self._gone:
                return None
            # lazy: pickling what to carry is for runs that fork workers
            from multiprocessing.reduction import ForkingPickler

            payload = None if carry is self._carried else bytes(ForkingPickler.dumps(carry))
            frame = _frame(("fork", payload))
            try:
                sent = socket.send_fds(self._channel, [frame[:_LENGTH]], [connection])
                self._channel.sendall(frame[sent:])
            except OSError:
                self._end()
                return None
            self._carried = carry
            number = self._asked
            self._asked += 1
        return ZygoteChild(self, number)

    def pid_of(self, number: int) -> int | None:
        """The pid of the ``number``-th worker forked (waiting for the zygote to say it); None
        if the zygote ended before it did."""
        with self._lock:
            while len(self._pids) <= number and not self._gone:
                self._pump(block=True)
            return self._pids[number] if number < len(self._pids) else None

    def exitcode_of(self, number: int) -> int | None:
        """How the ``number``-th worker ended, if the zygote has said so (never waits)."""
        with self._lock:
            self._pump(block=False)
            pid = self._pids[number] if number < len(self._pids) else None
            return None if pid is None else self._ended.get(pid)

    def wait_for(self, number: int, timeout: float | None = None) -> None:
        """Return once the ``number``-th worker has ended (or the zygote has, or ``timeout``
        seconds have passed)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while not self._gone:
                pid = self._pids[number] if number < len(self._pids) else None
                if pid is not None and pid in self._ended:
                    return
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and (left <= 0 or not _readable(self._channel, left)):
                    return
                self._pump(block=True)

    def close(self, *, reap: bool = True) -> None:
        """End the zygote (and any worker it still has) and, with ``reap``, wait for it: a
        process that ends right after need not (2.5 ms at the end of every run)."""
        with self._lock:
            self._end()
        try:
            os.kill(self.pid, signal.SIGKILL)
            if reap:
                os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):  # reaped already
            pass

    def _end(self) -> None:
        self._gone = True
        self._channel.close()

    def _pump(self, *, block: bool) -> None:
        """Read what the zygote said: one frame at least when ``block``, else what is there."""
        while not self._gone:
            if not block and not _readable(self._channel, 0):
                return
            message = _receive(self._channel)
            if message is None:
                self._end()
                return
            if message[0] == "forked":
                self._pids.append(message[1])
            elif message[0] == "ended":
                self._ended[message[1]] = message[2]
            block = False


class ZygoteChild:
    """A worker the zygote forked, as a pool sees a process: its pid, how it ended, a wait for
    its end (``multiprocessing``'s names)."""

    def __init__(self, zygote: Zygote, number: int) -> None:
        self._zygote = zygote
        self._number = number

    @property
    def pid(self) -> int | None:
        """Its process id (None: the zygote ended before it forked it)."""
        return self._zygote.pid_of(self._number)

    @property
    def exitcode(self) -> int | None:
        """Its exit code once it has ended and the zygote has said so (-N: signal N)."""
        return self._zygote.exitcode_of(self._number)

    def join(self, timeout: float | None = None) -> None:
        """Wait for its end (at most ``timeout`` seconds)."""
        self._zygote.wait_for(self._number, timeout)


# --- frames ---------------------------------------------------------------------------------------


def _readable(channel: socket.socket, timeout: float) -> bool:
    """Whether ``channel`` has something to read (or its end) within ``timeout`` seconds."""
    return bool(select.select([channel], [], [], timeout)[0])


def _frame(message: tuple[Any, ...]) -> bytes:
    # lazy: as in fork (the zygote has it loaded by then)
    import pickle

    data = pickle.dumps(message)
    return len(data).to_bytes(_LENGTH, "big") + data


def _receive(channel: socket.socket, fds: list[int] | None = None) -> tuple[Any, ...] | None:
    """The next frame (and, into ``fds``, descriptors sent with it); None at end of file."""
    if fds is None:
        head = _exactly(channel, _LENGTH)
    else:
        head, received, _flags, _address = socket.recv_fds(channel, _LENGTH, 1)
        fds.extend(received)
        if head:
            head += _exactly(channel, _LENGTH - len(head))
    if len(head) < _LENGTH:
        return None
    body = _exactly(channel, int.from_bytes(head, "big"))
    # lazy: as in _frame
    import pickle

    message: tuple[Any, ...] = pickle.loads(body)
    return message


def _exactly(channel: socket.socket, size: int) -> bytes:
    """``size`` bytes, or fewer at end of file (or a failed socket)."""
    parts = []
    while size > 0:
        try:
            part = channel.recv(min(size, 1 << 20))
        except OSError:
            break
        if not part:
            break
        parts.append(part)
        size -= len(part)
    return b"".join(parts)


# --- the zygote's side ------------------------------------------------------------------------------


def _zygote(channel: socket.socket, caller: int) -> NoReturn:  # pragma: no cover - in the zygote
    """The zygote's life (see the module doc); it always ends here, never returning into the
    caller's code. Anything that fails ends it: the caller's pools then fork their own workers."""
    code = 1
    try:
        _serve(channel, caller)
        code = 0
    except BaseException:  # an import that failed, a caller gone: the pools fork without it
        code = 1
    finally:
        os._exit(code)


def _serve(channel: socket.socket, caller: int) -> None:  # pragma: no cover - in the zygote
    # lazy: the zygote's own work, after it left the caller
    import traceback

    from generator.validate import lifeline  # lazy: as just said

    lifeline.guard_parent(caller)  # never outlives the caller; Ctrl-C is the caller's
    failed = None
    try:
        # lazy: as above
        from generator import runtime
        from generator.validate import engine_load, workers  # lazy: as above

        engine_load.load_engine()
        del workers  # imported for what the caller's tasks and carry name
        runtime.freeze_imported()
    except Exception as error:  # a broken installation: each worker reports it (see _forks)
        failed = (error, traceback.format_exc())
    _forks(channel, failed)


def _forks(channel: socket.socket, failed: tuple[BaseException, str] | None) -> None:
    """Fork a worker per request and report each worker's end, until the caller closes. A
    worker reports ``failed`` (the zygote's own import), or what running its carry raised, as a
    worker whose initializer failed does (the pool breaks with it) instead of serving."""
    # lazy: as in _serve
    import selectors
    import traceback
    from multiprocessing.reduction import ForkingPickler

    selector = selectors.DefaultSelector()
    selector.register(channel, selectors.EVENT_READ, None)
    carried = failed
    zygote = os.getpid()
    while True:
        for key, _events in selector.select():
            if key.data is not None:  # a worker ended
                selector.unregister(key.fd)
                os.close(key.fd)
                _pid, status = os.waitpid(key.data, 0)
                channel.sendall(_frame(("ended", key.data, os.waitstatus_to_exitcode(status))))
                continue
            fds: list[int] = []
            message = _receive(channel, fds)
            if message is None or not fds:  # the caller closed (or sent no connection)
                return
            if message[1] is not None and failed is None:
                try:
                    function, args = ForkingPickler.loads(message[1])
                    function(*args)
                    carried = None
                except Exception as error:  # each worker reports it, as a failed initializer
                    carried = (error, traceback.format_exc())
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the worker's own process
                _worker(fds[0], channel, selector, (zygote, carried))
            os.close(fds[0])
            selector.register(os.pidfd_open(pid), selectors.EVENT_READ, pid)
            channel.sendall(_frame(("forked", pid)))


def _worker(  # pragma: no cover - in a worker the zygote forked (test_zygote drives it)
    connection: int,
    channel: socket.socket,
    selector: Any,
    start: tuple[int, tuple[BaseException, str] | None],
) -> NoReturn:
    """A worker's life, forked by the zygote (pid ``start[0]``): the zygote's descriptors
    closed, guarded by the zygote, then serving ``connection`` as a worker the pool forked does
    (a carry that failed, ``start[1]``, is reported as a failed initializer is)."""
    zygote, failed = start
    code = 1
    try:
        for key in list(selector.get_map().values()):
            if key.data is not None:
                os.close(key.fd)  # another worker's pidfd
        selector.close()
        channel.close()
        # lazy: loaded in the zygote already
        from multiprocessing.connection import Connection

        from generator.validate import forked, lifeline  # lazy: as just said

        lifeline.guard_parent(zygote)
        forked.serve(Connection(connection), failed)
        code = 0
    finally:
        os._exit(code)
