"""``capzgen validate`` on inputs of any size: bounded memory, every core, the same findings.

Two passes over the inputs:

1. every file is read (bounded), cut into documents at its ``---`` lines and each document parsed
   once; only its partition keys (:mod:`generator.validate.partition`) and where it lies are kept,
   plus the parsed objects of the first few megabytes so small inputs are never parsed twice;
2. the documents are validated batch by batch (a batch is a set of whole clusters), each batch
   re-read from its files and parsed again unless cached, on ``jobs`` worker processes. Findings
   get their line numbers in the worker, from the document's own text.

Peak memory is therefore one batch per worker, the small key index, and the parse cache, not the
whole input. Findings are sorted at the end, so the order does not depend on ``jobs``.
"""

from __future__ import annotations

import logging
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from generator.checks import ValidationOptions, validate_documents
from generator.documents import Document
from generator.errors import InputOutputError, YamlError
from generator.findings import Finding
from generator.schemastore.types import SchemaLookup
from generator.validate.cache.keys import chunk_digest, document_digest, file_key
from generator.validate.cache.store import INDEX_FILES_BELOW, FileIndex, IndexedChunk, ResultCache
from generator.validate.check import CheckReport, read_error_finding
from generator.validate.partition import Batch, DocumentKeys, Partitioner, document_keys
from generator.yamlio.chunks import (
    Chunk,
    changed_while_reading,
    parse_chunk,
    parsed_by_chunk,
    parsed_whole,
    text_digest,
)
from generator.yamlio.locate import LineLocator
from generator.yamlio.source import STDIN, read_source

log = logging.getLogger(__name__)


class Places:
    """Where every chunk and document lies, in flat integer arrays (a few bytes per document;
    a fleet of 50,000 clusters has 350,000 of them)."""

    def __init__(self) -> None:
        # int32 is enough: a source is at most MAX_BYTES (32 MiB) long
        self._chunks = array("i")  # five numbers per chunk, as in Chunk
        self._documents = array("i")  # two numbers per document: chunk, offset in the chunk

    def add_chunk(self, chunk: Chunk) -> int:
        """Record ``chunk``; returns its number."""
        self._chunks.extend((chunk.source, chunk.start, chunk.end, chunk.index, chunk.line))
        return len(self._chunks) // 5 - 1

    def add_document(self, chunk: int, offset: int) -> None:
        """Record the next document: the ``offset``-th of chunk number ``chunk``."""
        self._documents.extend((chunk, offset))

    def of(self, doc: int) -> tuple[Chunk, int]:
        """The chunk of document ``doc`` and its place among the chunk's documents."""
        number, offset = self._documents[2 * doc], self._documents[2 * doc + 1]
        at = 5 * number
        return Chunk(*self._chunks[at : at + 5]), offset

    def flat(self, docs: Sequence[int]) -> array[int]:
        """The places of ``docs`` as six numbers each (the chunk's five, then the offset): what
        a batch's task carries to a worker, cheap to pickle."""
        found = array("i")
        chunks, documents = self._chunks, self._documents
        for doc in docs:
            number = documents[2 * doc]
            found.extend(chunks[5 * number : 5 * number + 5])
            found.append(documents[2 * doc + 1])
        return found


class SomePlaces(Places):
    """The places of some documents (a batch's, in a worker), from :meth:`Places.flat`."""

    def __init__(self, docs: Sequence[int], flat: array[int]) -> None:
        super().__init__()
        self._numbers = flat  # as Places.flat gave them
        self._at = {doc: 6 * position for position, doc in enumerate(docs)}

    def of(self, doc: int) -> tuple[Chunk, int]:
        """Where document ``doc`` of the batch lies."""
        at = self._at[doc]
        return Chunk(*self._numbers[at : at + 5]), self._numbers[at + 5]


@dataclass
class StreamState:
    """What pass 1 learned; worker processes inherit it when they are forked."""

    paths: list[str]  # as given; "-" is standard input
    names: list[str]  # as findings name them
    store: SchemaLookup | None
    options: ValidationOptions
    stdin_text: str | None = None
    places: Places = field(default_factory=Places)
    cache: dict[int, Document] = field(default_factory=dict)
    keep_parsed: bool = False  # keep pass 1's documents for pass 2 (small inputs)
    digests: dict[int, str] = field(default_factory=dict)  # source -> hash of its text in pass 1
    # With a result cache: capzgen's code fingerprint, and every document's digest (16 bytes
    # each, in document order), from which the keys of parts are made.
    results: ResultCache | None = None
    code_key: bytes = b""
    config_key: bytes = b""  # code_key and the schema sources' fingerprint
    document_digests: bytearray = field(default_factory=bytearray)

    def digest_of(self, doc: int) -> bytes:
        """The digest of document ``doc`` (only with a result cache)."""
        return bytes(self.document_digests[16 * doc : 16 * doc + 16])


class TextCache:
    """The text of the most recently used source (batches follow the input order)."""

    def __init__(self, state: StreamState) -> None:
        self._state = state
        self._source = -1
        self._text = ""

    def hold(self, source: int, text: str) -> None:
        """Hold ``text``, just read and hashed by the caller, as the text of ``source``."""
        self._text, self._source = text, source

    def text(self, source: int) -> str:
        """The text of ``source``, read again from its file (standard input is kept)."""
        if source != self._source:
            self._text, self._source = "", -1  # one large text at a time, not two
            path = self._state.paths[source]
            if path == STDIN:
                self._text = self._state.stdin_text or ""
            else:
                self._text = read_source(path)
                if text_digest(self._text) != self._state.digests.get(source):
                    raise changed_while_reading(self._state.names[source])
            self._source = source
        return self._text


def index_sources(state: StreamState, report: CheckReport, partitioner: Partitioner) -> None:
    """Pass 1: parse every document once, keep its keys and place (and a few parsed ones).

    Documents are released as soon as their keys are taken; a YAML error later in a file drops
    that file's documents again, so a broken file is one finding, as when read whole. A file
    whose text the result cache knows is not parsed at all."""
    for source, path in enumerate(state.paths):
        name = state.names[source]
        first, counted = partitioner.count, report.counted_documents
        text = ""  # the last file's text goes before the next is read: one large text at a time
        try:
            text = (state.stdin_text if path == STDIN else read_source(path)) or ""
            digest = text_digest(text)
            if path != STDIN:
                state.digests[source] = digest
            index = known_file(state, text, digest)
            if index is not None:
                bounds = [(c.start, c.end) for c in index.chunks]
                digests = chunk_digests(state, source, text, bounds)
                add_known_file(state, report, partitioner, source, index, digests)
                continue
            recording = FileIndex() if indexed(state, len(text)) else None
            _index_source(state, source, text, report, partitioner, recording)
            remember_file(state, digest, recording)
        except (YamlError, InputOutputError) as error:
            for doc in range(first, partitioner.count):
                partitioner.drop(doc)
                state.cache.pop(doc, None)
            report.counted_documents = counted
            report.findings.append(read_error_finding(error, name))


def chunk_digests(
    state: StreamState, source: int, text: str, bounds: Sequence[tuple[int, int]]
) -> list[bytes]:
    """The digests of the chunks ``bounds`` of a source's text for the result cache (empty ones
    without a cache)."""
    if state.results is None:
        return [b""] * len(bounds)
    name = state.names[source]
    return [chunk_digest(name, text[start:end]) for start, end in bounds]


def add_chunk(
    state: StreamState,
    report: CheckReport,
    partitioner: Partitioner,
    chunk: Chunk,
    documents: Sequence[tuple[DocumentKeys, bool]],
    digest: bytes,
    recording: FileIndex | None = None,
) -> list[int]:
    """Record a chunk and its documents' keys (and, given the chunk's ``digest``, the
    documents' digests for the result cache, and the chunk in the file index being
    ``recording``); returns the documents' numbers."""
    number = state.places.add_chunk(chunk)
    docs = []
    for offset, (keys, is_object) in enumerate(documents):
        docs.append(partitioner.add(keys))
        state.places.add_document(number, offset)
        report.counted_documents += is_object
        if digest:
            state.document_digests += document_digest(digest, offset, len(documents))
    if recording is not None:
        found = IndexedChunk(chunk.start, chunk.end, chunk.index, chunk.line, tuple(documents))
        recording.chunks.append(found)
    return docs


def known_file(state: StreamState, text: str, digest: str) -> FileIndex | None:
    """The pass-1 index of a file text the result cache has seen before, if it has."""
    if state.results is None:
        return None
    index = state.results.file_index(file_key(state.code_key, digest))
    if index is None or any(c.end > len(text) for c in index.chunks):
        return None
    return index


def add_known_file(
    state: StreamState,
    report: CheckReport,
    partitioner: Partitioner,
    source: int,
    index: FileIndex,
    digests: Sequence[bytes],
) -> None:
    """Pass 1 for a file from its stored index (``digests``: its chunks' digests)."""
    for c, digest in zip(index.chunks, digests, strict=True):
        chunk = Chunk(source, c.start, c.end, c.index, c.line)
        add_chunk(state, report, partitioner, chunk, c.documents, digest)


def indexed(state: StreamState, size: int) -> bool:
    """Whether a file's pass-1 index is recorded for the result cache (small files only: a
    repository of many files gains, and a large file's index would cost memory)."""
    return state.results is not None and size < INDEX_FILES_BELOW


def remember_file(state: StreamState, digest: str, recording: FileIndex | None) -> None:
    """Hand a file's pass-1 index to the result cache."""
    if state.results is not None and recording is not None:
        state.results.remember_file(file_key(state.code_key, digest), recording)


def _index_source(
    state: StreamState,
    source: int,
    text: str,
    report: CheckReport,
    partitioner: Partitioner,
    recording: FileIndex | None,
) -> None:
    """Every document of one source: parsed whole when the input is small (one parser call; the
    documents are kept anyway), else chunk by chunk so that only one document is held at once."""
    name = state.names[source]
    whole = parsed_whole(source, text, name) if state.keep_parsed else None
    pairs = whole if whole is not None else parsed_by_chunk(source, text, name)
    for chunk, documents in pairs:
        keyed = [(document_keys(d.obj), d.obj is not None) for d in documents]
        (digest,) = chunk_digests(state, source, text, [(chunk.start, chunk.end)])
        docs = add_chunk(state, report, partitioner, chunk, keyed, digest, recording)
        if state.keep_parsed:
            state.cache.update(zip(docs, documents, strict=True))


@dataclass(frozen=True, slots=True)
class BatchResult:
    """Findings of one batch: about its own documents, and about its guest copies of hubs;
    which documents have findings, and whether any finding is about no document."""

    home: list[Finding]
    guests: list[Finding]
    flagged: set[int] = field(default_factory=set)
    unplaced: bool = False


def validate_batch(state: StreamState, batch: Batch, texts: TextCache) -> BatchResult:
    """Validate one batch's documents together; findings get lines from their chunk's text."""
    documents = _documents(state, sorted({*batch.home, *batch.guests}), texts)
    findings = validate_documents(list(documents.values()), state.store, state.options)
    where: dict[tuple[str, int | None], int] = {
        (d.source, d.index): doc for doc, d in documents.items()
    }
    home = set(batch.home)
    mine: list[Finding] = []
    copies: list[Finding] = []
    flagged: set[int] = set()
    for finding in findings:
        about = where.get((finding.subject.file, finding.subject.document))
        located = _with_line(state, finding, about, texts)
        (mine if about is None or about in home else copies).append(located)
        flagged.add(-1 if about is None else about)
    return BatchResult(mine, copies, flagged - {-1}, -1 in flagged)


def _documents(state: StreamState, docs: Sequence[int], texts: TextCache) -> dict[int, Document]:
    """The documents ``docs`` (ascending): kept from pass 1, or parsed again, runs of adjacent
    chunks with one parser call each."""
    documents: dict[int, Document] = {}
    run: list[tuple[int, Chunk, int]] = []
    for doc in docs:
        cached = state.cache.get(doc)
        if cached is not None:
            documents[doc] = cached
            continue
        chunk, offset = state.places.of(doc)
        if run and not _adjacent(run[-1][1], chunk):
            documents.update(_reparse_run(state, run, texts))
            run = []
        run.append((doc, chunk, offset))
    if run:
        documents.update(_reparse_run(state, run, texts))
    return dict(sorted(documents.items()))


def _adjacent(before: Chunk, after: Chunk) -> bool:
    return before.source == after.source and before.end == after.start


def _reparse_run(
    state: StreamState, run: Sequence[tuple[int, Chunk, int]], texts: TextCache
) -> dict[int, Document]:
    """One parser call for a run of adjacent one-document chunks; chunk by chunk otherwise."""
    first, last = run[0][1], run[-1][1]
    text = texts.text(first.source)
    name = state.names[first.source]
    whole = Chunk(first.source, first.start, last.end, first.index, first.line)
    if all(offset == 0 for _, _, offset in run):
        parsed = parse_chunk(whole, text, name)  # same text as pass 1: same documents
        if len(parsed) == len(run) and all(
            document.index == chunk.index
            for document, (_, chunk, _) in zip(parsed, run, strict=True)
        ):
            return {doc: document for (doc, _, _), document in zip(run, parsed, strict=True)}
    return {doc: parse_chunk(chunk, text, name)[offset] for doc, chunk, offset in run}


def _with_line(state: StreamState, finding: Finding, doc: int | None, texts: TextCache) -> Finding:
    if finding.line is not None or doc is None:
        return finding
    chunk, offset = state.places.of(doc)
    text = texts.text(chunk.source)[chunk.start : chunk.end]
    line = _locator(text).line_of(offset, finding.path)
    return finding if line is None else replace(finding, line=line + chunk.line - 1)


@lru_cache(maxsize=8)
def _locator(text: str) -> LineLocator:
    return LineLocator(text)
