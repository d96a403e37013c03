"""Rendering a fleet: every cluster through the ``generate cluster`` pipeline (in worker
processes for large fleets), then the cross-cluster rules; writing only when all of it is valid."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path

from generator.checks.context import CheckOptions
from generator.clusterctl.substitution import Inputs, ValuesOrigin
from generator.errors import CapzgenError, ExitCode, FleetInvalid, InputOutputError, Location
from generator.findings import Finding, Severity, fails, sort_findings
from generator.fleet.digest import (
    RECORD_NAME,
    Record,
    cluster_digest,
    record_text,
    run_fingerprint,
    unchanged,
)
from generator.fleet.file import Fleet, check_patch_selectors
from generator.fleet.rules import Fact, cross_cluster_findings, facts
from generator.generate.patches import PatchDocument
from generator.generate.pipeline import PipelineContext, check_output, render_cluster
from generator.generate.provenance import attribute_findings
from generator.generate.request import ClusterRequest, every_check
from generator.jsontypes import Json
from generator.output.gitops import (
    FluxOptions,
    WritePlan,
    WriteSummary,
    apply_plans,
    plan_directory,
    render_files,
)
from generator.output.staging import open_transaction, recover
from generator.settings import Settings

log = logging.getLogger(__name__)

SERIAL_BELOW = 16  # fewer clusters than this render in-process (worker start-up costs more)


@dataclass(frozen=True)
class FleetOptions:
    """What applies to every cluster of a fleet: command-line flags, environment and config file."""

    schema_dirs: Sequence[Path] = ()
    flavors_dirs: Sequence[Path] = ()
    checks: CheckOptions = field(default_factory=every_check)  # as for every cluster's request
    patches: tuple[PatchDocument, ...] = ()  # --patch files, after each cluster's overrides
    settings: Settings = field(default_factory=Settings)  # environment and cache root
    config: Mapping[str, Json] = field(default_factory=dict)  # clusterctl config file
    flux: FluxOptions | None = None  # name is ignored; path is the base (one folder per cluster)
    jobs: int | None = None  # worker processes; None: os.cpu_count()
    # Where the fleet will be written: clusters whose inputs are the same as when capzgen wrote
    # them there are not rendered again (``fleet.digest``). None: render everything.
    output_dir: Path | None = None
    allow_unknown_vars: bool = False  # values names no flavor uses are not an error


@dataclass
class ClusterOutcome:
    """What rendering one cluster produced: files and findings, or the error that stopped it.

    ``error`` is the domain error as display text (message, details and hint); ``facts`` feed the
    cross-cluster rules.
    """

    name: str
    index: int
    files: dict[str, str] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    objects: int = 0
    facts: list[Fact] = field(default_factory=list)
    inputs: str | None = None  # digest of the cluster's inputs (recorded with its files)
    skipped: bool = False  # inputs unchanged since written: not rendered, files left as they are
    kept_files: int = 0  # files of a skipped cluster's folder (counted as unchanged)


@dataclass
class FleetResult:
    """Every cluster's outcome in fleet order, all findings sorted, the grouped render errors."""

    fleet: Fleet
    outcomes: list[ClusterOutcome]
    findings: list[Finding]  # every cluster's, then the cross-cluster ones
    errors: list[str]  # render errors, clusters with the same error grouped
    fail_on: Severity = Severity.ERROR  # --fail-on

    @property
    def has_errors(self) -> bool:
        """Whether a cluster failed to render or a finding fails the run (an error, or a
        warning with ``--fail-on warning``): then nothing is written."""
        return bool(self.errors) or fails(self.findings, self.fail_on)

    @property
    def objects(self) -> int:
        """The number of objects rendered over all clusters."""
        return sum(o.objects for o in self.outcomes)

    def summary(self) -> str:
        """Counts of clusters, objects, errors and warnings, naming up to ten problem clusters."""
        errors = sum(1 for f in self.findings if f.is_error)
        warnings = sum(1 for f in self.findings if f.severity is Severity.WARNING)
        bad = sorted(
            {o.name for o in self.outcomes if o.error}
            | {_cluster_of(f) for f in self.findings if f.is_error}
        )
        text = (
            f"{len(self.outcomes)} cluster{'s' if len(self.outcomes) != 1 else ''}, "
            f"{self.objects} objects: {errors} error{'s' if errors != 1 else ''}, "
            f"{warnings} warning{'s' if warnings != 1 else ''}"
        )
        failed = sum(1 for o in self.outcomes if o.error is not None)
        if failed:
            text += f", {failed} failed to render"
        if bad:
            text += f" (clusters with problems: {', '.join(bad[:10])}{', ...' if len(bad) > 10 else ''})"
        return text


def _cluster_of(finding: Finding) -> str:
    file = finding.subject.file
    if file.startswith(_SOURCE_PREFIX) and file.endswith(">"):
        return file[len(_SOURCE_PREFIX) : -1]
    return finding.subject.name or "?"  # FLEET-001 names the cluster


@dataclass(frozen=True)
class _Job:
    request: ClusterRequest
    inputs: Inputs
    index: int
    flux: FluxOptions | None
    digest: str | None = None


def cluster_source(name: str) -> str:
    """How findings of one fleet cluster name their file (lines count in its stdout form)."""
    return f"{_SOURCE_PREFIX}{name}>"


_SOURCE_PREFIX = "<cluster "


def _jobs(fleet: Fleet, options: FleetOptions) -> list[_Job]:
    jobs = []
    for cluster in fleet.clusters:
        request = ClusterRequest(
            name=cluster.name,
            flavor=cluster.flavor,
            kubernetes_version=cluster.kubernetes_version,
            worker_machine_count=cluster.worker_machine_count,
            target_namespace=cluster.namespace,
            schema_dirs=tuple(options.schema_dirs),
            flavors_dirs=tuple(options.flavors_dirs),
            checks=options.checks,
            patches=(*cluster.overrides, *options.patches),
            allow_unknown_vars=options.allow_unknown_vars,
        )
        inputs = Inputs(
            environ=options.settings.environ,
            config=options.config,
            values_file=cluster.values,
            # defaults and the cluster's own values are merged: the file, without a line
            values_origin=ValuesOrigin(f"values of {fleet.source}"),
        )
        flux = None
        if options.flux is not None:
            base = options.flux.path.rstrip("/")
            flux = replace(options.flux, name=cluster.name, path=f"{base}/{cluster.name}")
        jobs.append(_Job(request, inputs, cluster.index, flux))
    return jobs


_WORKER_CONTEXT: PipelineContext | None = None


def _start_worker(settings: Settings, parent: int) -> None:
    """Process-pool initializer: a worker never outlives ``parent`` (the process rendering the
    fleet), and holds one pipeline context (compiled templates and schemas), built with the
    settings the command was given."""
    # lazy: the pool's own helpers, loaded with the pool (serial fleets do without)
    from generator.validate.lifeline import guard_parent

    guard_parent(parent)
    global _WORKER_CONTEXT
    _WORKER_CONTEXT = PipelineContext(settings)


def _run_in_worker(jobs: list[_Job]) -> list[ClusterOutcome]:
    """Worker-pool entry point: a chunk of the fleet's jobs, their outcomes in the same order."""
    assert _WORKER_CONTEXT is not None, "the pool's initializer builds the context"
    return [render_one(job, _WORKER_CONTEXT) for job in jobs]


def render_one(job: _Job, context: PipelineContext) -> ClusterOutcome:
    """Render, validate and lay out one cluster; domain errors become the outcome's error."""
    request = job.request
    outcome = ClusterOutcome(name=request.name, index=job.index)
    try:
        rendered = render_cluster(request, job.inputs, context=context)
        if request.checks.validate:
            source = cluster_source(request.name)
            report = check_output(rendered.text, request, context=context, source=source)
            if report.has_errors:
                rendered.explain_errors()
            outcome.findings = attribute_findings(report.findings, rendered.changes)
        outcome.files = render_files(
            rendered.objects, flux=job.flux, texts=rendered.object_texts or None
        )
    except CapzgenError as error:
        if error.exit_code is ExitCode.USAGE:
            raise  # a setup problem (unreadable schema folder...), not this cluster's
        lines = [str(error), *(f"  {d}" for d in error.details)]
        if error.hint:
            lines.append(f"  hint: {error.hint}")
        outcome.error = "\n".join(lines)
        return outcome
    outcome.objects = len(rendered.objects)
    outcome.facts = list(facts(rendered.objects, cluster_source(request.name)))
    outcome.inputs = job.digest
    return outcome


def _outcomes(
    jobs: Sequence[_Job],
    workers: int,
    progress: Callable[[int], None] | None,
    settings: Settings,
) -> Iterator[ClusterOutcome]:
    """Outcomes in fleet order: in-process for small fleets (or one worker, or when the platform
    cannot fork worker processes), else from a pool of worker processes fed in chunks."""
    pool = None
    if workers > 1 and len(jobs) >= SERIAL_BELOW:
        # lazy: the pool and its helpers are loaded with the pool (serial fleets do without)
        from generator.validate.forked import ForkedPool

        try:
            pool = ForkedPool(workers, initializer=_start_worker, initargs=(settings, os.getpid()))
        except NotImplementedError as exc:  # pragma: no cover - not POSIX
            log.warning("cannot start worker processes (%s); rendering in-process", exc)
    if pool is None:
        context = PipelineContext(settings)
        yield from _progressed((render_one(job, context) for job in jobs), progress)
        return
    # lazy: as above
    from generator.validate.lifeline import held_signals, how_ended, worker_died

    size = max(1, min(32, len(jobs) // (workers * 8)))
    done = 0  # outcomes yielded: the next one is jobs[done]'s
    try:
        with held_signals():  # the workers fork on the first submit
            chunks: list[Future[list[ClusterOutcome]]] = [
                pool.submit(_run_in_worker, list(jobs[at : at + size]))
                for at in range(0, len(jobs), size)
            ]
        for outcome in _progressed(_flattened(chunks), progress):
            yield outcome
            done += 1
    except BrokenProcessPool as error:
        doing = f"while rendering cluster {jobs[min(done, len(jobs) - 1)].request.name}"
        raise worker_died(how_ended(pool), doing) from error
    finally:
        # What was not started is dropped; a running chunk is let finish (a few renders): the
        # pool never kills a worker to stop it.
        pool.shutdown(wait=True, cancel_futures=True)


def _flattened(chunks: Sequence[Future[list[ClusterOutcome]]]) -> Iterator[ClusterOutcome]:
    """The chunks' outcomes, in order, each chunk waited for in its turn."""
    for chunk in chunks:
        yield from chunk.result()


def _progressed(
    results: Iterator[ClusterOutcome], progress: Callable[[int], None] | None
) -> Iterator[ClusterOutcome]:
    for outcome in results:
        yield outcome
        if progress is not None:
            progress(1)


def render_fleet(
    fleet: Fleet,
    options: FleetOptions,
    *,
    progress: Callable[[int], None] | None = None,
) -> FleetResult:
    """Render and validate every cluster (in parallel), then apply the cross-cluster rules.

    Nothing is written and nothing is raised for invalid clusters: the result holds every
    finding and render error (see :func:`raise_for_problems`).
    """
    check_patch_selectors(fleet, options.patches)
    PipelineContext(options.settings).catalog(options.flavors_dirs)  # a missing folder fails here
    options = replace(options, checks=_without_missing_kubeconform(options.checks))
    jobs = _with_digests(_jobs(fleet, options), options)
    if options.output_dir is not None:
        # An interrupted earlier write is completed or rolled back before anything is read from
        # the folder: a half-switched cluster folder must never be taken for an unchanged one.
        recover(
            options.output_dir,
            subfolders=[options.output_dir / job.request.name for job in jobs],
        )
    kept = _unchanged(jobs, options.output_dir)
    todo = [job for job in jobs if job.index not in kept]
    if progress is not None and kept:
        progress(len(kept))
    workers = max(1, options.jobs if options.jobs is not None else (os.cpu_count() or 1))
    rendered = _outcomes(todo, min(workers, max(1, len(todo))), progress, options.settings)
    outcomes = sorted([*kept.values(), *rendered], key=lambda outcome: outcome.index)
    findings = [f for o in outcomes for f in o.findings]
    findings.extend(
        cross_cluster_findings(fleet, outcomes, options.checks.validation.disabled_rules)
    )
    errors = group_errors(outcomes)
    return FleetResult(
        fleet=fleet,
        outcomes=outcomes,
        findings=sort_findings(findings),
        errors=errors,
        fail_on=options.checks.fail_on,
    )


def _without_missing_kubeconform(checks: CheckOptions) -> CheckOptions:
    """``checks`` as given, or without kubeconform when it is not installed: the fleet says so in
    one warning line (not one per cluster) and renders on, as ``generate cluster`` does. Dropped
    before the clusters' digests are taken, so a later run with kubeconform renders them again."""
    if checks.kubeconform is None:
        return checks
    # lazy: the kubeconform wrapper costs ~6 ms of start-up; only --kubeconform loads it
    from generator.kubeconform.process import find_binary, not_found

    if find_binary(checks.kubeconform) is not None:
        return checks
    log.warning("%s", not_found(checks.kubeconform))
    return replace(checks, kubeconform=None)


def group_errors(outcomes: Sequence[ClusterOutcome], *, show: int = 5) -> list[str]:
    """Render errors, one entry per distinct error: ``a, b and 3 more: <error>``."""
    clusters: dict[str, list[str]] = {}
    for outcome in outcomes:
        if outcome.error is not None:
            clusters.setdefault(outcome.error, []).append(outcome.name)
    entries = []
    for error, names in clusters.items():
        shown = ", ".join(names[:show])
        if len(names) > show:
            shown += f" and {len(names) - show} more"
        entries.append(f"{shown}: {error}")
    return entries


def raise_for_problems(result: FleetResult) -> None:
    """Raise :class:`FleetInvalid` with every finding and render error unless the fleet is valid."""
    if result.has_errors:
        raise FleetInvalid(
            result.findings,
            summary=f"fleet is invalid ({result.summary()}); nothing was written",
            errors=result.errors,
        )


# --- unchanged clusters --------------------------------------------------------------------------


def _with_digests(jobs: list[_Job], options: FleetOptions) -> list[_Job]:
    """Each job with the digest of its inputs (only when the output folder is known)."""
    if options.output_dir is None:
        return jobs
    settings = options.settings
    cached = settings.cache_dir("schemas")
    schema_paths = [*options.schema_dirs, *settings.schema_path, *([cached] if cached else [])]
    fingerprint = run_fingerprint(options.flavors_dirs, schema_paths, options.config)
    return [
        replace(
            job,
            digest=cluster_digest(
                fingerprint,
                job.request,
                job.inputs.environ,
                job.inputs.values_file,
                job.flux,
            ),
        )
        for job in jobs
    ]


def _unchanged(jobs: Sequence[_Job], directory: Path | None) -> dict[int, ClusterOutcome]:
    """Outcomes, by fleet index, of the clusters written earlier from the same inputs."""
    kept: dict[int, ClusterOutcome] = {}
    if directory is None:
        return kept
    for job in jobs:
        if job.digest is None:
            continue
        record = unchanged(directory / job.request.name, job.digest)
        if record is not None:
            kept[job.index] = ClusterOutcome(
                name=job.request.name,
                index=job.index,
                findings=record.findings,
                objects=record.objects,
                facts=record.facts,
                inputs=job.digest,
                skipped=True,
                kept_files=record.files,
            )
    return kept


# --- writing -------------------------------------------------------------------------------------


def plan_fleet(result: FleetResult, directory: Path, *, force: bool) -> list[WritePlan]:
    """One write plan per cluster folder (``directory/<name>``) that was rendered (a skipped
    cluster's folder is already what it would be); nothing is written."""
    plans = []
    for outcome in result.outcomes:
        if outcome.skipped:
            continue
        plan = plan_directory(directory / outcome.name, outcome.files, force=force)
        if outcome.inputs is not None:
            record = Record(outcome.inputs, outcome.objects, outcome.facts, outcome.findings)
            plan.bookkeeping[RECORD_NAME] = record_text(record)
        plans.append(plan)
    return plans


def _check_still_unchanged(result: FleetResult, directory: Path) -> None:
    """After rolling back a switch interrupted since the fleet was rendered, the clusters found
    unchanged then must still be; else the run stops (nothing written) rather than report
    success over folders it did not check."""
    changed = [
        outcome.name
        for outcome in result.outcomes
        if outcome.skipped
        and (outcome.inputs is None or unchanged(directory / outcome.name, outcome.inputs) is None)
    ]
    if changed:
        msg = (
            f"{len(changed)} cluster folder{'s' if len(changed) != 1 else ''} changed while "
            f"this run rendered ({', '.join(changed[:5])}{', ...' if len(changed) > 5 else ''}): "
            "an interrupted write was undone meanwhile; nothing was written"
        )
        raise InputOutputError(
            msg, location=Location(file=str(directory)), hint="run the command again"
        )


def write_fleet(result: FleetResult, directory: Path, *, force: bool) -> WriteSummary:
    """Write every cluster's folder, all at once; refuses (nothing written) if the fleet is invalid
    or any folder has a conflict. Folders of clusters no longer in the fleet are left alone."""
    raise_for_problems(result)
    folders = [directory / outcome.name for outcome in result.outcomes if not outcome.skipped]
    with open_transaction(directory, subfolders=folders) as transaction:
        if transaction.undone:
            _check_still_unchanged(result, directory)
        plans = plan_fleet(result, directory, force=force)
        kept = sum(outcome.kept_files for outcome in result.outcomes)
        return apply_plans(plans, transaction) + WriteSummary(unchanged=kept)
