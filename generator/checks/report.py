"""Rendering of findings for people (text) and for tools (JSON), and of the rule table."""

from __future__ import annotations

import json
from collections.abc import Sequence

from generator.checks.clusterclass.rule_ids import DESCRIPTIONS as CLASS_PATCH_RULES
from generator.checks.rules import RULES
from generator.checks.schema_check import NO_SCHEMA, SCHEMA, STRUCTURE, YAML
from generator.errors import CapzgenError
from generator.findings import Finding, hint_lines, summarize

_CEL_RULES = (
    ("cel", "error", "Objects satisfy their CRDs' CEL rules (x-kubernetes-validations)"),
    (
        "cel-cost",
        "error",
        "CEL rules stay within the API server's cost limits (estimated and at run time)",
    ),
)
_ENGINE_RULES = (
    (YAML, "error", "A document is a mapping (a Kubernetes object)"),
    (
        STRUCTURE,
        "error",
        "Objects and embedded resources have apiVersion, kind and metadata.name (C19)",
    ),
    (
        SCHEMA,
        "error",
        "Objects and embedded ASO resources match the schema of their own apiVersion/kind",
    ),
    (
        NO_SCHEMA,
        "error",
        "A schema exists for every apiVersion/kind (O9; off with --ignore-missing-schemas)",
    ),
)


def render_text(findings: Sequence[Finding], documents: int) -> str:
    """The text report: one line per finding, each distinct hint once, then the summary line."""
    lines = [finding.to_text() for finding in findings]
    lines.extend(hint_lines(findings))
    lines.append(summarize(findings, documents))
    return "\n".join(lines) + "\n"


def render_json(findings: Sequence[Finding], documents: int) -> str:
    """The JSON report: every finding (see :meth:`Finding.to_json`) and a summary of counts."""
    errors = sum(1 for finding in findings if finding.is_error)
    payload = {
        "findings": [finding.to_json() for finding in findings],
        "summary": {
            "documents": documents,
            "errors": errors,
            "warnings": len(findings) - errors,
            "text": summarize(findings, documents),
        },
    }
    return json.dumps(payload, indent=2, sort_keys=True) + "\n"


def render_error_json(error: CapzgenError) -> str:
    """The JSON report of a run that stopped before validating (usage or I/O error, exit 2):
    the same shape as :func:`render_json`, no findings, and the error."""
    location = error.location
    payload = {
        "error": {
            "message": error.message,
            "file": location.file if location else None,
            "line": location.line if location else None,
            "details": list(error.details),
            "hint": error.hint,
            "exit_code": int(error.exit_code),
        },
        "findings": [],
        "summary": {"documents": 0, "errors": 0, "warnings": 0, "text": f"Error: {error}"},
    }
    return json.dumps(payload, indent=2, sort_keys=True) + "\n"


def describe_rules() -> str:
    """A fixed-width table: rule id, severity, description."""
    rows = [
        *_ENGINE_RULES,
        *_CEL_RULES,
        *((rule.id, rule.severity.value, rule.description) for rule in RULES.values()),
        *CLASS_PATCH_RULES,
    ]
    width = max(len(row[0]) for row in rows)
    lines = [f"{'RULE':<{width}}  {'SEVERITY':<8}  DESCRIPTION"]
    lines.extend(f"{rule_id:<{width}}  {severity:<8}  {text}" for rule_id, severity, text in rows)
    return "\n".join(lines) + "\n"
