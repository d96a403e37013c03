"""``capzgen validate``'s entry point: the two passes of :mod:`generator.check_stream`, in this
process or on worker processes (:mod:`generator.check_workers`), with the same findings.

Small inputs stay in one process (starting workers costs more than they save), and keep their
parsed documents between the passes; larger ones with ``jobs`` above one use one pool for both
passes, forked before anything is parsed.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from generator import check_workers
from generator.check import (
    CheckReport,
    collect_inputs,
    read_error_finding,
)
from generator.check_stream import (
    BatchResult,
    StreamState,
    TextCache,
    index_sources,
    validate_batch,
)
from generator.errors import InputOutputError, YamlError
from generator.findings import Finding, sort_findings
from generator.schemastore.types import SchemaLookup
from generator.validate import ValidationOptions
from generator.validate.partition import Batch, Partitioner
from generator.yamlio.source import STDIN, read_source

log = logging.getLogger(__name__)

# Inputs up to this size (in bytes, all files together) keep their parsed documents from pass 1,
# so they are parsed once; larger ones are parsed again in pass 2 and use little memory.
CACHE_INPUT_BELOW = 8 << 20
PARALLEL_FROM = 256 << 10  # bytes of input from which worker processes pay for themselves
BATCH_DOCUMENTS = 700  # about a hundred clusters of seven documents


def default_jobs() -> int:
    """Worker processes when ``-j`` is not given: the machine's cores, as kubeconform does."""
    return os.cpu_count() or 1


def _input_size(paths: Sequence[str], stdin_text: str | None) -> int:
    """Bytes of all inputs, as far as the file system tells (unreadable files count nothing:
    pass 1 reports them)."""
    total = len(stdin_text or "")
    for path in paths:
        if path != STDIN:
            with contextlib.suppress(OSError):  # pass 1 reports unreadable files
                total += os.stat(path).st_size
    return total


def _pool(jobs: int) -> ProcessPoolExecutor | None:
    """A pool of forked workers, or None where processes cannot be forked (the serial path)."""
    if "fork" not in multiprocessing.get_all_start_methods():  # pragma: no cover - not Linux
        return None
    try:
        return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"))
    except (OSError, NotImplementedError) as exc:  # pragma: no cover - e.g. no semaphores
        log.warning("cannot start worker processes (%s); validating in-process", exc)
        return None


def _serial(
    state: StreamState, partitioner: Partitioner, report: CheckReport, size: int | None
) -> Iterator[BatchResult]:
    index_sources(state, report, partitioner)
    batches = _batches(state, partitioner, size, 1)
    texts = TextCache(state)
    for batch in batches:
        yield validate_batch(state, batch, texts)


def _parallel(
    state: StreamState,
    partitioner: Partitioner,
    report: CheckReport,
    pool: ProcessPoolExecutor,
    size: int | None,
    jobs: int,
) -> Iterator[BatchResult]:
    check_workers.index_sources(state, report, partitioner, pool)
    batches = _batches(state, partitioner, size, jobs)
    yield from check_workers.run_batches(state, batches, pool)


def _batches(
    state: StreamState, partitioner: Partitioner, size: int | None, jobs: int
) -> list[Batch]:
    """The batches, once every document is indexed (a batch is judged by the whole input)."""
    state.options = replace(state.options, present_kinds=frozenset(partitioner.kinds))
    size = size or max(50, min(BATCH_DOCUMENTS, partitioner.count // (jobs * 4)))
    batches = partitioner.batches(size)
    log.info(
        "validating %d documents in %d batches on %d processes",
        partitioner.count,
        len(batches),
        jobs,
    )
    return batches


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
    size = _input_size(paths, stdin_text)
    report = CheckReport()
    partitioner = Partitioner()
    pool = _pool(jobs) if jobs > 1 and size >= PARALLEL_FROM else None
    home: list[Finding] = []
    guests: set[Finding] = set()
    if pool is None:
        state.keep_parsed = size < CACHE_INPUT_BELOW
        results = _serial(state, partitioner, report, batch_documents)
    else:
        check_workers.start(state)  # before the first task forks the workers
        results = _parallel(state, partitioner, report, pool, batch_documents, jobs)
    try:
        for result in results:
            home.extend(result.home)
            guests.update(result.guests)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
            check_workers.stop()
    extra = guests - set(home)
    report.findings = sort_findings([*report.findings, *home, *extra])
    return report


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
            unreadable.append(read_error_finding(error, "<stdin>"))
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
