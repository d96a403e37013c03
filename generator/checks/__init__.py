"""Validation of capzgen manifests: an engine running checkers (document shapes, JSON Schemas of
every object and every embedded ASO resource, CEL rules, the CAPZ semantic rules in
``generator.checks.rules``)."""

from __future__ import annotations

from generator.checks.context import ValidationOptions
from generator.checks.engine import known_rule_ids, validate_documents

__all__ = ["ValidationOptions", "known_rule_ids", "validate_documents"]
