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

import contextlib
import hashlib
import logging
import os
from array import array
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import pairwise

from generator.check import CheckReport, collect_inputs, unreadable_finding, yaml_error_finding
from generator.documents import Document
from generator.errors import InputOutputError, Location, YamlError
from generator.findings import Finding, sort_findings
from generator.schemastore.types import SchemaLookup
from generator.validate import ValidationOptions, validate_documents
from generator.validate.partition import Batch, Partitioner, document_keys
from generator.yamlio.load import layout, load_documents
from generator.yamlio.locate import LineLocator
from generator.yamlio.source import STDIN, read_source

log = logging.getLogger(__name__)

# Inputs up to this size (in bytes, all files together) keep their parsed documents from pass 1,
# so they are parsed once; larger ones are parsed again in pass 2 and use little memory.
CACHE_INPUT_BELOW = 8 << 20
BATCH_DOCUMENTS = 700  # about a hundred clusters of seven documents


@dataclass(frozen=True, slots=True)
class Chunk:
    """The text between two ``---`` lines of a source: one document (rarely more, after ``...``)."""

    source: int  # position in the list of sources
    start: int  # character offsets in the source's text
    end: int
    index: int  # the source's document index of the chunk's first document
    line: int  # 1-based line of the chunk's first character


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


_STATE: StreamState | None = None  # the state a forked worker validates with


class TextCache:
    """The text of the most recently used source (batches follow the input order)."""

    def __init__(self, state: StreamState) -> None:
        self._state = state
        self._source = -1
        self._text = ""

    def text(self, source: int) -> str:
        """The text of ``source``, read again from its file (standard input is kept)."""
        if source != self._source:
            path = self._state.paths[source]
            if path == STDIN:
                self._text = self._state.stdin_text or ""
            else:
                self._text = read_source(path)
                if _digest(self._text) != self._state.digests.get(source):
                    raise changed_while_reading(self._state.names[source])
            self._source = source
        return self._text


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def changed_while_reading(name: str) -> InputOutputError:
    """A file read twice (large inputs) that differs the second time."""
    msg = "the file changed while capzgen was validating it"
    return InputOutputError(msg, location=Location(file=name), hint="run capzgen validate again")


def _spans(text: str, name: str) -> Iterator[tuple[int, int, int]]:
    """(start, end, first line) of the text between ``---`` lines (the separator rule checked)."""
    bounds = list(layout(text, name).separators)
    if not bounds or bounds[0] != 0:
        bounds.insert(0, 0)
    bounds.append(len(text))
    line = 1
    for start, end in pairwise(bounds):
        if end > start:
            yield start, end, line
        line += text.count("\n", start, end)


def _parse(chunk: Chunk, text: str, name: str) -> list[Document]:
    """The documents of one chunk, numbered and placed as in the whole source."""
    try:
        documents = load_documents(text[chunk.start : chunk.end], source=name)
    except YamlError as error:
        raise _moved(error, chunk) from None
    return [
        Document(
            name,
            chunk.index + number,
            document.obj,
            None if document.start_line is None else document.start_line + chunk.line - 1,
        )
        for number, document in enumerate(documents)
    ]


def _moved(error: YamlError, chunk: Chunk) -> YamlError:
    loc = error.location
    if loc is None:
        return error
    moved = Location(
        file=loc.file,
        line=None if loc.line is None else loc.line + chunk.line - 1,
        column=loc.column,
        document=None if loc.document is None else loc.document + chunk.index,
    )
    return YamlError(error.message, location=moved, hint=error.hint)


def index_sources(state: StreamState, report: CheckReport, partitioner: Partitioner) -> None:
    """Pass 1: parse every document once, keep its keys and place (and a few parsed ones).

    Documents are released as soon as their keys are taken; a YAML error later in a file drops
    that file's documents again, so a broken file is one finding, as when read whole."""
    for source, path in enumerate(state.paths):
        name = state.names[source]
        first, counted = partitioner.count, report.counted_documents
        try:
            text = state.stdin_text if path == STDIN else read_source(path)
            if path != STDIN:
                state.digests[source] = _digest(text or "")
            _index_source(state, source, text or "", name, report, partitioner)
        except (YamlError, InputOutputError) as error:
            for doc in range(first, partitioner.count):
                partitioner.drop(doc)
                state.cache.pop(doc, None)
            report.counted_documents = counted
            report.findings.append(
                yaml_error_finding(error, name)
                if isinstance(error, YamlError)
                else unreadable_finding(name, error.message)
            )


def _index_source(
    state: StreamState,
    source: int,
    text: str,
    name: str,
    report: CheckReport,
    partitioner: Partitioner,
) -> None:
    """Every document of one source: parsed whole when the input is small (one parser call; the
    documents are kept anyway), else chunk by chunk so that only one document is held at once."""
    whole = _parsed_whole(source, text, name) if state.keep_parsed else None
    pairs = whole if whole is not None else _parsed_by_chunk(source, text, name)
    for chunk, documents in pairs:
        number = state.places.add_chunk(chunk)
        for offset, document in enumerate(documents):
            doc = partitioner.add(document_keys(document.obj))
            state.places.add_document(number, offset)
            if document.obj is not None:
                report.counted_documents += 1
            if state.keep_parsed:
                state.cache[doc] = document


def _parsed_by_chunk(source: int, text: str, name: str) -> Iterator[tuple[Chunk, list[Document]]]:
    index = 0
    for start, end, line in _spans(text, name):
        chunk = Chunk(source, start, end, index, line)
        documents = _parse(chunk, text, name)
        if documents:
            yield chunk, documents
            index += len(documents)


def _parsed_whole(
    source: int, text: str, name: str
) -> list[tuple[Chunk, list[Document]]] | None:
    """The documents of the whole text with the chunk each came from, when there is exactly one
    document per chunk (the usual case; ``...`` end markers are not), else None."""
    spans = [span for span in _spans(text, name) if text[span[0] : span[1]].strip()]
    documents = load_documents(text, source=name)
    if len(spans) != len(documents) or not all(
        document.start_line is None
        or line <= document.start_line <= line + text.count("\n", start, end)
        for (start, end, line), document in zip(spans, documents, strict=True)
    ):
        return None
    return [
        (Chunk(source, start, end, document.index, line), [document])
        for (start, end, line), document in zip(spans, documents, strict=True)
    ]


@dataclass(frozen=True, slots=True)
class BatchResult:
    """Findings of one batch: about its own documents, and about its guest copies of hubs."""

    home: list[Finding]
    guests: list[Finding]


def validate_batch(state: StreamState, batch: Batch, texts: TextCache) -> BatchResult:
    """Validate one batch's documents together; findings get lines from their chunk's text."""
    documents: dict[int, Document] = {}
    for doc in sorted({*batch.home, *batch.guests}):
        document = state.cache.get(doc)
        if document is None:
            document = _reparse(state, doc, texts)
        documents[doc] = document
    findings = validate_documents(list(documents.values()), state.store, state.options)
    where: dict[tuple[str, int | None], int] = {
        (d.source, d.index): doc for doc, d in documents.items()
    }
    home = set(batch.home)
    result = BatchResult([], [])
    for finding in findings:
        about = where.get((finding.subject.file, finding.subject.document))
        located = _with_line(state, finding, about, texts)
        (result.home if about is None or about in home else result.guests).append(located)
    return result


def _reparse(state: StreamState, doc: int, texts: TextCache) -> Document:
    chunk, offset = state.places.of(doc)
    text = texts.text(chunk.source)
    return _parse(chunk, text, state.names[chunk.source])[offset]  # same text: same documents


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


def _run_batch(number: int) -> BatchResult:
    """Process-pool entry point: the state and the batches were inherited from the parent."""
    assert _STATE is not None, "set before the pool is forked"
    assert _BATCHES is not None, "set before the pool is forked"
    return validate_batch(_STATE, _BATCHES[number], TextCache(_STATE))


_BATCHES: list[Batch] | None = None


def _results(state: StreamState, batches: list[Batch], jobs: int) -> Iterator[BatchResult]:
    """Batch results in batch order: the first in this process (it compiles the schemas the
    workers then inherit), the others on ``jobs`` forked workers when there are enough."""
    global _STATE, _BATCHES
    texts = TextCache(state)
    if not batches:
        return
    yield validate_batch(state, batches[0], texts)
    rest = range(1, len(batches))
    if jobs <= 1 or len(rest) < 2:
        for number in rest:
            yield validate_batch(state, batches[number], texts)
        return
    _STATE, _BATCHES = state, batches
    try:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            yield from pool.map(_run_batch, rest)
    finally:
        _STATE, _BATCHES = None, None


def check_stream(
    paths: Sequence[str],
    names: Sequence[str],
    store: SchemaLookup | None,
    options: ValidationOptions,
    *,
    jobs: int = 1,
    stdin_text: str | None = None,
    batch_documents: int | None = None,
) -> CheckReport:
    """Validate the files ``paths`` (``-`` is ``stdin_text``) in batches; see the module doc.
    ``batch_documents`` overrides the batch size (tests make it tiny to split every cluster)."""
    state = StreamState(list(paths), list(names), store, options, stdin_text=stdin_text)
    state.keep_parsed = _input_size(paths, stdin_text) < CACHE_INPUT_BELOW
    report = CheckReport()
    partitioner = Partitioner()
    index_sources(state, report, partitioner)
    state.options = replace(options, present_kinds=frozenset(partitioner.kinds))
    size = batch_documents or max(50, min(BATCH_DOCUMENTS, partitioner.count // (jobs * 4)))
    batches = partitioner.batches(size)
    log.info(
        "validating %d documents in %d batches on %d processes",
        partitioner.count,
        len(batches),
        jobs,
    )
    home: list[Finding] = []
    guests: set[Finding] = set()
    for result in _results(state, batches, jobs):
        home.extend(result.home)
        guests.update(result.guests)
    extra = guests - set(home)
    report.findings = sort_findings([*report.findings, *home, *extra])
    return report


def _input_size(paths: Sequence[str], stdin_text: str | None) -> int:
    """Bytes of all inputs, as far as the file system tells (unreadable files count nothing:
    pass 1 reports them)."""
    total = len(stdin_text or "")
    for path in paths:
        if path != STDIN:
            with contextlib.suppress(OSError):  # pass 1 reports unreadable files
                total += os.stat(path).st_size
    return total


def stream_paths(
    paths: Sequence[str],
    store: SchemaLookup | None,
    options: ValidationOptions,
    *,
    jobs: int = 1,
    batch_documents: int | None = None,
) -> CheckReport:
    """What :func:`generator.check.check_paths` does, in bounded memory on ``jobs`` processes."""
    inputs, unreadable = collect_inputs(paths)
    stdin_text = None
    if any(path == STDIN for path, _ in inputs):
        try:
            stdin_text = read_source(STDIN)
        except (YamlError, InputOutputError) as error:
            inputs = [(p, n) for p, n in inputs if p != STDIN]
            unreadable.append(
                yaml_error_finding(error, "<stdin>")
                if isinstance(error, YamlError)
                else unreadable_finding("<stdin>", error.message)
            )
    report = check_stream(
        [p for p, _ in inputs],
        [n for _, n in inputs],
        store,
        options,
        jobs=jobs,
        stdin_text=stdin_text,
        batch_documents=batch_documents,
    )
    report.findings = sort_findings([*unreadable, *report.findings])
    return report


def default_jobs() -> int:
    """Worker processes when ``-j`` is not given: the machine's cores, as kubeconform does."""
    return os.cpu_count() or 1
