"""Validation entry point: per-document checks, then every enabled CAPZ rule over the whole set.

All findings are collected (never just the first) and returned sorted. Findings carry no line
numbers: the caller knows the source text and fills them in with a locator.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from generator.documents import Document
from generator.findings import Finding, sort_findings
from generator.schemastore.types import SchemaLookup
from generator.validate.model import ManifestSet
from generator.validate.rules import RULES
from generator.validate.schema_check import (
    ENGINE_RULE_IDS,
    SchemaSettings,
    check_non_mapping,
    check_object,
)


@dataclass(frozen=True)
class ValidationOptions:
    disabled_rules: frozenset[str] = frozenset()
    ignore_missing_schemas: bool = False
    schemas: bool = True  # False (or no store): skip JSON Schema validation, keep the rules
    cel: bool = (
        True  # evaluate the schemas' CEL rules (x-kubernetes-validations), as the API server
    )


def known_rule_ids() -> list[str]:
    """Every ID ``--disable-rule`` accepts: the engine's own checks, then the CAPZ rules in order."""
    return [*ENGINE_RULE_IDS, *RULES]


def validate_documents(
    documents: Sequence[Document],
    store: SchemaLookup | None,
    options: ValidationOptions = ValidationOptions(),
) -> list[Finding]:
    disabled = options.disabled_rules
    settings = SchemaSettings(
        store=store if options.schemas else None, ignore_missing=options.ignore_missing_schemas
    )
    manifests = ManifestSet(documents)
    findings: list[Finding] = []
    for document in documents:
        problem = check_non_mapping(document)
        if problem is not None:
            findings.append(problem)
    for top in manifests.objects:
        findings.extend(check_object(top, settings))
    if options.cel and settings.store is not None:
        from generator.cel import check_cel

        findings.extend(check_cel(manifests, settings.store))
    findings = [finding for finding in findings if finding.rule not in disabled]
    findings.extend(_rule_findings(manifests, disabled))
    return sort_findings(findings)


def rule_findings(
    documents: Sequence[Document], disabled_rules: frozenset[str] = frozenset()
) -> list[Finding]:
    """The CAPZ rules alone (no shape, schema or CEL checks), sorted: what a flavor's render-time
    checks run on the objects it rendered."""
    return sort_findings(_rule_findings(ManifestSet(documents), disabled_rules))


def _rule_findings(manifests: ManifestSet, disabled: frozenset[str]) -> list[Finding]:
    findings: list[Finding] = []
    for rule_id, rule in RULES.items():
        if rule_id not in disabled:
            findings.extend(rule.check(manifests))
    return findings
