"""Pass 1 of ``capzgen validate -j N``: files flow to the workers while this process reads on.

Files are read, hashed and cut into chunks here, one after another; their chunks go to the
workers (:func:`generator.check_workers.index_pieces`) in tasks of about ``PIECE_CHUNKS`` chunks:
a large file in several tasks, many small files together in one. A bounded number of tasks is in
flight, so workers parse while this process reads the next files, and a repository of a thousand
one-cluster files costs a few round trips instead of one per file. The keys come back and are
added in input order, so the partition is the one the serial pass computes; a file the result
cache has indexed before is added from its index, in its turn.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field

from generator.check import CheckReport, read_error_finding, yaml_error_finding
from generator.check_stream import (
    Chunk,
    StreamState,
    add_chunk,
    add_known_file,
    chunk_digests,
    indexed,
    known_file,
    remember_file,
    spans_of,
    text_digest,
)
from generator.check_workers import (
    PIECE_CHUNKS,
    Failure,
    Found,
    Owners,
    Parsed,
    Piece,
    Workers,
    index_pieces,
)
from generator.errors import InputOutputError, Location, YamlError
from generator.findings import Finding
from generator.result_cache import FileIndex
from generator.validate.partition import Partitioner
from generator.yamlio.source import STDIN, read_source

TASKS_PER_JOB = 4  # tasks in flight per worker process
BLOCK_TASKS = 2  # consecutive tasks one worker parses (its batches then find their documents)
MAX_WAITING_FILES = 1024  # files read but not yet added (bounds what this process holds)


@dataclass
class _File:
    """One source on its way through pass 1."""

    source: int
    digest: str = ""
    size: int = 0
    spans: list[tuple[int, int, int]] = field(default_factory=list)
    digests: list[bytes] = field(default_factory=list)  # of the chunks, for the result cache
    known: FileIndex | None = None  # from the result cache: nothing to parse
    error: Finding | None = None  # unreadable: nothing to add
    parts: list[tuple[int, int]] = field(default_factory=list)  # (task number, place in task)


class _Pipeline:
    """Tasks in flight and files waiting for them, in input order."""

    def __init__(
        self, state: StreamState, report: CheckReport, partitioner: Partitioner, workers: Workers
    ) -> None:
        self.state, self.report, self.partitioner = state, report, partitioner
        self.workers = workers
        self.owners = Owners()
        self.waiting: deque[_File] = deque()
        self.futures: dict[int, Future[list[Found]]] = {}
        self.users: dict[int, int] = {}  # task number -> files still to read its results
        self.task: list[Piece] = []  # the task being filled
        self.task_chunks = 0
        self.submitted = 0  # tasks sent so far (the next one's number)

    def push(self, entry: _File) -> None:
        """Queue a file; its chunks join the current task (sent once it is full)."""
        for at in range(0, len(entry.spans), PIECE_CHUNKS):
            piece = entry.spans[at : at + PIECE_CHUNKS]
            if self.task and self.task_chunks + len(piece) > PIECE_CHUNKS:
                self._submit()
            number = self.submitted  # the number the current task gets when it is sent
            entry.parts.append((number, len(self.task)))
            self.users[number] = self.users.get(number, 0) + 1
            self.task.append((entry.source, entry.digest, piece))
            self.task_chunks += len(piece)
        self.waiting.append(entry)

    def _submit(self) -> None:
        if self.task:
            worker = self.submitted // BLOCK_TASKS % self.workers.count
            for source, _, spans in self.task:
                self.owners.record(source, spans[0][0], worker)
            self.futures[self.submitted] = self.workers.submit(worker, index_pieces, self.task)
            self.submitted += 1
            self.task, self.task_chunks = [], 0

    def drain(self, *, limit: int) -> None:
        """Add waiting files in order: the ready ones, and more (waiting for them) while more
        than ``limit`` tasks are in flight or too many files wait."""
        while self.waiting:
            head = self.waiting[0]
            ready = all(n in self.futures and self.futures[n].done() for n, _ in head.parts)
            crowded = len(self.futures) > limit or len(self.waiting) > MAX_WAITING_FILES
            if not (ready or crowded):
                return
            if any(n not in self.futures for n, _ in head.parts):
                self._submit()
            self._finish(self.waiting.popleft())

    def close(self) -> None:
        """Send the last task and add every waiting file."""
        self._submit()
        self.drain(limit=-1)

    def _results(self, entry: _File) -> list[Found]:
        found = []
        for number, place in entry.parts:
            found.append(self.futures[number].result()[place])
            self.users[number] -= 1
            if not self.users[number]:
                del self.futures[number], self.users[number]
        return found

    def _finish(self, entry: _File) -> None:
        state, report, partitioner = self.state, self.report, self.partitioner
        name = state.names[entry.source]
        if entry.error is not None:
            report.findings.append(entry.error)
            return
        if entry.known is not None:
            add_known_file(state, report, partitioner, entry.source, entry.known, entry.digests)
            return
        results = self._results(entry)
        failure = next((r for r in results if isinstance(r, tuple)), None)
        if failure is not None:
            report.findings.append(yaml_error_finding(_error(failure, name, results), name))
            return
        remember_file(state, entry.digest, _add(self, entry, results))


def _add(pipeline: _Pipeline, entry: _File, results: Sequence[Found]) -> FileIndex | None:
    """The workers' keys added in input order; the file's index for the result cache, if any."""
    state = pipeline.state
    recording = FileIndex() if indexed(state, entry.size) else None
    index = 0
    parsed = (chunk for result in results if isinstance(result, list) for chunk in result)
    for (start, end, line), digest, found in zip(entry.spans, entry.digests, parsed, strict=True):
        if not found.keys:
            continue
        chunk = Chunk(entry.source, start, end, index, line)
        keyed = list(zip(found.keys, found.objects, strict=True))
        add_chunk(state, pipeline.report, pipeline.partitioner, chunk, keyed, digest, recording)
        index += len(found.keys)
    return recording


def _error(failure: Failure, name: str, results: Sequence[list[Parsed] | Failure]) -> YamlError:
    """The worker's error, its document counted from the start of the source."""
    message, line, column, document, hint = failure
    before = 0
    for result in results:
        if isinstance(result, tuple):
            break
        before += sum(len(chunk.keys) for chunk in result)
    where = Location(
        file=name,
        line=line,
        column=column,
        document=None if document is None else document + before,
    )
    return YamlError(message, location=where, hint=hint)


def _read(state: StreamState, source: int) -> _File:
    """Read, hash and cut one source (or find it in the result cache, or fail to read it)."""
    path, name = state.paths[source], state.names[source]
    entry = _File(source)
    try:
        text = (state.stdin_text or "") if path == STDIN else read_source(path)
        entry.digest = text_digest(text)
        state.digests[source] = entry.digest
        entry.size = len(text)
        entry.known = known_file(state, text, entry.digest)
        if entry.known is not None:
            bounds = [(c.start, c.end) for c in entry.known.chunks]
        else:
            entry.spans = list(spans_of(text, name))
            bounds = [(start, end) for start, end, _ in entry.spans]
        entry.digests = chunk_digests(state, source, text, bounds)
    except (YamlError, InputOutputError) as error:
        return _File(source, error=read_error_finding(error, name))
    return entry


def index_sources(
    state: StreamState, report: CheckReport, partitioner: Partitioner, workers: Workers
) -> Owners:
    """Pass 1 on the workers: the same places, keys and findings as the serial pass; which
    worker parsed which chunks."""
    pipeline = _Pipeline(state, report, partitioner, workers)
    for source in range(len(state.paths)):
        pipeline.push(_read(state, source))
        pipeline.drain(limit=TASKS_PER_JOB * workers.count)
    pipeline.close()
    return pipeline.owners
