"""Validation of capzgen manifests: schema checks of every object and every embedded ASO resource,
plus the CAPZ semantic rules (``generator.validate.rules``)."""

from __future__ import annotations

from generator.validate.engine import ValidationOptions, known_rule_ids, validate_documents

__all__ = ["ValidationOptions", "known_rule_ids", "validate_documents"]
