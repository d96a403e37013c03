"""The :class:`Rule` record, the decorator that registers the function checking it, and the helper
every rule uses to build its findings.

A rule is a pure function from a :class:`ManifestSet` to findings. It carries one severity so
that ``--list-rules`` states exactly what a rule can produce, and its description cites the
reference ID (``R1``, ``C6``, ``K3`` ... in ``shared/reference/aks-aso-reference.md``) it enforces.

Each rule module declares a rule's record right above the function that checks it, and
``@RECORD.checks`` registers the pair, so a reader sees what a check promises where it is kept::

    SUBNET_NAME = Rule("CAPZ-POOL-SUBNET-NAME", "... (§4.8)", Severity.ERROR)


    @SUBNET_NAME.checks
    def _check_subnet_name(ms: ManifestSet) -> Iterator[Finding]: ...

Registration happens when the module is imported; :mod:`generator.checks.rules` imports the
modules in the order the rules run and are listed in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from generator.findings import Finding, JsonPath, Severity, Subject
from generator.model.manifests import ManifestSet
from generator.schemastore.types import SchemaLookup

Check = Callable[[ManifestSet], Iterable[Finding]]
"""A rule's check: the findings on a whole set of manifests."""

SchemaCheck = Callable[[ManifestSet, SchemaLookup | None], Iterable[Finding]]
"""A check that also validates against schemas: given the run's store, None when there is none."""

_C = TypeVar("_C", bound=Check)
_S = TypeVar("_S", bound=SchemaCheck)


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
    """One rule's record: its ID (``CAPZ-...``, or ``ASO-...`` for ASO's own admission checks), the
    one-line description ``--list-rules`` shows and the one severity it reports with.

    The function below the record, decorated with :meth:`checks` (or :meth:`checks_with_schemas`),
    is what enforces it; the record makes that function's findings with :meth:`at`.
    """

    id: str
    description: str
    severity: Severity

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

    def checks(self, check: _C) -> _C:
        """Decorator: register ``check`` as this rule's check; the function itself is unchanged."""
        _REGISTERED.append(RuleCheck(self, check))
        return check

    def checks_with_schemas(self, schema_check: _S) -> _S:
        """Decorator: register ``schema_check``, which uses the run's schemas, as this rule's check.

        Where no store exists (such as a flavor's render-time checks) it runs with ``None``."""
        _REGISTERED.append(RuleCheck(self, lambda ms: schema_check(ms, None), schema_check))
        return schema_check


@dataclass(frozen=True)
class RuleCheck:
    """A rule as the engine runs it: the record and the check registered for it.

    A rule that needs the run's schemas (the option-7 patch rules validate what CAPZ would build)
    also has ``schema_check``; :meth:`run` hands it the store, and ``check`` (which has none) is
    what runs where no store exists, such as a flavor's render-time checks.
    """

    rule: Rule
    check: Check
    schema_check: SchemaCheck | None = None

    @property
    def id(self) -> str:
        """The rule's ID."""
        return self.rule.id

    @property
    def description(self) -> str:
        """The line ``--list-rules`` shows."""
        return self.rule.description

    @property
    def severity(self) -> Severity:
        """The one severity the rule reports with."""
        return self.rule.severity

    def run(self, manifests: ManifestSet, store: SchemaLookup | None) -> Iterable[Finding]:
        """The rule's findings on ``manifests``, validating with ``store`` if the rule uses one."""
        if self.schema_check is not None:
            return self.schema_check(manifests, store)
        return self.check(manifests)


# Filled as the rule modules are imported, in import order (append-only; read by registered()).
_REGISTERED: list[RuleCheck] = []


def registered() -> tuple[RuleCheck, ...]:
    """Every rule check registered so far, in the order the modules registered them."""
    return tuple(_REGISTERED)
