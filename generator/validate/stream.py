"""``capzgen validate``'s entry point: the two passes of :mod:`generator.validate.passes`, in this
process or on worker processes (:mod:`generator.validate.workers`), with the same findings.

Small inputs stay in one process (starting workers costs more than they save), and keep their
parsed documents between the passes; larger ones with ``jobs`` above one use one pool for both
passes, forked before anything is parsed.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from generator.checks import ValidationOptions
from generator.errors import InputOutputError, YamlError
from generator.findings import Finding, sort_findings
from generator.schemastore.types import SchemaLookup
from generator.validate import parallel as parallel_index
from generator.validate import reuse as stream_reuse
from generator.validate import workers as check_workers
from generator.validate.cache.keys import code_fingerprint, store_fingerprint
from generator.validate.cache.store import ResultCache
from generator.validate.check import CheckReport, collect_inputs, read_error_finding
from generator.validate.partition import Batch, Partitioner
from generator.validate.passes import (
    BatchResult,
    StreamState,
    TextCache,
    index_sources,
    validate_batch,
)
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


def _pool(jobs: int) -> check_workers.Workers | None:
    """``jobs`` forked workers, or None where processes cannot be forked (the serial path)."""
    # lazy: multiprocessing and the process pool cost ~8 ms of start-up; serial runs skip them
    import multiprocessing

    # lazy: as above
    from concurrent.futures import ProcessPoolExecutor

    if "fork" not in multiprocessing.get_all_start_methods():  # pragma: no cover - not Linux
        return None
    context = multiprocessing.get_context("fork")
    try:
        executors = [ProcessPoolExecutor(max_workers=1, mp_context=context) for _ in range(jobs)]
    except (OSError, NotImplementedError) as exc:  # pragma: no cover - e.g. no semaphores
        log.warning("cannot start worker processes (%s); validating in-process", exc)
        return None
    return check_workers.Workers(executors)


def _serial(
    state: StreamState, partitioner: Partitioner, report: CheckReport, size: int | None
) -> Iterator[BatchResult]:
    index_sources(state, report, partitioner)
    batches, reuse = _batches(state, partitioner, size, 1)
    texts = TextCache(state)
    yield from _learning((validate_batch(state, batch, texts) for batch in batches), reuse)


def _parallel(
    state: StreamState,
    partitioner: Partitioner,
    report: CheckReport,
    pool: check_workers.Workers,
    size: int | None,
) -> Iterator[BatchResult]:
    owners = parallel_index.index_sources(state, report, partitioner, pool)
    batches, reuse = _batches(state, partitioner, size, pool.count, owners)
    yield from _learning(check_workers.run_batches(state, batches, pool, owners), reuse)


def _learning(
    results: Iterator[BatchResult], reuse: stream_reuse.Reuse | None
) -> Iterator[BatchResult]:
    """The batches' results, in order, each noted by the result cache (if any) on its way."""
    for position, result in enumerate(results):
        if reuse is not None:
            stream_reuse.learn(reuse, position, result)
        yield result


def _batches(
    state: StreamState,
    partitioner: Partitioner,
    size: int | None,
    jobs: int,
    owners: check_workers.Owners | None = None,
) -> tuple[list[Batch], stream_reuse.Reuse | None]:
    """The batches, once every document is indexed (a batch is judged by the whole input),
    without the parts the result cache knows clean."""
    state.options = replace(state.options, present_kinds=frozenset(partitioner.kinds))
    size = size or max(50, min(BATCH_DOCUMENTS, partitioner.count // (jobs * 4)))
    batches = partitioner.batches(size)
    if owners is not None:
        batches = check_workers.by_owner(state, batches, owners)
    reuse = None
    if state.results is not None:
        reuse = stream_reuse.plan(state, state.results, batches)
        batches = reuse.batches
        log.info("%d parts unchanged since a clean run: not validated again", reuse.skipped)
    log.info(
        "validating %d documents in %d batches on %d processes",
        partitioner.count,
        len(batches),
        jobs,
    )
    return batches, reuse


def check_stream(
    paths: Sequence[str],
    names: Sequence[str],
    store: SchemaLookup | None,
    options: ValidationOptions,
    *,
    jobs: int = 1,
    stdin_text: str | None = None,
    batch_documents: int | None = None,
    results_dir: Path | None = None,
) -> CheckReport:
    """Validate the files ``paths`` (``-`` is ``stdin_text``) in batches; see the module doc.
    ``batch_documents`` overrides the batch size (tests make it tiny to split every cluster);
    ``results_dir`` holds the result cache (:mod:`generator.validate.cache.store`), None: no cache."""
    state = StreamState(list(paths), list(names), store, options, stdin_text=stdin_text)
    report = CheckReport()
    whole = _open_results(state, results_dir)
    if whole is not None and state.results is not None:
        known = state.results.clean_run(whole)
        if known is not None:  # validated before without a finding: nothing can have changed
            report.counted_documents = known
            state.results.close(save=True)
            return report
    size = _input_size(paths, stdin_text)
    partitioner = Partitioner()
    pool = _pool(jobs) if jobs > 1 and size >= PARALLEL_FROM else None
    home: list[Finding] = []
    guests: set[Finding] = set()
    state.keep_parsed = size < CACHE_INPUT_BELOW
    if pool is None:
        results = _serial(state, partitioner, report, batch_documents)
    else:
        check_workers.start(state)  # before the first task forks the workers
        results = _parallel(state, partitioner, report, pool, batch_documents)
    finished = False
    try:
        for result in results:
            home.extend(result.home)
            guests.update(result.guests)
        finished = True
    finally:
        if pool is not None:
            pool.shutdown()
            check_workers.stop()
        if state.results is not None:
            if finished and whole is not None and not (report.findings or home or guests):
                state.results.remember_run(whole, report.counted_documents)
            state.results.close(save=finished)
    extra = guests - set(home)
    report.findings = sort_findings([*report.findings, *home, *extra])
    return report


def _open_results(state: StreamState, results_dir: Path | None) -> bytes | None:
    """Open the result cache in ``results_dir`` (if any) for ``state``; the whole input's key."""
    if results_dir is None:
        return None
    stores = store_fingerprint(state.store)
    if stores is None:  # a schema source nothing can describe: no result can be reused
        return None
    state.results = ResultCache.open(results_dir)
    if state.results is None:
        return None
    state.code_key = code_fingerprint()
    state.config_key = state.code_key + stores
    return stream_reuse.run_key(state)


def stream_paths(
    paths: Sequence[str],
    store: SchemaLookup | None,
    options: ValidationOptions,
    *,
    jobs: int = 1,
    batch_documents: int | None = None,
    results_dir: Path | None = None,
    read_stdin: Callable[[], str] | None = None,
) -> CheckReport:
    """What :func:`generator.validate.check.check_paths` does, in bounded memory on ``jobs`` processes;
    parts validated clean before (in ``results_dir``) are not validated again. ``read_stdin``
    reads ``-`` (a caller that has read it already gives it back)."""
    inputs, unreadable = collect_inputs(paths)
    stdin_text = None
    if any(path == STDIN for path, _ in inputs):
        try:
            stdin_text = read_stdin() if read_stdin is not None else read_source(STDIN)
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
        results_dir=results_dir,
    )
    report.findings = sort_findings([*unreadable, *report.findings])
    return report
