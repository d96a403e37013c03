"""The checkers the engine runs by default, in order, each a thin adapter over one kind of check.

* :func:`check_documents`: every document is a mapping (rule ``yaml``);
* :func:`check_objects`: shape and JSON Schema of every top-level object and of every ASO resource
  embedded in one (``structure``, ``schema``, ``no-schema``; :mod:`generator.checks.schema_check`).
  Embedded resources are checked with their object, not by a checker of their own, because a
  non-mapping item is reported only when the object's own schema has not already said so;
* :func:`check_cel`: the schemas' CEL rules (``cel``; :mod:`generator.cel`);
* :func:`check_capz_rules`: the CAPZ semantic rules over the whole set
  (:mod:`generator.checks.rules`);
* :func:`check_class_patches`: every ClusterClass's inline patches applied to its templates, and
  the patched templates checked by the three checkers above (:mod:`generator.checks.clusterclass`).
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.checks.admission.chain import admit
from generator.checks.context import CheckContext, Checker
from generator.checks.rules import RULES
from generator.checks.schema_check import SchemaSettings, check_non_mapping, check_object
from generator.documents import Document
from generator.findings import Finding
from generator.model import kinds
from generator.model.manifests import ManifestSet


def check_documents(context: CheckContext) -> Iterator[Finding]:
    """Rule ``yaml``: a document that is not a mapping (empty documents are fine)."""
    for document in context.documents:
        problem = check_non_mapping(document)
        if problem is not None and context.enabled(problem.rule):
            yield problem


def check_objects(context: CheckContext) -> Iterator[Finding]:
    """Rules ``structure``, ``schema``, ``no-schema``: every object and its embedded resources."""
    settings = SchemaSettings(
        store=context.store, ignore_missing=context.options.ignore_missing_schemas
    )
    for top in context.manifests.objects:
        for finding in check_object(top, settings):
            if context.enabled(finding.rule):
                yield finding


def check_cel(context: CheckContext) -> list[Finding]:
    """Rules ``cel`` and ``cel-cost``: the CRDs' CEL rules within the API server's cost limits;
    nothing with ``--no-cel`` or without a schema store."""
    if not context.options.cel or context.store is None:
        return []
    # The walker is light; it loads cel-python (~60 ms with its parser) only when a rule applies.
    # lazy: runs with nothing for CEL to check load no CEL machinery at all
    from generator.cel.validate import check_cel as evaluate

    root = context.options.cache_root
    folder = root / "cel" if root is not None else None
    findings = evaluate(context.manifests, context.store, cache_folder=folder)
    return [f for f in findings if context.enabled(f.rule)]


def check_capz_rules(context: CheckContext) -> Iterator[Finding]:
    """Disabled rules are not run at all (their findings would be dropped anyway)."""
    for rule_id, rule in RULES.items():
        if context.enabled(rule_id):
            yield from rule.run(context.manifests, context.store)


def check_class_patches(context: CheckContext) -> list[Finding]:
    """Rules ``CC-PATCH-*``, and the findings of the other checkers on the patched templates."""

    if next(context.manifests.objects_of(kinds.CLUSTER_CLASS), None) is None:
        return []
    # Only a set holding a ClusterClass needs the patch checks (Go template subset, YAML, JSON
    # patch): ~20 ms of start-up the other runs do without.
    # lazy: as just said
    from generator.checks.clusterclass import patches

    def check(document: Document) -> list[Finding]:
        # A topology's objects are created from the patched templates: admitted like any create.
        admitted = Document(
            document.source,
            document.index,
            admit(document.obj, context.store)[0],
            document.start_line,
        )
        one = context._replace(documents=(admitted,), manifests=ManifestSet((admitted,)))
        return [f for checker in _OBJECT_CHECKERS for f in checker(one)]

    found = patches.check_class_patches(context.manifests, check)
    return [f for f in found if context.enabled(f.rule)]


_OBJECT_CHECKERS: tuple[Checker, ...] = (check_objects, check_cel, check_capz_rules)
DEFAULT_CHECKERS: tuple[Checker, ...] = (
    check_documents,
    check_objects,
    check_cel,
    check_capz_rules,
    check_class_patches,
)
