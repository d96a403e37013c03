"""The :class:`Rule` record and the helper every rule uses to build its findings.

A rule is a pure function from a :class:`ManifestSet` to findings. It carries one severity so
that ``--list-rules`` states exactly what a rule can produce, and its description cites the
reference ID (``R1``, ``C6``, ``K3`` ... in ``shared/reference/aks-aso-reference.md``) it enforces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from generator.findings import Finding, JsonPath, Severity, Subject
from generator.model.manifests import ManifestSet
from generator.schemastore.types import SchemaLookup

SchemaCheck = Callable[[ManifestSet, SchemaLookup | None], Iterable[Finding]]
"""A check that also validates against schemas: given the run's store, None when there is none."""


class Located(Protocol):
    """Anything a finding can be about: a top-level object or an ASO resource."""

    @property
    def subject(self) -> Subject:
        """The object the finding is about."""
        ...

    @property
    def path(self) -> JsonPath:
        """Where the object sits in its document: ``()`` for a top-level one."""
        ...


@dataclass(frozen=True)
class Rule:
    """One rule: its ID (``CAPZ-...``, or ``ASO-...`` for ASO's own admission checks), the one-line
    description ``--list-rules`` shows, the one severity it reports with, and the check itself.

    A rule that needs the run's schemas (the option-7 patch rules validate what CAPZ would build)
    also has ``schema_check``; :meth:`run` hands it the store, and ``check`` (which has none) is
    what runs where no store exists, such as a flavor's render-time checks.
    """

    id: str
    description: str
    severity: Severity
    check: Callable[[ManifestSet], Iterable[Finding]]
    schema_check: SchemaCheck | None = None

    def run(self, manifests: ManifestSet, store: SchemaLookup | None) -> Iterable[Finding]:
        """The rule's findings on ``manifests``, validating with ``store`` if the rule uses one."""
        if self.schema_check is not None:
            return self.schema_check(manifests, store)
        return self.check(manifests)

    def at(self, where: Located, rel: JsonPath, message: str, hint: str | None = None) -> Finding:
        """A finding at ``rel`` inside ``where`` (path made absolute from the document root)."""
        return Finding(
            severity=self.severity,
            rule=self.id,
            message=message,
            subject=where.subject,
            path=(*where.path, *rel),
            hint=hint,
        )
