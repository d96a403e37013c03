"""Validation entry point: one engine that runs a list of checkers over a set of documents.

The documents are indexed once (:class:`~generator.model.manifests.ManifestSet`) and every checker
(:mod:`generator.checks.checkers`: document shapes, schemas of objects and embedded resources,
CEL rules, CAPZ rules) gets the same :class:`~generator.checks.context.CheckContext`. All
findings are collected (never just the first) and returned sorted. Findings carry no line numbers:
the caller knows the source text and fills them in with a locator.
"""

from __future__ import annotations

from collections.abc import Sequence

from generator.checks.checkers import DEFAULT_CHECKERS, check_capz_rules
from generator.checks.clusterclass.rule_ids import RULE_IDS as CLASS_PATCH_RULE_IDS
from generator.checks.context import CheckContext, Checker, ValidationOptions
from generator.checks.rules import RULES
from generator.checks.schema_check import ENGINE_RULE_IDS
from generator.documents import Document
from generator.findings import Finding, sort_findings
from generator.model.manifests import ManifestSet
from generator.schemastore.types import SchemaLookup

DEFAULT_OPTIONS = ValidationOptions()  # every check on, nothing ignored


# The CEL checker's findings (generator.cel: rule evaluation, and the API server's cost limits);
# named here so that listing them does not import the CEL machinery.
CEL_RULE_IDS = ("cel", "cel-cost")


def known_rule_ids() -> list[str]:
    """Every ID ``--disable-rule`` accepts: the engine's own checks, the CEL checks, the CAPZ
    rules in order, then the ClusterClass patch rules."""
    return [*ENGINE_RULE_IDS, *CEL_RULE_IDS, *RULES, *CLASS_PATCH_RULE_IDS]


def validate_documents(
    documents: Sequence[Document],
    store: SchemaLookup | None,
    options: ValidationOptions = DEFAULT_OPTIONS,
    checkers: Sequence[Checker] = DEFAULT_CHECKERS,
) -> list[Finding]:
    """Every finding of ``checkers`` over ``documents``, sorted by place.

    ``store`` is used only when ``options.schemas`` is on; without one, schema and CEL checks are
    skipped and the rules still run.
    """
    context = CheckContext(
        documents=documents,
        manifests=ManifestSet(documents, present_kinds=options.present_kinds),
        store=store if options.schemas else None,
        options=options,
    )
    findings: list[Finding] = []
    for checker in checkers:
        findings.extend(checker(context))
    return sort_findings(findings)


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
