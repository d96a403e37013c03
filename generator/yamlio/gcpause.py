"""Pause Python's cyclic garbage collector while large acyclic trees are built."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Suspend the cyclic GC for the duration of the block.

    Allocating hundreds of thousands of containers triggers repeated full collections that scan
    everything built so far (it doubles load and dump times); YAML values and node trees have no
    cycles, so nothing is lost by collecting later.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
