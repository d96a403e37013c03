"""Pass 1 of ``capzgen validate -j N``: files flow to the workers while this process reads on.

Files are read, hashed and cut into chunks here, one after another; their chunks go to the
workers (:func:`generator.validate.workers.index_pieces`) in tasks of about ``Tuning.piece_chunks``
chunks:
a large file in several tasks, many small files together in one. A bounded number of tasks is in
flight, so workers parse while this process reads the next files, and a repository of a thousand
one-cluster files costs a few round trips instead of one per file. The keys come back and are
added in input order, so the partition is the one the serial pass computes; a file the result
cache has indexed before is added from its index, in its turn.
"""

from __future__ import annotations

from collections import deque
from concurrent.futures import Future
from typing import NamedTuple

from generator.errors import InputOutputError, Location, YamlError
from generator.findings import Finding
from generator.validate.cache.records import FileIndex
from generator.validate.check import CheckReport
from generator.validate.inputs import read_error_finding, yaml_error_finding
from generator.validate.owners import Owners
from generator.validate.passes import (
    RunInputs,
    SourceIndex,
    add_known_file,
    place_documents,
    record_chunk,
)
from generator.validate.results import NoResults
from generator.validate.workers import (
    Failure,
    Found,
    Piece,
    PieceKeys,
    Workers,
    index_pieces,
    prepare,
    warm_up,
)
from generator.yamlio.chunks import Chunk, Span, spans_of, text_digest


class PiecePlace(NamedTuple):
    """Where one piece of a file went: its task's number, its place in the task, its first
    chunk in the file and how many chunks it has."""

    task: int
    place: int
    first: int
    chunks: int


class _File:
    """One source on its way through pass 1 (a plain class, as this command's records are: see
    :class:`~generator.validate.passes.RunInputs`)."""

    __slots__ = (
        "digest",
        "digests",
        "error",
        "known",
        "parts",
        "progress",
        "size",
        "source",
        "spans",
        "text",
        "unhashed",
    )

    def __init__(self, source: int, error: Finding | None = None) -> None:
        self.source = source
        self.digest = ""
        self.size = 0
        self.text: str | None = None  # sent with its pieces (small inputs), dropped once cut
        self.unhashed: str | None = None  # the text, until its digest is taken (see _read)
        self.spans: list[Span] = []
        self.digests: list[bytes] = []  # of the chunks, for the result cache
        self.known: FileIndex | None = None  # from the result cache: nothing to parse
        self.error = error  # unreadable: nothing to add
        self.parts: list[PiecePlace] = []  # its pieces
        self.progress: _Progress | None = None  # once its first piece is added


class _Progress:
    """How far a file's pieces have been added: a large file's keys are added piece by piece
    as they come back, while the workers parse the rest, so that this process's share (the
    partition) is done by the time the last piece is parsed, not after it."""

    __slots__ = ("added", "counted", "documents", "first_doc", "recording")

    def __init__(self, first_doc: int, counted: int, recording: FileIndex | None) -> None:
        self.first_doc = first_doc  # the partition's count before the file: its documents follow
        self.counted = counted  # the report's document count before the file
        self.recording = recording  # the file's index for the result cache, if it keeps one
        self.added = 0  # pieces added
        self.documents = 0  # documents added (the source's next document index)


class _Pipeline:
    """Tasks in flight and files waiting for them, in input order."""

    def __init__(
        self,
        run: RunInputs,
        index: SourceIndex,
        report: CheckReport,
        results: NoResults,
        workers: Workers,
    ) -> None:
        self.run, self.index, self.report, self.results = run, index, report, results
        self.partitioner = index.partition
        self.tuning = run.tuning
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
        size = self._piece_size(len(entry.spans))
        for at in range(0, len(entry.spans), size):
            piece = entry.spans[at : at + size]
            if self.task and self.task_chunks + len(piece) > self.tuning.piece_chunks:
                self._submit()
            number = self.submitted  # the number the current task gets when it is sent
            entry.parts.append(PiecePlace(number, len(self.task), at, len(piece)))
            self.users[number] = self.users.get(number, 0) + 1
            text = None if entry.text is None else entry.text[piece[0][0] : piece[-1][1]]
            self.task.append(Piece(entry.source, entry.digest, piece, text, entry.size))
            self.task_chunks += len(piece)
        entry.text = None
        self.waiting.append(entry)

    def _piece_size(self, chunks: int) -> int:
        """Chunks per piece of a file of ``chunks``: at most ``piece_chunks``, and a large file
        in a multiple of ``block_tasks`` pieces per worker, so that every worker gets as many
        and none parses on alone at the end (a fleet file in 18 pieces gave one worker 10)."""
        most = self.tuning.piece_chunks
        if chunks <= most:
            return most
        round_of = self.workers.count * self.tuning.block_tasks
        tasks = -(-chunks // most)
        tasks += -tasks % round_of
        return -(-chunks // tasks)

    def _submit(self) -> None:
        if self.task:
            worker = self.submitted // self.tuning.block_tasks % self.workers.count
            for piece in self.task:
                self.owners.record(piece.source, piece.spans[0][0], worker)
            self.futures[self.submitted] = self.workers.submit(worker, index_pieces, self.task)
            self.submitted += 1
            self.task, self.task_chunks = [], 0

    def drain(self, *, limit: int) -> None:
        """Add waiting files in order, each piece as soon as its keys are back; and more
        (waiting for them) while more than ``limit`` tasks are in flight or too many files
        wait."""
        while self.waiting:
            waiting = len(self.waiting) > self.tuning.max_waiting_files
            crowded = len(self.futures) > limit or waiting
            if not self._advance(self.waiting[0], wait=crowded):
                return
            self.waiting.popleft()

    def send_rest(self) -> None:
        """Send the last task, then to each worker its warm-up (it runs while this process adds
        the last keys and packs the batches)."""
        self._submit()
        for worker in range(self.workers.count):
            self.workers.submit(worker, warm_up, self.run.options)

    def _take(self, number: int, place: int) -> Found:
        """A piece's result (waiting for it), its task forgotten once every file read it."""
        found = self.futures[number].result()[place]
        self.users[number] -= 1
        if not self.users[number]:
            del self.futures[number], self.users[number]
        return found

    def _ready(self, number: int, *, wait: bool) -> bool:
        """Whether task ``number``'s result can be taken now (sent first when waiting)."""
        if number not in self.futures and wait:
            self._submit()
        return number in self.futures and (wait or self.futures[number].done())

    def _advance(self, entry: _File, *, wait: bool) -> bool:
        """Add the pieces of ``entry`` whose keys are back, in order (waiting for them if
        ``wait``); whether the whole file is done."""
        report = self.report
        if entry.error is not None:
            report.findings.append(entry.error)
            return True
        if entry.unhashed is not None:  # its pieces are out: hashed while the workers parse
            entry.digest = _digest(self, entry.source, entry.unhashed)
            entry.unhashed = None
        if entry.known is not None:
            add_known_file(self.index, report, entry.source, entry.known, entry.digests)
            return True
        if entry.progress is None:
            recording = self.results.recording(entry.size)
            entry.progress = _Progress(self.partitioner.count, report.counted_documents, recording)
        progress = entry.progress
        while progress.added < len(entry.parts):
            part = entry.parts[progress.added]
            if not self._ready(part.task, wait=wait):
                return False
            found = self._take(part.task, part.place)
            progress.added += 1
            if isinstance(found, Failure):
                self._fail(entry, found)
                return True
            _add(self, entry, progress, found, slice(part.first, part.first + part.chunks))
        self.results.remember_file(entry.digest, progress.recording)
        return True

    def _fail(self, entry: _File, failure: Failure) -> None:
        """A piece of ``entry`` did not parse: the documents added from it go again (the file
        is one finding, as when read whole) and the rest of its pieces are not added."""
        progress = entry.progress
        assert progress is not None, "set before its first piece"
        for doc in range(progress.first_doc, self.partitioner.count):
            self.partitioner.drop(doc)
        self.report.counted_documents = progress.counted
        name = self.run.names[entry.source]
        error = _error(failure, name, progress.documents)
        self.report.findings.append(yaml_error_finding(error, name))
        for part in entry.parts[progress.added :]:
            self._ready(part.task, wait=True)
            self._take(part.task, part.place)
        progress.added = len(entry.parts)


def _add(
    pipeline: _Pipeline, entry: _File, progress: _Progress, found: PieceKeys, piece: slice
) -> None:
    """The workers' keys of the ``piece`` of ``entry``'s chunks added in input order (and to
    the file's index for the result cache, if it keeps one): the partitioner takes the whole
    piece in one call, and so does :func:`generator.validate.passes.place_documents`."""
    index, report = pipeline.index, pipeline.report
    index.partition.add_packed(found.packed)
    spans, digests = entry.spans[piece], entry.digests[piece]
    first = progress.documents
    counts, objects = found.counts, found.objects
    progress.documents += place_documents(
        index, report, entry.source, spans, digests, counts, objects, first
    )
    if progress.recording is not None:
        for (start, end, line), keys in zip(spans, found.chunks(), strict=True):
            if keys.objects:
                record_chunk(progress.recording, Chunk(entry.source, start, end, first, line), keys)
                first += len(keys.objects)


def _error(failure: Failure, name: str, before: int) -> YamlError:
    """The worker's error, its document counted from the start of the source (``before``:
    the documents of the file's earlier pieces)."""
    document = failure.document
    where = Location(
        file=name,
        line=failure.line,
        column=failure.column,
        document=None if document is None else document + before,
    )
    return YamlError(failure.message, location=where, hint=failure.hint)


def _read(pipeline: _Pipeline, source: int) -> _File:
    """Read, hash and cut one source (or find it in the result cache, or fail to read it)."""
    run, results = pipeline.run, pipeline.results
    name = run.names[source]
    entry = _File(source)
    try:
        text = run.first_read(source)
        entry.size = len(text)
        # The digest names the text for the result cache, which can know only a file smaller
        # than it records, and for a worker reading the file again, which one whose pieces
        # carry their text (a small input) does only in pass 2: such a file is hashed once its
        # pieces are out (_advance), not before.
        if entry.size < results.index_files_below or not run.keep_parsed:
            entry.digest = _digest(pipeline, source, text)
            entry.known = results.known_file(text, entry.digest)
        else:
            entry.unhashed = text
        if entry.known is not None:
            bounds = [(c.start, c.end) for c in entry.known.chunks]
        else:
            entry.spans = spans_of(text, name)
            bounds = [(start, end) for start, end, _ in entry.spans]
            if run.keep_parsed:  # a small input: its pieces carry their text (see Piece)
                entry.text = text
        entry.digests = results.chunk_digests(name, text, bounds)
    except (YamlError, InputOutputError) as error:
        return _File(source, error=read_error_finding(error, name))
    return entry


def _digest(pipeline: _Pipeline, source: int, text: str) -> str:
    """The digest of ``source``'s text, noted in the index."""
    digest = pipeline.index.digests[source] = text_digest(text)
    return digest


def index_sources(
    run: RunInputs, index: SourceIndex, report: CheckReport, results: NoResults, workers: Workers
) -> Owners:
    """Pass 1 on the workers: the same places, keys and findings as the serial pass; which
    worker parsed which chunks."""
    pipeline = _Pipeline(run, index, report, results, workers)
    # forks them: they load the engine while this process reads
    prepared = [workers.submit(worker, prepare, None) for worker in range(workers.count)]
    last = len(run.paths) - 1
    for source in range(len(run.paths)):
        pipeline.push(_read(pipeline, source))
        if source < last:  # the last file's pieces all go out first (see send_rest)
            pipeline.drain(limit=run.tuning.tasks_per_job * workers.count)
    pipeline.send_rest()
    pipeline.drain(limit=-1)
    for done in prepared:  # a worker that could not load the engine fails the run here
        done.result()
    return pipeline.owners
