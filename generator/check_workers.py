"""The two passes of :mod:`generator.check_stream` on worker processes (``validate -j N``).

One pool serves both passes. It is forked before anything is parsed, so every worker inherits
the schema store and the list of inputs, and nothing large is ever pickled:

* pass 1 (sent by :mod:`generator.parallel_index`): workers read the files themselves, parse the
  chunks they are given and send back only each document's partition keys
  (:func:`index_pieces`);
* pass 2: each batch goes to a worker with where its documents lie; the worker reads and parses
  them again and validates the batch (:func:`run_batches`).

A YAML error is sent back as data and raised in the caller, so a broken file is one finding, as
serially.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass

from generator.check_stream import (
    BatchResult,
    Chunk,
    Places,
    StreamState,
    TextCache,
    one_per_chunk,
    parse_chunk,
    validate_batch,
)
from generator.documents import Document
from generator.errors import YamlError
from generator.validate import ValidationOptions
from generator.validate.partition import Batch, DocumentKeys, document_keys

_STATE: StreamState | None = None  # what a forked worker inherits (inputs and schema store)
PIECE_CHUNKS = 400  # chunks a worker parses per task in pass 1


def start(state: StreamState) -> None:
    """Make ``state`` what workers forked from now on inherit (and read their texts for)."""
    global _STATE, _TEXTS
    _STATE, _TEXTS = state, None


def stop() -> None:
    """Forget the state once the pool is gone."""
    global _STATE, _TEXTS
    _STATE, _TEXTS = None, None


def _state() -> StreamState:
    assert _STATE is not None, "set before the pool is forked"
    return _STATE


_TEXTS: TextCache | None = None  # a worker's text of its latest source (tasks follow the input)


def _texts() -> TextCache:
    global _TEXTS
    if _TEXTS is None:
        _TEXTS = TextCache(_state())
    return _TEXTS


# --- pass 1 ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Parsed:
    """What a worker found in one chunk: each document's keys and whether it is an object."""

    keys: list[DocumentKeys]
    objects: list[bool]


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
        found.append(_parsed(documents))
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
    return [_parsed([document]) for document in documents]


# --- pass 2 ---------------------------------------------------------------------------------------


class _TaskPlaces(Places):
    """The places of one batch's documents, as sent with the task."""

    def __init__(self, places: dict[int, tuple[Chunk, int]]) -> None:
        super().__init__()
        self._places = places

    def of(self, doc: int) -> tuple[Chunk, int]:
        """Where document ``doc`` of the batch lies."""
        return self._places[doc]


_BatchTask = tuple[Batch, dict[int, tuple[Chunk, int]], dict[int, str], ValidationOptions]


def _run_batch(task: _BatchTask) -> BatchResult:
    """Worker: validate one batch, its documents read and parsed again."""
    batch, places, digests, options = task
    state = _state()  # this worker's own copy: tasks run one at a time
    state.places = _TaskPlaces(places)
    state.digests.update(digests)
    state.options = options
    return validate_batch(state, batch, _texts())


def run_batches(
    state: StreamState, batches: Sequence[Batch], pool: Executor
) -> Iterator[BatchResult]:
    """Pass 2 on the pool, results in batch order."""
    tasks = []
    for batch in batches:
        places = {doc: state.places.of(doc) for doc in (*batch.home, *batch.guests)}
        sources = {chunk.source for chunk, _ in places.values()}
        digests = {s: state.digests[s] for s in sources if s in state.digests}
        bare = Batch(batch.home, batch.guests)  # the parts are the caller's business
        tasks.append((bare, places, digests, state.options))
    yield from pool.map(_run_batch, tasks)
