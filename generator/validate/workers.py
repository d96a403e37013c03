"""The two passes of :mod:`generator.validate.passes` on worker processes (``validate -j N``).

One pool serves both passes. It is forked before anything is parsed, so every worker inherits
the schema store and the list of inputs, and nothing large is ever pickled:

* pass 1 (sent by :mod:`generator.validate.parallel`): workers read the files themselves, parse the
  chunks they are given and send back only each document's partition keys
  (:func:`index_pieces`);
* pass 2: each batch goes to a worker with where its documents lie; each worker is a pool of its
  own, and a batch is split by the worker that parsed its components, so on a small input
  (``RunInputs.keep_parsed``) a worker validates documents it still holds from pass 1; others
  it reads and parses again (:func:`run_batches`).

A YAML error is sent back as data and raised in the caller, so a broken file is one finding, as
serially.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import threading
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from typing import Final, NamedTuple, TypeVar, final

from generator import runtime
from generator.checks import ValidationOptions, validate_documents
from generator.documents import Document
from generator.errors import ResourceExhausted, YamlError
from generator.validate import engine_load
from generator.validate.batches import Batch
from generator.validate.lifeline import held_signals, how_ended, worker_died
from generator.validate.outcome import BatchResult
from generator.validate.owners import Owners
from generator.validate.partition import DocumentKeys, PackedKeys, document_keys
from generator.validate.partition_keys import KeyPacker
from generator.validate.passes import (
    ChunkKeys,
    PassTwo,
    RunInputs,
    SomePlaces,
    TextCache,
    validate_batch,
)
from generator.validate.sample import head_sample
from generator.yamlio.chunks import Chunk, Span, one_per_chunk, parse_chunk

T = TypeVar("T")
R = TypeVar("R")


@final
class WorkerContext:
    """What a worker holds, made by the worker itself on its first task: the run's inputs, the
    process that started the pool (workers are the others), and the worker's own memory: the
    hashes of the texts it reads, the text of its latest source (tasks follow the input), its
    documents kept from pass 1 for its batches in pass 2 (small inputs only, as
    ``RunInputs.keep_parsed`` says; by (source, chunk start), their ``index`` counted from the
    piece, not the source), and the first few documents it parsed (see :func:`warm_up`)."""

    __slots__ = ("digests", "kept", "run", "sample", "starter", "texts")

    def __init__(self, run: RunInputs, starter: int) -> None:
        self.run: Final = run
        self.starter: Final = starter
        self.digests: Final[dict[int, str]] = {}
        self.texts: Final = TextCache(run, self.digests)
        self.kept: Final[dict[tuple[int, int], list[Document]]] = {}
        self.sample: Final[list[Document]] = []


# What every worker starts from, set by the caller before the pool is forked (a forked worker
# inherits it): the run and the caller's process id. Never written by a worker. (Workers are
# forked before the caller reads the first file, see :func:`prepare`, so none inherits a text:
# a small input's pieces carry theirs, see :class:`Piece`, and a large one is read by each
# worker itself.)
_RUN: tuple[RunInputs, int] | None = None
# Each worker's own memory (one per thread: a forked worker's task thread, or each thread of a
# pool of threads), never shared with the caller or another worker: two workers on two threads
# of one module-wide context swapped each other's held text.
_LOCAL = threading.local()


def start(run: RunInputs) -> None:
    """Make ``run`` what workers started from now on work for (and read their texts for)."""
    global _RUN
    _RUN = (run, os.getpid())
    engine_load.forget()  # workers on threads of this process (tests) load it for each run


def carried() -> tuple[Callable[..., object], tuple[object, ...]]:
    """What a worker the zygote forks must start from, which one forked here inherits: the run
    :func:`start` set and the log's level (both made after the zygote left this process)."""
    assert _RUN is not None, "set before the pool is made"
    return (inherit, (_RUN, logging.getLogger().level))


def inherit(started: tuple[RunInputs, int], log_level: int) -> None:
    """In the zygote, before it forks workers: :func:`carried`'s run and log level, as a worker
    forked by the caller inherits them; then the zygote warms up once for all of them."""
    global _RUN
    _RUN = started
    runtime.log_to_stderr(log_level)
    run = started[0]
    validate_documents(head_sample(run), run.store, run.options)
    gc.freeze()  # what the warm-up compiled lives as long as the workers


def stop() -> None:
    """Forget the run once the pool is gone."""
    global _RUN
    _RUN = None


def context() -> WorkerContext:
    """This worker's own context, made on its first task of the run (see :func:`start`)."""
    started = _RUN
    assert started is not None, "set before the pool is forked"
    mine: WorkerContext | None = getattr(_LOCAL, "context", None)
    if mine is None or mine.run is not started[0] or mine.starter != started[1]:
        mine = WorkerContext(*started)
        _LOCAL.context = mine
    return mine


# --- what a task was about, when its worker died ---------------------------------------------------


def _names(run: RunInputs, sources: Iterable[int]) -> str:
    names = [run.names[source] for source in sorted(set(sources))]
    shown = ", ".join(names[:5])
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _doing(argument: object) -> str:
    """What a task was about: the files of its pieces or batch (its warm-up: any input). Asked
    in the caller's process, where :func:`start` set the run."""
    run = context().run
    if isinstance(argument, BatchTask):
        return f"validating {_names(run, argument.flat[0::6])}"
    if isinstance(argument, list) and all(isinstance(piece, Piece) for piece in argument):
        return f"reading {_names(run, (piece.source for piece in argument))}"
    return f"validating {_names(run, range(len(run.names)))}"


# --- pass 1 ---------------------------------------------------------------------------------------


@final
class PieceKeys:
    """What a worker found in one piece: every document's keys packed in one array (see
    :class:`~generator.validate.partition_keys.PackedKeys` for why hashes), where each chunk's
    documents end in it and how many each chunk has, whether each document is an object (1) or
    empty (0), and the keys themselves where the parent keeps a file index for the result cache
    (``RunInputs.index_keys_below``), else None."""

    __slots__ = ("counts", "ends", "keys", "objects", "packed")

    def __init__(
        self,
        packed: PackedKeys,
        ends: array[int],
        counts: array[int],
        objects: bytes,
        keys: list[DocumentKeys] | None,
    ) -> None:
        self.packed: Final = packed
        self.ends: Final = ends
        self.counts: Final = counts
        self.objects: Final = objects
        self.keys: Final = keys

    def __reduce__(self) -> tuple[type[PieceKeys], tuple[object, ...]]:
        """Pickled as its fields (flat arrays and bytes: no object per document)."""
        return PieceKeys, (self.packed, self.ends, self.counts, self.objects, self.keys)

    def chunks(self) -> Iterator[ChunkKeys]:
        """Each chunk's share, in order."""
        start = first = 0
        for end, count in zip(self.ends, self.counts, strict=True):
            last = first + count
            keys = None if self.keys is None else self.keys[first:last]
            yield ChunkKeys(self.packed, start, end, self.objects[first:last], keys)
            start, first = end, last


class _PieceKeysBuilder:
    """A piece's :class:`PieceKeys`, chunk by chunk."""

    def __init__(self, with_keys: bool) -> None:
        self.packer = KeyPacker()
        self.ends: array[int] = array("q")
        self.counts: array[int] = array("q")
        self.objects = bytearray()
        self.keys: list[DocumentKeys] | None = [] if with_keys else None

    def add_chunk(self, documents: Sequence[Document]) -> None:
        for document in documents:
            keys = document_keys(document.obj)
            self.packer.add(keys)
            self.objects.append(document.obj is not None)
            if self.keys is not None:
                self.keys.append(keys)
        self.ends.append(len(self.packer.codes))
        self.counts.append(len(documents))

    def built(self) -> PieceKeys:
        packed = self.packer.packed()
        return PieceKeys(packed, self.ends, self.counts, bytes(self.objects), self.keys)


class Failure(NamedTuple):
    """A piece's first YAML error, sent back as data (raised again in the caller)."""

    message: str
    line: int | None
    column: int | None
    document: int | None  # counted from the piece's first document
    hint: str | None


class Piece(NamedTuple):
    """A run of chunks of one source for a worker to parse, the hash of the source's text ("" for
    a piece that carries its text: not taken yet, see ``parallel._read``) and, for a small
    input, the chunks' text itself (from the first chunk's start to the last's end):
    the worker then parses at once instead of first reading and checking the whole file (12-16
    ms for the 3.4 MB fleet, before its first piece could start). Whether the worker sends the
    documents' keys too (``RunInputs.index_keys_below``) goes by ``size``, the source's length
    as the caller read it."""

    source: int
    digest: str
    spans: list[Span]
    text: str | None = None
    size: int = 0


Found = PieceKeys | Failure  # a piece's chunks' keys, or its first error


def index_pieces(task: list[Piece]) -> list[Found]:
    """Worker: parse pieces (runs of chunks of one source each; small files travel together)."""
    return [_index_piece(piece) for piece in task]


def _index_piece(piece: Piece) -> Found:
    """The keys of the documents of one piece's chunks, or the first error.

    The chunks are parsed with one parser call when each holds one document (the usual case),
    else one by one; either way the first error is the one a whole-file parse reports."""
    source, digest, spans, text, size = piece
    worker = context()
    if digest:  # "": not hashed yet (the piece carries its text; pass 2 sends the digest)
        worker.digests[source] = digest
    base = spans[0][0] if text is not None and spans else 0  # where the text sent starts
    if text is None:
        text = worker.texts.text(source)
    name = worker.run.names[source]
    found = _PieceKeysBuilder(size < worker.run.index_keys_below)
    local = [(start - base, end - base, line) for start, end, line in spans] if base else spans
    if _piece_at_once(worker, (source, base), text, name, local, found):
        return found.built()
    for start, end, line in local:
        try:
            documents = parse_chunk(Chunk(source, start, end, 0, line), text, name)
        except YamlError as error:
            return _failure(error, len(found.objects))  # this piece's documents so far
        _keep(worker, source, base + start, documents)
        found.add_chunk(documents)
    return found.built()


def _keep(worker: WorkerContext, source: int, start: int, documents: list[Document]) -> None:
    if worker.run.keep_parsed:
        worker.kept[(source, start)] = documents
        if os.getpid() != worker.starter:  # a forked worker, not the caller's own process
            # Kept until the end: out of the collector's way now (as warm_up does for all the
            # worker holds), or every collection of pass 1 walks the documents parsed so far.
            gc.freeze()
    wanted = worker.run.tuning.sample_documents - len(worker.sample)
    if wanted > 0:
        worker.sample.extend(documents[:wanted])


def prepare(_: None) -> None:
    """Worker, first task: start loading the validation engine (~40 ms of imports) on a thread
    of its own, and return (:mod:`generator.validate.engine_load`). Pass 1 does not use the
    engine (parsing and partition keys), so the worker parses the pieces the caller sends as
    soon as it has cut the file, and the imports fill the gaps between them; imported before the
    first piece instead, they kept every worker from parsing for ~20 ms after the caller was
    ready. Whatever validates waits for it."""
    engine_load.start()


def warm_up(options: ValidationOptions) -> None:
    """Worker: validate the first few documents it parsed and forget the findings (the batches
    report them), so that its first batch does not pay for what validation loads and compiles
    on first use (checkers, schema validators, CEL programs: 15-40 ms). In a worker process,
    what it holds now (the documents kept from pass 1 among them) lives until the end: the
    garbage collector leaves it alone in pass 2 (``gc.freeze``)."""
    engine_load.wait()
    worker = context()
    validate_documents(worker.sample, worker.run.store, options)
    if os.getpid() != worker.starter:  # a forked worker, not the caller's own process (tests)
        gc.freeze()


def _kept(worker: WorkerContext, places: SomePlaces, docs: Sequence[int]) -> dict[int, Document]:
    """The documents ``docs`` this worker parsed in pass 1, numbered as in their source."""
    found = {}
    for doc in docs:
        chunk, offset = places.of(doc)
        documents = worker.kept.get((chunk.source, chunk.start))
        if documents is not None and offset < len(documents):
            kept = documents[offset]
            found[doc] = Document(kept.source, chunk.index + offset, kept.obj, kept.start_line)
    return found


def _failure(error: YamlError, before: int) -> Failure:
    loc = error.location
    return Failure(
        error.message,
        loc.line if loc else None,
        loc.column if loc else None,
        None if loc is None or loc.document is None else loc.document + before,
        error.hint,
    )


def _piece_at_once(
    worker: WorkerContext,
    where: tuple[int, int],
    text: str,
    name: str,
    spans: Sequence[Span],
    found: _PieceKeysBuilder,
) -> bool:
    """Whether the chunks of ``spans`` (in ``text``, which starts at offset ``base`` of source
    ``source``: ``where``) parsed together gave exactly one document per chunk (then each is
    kept and added to ``found``); False (parse them one by one) otherwise, errors included."""
    if not spans:
        return True
    source, base = where
    (start, _, line), (_, end, _) = spans[0], spans[-1]
    try:
        documents = parse_chunk(Chunk(source, start, end, 0, line), text, name)
    except YamlError:
        return False
    if not one_per_chunk(spans, documents, text):
        return False
    for (first, _, _), document in zip(spans, documents, strict=True):
        _keep(worker, source, base + first, [document])
        found.add_chunk([document])
    return True


# --- pass 2 ---------------------------------------------------------------------------------------


class BatchTask(NamedTuple):
    """A batch for a worker: its documents (home and guests, ascending) and their places
    (:meth:`Places.flat`: flat, cheap to pickle), the hashes of their sources' texts, and the
    options (with the present kinds, known after pass 1)."""

    batch: Batch
    docs: array[int]
    flat: array[int]
    digests: dict[int, str]
    options: ValidationOptions


def _run_batch(task: BatchTask) -> BatchResult:
    """Worker: validate one batch, its documents kept from pass 1 or read and parsed again."""
    engine_load.wait()
    worker = context()  # this worker's own copy: tasks run one at a time
    places = SomePlaces(task.docs, task.flat)
    worker.digests.update(task.digests)
    view = PassTwo(task.options, places, _kept(worker, places, task.docs))
    return validate_batch(worker.run, view, task.batch, worker.texts)


class _Settled(Future[R]):
    """The future a caller waits on: the worker's own future's outcome, with a broken pool told
    as the worker's death. Waiting on it waits on the worker's future first, so an executor
    whose futures do their work when waited on (a test's scheduled pool) is driven as before."""

    def __init__(self, inner: Future[R]) -> None:
        super().__init__()
        self._inner = inner

    def result(self, timeout: float | None = None) -> R:
        """The task's result, once the worker's future has settled this one."""
        if not self.done():
            with contextlib.suppress(Exception):  # its outcome reaches this one by callback
                self._inner.result(timeout)
        return super().result(timeout)


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
        """Run ``function(argument)`` on worker number ``worker``. If the worker dies (the OOM
        killer, a signal), the result is a :class:`WorkerDied` naming the task's files."""
        executor = self.executors[worker % self.count]
        try:
            with held_signals():
                inner = executor.submit(function, argument)
        except BrokenProcessPool as error:  # it died between two tasks
            raise worker_died(how_ended(executor), f"before {_doing(argument)}") from error
        except OSError as error:  # the first task forks it: no descriptor or process was left
            msg = f"cannot start the worker processes: {error.strerror or error}"
            hint = "raise this shell's limits (ulimit -n, ulimit -u), or run with -j 1"
            raise ResourceExhausted(msg, hint=hint) from error
        outer: Future[R] = _Settled(inner)

        def settle(done: Future[R]) -> None:
            if done.cancelled():
                outer.cancel()
                outer.set_running_or_notify_cancel()
                return
            error = done.exception()
            if isinstance(error, BrokenProcessPool):
                died = worker_died(how_ended(executor), f"while {_doing(argument)}")
                died.__cause__ = error
                outer.set_exception(died)
            elif error is not None:
                outer.set_exception(error)
            else:
                outer.set_result(done.result())

        inner.add_done_callback(settle)
        return outer

    def shutdown(self, *, wait: bool = True) -> None:
        """Stop every worker, dropping what was not started. A running task is let finish (one
        batch or piece: bounded), also when the run stops on an error, Ctrl-C or SIGTERM: the
        pools never kill a worker to stop it (:mod:`generator.validate.forked`). Every worker
        is told first and then, with ``wait``, waited for, so that they end together, not one
        after another (each takes a few milliseconds to give its memory back)."""
        for executor in self.executors:
            executor.shutdown(wait=False, cancel_futures=True)
        for executor in self.executors if wait else ():
            executor.shutdown(wait=True, cancel_futures=True)


def run_batches(
    view: PassTwo,
    digests: dict[int, str],
    batches: Sequence[Batch],
    workers: Workers,
    owners: Owners,
) -> Iterator[BatchResult]:
    """Pass 2 on the workers, each batch on the worker that parsed its first document (else in
    turn), results in batch order."""
    futures = []
    for position, batch in enumerate(batches):
        docs = array("i", sorted({*batch.home, *batch.guests}))
        flat = view.places.flat(docs)
        sources = set(flat[0::6])  # each document's first number: its chunk's source
        known = {s: digests[s] for s in sources if s in digests}
        bare = Batch(batch.home, batch.guests)  # the parts are the caller's business
        owner = owners.of(view.places.of(batch.home[0])[0]) if batch.home else None
        worker = position if owner is None else owner
        task = BatchTask(bare, docs, flat, known, view.options)
        futures.append(workers.submit(worker, _run_batch, task))
    for future in futures:
        yield future.result()
