"""The rulebook: an engine running checkers (document shapes, JSON Schemas of every object and
every embedded ASO resource, CEL rules, the CAPZ semantic rules in ``generator.checks.rules``).

The names below load their module on first use (:mod:`generator.faces`): the options are cheap,
the engine loads every rule. :func:`validate_documents` is a real function here, so that a module
can bind it at import time and still load the engine only when it first validates: a ``-j N``
run's workers load the rules after they are forked (each while the others parse), instead of
the parent before the fork, where every import is serial time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from generator.faces import lazy_names

if TYPE_CHECKING:
    from generator.checks.context import Checker, ValidationOptions
    from generator.checks.engine import known_rule_ids
    from generator.documents import Document
    from generator.findings import Finding
    from generator.schemastore.types import SchemaLookup

__all__ = ["ValidationOptions", "known_rule_ids", "validate_documents"]

__getattr__ = lazy_names(__name__, {"ValidationOptions": "context", "known_rule_ids": "engine"})


def validate_documents(
    documents: Sequence[Document],
    store: SchemaLookup | None,
    options: ValidationOptions | None = None,
    checkers: Sequence[Checker] | None = None,
) -> list[Finding]:
    """:func:`generator.checks.engine.validate_documents` (None: its default options and
    checkers), the engine and with it every rule imported on the first call."""
    # lazy: the engine loads every rule; see the module's docstring for why not before the fork
    from generator.checks import engine

    chosen = engine.DEFAULT_OPTIONS if options is None else options
    if checkers is None:
        return engine.validate_documents(documents, store, chosen)
    return engine.validate_documents(documents, store, chosen, checkers)
