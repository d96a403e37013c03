"""The rulebook: an engine running checkers (document shapes, JSON Schemas of every object and
every embedded ASO resource, CEL rules, the CAPZ semantic rules in ``generator.checks.rules``).

The names below load their module on first use (:mod:`generator.faces`): the options are cheap,
the engine loads every rule."""

from __future__ import annotations

from typing import TYPE_CHECKING

from generator.faces import lazy_names

if TYPE_CHECKING:
    from generator.checks.context import ValidationOptions
    from generator.checks.engine import known_rule_ids, validate_documents

__all__ = ["ValidationOptions", "known_rule_ids", "validate_documents"]

__getattr__ = lazy_names(
    __name__,
    {"ValidationOptions": "context", "known_rule_ids": "engine", "validate_documents": "engine"},
)
