"""The run's result cache, or its null variant: the run asks the same questions either way.

:class:`NoResults` (``--no-cache``, no usable folder, a schema source nothing can describe)
answers every question with "not known" and forgets what it is told;
:class:`generator.validate.cached.CachedResults` asks the store
(:mod:`generator.validate.cache.store`). So the passes never ask whether there is a cache, and
a run without one never loads the store (SQLite, the key file, the code fingerprint: see
:mod:`generator.validate.cache.records`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from generator.checks import ValidationOptions
from generator.validate.batches import Batch
from generator.validate.cache.records import FileIndex
from generator.validate.outcome import BatchResult

DigestOf = Callable[[int], bytes]  # a document's number -> its digest (16 bytes)


class Plan:
    """The batches left to run; learns nothing (the run has no result cache)."""

    def __init__(self, batches: Sequence[Batch]) -> None:
        self.batches = list(batches)

    def learn(self, position: int, result: BatchResult) -> None:
        """Note what the ``position``-th batch found (nothing to note without a cache)."""


class NoResults:
    """No result cache: nothing is known, nothing is remembered."""

    def clean_run(self) -> int | None:
        """The documents of this very input validated clean before, if it was."""
        return None

    def chunk_digests(self, name: str, text: str, bounds: Sequence[tuple[int, int]]) -> list[bytes]:
        """The digests of the chunks ``bounds`` of a source's text (empty: none are needed)."""
        return [b""] * len(bounds)

    def known_file(self, text: str, digest: str) -> FileIndex | None:
        """The pass-1 index of a file text seen before, if it was."""
        return None

    def recording(self, size: int) -> FileIndex | None:
        """An empty index to record a file of ``size`` characters in, if it is to be kept."""
        return None

    @property
    def index_files_below(self) -> int:
        """Files of fewer characters than this are recorded (:meth:`recording`): none."""
        return 0

    def remember_file(self, digest: str, recording: FileIndex | None) -> None:
        """Keep a file's pass-1 index (recorded in :meth:`recording`'s value)."""

    def plan(
        self, batches: Sequence[Batch], options: ValidationOptions, digest_of: DigestOf
    ) -> Plan:
        """The batches to run (all of them) and what to learn from them (nothing)."""
        return Plan(batches)

    def remember_run(self, documents: int, texts: Mapping[int, str]) -> None:
        """This input validated clean, ``documents`` documents, from the texts hashed ``texts``
        (by source: the very texts that were parsed and validated)."""

    def close(self, *, save: bool) -> None:
        """Done (``save``: the run finished, what was learned is kept)."""
