"""Validation of capzgen manifests: an engine running checkers (document shapes, JSON Schemas of
every object and every embedded ASO resource, CEL rules, the CAPZ semantic rules in
``generator.validate.rules``)."""

from __future__ import annotations

from generator.validate.context import ValidationOptions
from generator.validate.engine import known_rule_ids, validate_documents

__all__ = ["ValidationOptions", "known_rule_ids", "validate_documents"]
