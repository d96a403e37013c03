"""Validation entry point: one engine that runs a list of checkers over a set of documents.

The documents are indexed once (:class:`~generator.model.manifests.ManifestSet`) and every checker
(:mod:`generator.checks.checkers`: document shapes, schemas of objects and embedded resources,
CEL rules, CAPZ rules) gets the same :class:`~generator.checks.context.CheckContext`. All
findings are collected (never just the first) and returned sorted. Findings carry no line numbers:
the caller knows the source text and fills them in with a locator.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from generator.checks.admission.chain import ADMISSION, admit_documents, explain
from generator.checks.admission.defaults import Applied
from generator.checks.checkers import DEFAULT_CHECKERS, check_capz_rules
from generator.checks.clusterclass.rule_ids import RULE_IDS as CLASS_PATCH_RULE_IDS
from generator.checks.context import CheckContext, Checker, ValidationOptions
from generator.checks.rules import RULES
from generator.checks.schema_check import ENGINE_RULE_IDS
from generator.documents import Document
from generator.findings import Finding, JsonPath, sort_findings
from generator.model.manifests import ManifestSet
from generator.schemastore.types import SchemaLookup

DEFAULT_OPTIONS = ValidationOptions()  # every check on, nothing ignored


# The CEL checker's findings (generator.cel: rule evaluation, and the API server's cost limits);
# named here so that listing them does not import the CEL machinery.
CEL_RULE_IDS = ("cel", "cel-cost")


def known_rule_ids() -> list[str]:
    """Every ID ``--disable-rule`` accepts: the engine's own checks, the CEL checks, the CAPZ
    rules in order, then the ClusterClass patch rules."""
    return [*ENGINE_RULE_IDS, ADMISSION, *CEL_RULE_IDS, *RULES, *CLASS_PATCH_RULE_IDS]


def validate_documents(
    documents: Sequence[Document],
    store: SchemaLookup | None,
    options: ValidationOptions = DEFAULT_OPTIONS,
    checkers: Sequence[Checker] = DEFAULT_CHECKERS,
) -> list[Finding]:
    """Every finding of ``checkers`` over ``documents``, sorted by place.

    ``store`` is used only when ``options.schemas`` is on; without one, schema and CEL checks are
    skipped and the rules still run. Every checker sees the documents as the API server admits
    them on a create (CRD defaults, CAPZ's mutating webhooks: :mod:`generator.checks.admission`).
    """
    store = store if options.schemas else None
    admitted, changes = admit_documents(documents, store)
    context = CheckContext(
        documents=admitted,
        manifests=ManifestSet(admitted, present_kinds=options.present_kinds),
        store=store,
        options=options,
    )
    findings: list[Finding] = []
    if changes and context.enabled(ADMISSION):
        for position, applied in changes.items():
            info = explain(documents[position], admitted[position], applied, store)
            if info is not None:
                findings.append(info)
    for checker in checkers:
        findings.extend(checker(context))
    if changes:
        findings = _to_written_fields(findings, documents, changes)
    return sort_findings(findings)


def _to_written_fields(
    findings: list[Finding], documents: Sequence[Document], changes: dict[int, list[Applied]]
) -> list[Finding]:
    """A finding about a value the admission chain copied from another field (a pool's
    ``spec.name`` from ``metadata.name``) is moved to that field: it is what the user wrote."""
    moved: dict[tuple[str, int], dict[JsonPath, JsonPath]] = {}
    for position, applied in changes.items():
        copies = {a.path: a.origin for a in applied if a.origin is not None}
        if copies:
            document = documents[position]
            moved[(document.source, document.index)] = copies
    if not moved:
        return findings
    out = []
    for finding in findings:
        subject = finding.subject
        found = moved.get((subject.file, subject.document if subject.document is not None else -1))
        origin = found.get(finding.path) if found and finding.rule != ADMISSION else None
        out.append(finding if origin is None else replace(finding, path=origin))
    return out


def rule_findings(
    documents: Sequence[Document], disabled_rules: frozenset[str] = frozenset()
) -> list[Finding]:
    """The CAPZ rules alone (no shape, schema or CEL checks), sorted: what a flavor's render-time
    checks run on the objects it rendered."""
    return validate_documents(
        documents,
        None,
        ValidationOptions(disabled_rules=disabled_rules, schemas=False, cel=False),
        checkers=(check_capz_rules,),
    )
