"""What the result cache keeps (:mod:`generator.validate.cache.store`), without the store itself.

The passes of ``capzgen validate`` record file indexes and document digests whether or not the
run has a result cache, and the run's sizes (:mod:`generator.validate.tuning`) name the cache's
bounds; none of that needs SQLite, the key file or the code fingerprint. Kept apart so that a run
without a cache (``--no-cache``, no cache folder) loads none of those before its workers fork:
~2.5 ms of the serial start of validating the thousand-cluster fleet.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from generator.jsontypes import Json
from generator.validate.partition import DocumentKeys

DIGEST_BYTES = 16  # of a document's or a part's digest
MAX_PARTS = 2_000_000  # clean parts kept; the least recently used go first beyond it
MAX_FILES = 20_000  # file indexes kept, likewise
MAX_INDEX_BYTES = 64 << 20  # a stored file index larger than this is ignored
PRUNE_EVERY = 64  # runs between two prunings (counting rows reads the whole table)
INDEX_FILES_BELOW = 2 << 20  # larger files are not indexed (their index would cost memory)
FLUSH_INDEX_BYTES = 4 << 20  # stored indexes are written once this much is pending


def document_digest(chunk: bytes, offset: int, documents: int) -> bytes:
    """The ``offset``-th of ``documents`` documents of a chunk (most chunks hold one)."""
    if documents == 1:
        return chunk
    # lazy: hashlib loads OpenSSL (2.3 ms); only a run with a result cache digests documents
    import hashlib

    return hashlib.blake2b(chunk + offset.to_bytes(4, "big"), digest_size=DIGEST_BYTES).digest()


@dataclass(frozen=True, slots=True)
class IndexedChunk:
    """A chunk of a file (offsets and first line as in :class:`generator.yamlio.chunks.Chunk`) and the
    keys of its documents, with whether each is an object (counted) or empty."""

    start: int
    end: int
    index: int
    line: int
    documents: tuple[tuple[DocumentKeys, bool], ...]


_SEP = "\0"  # joins a key's parts in the stored form; a file whose keys contain it is not stored


@dataclass
class FileIndex:
    """Pass 1's result for one file text."""

    chunks: list[IndexedChunk] = field(default_factory=list)

    def to_json(self) -> str | None:
        """The stored form (JSON: a cache file must never be able to run code when read), each
        key one string; None when a key cannot be stored so (a part holds a NUL character)."""
        rows = []
        for c in self.chunks:
            documents = []
            for keys, obj in c.documents:
                declares = [_SEP.join(key) for key in keys.declares]
                refers = [_SEP.join(key) for key in keys.refers]
                if any(
                    len(key) != joined.count(_SEP) + 1
                    for key, joined in (
                        *zip(keys.declares, declares, strict=True),
                        *zip(keys.refers, refers, strict=True),
                    )
                ):
                    return None
                documents.append([declares, refers, keys.kind, keys.namespaced, obj])
            rows.append([c.start, c.end, c.index, c.line, documents])
        return json.dumps(rows, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str, max_bytes: int = MAX_INDEX_BYTES) -> FileIndex | None:
        """The index stored by :meth:`to_json`, or None when ``text`` is anything else (or
        longer than ``max_bytes``)."""
        if len(text) > max_bytes:
            return None
        try:
            rows = json.loads(text)
            if not isinstance(rows, list):
                return None
            return cls([_chunk(row) for row in rows])
        except (ValueError, TypeError, AttributeError, RecursionError):
            return None


def _keys(values: list[str]) -> list[tuple[str, ...]]:
    return [tuple(value.split(_SEP)) for value in values]  # AttributeError: not a string


def _document(row: Json) -> tuple[DocumentKeys, bool]:
    declares, refers, kind, namespaced, obj = row
    if not (kind is None or type(kind) is str) or namespaced not in (None, True, False):
        msg = "not document keys"
        raise TypeError(msg)
    if type(obj) is not bool:
        msg = "not a flag"
        raise TypeError(msg)
    return DocumentKeys(_keys(declares), _keys(refers), kind, namespaced), obj


def _chunk(row: Json) -> IndexedChunk:
    start, end, index, line, documents = row
    if not all(type(value) is int and 0 <= value < 1 << 31 for value in (start, end, index, line)):
        msg = "not an offset"
        raise ValueError(msg)
    if start > end or not isinstance(documents, list) or not documents:
        msg = "not a chunk"
        raise ValueError(msg)
    return IndexedChunk(start, end, index, line, tuple(_document(d) for d in documents))


@dataclass(frozen=True, slots=True)
class CacheLimits:
    """How large the cache file may grow and how often it is written and pruned (the defaults
    above; tests pass small ones to reach pruning and flushing with a few entries)."""

    max_parts: int = MAX_PARTS
    max_files: int = MAX_FILES
    max_index_bytes: int = MAX_INDEX_BYTES
    prune_every: int = PRUNE_EVERY
    flush_index_bytes: int = FLUSH_INDEX_BYTES
