"""The two passes of :mod:`generator.validate.passes` on worker processes (``validate -j N``).

One pool serves both passes. It is forked before anything is parsed, so every worker inherits
the schema store and the list of inputs, and nothing large is ever pickled:

* pass 1 (sent by :mod:`generator.validate.parallel`): workers read the files themselves, parse the
  chunks they are given and send back only each document's partition keys
  (:func:`index_pieces`);
* pass 2: each batch goes to a worker with where its documents lie; each worker is a pool of its
  own, and a batch is split by the worker that parsed its components, so on a small input
  (``StreamState.keep_parsed``) a worker validates documents it still holds from pass 1; others
  it reads and parses again (:func:`run_batches`).

A YAML error is sent back as data and raised in the caller, so a broken file is one finding, as
serially.
"""

from __future__ import annotations

import gc
import os
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from typing import TypeVar

from generator.checks import ValidationOptions, validate_documents
from generator.documents import Document
from generator.errors import YamlError
from generator.validate.partition import Batch, DocumentKeys, Part, document_keys
from generator.validate.passes import (
    BatchResult,
    SomePlaces,
    StreamState,
    TextCache,
    validate_batch,
)
from generator.yamlio.chunks import Chunk, one_per_chunk, parse_chunk

T = TypeVar("T")
R = TypeVar("R")

_STATE: StreamState | None = None  # what a forked worker inherits (inputs and schema store)
_STARTER = 0  # the process that started the pool (workers are the others)
PIECE_CHUNKS = 400  # chunks a worker parses per task in pass 1


def start(state: StreamState) -> None:
    """Make ``state`` what workers forked from now on inherit (and read their texts for)."""
    global _STATE, _TEXTS, _STARTER
    _STATE, _TEXTS, _STARTER = state, None, os.getpid()
    _KEPT.clear()
    _SAMPLE.clear()


def stop() -> None:
    """Forget the state once the pool is gone."""
    global _STATE, _TEXTS
    _STATE, _TEXTS = None, None
    _KEPT.clear()
    _SAMPLE.clear()


def _state() -> StreamState:
    assert _STATE is not None, "set before the pool is forked"
    return _STATE


_TEXTS: TextCache | None = None  # a worker's text of its latest source (tasks follow the input)


def _texts() -> TextCache:
    global _TEXTS
    if _TEXTS is None:
        _TEXTS = TextCache(_state())
    return _TEXTS


def inherit_text(source: int, text: str) -> None:
    """Caller, before the workers fork: they inherit ``text`` as the one they hold, instead of
    each reading and hashing the file again (14 ms each for a 3.4 MB fleet)."""
    _texts().hold(source, text)


def forget_text() -> None:
    """Caller, once every worker is forked: drop the text they inherited."""
    global _TEXTS
    _TEXTS = None


# --- pass 1 ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Parsed:
    """What a worker found in one chunk: each document's keys and whether it is an object."""

    keys: list[DocumentKeys]
    objects: list[bool]

    def __reduce__(self) -> tuple[type[Parsed], tuple[list[DocumentKeys], list[bool]]]:
        """Pickled as its two fields (one per chunk: 7,000 for a 1,000-cluster fleet)."""
        return Parsed, (self.keys, self.objects)


Failure = tuple[
    str, int | None, int | None, int | None, str | None
]  # message, line, col, doc, hint


Piece = tuple[int, str, list[tuple[int, int, int]]]  # source, its digest, chunks to parse
Found = list[Parsed] | Failure  # a piece's chunks, or its first error


def index_pieces(task: list[Piece]) -> list[Found]:
    """Worker: parse pieces (runs of chunks of one source each; small files travel together)."""
    return [_index_piece(piece) for piece in task]


def _index_piece(piece: Piece) -> Found:
    """The keys of the documents of one piece's chunks, or the first error.

    The chunks are parsed with one parser call when each holds one document (the usual case),
    else one by one; either way the first error is the one a whole-file parse reports."""
    source, digest, spans = piece
    state = _state()
    state.digests[source] = digest
    text = _texts().text(source)
    name = state.names[source]
    whole = _piece_at_once(source, text, name, spans)
    if whole is not None:
        return whole
    found: list[Parsed] = []
    for start, end, line in spans:
        try:
            documents = parse_chunk(Chunk(source, start, end, 0, line), text, name)
        except YamlError as error:
            before = sum(len(chunk.keys) for chunk in found)  # this piece's documents so far
            return _failure(error, before)
        _keep(state, source, start, documents)
        found.append(_parsed(documents))
    return found


# A worker's parsed documents of pass 1, by (source, chunk start), for its batches in pass 2
# (small inputs only, as ``StreamState.keep_parsed`` says; the caller sends each batch to the
# worker that parsed most of it). Their ``index`` counts from the piece, not the source.
_KEPT: dict[tuple[int, int], list[Document]] = {}


def _keep(state: StreamState, source: int, start: int, documents: list[Document]) -> None:
    if state.keep_parsed:
        _KEPT[(source, start)] = documents
    if len(_SAMPLE) < SAMPLE_DOCUMENTS:
        _SAMPLE.extend(documents[: SAMPLE_DOCUMENTS - len(_SAMPLE)])


# The first few documents a worker parsed, validated once while this process finishes pass 1
# (:func:`warm_up`), so that the worker's first batch does not pay for what validation loads
# and compiles on first use (checkers, schema validators, CEL programs: 15-40 ms).
_SAMPLE: list[Document] = []
SAMPLE_DOCUMENTS = 8


def warm_up(options: ValidationOptions) -> None:
    """Worker: validate the sample and forget the findings (the batches report them). In a
    worker process, what it holds now (the documents kept from pass 1 among them) lives until
    the end: the garbage collector leaves it alone in pass 2 (``gc.freeze``)."""
    state = _state()
    validate_documents(_SAMPLE, state.store, options)
    if os.getpid() != _STARTER:  # a forked worker, not the caller's own process (tests)
        gc.freeze()


def _kept(places: SomePlaces, docs: Sequence[int]) -> dict[int, Document]:
    """The documents ``docs`` this worker parsed in pass 1, numbered as in their source."""
    found = {}
    for doc in docs:
        chunk, offset = places.of(doc)
        documents = _KEPT.get((chunk.source, chunk.start))
        if documents is not None and offset < len(documents):
            kept = documents[offset]
            found[doc] = Document(kept.source, chunk.index + offset, kept.obj, kept.start_line)
    return found


def _parsed(documents: Sequence[Document]) -> Parsed:
    return Parsed([document_keys(d.obj) for d in documents], [d.obj is not None for d in documents])


def _failure(error: YamlError, before: int) -> Failure:
    loc = error.location
    return (
        error.message,
        loc.line if loc else None,
        loc.column if loc else None,
        None if loc is None or loc.document is None else loc.document + before,
        error.hint,
    )


def _piece_at_once(
    source: int, text: str, name: str, spans: Sequence[tuple[int, int, int]]
) -> list[Parsed] | None:
    """The chunks of ``spans`` parsed together, if that gives exactly one document per chunk;
    None (parse them one by one) otherwise, errors included."""
    if not spans:
        return []
    first, last = spans[0], spans[-1]
    try:
        documents = parse_chunk(Chunk(source, first[0], last[1], 0, first[2]), text, name)
    except YamlError:
        return None
    if not one_per_chunk(spans, documents, text):
        return None
    for (start, _, _), document in zip(spans, documents, strict=True):
        _keep(_state(), source, start, [document])
    return [_parsed([document]) for document in documents]


# --- pass 2 ---------------------------------------------------------------------------------------


# A batch, its documents (home and guests, ascending) and their places (Places.flat), the
# digests of their sources' texts, and the options (present kinds known after pass 1).
_BatchTask = tuple[Batch, "array[int]", "array[int]", dict[int, str], ValidationOptions]


def _run_batch(task: _BatchTask) -> BatchResult:
    """Worker: validate one batch, its documents kept from pass 1 or read and parsed again."""
    batch, docs, flat, digests, options = task
    state = _state()  # this worker's own copy: tasks run one at a time
    places = SomePlaces(docs, flat)
    state.places = places
    state.digests.update(digests)
    state.options = options
    state.cache = _kept(places, docs)
    try:
        return validate_batch(state, batch, _texts())
    finally:
        state.cache = {}


class Workers:
    """The worker processes, each a pool of its own, so that a batch can go to the worker that
    parsed its documents in pass 1."""

    def __init__(self, executors: Sequence[Executor]) -> None:
        self.executors = list(executors)

    @property
    def count(self) -> int:
        """How many workers there are."""
        return len(self.executors)

    def submit(self, worker: int, function: Callable[[T], R], argument: T) -> Future[R]:
        """Run ``function(argument)`` on worker number ``worker``."""
        return self.executors[worker % self.count].submit(function, argument)

    def shutdown(self) -> None:
        """Stop every worker, dropping what was not started."""
        for executor in self.executors:
            executor.shutdown(wait=True, cancel_futures=True)


class Owners:
    """Which worker parsed which chunks in pass 1: per source, the first chunk offset of each
    piece and its worker (pieces are recorded in order)."""

    def __init__(self) -> None:
        self._starts: dict[int, list[int]] = {}
        self._workers: dict[int, list[int]] = {}

    def record(self, source: int, start: int, worker: int) -> None:
        """The piece of ``source`` from offset ``start`` on went to ``worker``."""
        self._starts.setdefault(source, []).append(start)
        self._workers.setdefault(source, []).append(worker)

    def of(self, chunk: Chunk) -> int | None:
        """The worker that parsed ``chunk``, if a worker did."""
        starts = self._starts.get(chunk.source)
        if not starts:
            return None
        at = bisect_right(starts, chunk.start) - 1
        return self._workers[chunk.source][at] if at >= 0 else None


def by_owner(state: StreamState, batches: Sequence[Batch], owners: Owners) -> list[Batch]:
    """Each batch split by the worker that parsed its parts (components), so that a worker
    validates what it already holds."""
    split: list[Batch] = []
    for batch in batches:
        groups: dict[int | None, list[Part]] = {}
        for part in batch.parts:
            chunk, _ = state.places.of(part.home[0])
            groups.setdefault(owners.of(chunk), []).append(part)
        split.extend(Batch.of_parts(parts) for parts in groups.values())
    return split


def run_batches(
    state: StreamState, batches: Sequence[Batch], workers: Workers, owners: Owners
) -> Iterator[BatchResult]:
    """Pass 2 on the workers, each batch on the worker that parsed its first document (else in
    turn), results in batch order."""
    futures = []
    for position, batch in enumerate(batches):
        docs = array("i", sorted({*batch.home, *batch.guests}))
        flat = state.places.flat(docs)
        sources = set(flat[0::6])  # each document's first number: its chunk's source
        digests = {s: state.digests[s] for s in sources if s in state.digests}
        bare = Batch(batch.home, batch.guests)  # the parts are the caller's business
        owner = owners.of(state.places.of(batch.home[0])[0]) if batch.home else None
        worker = position if owner is None else owner
        task = (bare, docs, flat, digests, state.options)
        futures.append(workers.submit(worker, _run_batch, task))
    for future in futures:
        yield future.result()
