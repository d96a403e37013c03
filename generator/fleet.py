"""Fleets: many clusters from one file, rendered in parallel, validated together, written only
when every cluster is valid.

A fleet file (``schemas/fleet.schema.json``)::

    defaults: {flavor, namespace, kubernetesVersion, workerMachineCount, values, overrides}
    clusters:
      - {name, flavor?, namespace?, kubernetesVersion?, workerMachineCount?, values?, overrides?}

A cluster's settings replace the defaults; ``values`` are deep-merged over the defaults' values
(mappings merge, lists and scalars replace, ``null`` removes a default); ``overrides`` are patch
documents (see :mod:`generator.patches`), the defaults' first, then the cluster's, then ``--patch``
files. Each cluster goes through the same pipeline as ``generate cluster`` and is written to
``DIR/<name>/`` in the GitOps layout of :mod:`generator.gitops`.

Cross-cluster rules: FLEET-001 no two clusters share a name; FLEET-002 no two share a resource
group (ResourceGroup ``spec.azureName``, else ``metadata.name``; case-insensitive, as Azure);
FLEET-003 no two share a ManagedCluster ``spec.dnsPrefix`` (case-insensitive).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs

from generator.errors import CapzgenError, ExitCode, FleetError, FleetInvalid, Location
from generator.findings import Finding, JsonPath, Severity, Subject, format_path, sort_findings
from generator.gitops import (
    FluxOptions,
    WritePlan,
    WriteSummary,
    apply_plan,
    plan_directory,
    raise_conflicts,
    render_files,
)
from generator.patches import PatchDocument, patch_from_data, schema_problems
from generator.pipeline import ClusterRequest, PipelineContext, check_output, render_cluster
from generator.resources import builtin_schemas_dir
from generator.substitution import Inputs
from generator.yamlio.load import load_documents, read_source

log = logging.getLogger(__name__)

FLEET_RULES: dict[str, str] = {
    "FLEET-001": "no two clusters of a fleet share a name",
    "FLEET-002": "no two clusters of a fleet share an Azure resource group",
    "FLEET-003": "no two clusters of a fleet share a ManagedCluster DNS prefix",
}
DISABLEABLE_FLEET_RULES = ("FLEET-002", "FLEET-003")  # clusters may sit in different subscriptions
SERIAL_BELOW = 16  # fewer clusters than this render in-process (worker start-up costs more)


# --- the fleet file ------------------------------------------------------------------------------


@dataclass(frozen=True)
class FleetCluster:
    name: str
    index: int  # position in ``clusters``
    flavor: str = "aks"
    namespace: str | None = None
    kubernetes_version: str | None = None
    worker_machine_count: int | None = None
    values: Mapping[str, Any] = field(default_factory=dict)
    overrides: tuple[PatchDocument, ...] = ()


@dataclass(frozen=True)
class Fleet:
    source: str
    clusters: tuple[FleetCluster, ...]

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.clusters]


@cache
def _validator() -> Any:
    schema = json.loads((builtin_schemas_dir() / "fleet.schema.json").read_text(encoding="utf-8"))
    return jsonschema_rs.validator_for(schema)


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """``override`` over ``base``: mappings merge recursively, anything else replaces, ``None``
    removes the key. Neither argument is modified."""
    merged = dict(base)
    for key, value in override.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def load_fleet(path: str) -> Fleet:
    return parse_fleet(read_source(path), source="<stdin>" if path == "-" else path)


def parse_fleet(text: str, *, source: str) -> Fleet:
    """Check a fleet file against its schema (and its overrides against the patch schema),
    reporting every problem at once, then resolve each cluster's settings over the defaults."""
    documents = [d for d in load_documents(text, source=source) if d.obj is not None]
    if len(documents) != 1:
        raise FleetError(
            f"a fleet file holds one YAML document, not {len(documents)}",
            location=Location(file=source),
        )
    raw, index = documents[0].obj, documents[0].index
    problems = [
        f"{format_path(list(e.instance_path)) or '(top level)'}: {e.message}"
        for e in _validator().iter_errors(raw)
    ]
    if not problems:
        problems = _override_problems(raw)
    if problems:
        raise FleetError(
            "invalid fleet file",
            location=Location(file=source),
            details=problems,
            hint="see the Fleets section of the README (schema: schemas/fleet.schema.json)",
        )
    defaults = raw.get("defaults", {})
    shared = _overrides(defaults, source, index, "defaults")
    clusters = []
    for position, entry in enumerate(raw["clusters"]):
        settings = {**defaults, **entry}
        clusters.append(
            FleetCluster(
                name=entry["name"],
                index=position,
                flavor=settings.get("flavor", "aks"),
                namespace=settings.get("namespace"),
                kubernetes_version=settings.get("kubernetesVersion"),
                worker_machine_count=settings.get("workerMachineCount"),
                values=deep_merge(defaults.get("values", {}), entry.get("values", {})),
                overrides=(
                    *shared,
                    *_overrides(entry, source, index, f"clusters[{position}]"),
                ),
            )
        )
    return Fleet(source=source, clusters=tuple(clusters))


def _override_problems(raw: Mapping[str, Any]) -> list[str]:
    problems = []
    names = {c["name"] for c in raw["clusters"]}
    places: list[tuple[Sequence[str | int], Mapping[str, Any]]] = [
        (("defaults",), raw.get("defaults", {}))
    ]
    places += [(("clusters", i), c) for i, c in enumerate(raw["clusters"])]
    for prefix, settings in places:
        for position, item in enumerate(settings.get("overrides", [])):
            where = (*prefix, "overrides", position)
            problems.extend(schema_problems(item, where))
            unknown = sorted(set(item.get("clusters", [])) - names)
            if unknown:
                problems.append(
                    f"{format_path([*where, 'clusters'])}: no cluster named {', '.join(unknown)}"
                )
    return problems


def _overrides(
    settings: Mapping[str, Any], source: str, index: int, prefix: str
) -> tuple[PatchDocument, ...]:
    return tuple(
        patch_from_data(item, source=source, index=index, where=f"{prefix}.overrides[{position}]")
        for position, item in enumerate(settings.get("overrides", []))
    )


def check_patch_selectors(fleet: Fleet, patches: Sequence[PatchDocument]) -> None:
    """A ``clusters:`` selector in a ``--patch`` file must name clusters of the fleet."""
    names = set(fleet.names)
    problems = [
        f"{p.source}: document {(p.index or 0) + 1}: no cluster named {', '.join(sorted(unknown))}"
        for p in patches
        if p.clusters is not None and (unknown := p.clusters - names)
    ]
    if problems:
        raise FleetError(
            "patch selects clusters that are not in the fleet",
            location=Location(file=fleet.source),
            details=problems,
        )


# --- rendering -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FleetOptions:
    schema_dirs: Sequence[Path] = ()
    flavors_dirs: Sequence[Path] = ()
    validate: bool = True
    disabled_rules: frozenset[str] = frozenset()
    cel: bool = True
    patches: tuple[PatchDocument, ...] = ()  # --patch files, after each cluster's overrides
    environ: Mapping[str, str] = field(default_factory=dict)
    config: Mapping[str, Any] = field(default_factory=dict)  # clusterctl config file
    flux: FluxOptions | None = None  # name is ignored; path is the base (one folder per cluster)
    jobs: int | None = None  # worker processes; None: os.cpu_count()


@dataclass(frozen=True)
class Fact:
    """A resource group or DNS prefix a cluster uses, and where it was found."""

    rule: str
    value: str
    subject: Subject
    path: JsonPath


@dataclass
class ClusterOutcome:
    name: str
    index: int
    files: dict[str, str] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    objects: int = 0
    facts: list[Fact] = field(default_factory=list)


@dataclass
class FleetResult:
    fleet: Fleet
    outcomes: list[ClusterOutcome]
    findings: list[Finding]  # every cluster's, then the cross-cluster ones
    errors: list[str]  # render errors, clusters with the same error grouped

    @property
    def has_errors(self) -> bool:
        return bool(self.errors) or any(f.is_error for f in self.findings)

    @property
    def objects(self) -> int:
        return sum(o.objects for o in self.outcomes)

    def summary(self) -> str:
        errors = sum(1 for f in self.findings if f.is_error)
        warnings = len(self.findings) - errors
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
            validate=options.validate,
            disabled_rules=options.disabled_rules,
            cel=options.cel,
            patches=(*cluster.overrides, *options.patches),
        )
        inputs = Inputs(environ=options.environ, config=options.config, values_file=cluster.values)
        flux = None
        if options.flux is not None:
            base = options.flux.path.rstrip("/")
            flux = replace(options.flux, name=cluster.name, path=f"{base}/{cluster.name}")
        jobs.append(_Job(request, inputs, cluster.index, flux))
    return jobs


_WORKER_CONTEXT: PipelineContext | None = None


def _run_in_worker(job: _Job) -> ClusterOutcome:
    """Process-pool entry point: one pipeline context (compiled templates and schemas) per worker."""
    global _WORKER_CONTEXT
    if _WORKER_CONTEXT is None:
        _WORKER_CONTEXT = PipelineContext()
    return render_one(job, _WORKER_CONTEXT)


def render_one(job: _Job, context: PipelineContext) -> ClusterOutcome:
    """Render, validate and lay out one cluster; domain errors become the outcome's error."""
    request = job.request
    outcome = ClusterOutcome(name=request.name, index=job.index)
    try:
        rendered = render_cluster(request, job.inputs, context=context)
        if request.validate:
            source = cluster_source(request.name)
            outcome.findings = check_output(
                rendered.text, request, context=context, source=source
            ).findings
        outcome.files = render_files(rendered.objects, flux=job.flux)
    except CapzgenError as error:
        if error.exit_code is ExitCode.USAGE:
            raise  # a setup problem (unreadable schema folder...), not this cluster's
        lines = [str(error), *(f"  {d}" for d in error.details)]
        if error.hint:
            lines.append(f"  hint: {error.hint}")
        outcome.error = "\n".join(lines)
        return outcome
    outcome.objects = len(rendered.objects)
    outcome.facts = list(_facts(rendered.objects, cluster_source(request.name)))
    return outcome


def _facts(objects: Sequence[Any], source: str) -> Iterator[Fact]:
    for index, obj in enumerate(objects):
        if not isinstance(obj, dict):
            continue
        top = Subject(file=source, document=index, kind=_text(obj.get("kind")), name=_name_of(obj))
        yield from _facts_of(obj, top, ())
        spec = obj.get("spec")
        resources = spec.get("resources") if isinstance(spec, dict) else None
        for position, resource in enumerate(resources if isinstance(resources, list) else []):
            path: JsonPath = ("spec", "resources", position)
            if isinstance(resource, dict):
                yield from _facts_of(resource, top.embedded(path, resource), path)


def _facts_of(obj: Mapping[str, Any], subject: Subject, base: JsonPath) -> Iterator[Fact]:
    spec = obj.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    kind = obj.get("kind")
    if kind == "ResourceGroup":
        azure_name = _text(spec.get("azureName"))
        if azure_name:
            yield Fact("FLEET-002", azure_name, subject, (*base, "spec", "azureName"))
        elif _name_of(obj):
            yield Fact("FLEET-002", str(_name_of(obj)), subject, (*base, "metadata", "name"))
    elif kind == "ManagedCluster":
        prefix = _text(spec.get("dnsPrefix"))
        if prefix:
            yield Fact("FLEET-003", prefix, subject, (*base, "spec", "dnsPrefix"))


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _name_of(obj: Mapping[str, Any]) -> str | None:
    metadata = obj.get("metadata")
    return _text(metadata.get("name")) if isinstance(metadata, dict) else None


def _outcomes(
    jobs: Sequence[_Job], workers: int, progress: Callable[[int], None] | None
) -> Iterator[ClusterOutcome]:
    """Outcomes in fleet order: in-process for small fleets (or one worker, or when the platform
    cannot start worker processes), else from a pool of worker processes fed in chunks."""
    pool = None
    if workers > 1 and len(jobs) >= SERIAL_BELOW:
        try:
            pool = ProcessPoolExecutor(max_workers=workers)
        except (OSError, NotImplementedError) as exc:  # e.g. no working semaphores
            log.warning("cannot start worker processes (%s); rendering in-process", exc)
    if pool is None:
        context = PipelineContext()
        results: Iterator[ClusterOutcome] = (render_one(job, context) for job in jobs)
    else:
        chunksize = max(1, min(32, len(jobs) // (workers * 8)))
        results = pool.map(_run_in_worker, jobs, chunksize=chunksize)
    try:
        for outcome in results:
            yield outcome
            if progress is not None:
                progress(1)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


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
    PipelineContext().catalog(options.flavors_dirs)  # a missing flavors folder fails once, here
    jobs = _jobs(fleet, options)
    workers = max(1, options.jobs if options.jobs is not None else (os.cpu_count() or 1))
    outcomes = list(_outcomes(jobs, min(workers, len(jobs)), progress))
    findings = [f for o in outcomes for f in o.findings]
    findings.extend(cross_cluster_findings(fleet, outcomes, options.disabled_rules))
    errors = group_errors(outcomes)
    return FleetResult(
        fleet=fleet, outcomes=outcomes, findings=sort_findings(findings), errors=errors
    )


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


def cross_cluster_findings(
    fleet: Fleet, outcomes: Sequence[ClusterOutcome], disabled: frozenset[str] = frozenset()
) -> list[Finding]:
    """FLEET-001..003: each later cluster that reuses a name, resource group or DNS prefix gets
    an error finding naming the first cluster that used it."""
    findings = []
    first_index: dict[str, int] = {}
    for cluster in fleet.clusters:
        if cluster.name in first_index:
            findings.append(
                Finding(
                    severity=Severity.ERROR,
                    rule="FLEET-001",
                    message=(
                        f"clusters[{first_index[cluster.name]}] and clusters[{cluster.index}] "
                        f"are both named {cluster.name!r}"
                    ),
                    subject=Subject(file=fleet.source, document=0, kind="Fleet", name=cluster.name),
                    path=("clusters", cluster.index, "name"),
                )
            )
        else:
            first_index[cluster.name] = cluster.index
    seen_names: set[str] = set()
    owners: dict[tuple[str, str], str] = {}
    what = {"FLEET-002": "resource group", "FLEET-003": "DNS prefix"}
    for outcome in outcomes:
        if outcome.name in seen_names:  # a duplicate name shares everything; FLEET-001 says so
            continue
        seen_names.add(outcome.name)
        used: set[tuple[str, str]] = set()
        for fact in outcome.facts:
            if fact.rule in disabled:
                continue
            key = (fact.rule, fact.value.casefold())
            owner = owners.get(key)
            if owner is not None and owner != outcome.name and key not in used:
                findings.append(
                    Finding(
                        severity=Severity.ERROR,
                        rule=fact.rule,
                        message=(
                            f"clusters {owner!r} and {outcome.name!r} both use "
                            f"{what[fact.rule]} {fact.value!r}"
                        ),
                        subject=fact.subject,
                        path=fact.path,
                    )
                )
            used.add(key)
            owners.setdefault(key, outcome.name)
    return findings


def raise_for_problems(result: FleetResult) -> None:
    if result.has_errors:
        raise FleetInvalid(
            result.findings,
            summary=f"fleet is invalid ({result.summary()}); nothing was written",
            errors=result.errors,
        )


# --- writing -------------------------------------------------------------------------------------


def plan_fleet(result: FleetResult, directory: Path, *, force: bool) -> list[WritePlan]:
    return [
        plan_directory(directory / outcome.name, outcome.files, force=force)
        for outcome in result.outcomes
    ]


def write_fleet(result: FleetResult, directory: Path, *, force: bool) -> WriteSummary:
    """Write every cluster's folder; refuses (nothing written) if the fleet is invalid or any
    folder has a conflict. Folders of clusters no longer in the fleet are left alone."""
    raise_for_problems(result)
    plans = plan_fleet(result, directory, force=force)
    raise_conflicts(plans)
    total = WriteSummary()
    for plan in plans:
        total = total + apply_plan(plan)
    return total
