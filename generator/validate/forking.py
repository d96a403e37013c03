"""What a pool's workers are, whoever forks them: the pool (:mod:`generator.validate.forked`) or
the zygote (:mod:`generator.validate.zygote`), which both speak of them in these terms."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class WorkerProcess(Protocol):
    """A worker process as the pool sees it: forked by the pool (``multiprocessing``'s) or by
    the zygote (:class:`generator.validate.zygote.ZygoteChild`)."""

    @property
    def pid(self) -> int | None:
        """Its process id (None: not known)."""
        ...

    @property
    def exitcode(self) -> int | None:
        """None while it runs (or while its end is not known); -N once signal N ended it."""
        ...

    def join(self, timeout: float | None = None) -> None:
        """Return once it has ended (or ``timeout`` seconds have passed)."""
        ...


# What a worker forked by a forker must start from that the forker lacks: a function and its
# arguments, run in the forker before it forks (see generator.validate.zygote).
Carry = tuple[Callable[..., object], tuple[Any, ...]]


class Forker(Protocol):
    """What forks a pool's workers instead of the pool (the zygote,
    :class:`generator.validate.zygote.Zygote`)."""

    def fork(self, connection: int, carry: Carry) -> WorkerProcess | None:
        """A worker serving the connection whose descriptor is ``connection`` (the pool closes
        its copy), started from ``carry``; None where it cannot fork (the pool then does)."""
        ...
