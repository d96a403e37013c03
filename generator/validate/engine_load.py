"""The validation engine, loaded on a thread of a ``-j N`` worker while the worker parses.

A worker's first task (:func:`generator.validate.workers.prepare`) starts the import of the
rulebook, CEL, the admission chain and jsonschema-rs (~40 ms) and returns: pass 1 (parsing,
partition keys) does not need them, so the worker parses the caller's first pieces at once and
the imports fill the gaps. The first task that validates (the warm-up, a batch) waits for the
import and raises its error, if it failed: a broken installation fails the run, as when the
engine was imported before the first piece.
"""

from __future__ import annotations

import threading


class _EngineLoad:
    """The engine being imported on a thread, and what went wrong if the import failed."""

    def __init__(self) -> None:
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._load, name="capzgen-engine-load", daemon=True)
        self.thread.start()

    def _load(self) -> None:
        try:
            load_engine()
        except BaseException as error:  # raised again by the first task that validates
            self.error = error

    def wait(self) -> None:
        """Once the engine is loaded; its import's error, if it failed."""
        self.thread.join()
        if self.error is not None:
            raise self.error


def load_engine() -> None:
    """Import the validation engine (every rule, CEL, the admission chain) and jsonschema-rs."""
    # lazy: loaded in each worker after the fork (see generator.checks.validate_documents)
    import jsonschema_rs

    # lazy: as the line above
    from generator.checks import engine

    del engine, jsonschema_rs


# This process's import, started by :func:`start` (None: not yet, or forgotten).
_LOADING: _EngineLoad | None = None


def start() -> None:
    """Start importing the engine on a thread, unless this process has started already."""
    global _LOADING
    if _LOADING is None:
        _LOADING = _EngineLoad()


def wait() -> None:
    """Once the engine is loaded: the import :func:`start` began, or one now (a process that
    never started one); raises the import's error."""
    if _LOADING is None:
        load_engine()
    else:
        _LOADING.wait()


def forget() -> None:
    """Forget the import started (the next :func:`start` begins another; one finished already
    costs nothing)."""
    global _LOADING
    _LOADING = None
