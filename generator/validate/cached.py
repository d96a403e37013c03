"""The result cache of one ``capzgen validate`` run (:class:`CachedResults`), asked the questions
:class:`generator.validate.results.NoResults` answers with "not known"; loaded only by runs that
use a cache (:func:`open_results`, called by :mod:`generator.validate.stream` only then).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

from generator.checks import ValidationOptions
from generator.schemastore.types import SchemaLookup
from generator.validate import reuse
from generator.validate.batches import Batch
from generator.validate.cache.keys import (
    chunk_digest,
    code_fingerprint,
    file_key,
    options_fingerprint,
    store_fingerprint,
)
from generator.validate.cache.records import CacheLimits, FileIndex
from generator.validate.cache.store import ResultCache
from generator.validate.inputs import Inputs
from generator.validate.results import DigestOf, NoResults, Plan

log = logging.getLogger(__name__)


class CachedResults(NoResults):
    """The result cache of one run: ``code_key`` is capzgen's code fingerprint, ``config_key``
    that and the schema sources' fingerprint; ``run_config`` that and the options; ``whole``
    the key of the whole input as read before the run (looked up only), ``names`` its files'
    names."""

    def __init__(
        self,
        cache: ResultCache,
        code_key: bytes,
        config_key: bytes,
        run_config: bytes,
        names: Sequence[str],
        *,
        index_below: int,
        query_batches: int,
        whole: bytes | None,
    ) -> None:
        self.cache = cache
        self.code_key, self.config_key, self.whole = code_key, config_key, whole
        self.run_config, self.names = run_config, tuple(names)
        self._index_below, self._query_batches = index_below, query_batches

    def clean_run(self) -> int | None:
        """The documents of the whole input, if it was validated clean before."""
        return None if self.whole is None else self.cache.clean_run(self.whole)

    def chunk_digests(self, name: str, text: str, bounds: Sequence[tuple[int, int]]) -> list[bytes]:
        """The digests of the chunks ``bounds`` of the text of the source ``name``."""
        return [chunk_digest(name, text[start:end]) for start, end in bounds]

    def known_file(self, text: str, digest: str) -> FileIndex | None:
        """The stored pass-1 index of ``text`` (hashed ``digest``), if it fits the text."""
        index = self.cache.file_index(file_key(self.code_key, digest))
        if index is None or any(c.end > len(text) for c in index.chunks):
            return None
        return index

    def recording(self, size: int) -> FileIndex | None:
        """Small files only: a repository of many files gains, and a large file's index would
        cost memory."""
        return FileIndex() if size < self._index_below else None

    @property
    def index_files_below(self) -> int:
        """Files of fewer characters than this are recorded (:meth:`recording`)."""
        return self._index_below

    def remember_file(self, digest: str, recording: FileIndex | None) -> None:
        """Store a file's pass-1 index under its text's hash, if one was recorded."""
        if recording is not None:
            self.cache.remember_file(file_key(self.code_key, digest), recording)

    def plan(
        self, batches: Sequence[Batch], options: ValidationOptions, digest_of: DigestOf
    ) -> Plan:
        """The batches without the parts known clean, and the keys to remember the rest."""
        config = self.config_key + options_fingerprint(options)
        found = reuse.plan(
            self.cache, config, batches, digest_of, query_batches=self._query_batches
        )
        log.info("%d parts unchanged since a clean run: not validated again", found.skipped)
        return found

    def remember_run(self, documents: int, texts: Mapping[int, str]) -> None:
        """Remember the whole input as clean (if it could be read whole), under the key of the
        texts that were validated, never of those read before the run began."""
        validated = [texts.get(source) for source in range(len(self.names))]
        key = reuse.run_key(self.run_config, self.names, validated)
        if key is not None:
            self.cache.remember_run(key, documents)

    def close(self, *, save: bool) -> None:
        """Close the store, saving what was learned if ``save``."""
        self.cache.close(save=save)


def open_results(
    folder: Path,
    secret: bytes,
    store: SchemaLookup | None,
    options: ValidationOptions,
    inputs: Inputs,
    *,
    index_below: int,
    query_batches: int,
    limits: CacheLimits,
) -> NoResults:
    """The result cache in ``folder`` for this run, its entries made with ``secret``, or
    :class:`~generator.validate.results.NoResults` (a schema source nothing can describe, a
    cache that cannot be opened)."""
    stores = store_fingerprint(store)
    if stores is None:  # a schema source nothing can describe: no result can be reused
        return NoResults()
    cache = ResultCache.open(folder, secret, limits)
    if cache is None:
        return NoResults()
    code_key = code_fingerprint()
    config_key = code_key + stores
    run_config = config_key + options_fingerprint(options)
    whole = reuse.run_key(run_config, inputs.names, reuse.texts_now(inputs))
    return CachedResults(
        cache,
        code_key,
        config_key,
        run_config,
        inputs.names,
        index_below=index_below,
        query_batches=query_batches,
        whole=whole,
    )
