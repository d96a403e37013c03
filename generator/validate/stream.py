"""``capzgen validate``'s entry point: the two passes of :mod:`generator.validate.passes`, in this
process or on worker processes (:mod:`generator.validate.workers`), with the same findings.

Small inputs stay in one process (starting workers costs more than they save), and keep their
parsed documents between the passes; larger ones with ``jobs`` above one use one pool for both
passes, forked before anything is parsed. How small is small, and every other size, is the
run's :class:`generator.validate.tuning.Tuning`.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from generator.checks import ValidationOptions
from generator.findings import Finding, sort_findings
from generator.schemastore.types import SchemaLookup
from generator.validate import lifeline, parallel, workers
from generator.validate.batches import Batch
from generator.validate.check import CheckReport
from generator.validate.inputs import Inputs, collect_inputs
from generator.validate.outcome import BatchResult
from generator.validate.owners import Owners, by_owner
from generator.validate.passes import (
    PassTwo,
    RunInputs,
    SourceIndex,
    TextCache,
    index_sources,
    validate_batch,
)
from generator.validate.results import NoResults, Plan
from generator.validate.tuning import DEFAULT_TUNING, Tuning

if TYPE_CHECKING:
    from generator.validate.zygote import Zygote

log = logging.getLogger(__name__)

PoolFactory = Callable[[int], "workers.Workers | None"]  # jobs -> the pool, None: serially


def default_jobs() -> int:
    """Worker processes when ``-j`` is not given: the machine's cores, as kubeconform does."""
    return os.cpu_count() or 1


def _input_size(paths: Sequence[str], held: Mapping[str, str]) -> int:
    """Bytes of all inputs, as far as the file system tells (unreadable files count nothing:
    pass 1 reports them)."""
    total = sum(len(text) for text in held.values())
    for path in paths:
        if path not in held:
            with contextlib.suppress(OSError):  # pass 1 reports unreadable files
                total += os.stat(path).st_size
    return total


def fork_pool(jobs: int, zygote: Zygote | None = None) -> workers.Workers | None:
    """``jobs`` forked workers, each a pool of its own (a batch goes to the worker that parsed
    it), or None where processes cannot be forked (the serial path). Given the console script's
    ``zygote`` (:mod:`generator.validate.zygote`), it forks them, with the engine loaded."""
    # lazy: only runs that fork workers load the pool
    from generator.validate.forked import ForkedPool

    carry = workers.carried() if zygote is not None else None
    try:
        pools = [
            ForkedPool(
                1,
                initializer=lifeline.guard_parent,  # workers never outlive this process
                initargs=(os.getpid(),),
                zygote=zygote,
                carry=carry,
            )
            for _ in range(jobs)
        ]
    except NotImplementedError as exc:  # pragma: no cover - not POSIX
        log.warning("cannot start worker processes (%s); validating in-process", exc)
        return None
    return workers.Workers(pools)


def _serial(
    run: RunInputs, index: SourceIndex, report: CheckReport, results: NoResults
) -> Iterator[BatchResult]:
    index_sources(run, index, report, results)
    view = PassTwo(index.options(run.options), index.places, index.kept)
    plan = _batches(run, index, view, results, 1)
    texts = TextCache(run, index.digests)
    found = (validate_batch(run, view, batch, texts) for batch in plan.batches)
    yield from _learning(found, plan)


def _parallel(
    run: RunInputs,
    index: SourceIndex,
    report: CheckReport,
    results: NoResults,
    pool: workers.Workers,
) -> Iterator[BatchResult]:
    owners = parallel.index_sources(run, index, report, results, pool)
    view = PassTwo(index.options(run.options), index.places, {})
    plan = _batches(run, index, view, results, pool.count, owners)
    yield from _learning(workers.run_batches(view, index.digests, plan.batches, pool, owners), plan)


def _learning(results: Iterator[BatchResult], plan: Plan) -> Iterator[BatchResult]:
    """The batches' results, in order, each noted by the result cache (if any) on its way."""
    for position, result in enumerate(results):
        plan.learn(position, result)
        yield result


def _batches(
    run: RunInputs,
    index: SourceIndex,
    view: PassTwo,
    results: NoResults,
    jobs: int,
    owners: Owners | None = None,
) -> Plan:
    """The batches, once every document is indexed (a batch is judged by the whole input),
    without the parts the result cache knows clean."""
    partitioner = index.partition
    tuning = run.tuning
    size = tuning.batch_size or max(
        50, min(tuning.batch_documents, partitioner.count // (jobs * 4))
    )
    batches: list[Batch] = partitioner.batches(size)
    if owners is not None:
        batches = by_owner(index.places, batches, owners)
    plan = results.plan(batches, view.options, index.digest_of)
    log.info(
        "validating %d documents in %d batches on %d processes",
        partitioner.count,
        len(plan.batches),
        jobs,
    )
    return plan


@dataclass(frozen=True, slots=True)
class RunSettings:
    """How one run uses the machine: worker processes, the result cache's folder and the secret
    its entries are made with (:mod:`generator.validate.cache.secret`; either None: no cache),
    the sizes of its work, and how its workers start (tests start them on a thread)."""

    jobs: int = 1
    results_dir: Path | None = None
    cache_secret: bytes | None = None
    tuning: Tuning = DEFAULT_TUNING
    pool: PoolFactory = fork_pool
    # False: the process ends right after the run, so its workers are told to stop and left
    # to end on their own (they have nothing left to do; the kernel ends them with it anyway):
    # waiting for them to exit took 3-5 ms at the end of every run
    wait_for_workers: bool = True
    # told the documents checked so far as each batch finishes (the CLI's progress line)
    progress: Callable[[int], None] | None = None


SERIAL = RunSettings()  # one process, no cache, the default sizes


def stream_paths(
    paths: Sequence[str],
    store: SchemaLookup | None,
    options: ValidationOptions,
    settings: RunSettings = SERIAL,
) -> CheckReport:
    """:func:`stream_inputs` on the files ``paths`` stand for (see
    :func:`generator.validate.inputs.collect_inputs`)."""
    return stream_inputs(collect_inputs(paths), store, options, settings)


def stream_inputs(
    inputs: Inputs,
    store: SchemaLookup | None,
    options: ValidationOptions,
    settings: RunSettings = SERIAL,
) -> CheckReport:
    """What :func:`generator.validate.check.check_paths` does, on inputs collected already, in
    batches (see the module doc), in bounded memory on ``settings.jobs`` processes; parts
    validated clean before (in ``settings.results_dir``) are not validated again."""
    report = _stream(inputs, store, options, settings)
    report.findings = sort_findings([*inputs.unreadable, *report.findings])
    return report


def _stream(
    inputs: Inputs, store: SchemaLookup | None, options: ValidationOptions, settings: RunSettings
) -> CheckReport:
    """The two passes, with the result cache around them (a clean rerun stops at its key)."""
    tuning = settings.tuning
    report = CheckReport()
    results = NoResults()
    if settings.results_dir is not None and settings.cache_secret is not None:
        # lazy: only a run with a result cache loads the store (generator.validate.cache.records)
        from generator.validate.cached import open_results

        results = open_results(
            settings.results_dir,
            settings.cache_secret,
            store,
            options,
            inputs,
            index_below=tuning.index_files_below,
            query_batches=tuning.query_batches,
            limits=tuning.cache,
        )
    known = results.clean_run()
    if known is not None:  # validated before without a finding: nothing can have changed
        report.counted_documents = known
        results.close(save=True)
        return report
    size = _input_size(inputs.paths, inputs.held)
    run = RunInputs(
        inputs.paths,
        inputs.names,
        store,
        options,
        tuning,
        held=inputs.held,
        keep_parsed=size < tuning.keep_parsed_below,
        index_keys_below=results.index_files_below,
    )
    index = SourceIndex()
    jobs = settings.jobs
    forking = jobs > 1 and size >= tuning.parallel_from
    if forking:
        workers.start(run)  # before the pool: what its workers start from, forked here or not
    started = settings.pool(jobs) if forking else None
    if started is None:
        found = _serial(run, index, report, results)
    else:
        found = _parallel(run, index, report, results, started)
    try:
        findings = _gathered(found, report, results, index, settings.progress)
    finally:
        if started is not None:
            started.shutdown(wait=settings.wait_for_workers)
        if forking:
            workers.stop()
    report.findings = sort_findings([*report.findings, *findings])
    return report


def _gathered(
    found: Iterator[BatchResult],
    report: CheckReport,
    results: NoResults,
    index: SourceIndex,
    progress: Callable[[int], None] | None = None,
) -> list[Finding]:
    """The findings of every batch (a guest's finding once, unless its home batch has it too);
    the result cache is told the run is over, and whether the input is clean (keyed by the
    hashes of the texts pass 1 parsed: what was validated, not what was read before)."""
    home: list[Finding] = []
    guests: set[Finding] = set()
    finished = False
    try:
        for result in found:
            home.extend(result.home)
            guests.update(result.guests)
            if progress is not None:
                progress(report.counted_documents)
        finished = True
    finally:
        if finished and not (report.findings or home or guests):
            results.remember_run(report.counted_documents, index.digests)
        results.close(save=finished)
    return [*home, *(guests - set(home))]
