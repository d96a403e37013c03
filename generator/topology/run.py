"""One ``topology plan`` run: read the inputs, plan, validate the plan, serialise it.

The inputs are read as ``capzgen validate`` reads them (folders expanded, kustomizations walked,
every file bounded: :mod:`generator.validate.inputs`). The planned objects are validated exactly
as ``generate cluster`` validates its output before writing (:func:`~generator.validate.check.
check_sources` on the serialised text, so findings carry lines of what would be written);
failing findings, or a patch the plan could not apply, raise
:class:`~generator.errors.ValidationFailed` and nothing is written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from generator.checks.context import CheckOptions
from generator.checks.update import validate_changes
from generator.documents import Document
from generator.errors import InputOutputError, TopologyError, ValidationFailed
from generator.findings import Finding, fails, sort_findings, summarize
from generator.jsontypes import JsonObject
from generator.schemastore.store import SchemaStore
from generator.settings import Settings
from generator.topology.blueprint import topology_clusters
from generator.topology.compare import ObjectChange, compare_plans
from generator.topology.plan import Plan, plan_documents
from generator.validate.against import OldSide, old_sources, with_old_lines
from generator.validate.check import SourceText, check_sources, with_lines
from generator.validate.inputs import collect_inputs
from generator.validate.kustomization import DEFAULT_RULES
from generator.yamlio.emit import dump_documents
from generator.yamlio.load import load_documents

PLAN_SOURCE = "<topology plan>"


@dataclass(frozen=True, slots=True)
class PlanRequest:
    """What the CLI asks for: the input paths, the schema folders and how to check."""

    paths: tuple[str, ...]
    schema_dirs: tuple[Path, ...] = ()
    checks: CheckOptions = field(default_factory=CheckOptions)


@dataclass(frozen=True, slots=True)
class PlanResult:
    """The plan as it would be written, its objects, and the findings that did not fail it."""

    text: str
    objects: tuple[JsonObject, ...]
    findings: tuple[Finding, ...]
    plan: Plan


@dataclass(frozen=True, slots=True)
class PlanInputs:
    """The documents of the inputs, in order, and each input's text (by its display name), in
    which findings on the inputs find their lines."""

    documents: tuple[Document, ...]
    texts: Mapping[str, str]


def read_documents(paths: Sequence[str]) -> PlanInputs:
    """Every document of ``paths`` (files, folders, ``-``), in order; an unreadable input is an
    :class:`~generator.errors.InputOutputError` naming it."""
    inputs = collect_inputs(paths)
    if inputs.unreadable:
        first = inputs.unreadable[0]
        msg = f"{first.subject.file}: {first.message}"
        raise InputOutputError(msg)
    documents: list[Document] = []
    texts: dict[str, str] = {}
    for path, name in zip(inputs.paths, inputs.names, strict=True):
        texts[name] = inputs.read(path)
        documents.extend(load_documents(texts[name], source=name))
    return PlanInputs(tuple(documents), texts)


def validate_plan(text: str, request: PlanRequest, settings: Settings) -> list[Finding]:
    """The findings of validating the plan's text as ``generate cluster`` validates."""
    store = SchemaStore.from_search_path(list(request.schema_dirs), settings)
    checks = request.checks
    report = check_sources(
        [SourceText(PLAN_SOURCE, text)], store, checks.validation, kubeconform=checks.kubeconform
    )
    return report.findings


def plan_text(inputs: PlanInputs, request: PlanRequest, settings: Settings) -> PlanResult:
    """Plan the inputs and validate the plan; raises ValidationFailed when it fails."""
    plan = plan_documents(inputs.documents)
    text = dump_documents(plan.objects)
    findings = with_lines(plan.findings, dict(inputs.texts))
    if request.checks.validate and not plan.has_errors:
        findings += validate_plan(text, request, settings)
    findings = sort_findings(findings)
    if plan.has_errors or fails(findings, request.checks.fail_on):
        summary = summarize(findings, len(plan.objects))
        raise ValidationFailed(findings, summary=f"the planned objects are invalid ({summary})")
    return PlanResult(text, tuple(plan.objects), tuple(findings), plan)


def _old_plan(against: str, paths: Sequence[str], settings: Settings) -> tuple[Plan, OldSide]:
    """The plan of the inputs as they were at revision ``against`` (or in the folder
    ``against``). Inputs that did not exist then, or held no topology Cluster, plan to nothing:
    everything is added. Any other planning error names the ``--against`` value."""
    old = old_sources(against, paths, DEFAULT_RULES, settings.environ)
    if not topology_clusters(old.documents):
        return Plan((), ()), old
    try:
        return plan_documents(old.documents), old
    except TopologyError as error:
        msg = f"--against {against}: {error.message}"
        raise TopologyError(msg, location=error.location, hint=error.hint) from None


@dataclass(frozen=True, slots=True)
class AgainstResult:
    """``--against``: the objects that differ, and the findings (the new plan's that did not
    fail it, then the update and delete findings of the change)."""

    changes: tuple[ObjectChange, ...]
    findings: tuple[Finding, ...]
    refused: int  # update and delete findings that fail the run (``--fail-on``)


def run_against(request: PlanRequest, against: str, settings: Settings) -> AgainstResult:
    """The plan of the inputs compared with their plan at ``against``: per-object changes and
    the update and delete rules' verdicts on them. The new plan must validate (ValidationFailed
    otherwise); the old one is only planned, as it is what the cluster holds."""
    new = run_plan(request, settings)
    old, side = _old_plan(against, request.paths, settings)
    old_text = dump_documents(old.objects)
    old_source = f"{against}:{PLAN_SOURCE}"
    texts = {PLAN_SOURCE: new.text, old_source: old_text}
    store = SchemaStore.from_search_path(list(request.schema_dirs), settings)
    changes = validate_changes(
        load_documents(new.text, source=PLAN_SOURCE),
        load_documents(old_text, source=old_source),
        store,
        request.checks.validation,
    )
    verdicts = sort_findings([*side.notes, *with_old_lines(changes, texts)])
    return AgainstResult(
        tuple(compare_plans(old, new.plan, against)),
        (*new.findings, *verdicts),
        sum(1 for finding in verdicts if fails([finding], request.checks.fail_on)),
    )


def run_plan(request: PlanRequest, settings: Settings) -> PlanResult:
    """Read ``request.paths`` and plan them (see :func:`plan_text`)."""
    return plan_text(read_documents(request.paths), request, settings)
