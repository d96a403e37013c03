"""The ``capzgen`` console script and ``python -m generator``: the CLI of :mod:`generator.cli`.

``capzgen --version`` alone is answered here, before click and the command group load: it is what
scripts and CI steps run to see which build they have, and it needs nothing but the version and
the pinned releases, which :mod:`generator` keeps for this. Every other command line, including
``--version`` beside other arguments, goes to :func:`generator.cli.main`.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from generator import version_text

if TYPE_CHECKING:
    from generator.validate.zygote import Zygote


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI on ``argv`` (default: the process's arguments) and return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:
        print(version_text())
        return 0
    if argv is None:
        # The process's own run: what is imported from here on lives until the end, so the
        # cyclic collector has nothing to find in it: 29 collections, 3.4 ms before `validate`
        # had its modules. generator.runtime.freeze_imported turns it on again once a command's
        # modules are in (every command goes through it).
        gc.disable()
    zygote = _zygote(args) if argv is None else None
    # lazy: the CLI edge - click and the command group load for every command but --version
    from generator.cli import main as cli_main

    code = cli_main(args, zygote=zygote, ends_process=argv is None)
    if zygote is not None:  # begun for this process's own run, which ends now: not reaped
        zygote.close(reap=False)
    if argv is None:
        _leave(code)  # returns only where the interpreter's own exit is needed
    return code


def _zygote(args: Sequence[str]) -> Zygote | None:
    """For a ``validate`` run that may fork workers, the zygote that forks them, begun before
    anything else loads (see :mod:`generator.validate.zygote`: it imports the engine on a core
    that waits for the CLI meanwhile)."""
    if "validate" not in args:  # every other command: nothing more to load
        return None
    # lazy: a handful of standard modules (which validate loads anyway), for its own run only
    from generator.validate import zygote

    # lazy: as above (one small module)
    from generator.validate.tuning import DEFAULT_TUNING

    small = DEFAULT_TUNING.parallel_from  # a smaller input is validated in this process
    return zygote.begin() if zygote.wanted(args, os.cpu_count(), small) else None


def _leave(code: int) -> None:
    """The process's own command has run: end the process as the interpreter would, without
    tearing down first every module and object it holds (the operating system frees them all at
    once). After validating the thousand-cluster fleet the interpreter's exit took 24 ms, 7 ms
    with the heap frozen (under ``strace``), and this leaves about 2.5 of those 7 (measured
    from the caller's side: 2.6-3.2 ms from the command's end to the exit status, 7.7-8.7 with
    the interpreter's exit), in the serial tail of every run.

    What the interpreter's exit promises is kept, in its order: ``atexit`` handlers run (the
    log's, coverage's, temporary folders' finalizers), then the standard streams are flushed.
    Where that is not enough, this returns and the interpreter exits as usual: another thread
    still runs that is not a daemon (the exit waits for it; one a pool left, sending its
    workers their stop, is not), or a stream cannot be flushed (the exit reports it as it
    always has). Files and pools were closed by the command itself. Not done for a caller
    passing ``argv`` (tests, embedding programs), whose process goes on."""
    gc.freeze()  # the usual exit's last collection, if it comes to that, walks nothing
    # lazy: only the process's own run ends here (and threading is loaded by then anyway)
    import atexit
    import threading

    main = threading.main_thread()
    if any(not thread.daemon for thread in threading.enumerate() if thread is not main):
        return  # the interpreter's exit waits for it (a daemon thread it would not wait for)
    atexit._run_exitfuncs()  # as the interpreter's exit does first (the handlers run once)
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:  # None: the process started with it closed (``>&-``)
                stream.flush()
    except (OSError, ValueError):  # a closed or broken stream: the usual exit deals with it
        return
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
