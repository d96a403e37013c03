"""``capzgen validate`` on inputs of any size: bounded memory, every core, the same findings.

Two passes over the inputs:

1. every file is read (bounded), cut into documents at its ``---`` lines and each document parsed
   once; only its partition keys (:mod:`generator.validate.partition`) and where it lies are kept
   (the :class:`SourceIndex`), plus the parsed objects of the first few megabytes so small inputs
   are never parsed twice;
2. the documents are validated batch by batch (a batch is a set of whole clusters), each batch
   re-read from its files and parsed again unless kept, on ``jobs`` worker processes. Findings
   get their line numbers in the worker, from the document's own text.

Peak memory is therefore one batch per worker, the small key index, and the parse cache, not the
whole input. Findings are sorted at the end, so the order does not depend on ``jobs``.

What a run is given never changes (:class:`RunInputs`); what pass 1 learns is in the
:class:`SourceIndex`, read-only once pass 1 is over; the result cache is a
:class:`generator.validate.results.NoResults` or one of its kind, asked the same either way.
"""

from __future__ import annotations

import logging
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Final, NamedTuple, final

from generator.checks import ValidationOptions, validate_documents
from generator.documents import Document
from generator.errors import InputOutputError, YamlError
from generator.findings import Finding
from generator.schemastore.types import SchemaLookup
from generator.validate.cache.records import FileIndex, IndexedChunk, document_digest
from generator.validate.check import CheckReport
from generator.validate.inputs import read_error_finding
from generator.validate.outcome import BatchResult
from generator.validate.partition import (
    Batch,
    DocumentKeys,
    PackedKeys,
    Partitioner,
    document_keys,
    pack_keys,
)
from generator.validate.results import NoResults
from generator.validate.tuning import Tuning
from generator.yamlio.chunks import (
    Chunk,
    Span,
    changed_while_reading,
    parse_chunk,
    parsed_by_chunk,
    parsed_whole,
    text_digest,
)
from generator.yamlio.gcpause import gc_paused
from generator.yamlio.locate import LineLocator
from generator.yamlio.source import read_source

log = logging.getLogger(__name__)


class Places:
    """Where every chunk and document lies, in flat integer arrays (a few bytes per document;
    a fleet of 50,000 clusters has 350,000 of them)."""

    def __init__(self) -> None:
        # int32 is enough: a source is at most MAX_BYTES (32 MiB) long
        self._chunks = array("i")  # five numbers per chunk, as in Chunk
        self._documents = array("i")  # two numbers per document: chunk, offset in the chunk

    def add_chunks(
        self, source: int, spans: Sequence[Span], counts: Sequence[int], first: int
    ) -> int:
        """Record the chunks ``spans`` of ``source`` holding ``counts`` documents each, the
        first document numbered ``first`` in its source (a chunk without one is not recorded),
        in one loop: a worker's whole piece at once, as the caller of ``-j N`` adds pieces (one
        call per chunk and document was most of its share of pass 1 after the partition).
        Returns how many documents there are."""
        chunks, documents = self._chunks, self._documents
        number = len(chunks) // 5
        index = first
        for (start, end, line), count in zip(spans, counts, strict=True):
            if count:
                chunks.extend((source, start, end, index, line))
                for offset in range(count):
                    documents.extend((number, offset))
                number += 1
                index += count
        return index - first

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


@final
class RunInputs:
    """What a run is given, the same from start to end; worker processes inherit it when they
    are forked.

    This module's records, like the others the command imports before its workers fork, are
    plain classes: ``dataclasses`` spent ~0.4 ms on each class at import, on the one core the
    run then uses (see docs/performance.md)."""

    __slots__ = (
        "held",
        "index_keys_below",
        "keep_parsed",
        "names",
        "options",
        "paths",
        "store",
        "tuning",
    )

    def __init__(
        self,
        paths: Sequence[str],  # as given; "-" is standard input
        names: Sequence[str],  # as findings name them
        store: SchemaLookup | None,
        options: ValidationOptions,  # as the caller gave them (pass 2 adds the present kinds)
        tuning: Tuning,
        held: Mapping[str, str] | None = None,  # see Inputs.held: read once
        keep_parsed: bool = False,  # keep pass 1's documents for pass 2 (small inputs)
        index_keys_below: int = 0,
    ) -> None:
        self.paths: Final = tuple(paths)
        self.names: Final = tuple(names)
        self.store: Final = store
        self.options: Final = options
        self.tuning: Final = tuning
        self.held: Final[Mapping[str, str]] = {} if held is None else held
        self.keep_parsed: Final = keep_parsed
        # Files smaller than this get a file index in the result cache, which stores their keys
        # themselves: a worker sends those too (0: no result cache, only the packed keys).
        self.index_keys_below: Final = index_keys_below

    def first_read(self, source: int) -> str:
        """The text of ``source`` for pass 1: as read once, or read now."""
        held = self.held.get(self.paths[source])
        return held if held is not None else read_source(self.paths[source])


@final
class SourceIndex:
    """What pass 1 learns: where every document lies, its partition keys, the hash of every
    file's text, every document's digest for the result cache (16 bytes each, in document
    order; empty without one) and, for small inputs, the parsed documents. Filled by pass 1
    alone, then only read."""

    __slots__ = ("digests", "document_digests", "kept", "partition", "places")

    def __init__(self) -> None:
        self.places: Final = Places()
        self.partition: Final = Partitioner()
        self.digests: Final[dict[int, str]] = {}  # source -> hash of its text
        self.document_digests: Final = bytearray()
        self.kept: Final[dict[int, Document]] = {}

    def digest_of(self, doc: int) -> bytes:
        """The digest of document ``doc`` (only with a result cache)."""
        return bytes(self.document_digests[16 * doc : 16 * doc + 16])

    def options(self, given: ValidationOptions) -> ValidationOptions:
        """The options pass 2 validates with: ``given`` and the kinds the input holds."""
        return replace(given, present_kinds=frozenset(self.partition.kinds))


@final
class PassTwo:
    """What validating a batch needs besides the run's inputs: the options (with the present
    kinds), where its documents lie, and the documents kept from pass 1."""

    __slots__ = ("kept", "options", "places")

    def __init__(
        self, options: ValidationOptions, places: Places, kept: Mapping[int, Document]
    ) -> None:
        self.options: Final = options
        self.places: Final = places
        self.kept: Final = kept


class TextCache:
    """The text of the most recently used source (batches follow the input order), checked
    against the hash of its text in pass 1 (``digests``)."""

    def __init__(self, run: RunInputs, digests: Mapping[int, str]) -> None:
        self._run = run
        self._digests = digests
        self._source = -1
        self._text = ""

    def forget(self) -> None:
        """Drop the text held (it is read again when next asked for)."""
        self._text, self._source = "", -1

    def text(self, source: int) -> str:
        """The text of ``source``, read again from its file (an input that can be read only
        once is kept: see :func:`generator.validate.inputs.read_once`)."""
        if source != self._source:
            self.forget()  # one large text at a time, not two
            path = self._run.paths[source]
            held = self._run.held.get(path)
            if held is not None:
                self._text = held
            else:
                self._text = read_source(path)
                if text_digest(self._text) != self._digests.get(source):
                    raise changed_while_reading(self._run.names[source])
            self._source = source
        return self._text


def index_sources(
    run: RunInputs, index: SourceIndex, report: CheckReport, results: NoResults
) -> None:
    """Pass 1: parse every document once, keep its keys and place (and a few parsed ones).

    Documents are released as soon as their keys are taken; a YAML error later in a file drops
    that file's documents again, so a broken file is one finding, as when read whole. A file
    whose text the result cache knows is not parsed at all."""
    partitioner = index.partition
    for source in range(len(run.paths)):
        name = run.names[source]
        first, counted = partitioner.count, report.counted_documents
        text = ""  # the last file's text goes before the next is read: one large text at a time
        try:
            text = run.first_read(source)
            digest = text_digest(text)
            index.digests[source] = digest  # what the result cache keys this run by
            known = results.known_file(text, digest)
            if known is not None:
                bounds = [(c.start, c.end) for c in known.chunks]
                digests = results.chunk_digests(name, text, bounds)
                add_known_file(index, report, source, known, digests)
                continue
            recording = results.recording(len(text))
            _index_source(run, index, source, text, report, results, recording)
            results.remember_file(digest, recording)
        except (YamlError, InputOutputError) as error:
            for doc in range(first, partitioner.count):
                partitioner.drop(doc)
                index.kept.pop(doc, None)
            report.counted_documents = counted
            report.findings.append(read_error_finding(error, name))


class ChunkKeys(NamedTuple):
    """One chunk's documents as pass 1 adds them: their keys packed (``packed.codes[start:end]``),
    whether each is an object (true) or empty, and the keys themselves where a file index for
    the result cache is recorded (else None)."""

    packed: PackedKeys
    start: int
    end: int
    objects: Sequence[int]
    keys: Sequence[DocumentKeys] | None = None


def chunk_keys(documents: Sequence[tuple[DocumentKeys, bool]]) -> ChunkKeys:
    """A chunk's documents' keys (with whether each is an object), packed."""
    packed = pack_keys(keys for keys, _ in documents)
    objects = [is_object for _, is_object in documents]
    return ChunkKeys(packed, 0, len(packed.codes), objects, [keys for keys, _ in documents])


def add_chunk(
    index: SourceIndex,
    report: CheckReport,
    chunk: Chunk,
    found: ChunkKeys,
    digest: bytes,
    recording: FileIndex | None = None,
) -> list[int]:
    """Record a chunk and its documents' keys (and, given the chunk's ``digest``, the
    documents' digests for the result cache, and the chunk in the file index being
    ``recording``); returns the documents' numbers."""
    docs = index.partition.add_packed(found.packed, found.start, found.end)
    span = (chunk.start, chunk.end, chunk.line)
    count = len(found.objects)
    place_documents(
        index, report, chunk.source, [span], [digest], [count], found.objects, chunk.index
    )
    if recording is not None:
        record_chunk(recording, chunk, found)
    return docs


def place_documents(
    index: SourceIndex,
    report: CheckReport,
    source: int,
    spans: Sequence[Span],
    digests: Sequence[bytes],
    counts: Sequence[int],
    objects: Sequence[int],
    first: int,
) -> int:
    """Record the chunks ``spans`` of ``source`` holding ``counts`` documents each, the first
    numbered ``first`` in its source: where each document lies, its digest for the result cache
    (from its chunk's, in ``digests``; empty: no cache) and how many are objects (``objects``:
    one flag per document). A chunk, or a worker's whole piece in one call; returns how many
    documents there are."""
    placed = index.places.add_chunks(source, spans, counts, first)
    for digest, count in zip(digests, counts, strict=True):
        if digest:
            for offset in range(count):
                index.document_digests.extend(document_digest(digest, offset, count))
    report.counted_documents += len(objects) - objects.count(0)  # the flags: bytes, or bools
    return placed


def record_chunk(recording: FileIndex, chunk: Chunk, found: ChunkKeys) -> None:
    """Add ``chunk`` and its documents' keys to the file index ``recording`` (result cache)."""
    assert found.keys is not None, "a recorded file's keys come with it (index_keys_below)"
    documents = tuple(zip(found.keys, map(bool, found.objects), strict=True))
    recording.chunks.append(
        IndexedChunk(chunk.start, chunk.end, chunk.index, chunk.line, documents)
    )


def add_known_file(
    index: SourceIndex,
    report: CheckReport,
    source: int,
    known: FileIndex,
    digests: Sequence[bytes],
) -> None:
    """Pass 1 for a file from its stored index (``digests``: its chunks' digests)."""
    for c, digest in zip(known.chunks, digests, strict=True):
        chunk = Chunk(source, c.start, c.end, c.index, c.line)
        add_chunk(index, report, chunk, chunk_keys(c.documents), digest)


def _index_source(
    run: RunInputs,
    index: SourceIndex,
    source: int,
    text: str,
    report: CheckReport,
    results: NoResults,
    recording: FileIndex | None,
) -> None:
    """Every document of one source: parsed whole when the input is small (one parser call; the
    documents are kept anyway), else chunk by chunk so that only one document is held at once."""
    name = run.names[source]
    whole = parsed_whole(source, text, name) if run.keep_parsed else None
    pairs = whole if whole is not None else parsed_by_chunk(source, text, name)
    for chunk, documents in pairs:
        keyed = [(document_keys(d.obj), d.obj is not None) for d in documents]
        (digest,) = results.chunk_digests(name, text, [(chunk.start, chunk.end)])
        docs = add_chunk(index, report, chunk, chunk_keys(keyed), digest, recording)
        if run.keep_parsed:
            index.kept.update(zip(docs, documents, strict=True))


def validate_batch(run: RunInputs, view: PassTwo, batch: Batch, texts: TextCache) -> BatchResult:
    """Validate one batch's documents together; findings get lines from their chunk's text."""
    documents = _documents(run, view, sorted({*batch.home, *batch.guests}), texts)
    # What a batch builds (its model, views, findings) lives until the batch is done, so the
    # cyclic collector would only walk it; its garbage goes at the first collection after.
    with gc_paused():
        findings = validate_documents(list(documents.values()), run.store, view.options)
    where: dict[tuple[str, int | None], int] = {
        (d.source, d.index): doc for doc, d in documents.items()
    }
    home = set(batch.home)
    mine: list[Finding] = []
    copies: list[Finding] = []
    flagged: set[int] = set()
    for finding in findings:
        about = where.get((finding.subject.file, finding.subject.document))
        located = _with_line(view.places, finding, about, texts)
        (mine if about is None or about in home else copies).append(located)
        flagged.add(-1 if about is None else about)
    return BatchResult(mine, copies, flagged - {-1}, -1 in flagged)


def _documents(
    run: RunInputs, view: PassTwo, docs: Sequence[int], texts: TextCache
) -> dict[int, Document]:
    """The documents ``docs`` (ascending): kept from pass 1, or parsed again, runs of adjacent
    chunks with one parser call each."""
    documents: dict[int, Document] = {}
    run_of: list[tuple[int, Chunk, int]] = []
    for doc in docs:
        kept = view.kept.get(doc)
        if kept is not None:
            documents[doc] = kept
            continue
        chunk, offset = view.places.of(doc)
        if run_of and not _adjacent(run_of[-1][1], chunk):
            documents.update(_reparse_run(run, run_of, texts))
            run_of = []
        run_of.append((doc, chunk, offset))
    if run_of:
        documents.update(_reparse_run(run, run_of, texts))
    return dict(sorted(documents.items()))


def _adjacent(before: Chunk, after: Chunk) -> bool:
    return before.source == after.source and before.end == after.start


def _reparse_run(
    run: RunInputs, adjacent: Sequence[tuple[int, Chunk, int]], texts: TextCache
) -> dict[int, Document]:
    """One parser call for a run of adjacent one-document chunks; chunk by chunk otherwise."""
    first, last = adjacent[0][1], adjacent[-1][1]
    text = texts.text(first.source)
    name = run.names[first.source]
    whole = Chunk(first.source, first.start, last.end, first.index, first.line)
    if all(offset == 0 for _, _, offset in adjacent):
        parsed = parse_chunk(whole, text, name)  # same text as pass 1: same documents
        if len(parsed) == len(adjacent) and all(
            document.index == chunk.index
            for document, (_, chunk, _) in zip(parsed, adjacent, strict=True)
        ):
            return {doc: document for (doc, _, _), document in zip(adjacent, parsed, strict=True)}
    return {doc: parse_chunk(chunk, text, name)[offset] for doc, chunk, offset in adjacent}


def _with_line(places: Places, finding: Finding, doc: int | None, texts: TextCache) -> Finding:
    if finding.line is not None or doc is None:
        return finding
    chunk, offset = places.of(doc)
    text = texts.text(chunk.source)[chunk.start : chunk.end]
    line = _locator(text).line_of(offset, finding.path)
    return finding if line is None else replace(finding, line=line + chunk.line - 1)


@lru_cache(maxsize=8)
def _locator(text: str) -> LineLocator:
    return LineLocator(text)
