"""The :class:`Rule` record, the decorator that registers the function checking it, and the helper
every rule uses to build its findings.

A rule is a pure function from a :class:`ManifestSet` to findings. It carries one severity so
that ``--list-rules`` states exactly what a rule can produce, and its description cites the
reference ID (``R1``, ``C6``, ``K3`` ... in ``shared/reference/aks-aso-reference.md``) it enforces.

Each rule module declares a rule's record right above the function that checks it, and
``@RECORD.checks`` registers the pair, so a reader sees what a check promises where it is kept::

    SUBNET_NAME = Rule("CAPZ-POOL-SUBNET-NAME", "... (§4.8)", Severity.ERROR, Gate.ADMISSION)


    @SUBNET_NAME.checks
    def _check_subnet_name(ms: ManifestSet) -> Iterator[Finding]: ...

Every record states its :class:`~generator.findings.Gate`: whether the management cluster
refuses what the rule finds (``admission``) or admits it and something later fails
(``provisioning``, with ``why`` saying who). The evidence is docs/webhook-parity.md (which CAPZ and
ASO webhook checks a rule mirrors) and CAPZ v1.26.0's webhooks run over the rule's invalid
examples; a CAPZ webhook check is admission only for the kinds CAPZ registers it for
(``webhook_kinds``): the legacy AzureManaged* kinds, never the AzureASOManaged* ones, whose
webhooks only check a feature gate, so the same check on an embedded ASO resource is AKS's.

Registration happens when the module is imported; :mod:`generator.checks.rules` imports the
modules in the order the rules run and are listed in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final, Protocol, TypeVar, final

from generator.checks.changes import Change, Removal
from generator.findings import Finding, Gate, JsonPath, Operation, Severity, Subject
from generator.model import kinds
from generator.model.manifests import ManifestSet
from generator.schemastore.types import SchemaLookup

Check = Callable[[ManifestSet], Iterable[Finding]]
"""A rule's check: the findings on a whole set of manifests."""

SchemaCheck = Callable[[ManifestSet, SchemaLookup | None], Iterable[Finding]]
"""A check that also validates against schemas: given the run's store, None when there is none."""

UpdateCheck = Callable[[Change], Iterable[Finding]]
"""An update rule's check: the findings on one object changed between two revisions."""

DeleteCheck = Callable[[Removal], Iterable[Finding]]
"""A delete rule's check: the findings on one object the new revision no longer has."""

_C = TypeVar("_C", bound=Check)
_S = TypeVar("_S", bound=SchemaCheck)
_U = TypeVar("_U", bound=UpdateCheck)
_D = TypeVar("_D", bound=DeleteCheck)


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


LEGACY_CONTROL_PLANES = frozenset(
    {kinds.LEGACY_CONTROL_PLANE, f"{kinds.LEGACY_CONTROL_PLANE}Template"}
)
"""The kinds CAPZ's AzureManagedControlPlane webhooks validate (the template's too)."""

LEGACY_POOLS = frozenset({kinds.LEGACY_MACHINE_POOL, f"{kinds.LEGACY_MACHINE_POOL}Template"})
"""The kinds CAPZ's AzureManagedMachinePool webhooks validate (the template's too)."""


@final
class Rule:
    """One rule's record: its ID (``CAPZ-...``, or ``ASO-...`` for ASO's own admission checks), the
    one-line description ``--list-rules`` shows, the one severity it reports with and the gate it
    stands for.

    ``gate`` is the gate of the rule's findings, and a provisioning rule must say in ``why`` who
    fails it later (AKS, ARM, CAPZ's or ASO's controller): the finding's text shows it, so the user
    can tell capzgen being stricter than the API server from what the API server refuses.
    ``webhook_kinds`` serves the rules that mirror a CAPZ webhook check for the legacy API and
    check the same on embedded ASO resources, where no webhook does: findings on a top-level
    object of those kinds are admission, the others take ``gate``. A single finding that differs
    (the webhook skips a case, or checks a narrower range) passes its own gate to :meth:`at`,
    and ``split`` says which, for ``--list-rules`` and docs/rules.md.

    The function below the record, decorated with :meth:`checks` (or :meth:`checks_with_schemas`),
    is what enforces it; the record makes that function's findings with :meth:`at`.
    """

    id: Final[str]
    description: Final[str]
    severity: Final[Severity]
    gate: Final[Gate]
    why: Final[str | None]
    webhook_kinds: Final[frozenset[str]]
    split: Final[str | None]  # which findings :meth:`at` gives the other gate, for the docs
    operation: Final[Operation]  # the request it judges (update, delete: --against)

    def __init__(
        self,
        id: str,
        description: str,
        severity: Severity,
        gate: Gate,
        why: str | None = None,
        webhook_kinds: frozenset[str] = frozenset(),
        split: str | None = None,
        operation: Operation = Operation.CREATE,
    ) -> None:
        # A plain class, not a frozen dataclass: its module is compiled, and ``dataclasses``
        # spent ~0.4 ms per class of the engine generating methods in every worker.
        self.id, self.description, self.severity, self.gate = id, description, severity, gate
        self.why, self.webhook_kinds, self.split, self.operation = (
            why,
            webhook_kinds,
            split,
            operation,
        )
        # A record that breaks these would print a provisioning finding nobody can act on, or
        # claim webhooks for a rule that is admission anyway: refused when the module loads.
        if gate is Gate.PROVISIONING and not why:
            msg = f"{id}: a provisioning rule says why (who fails it later)"
            raise ValueError(msg)
        if webhook_kinds and gate is Gate.ADMISSION:
            msg = f"{id}: webhook_kinds only narrow a provisioning rule"
            raise ValueError(msg)

    def __repr__(self) -> str:
        return f"Rule({self.id!r})"

    @property
    def gates(self) -> str:
        """``admission``, ``provisioning``, or ``both`` for a rule whose findings can be of
        either gate (see :attr:`webhook_kinds` and :attr:`split`)."""
        return "both" if self.webhook_kinds or self.split else self.gate.value

    def gate_of(self, subject: Subject) -> Gate:
        """The gate of this rule's finding on ``subject``: admission on a top-level object of
        :attr:`webhook_kinds` (CAPZ's webhook refuses it), else the rule's :attr:`gate`."""
        if subject.embedded_path is None and subject.kind in self.webhook_kinds:
            return Gate.ADMISSION
        return self.gate

    def at(
        self,
        where: Located,
        rel: JsonPath,
        message: str,
        hint: str | None = None,
        *,
        gate: Gate | None = None,
        why: str | None = None,
    ) -> Finding:
        """A finding at ``rel`` inside ``where`` (path made absolute from the document root).

        ``gate`` overrides :meth:`gate_of` for this finding, and ``why`` the rule's reason, for
        the one finding of a rule that a webhook treats otherwise than the rule's other findings.
        """
        chosen = gate if gate is not None else self.gate_of(where.subject)
        reason = None
        if chosen is Gate.PROVISIONING:
            reason = why or self.why
            if not reason:
                msg = f"{self.id}: a provisioning finding needs a why"
                raise ValueError(msg)
        return Finding(
            severity=self.severity,
            rule=self.id,
            message=message,
            subject=where.subject,
            path=(*where.path, *rel),
            hint=hint,
            gate=chosen,
            why=reason,
            operation=self.operation,
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

    def checks_update(self, update_check: _U) -> _U:
        """Decorator: register ``update_check`` as this update rule's check (``--against``)."""
        self._expect(Operation.UPDATE)
        _REGISTERED.append(RuleCheck(self, _nothing, update_check=update_check))
        return update_check

    def checks_delete(self, delete_check: _D) -> _D:
        """Decorator: register ``delete_check`` as this delete rule's check (``--against``)."""
        self._expect(Operation.DELETE)
        _REGISTERED.append(RuleCheck(self, _nothing, delete_check=delete_check))
        return delete_check

    def _expect(self, operation: Operation) -> None:
        if self.operation is not operation:
            msg = f"{self.id}: registered for {operation.value} but declared {self.operation.value}"
            raise ValueError(msg)


def _nothing(_manifests: ManifestSet) -> Iterable[Finding]:
    """What an update or delete rule finds on a create: nothing (there is no old object)."""
    return ()


@final
class RuleCheck:
    """A rule as the engine runs it: the record and the check registered for it.

    A rule that needs the run's schemas (the option-7 patch rules validate what CAPZ would build)
    also has ``schema_check``; :meth:`run` hands it the store, and ``check`` (which has none) is
    what runs where no store exists, such as a flavor's render-time checks.
    """

    rule: Final[Rule]
    check: Final[Check]
    schema_check: Final[SchemaCheck | None]
    update_check: Final[UpdateCheck | None]
    delete_check: Final[DeleteCheck | None]

    def __init__(
        self,
        rule: Rule,
        check: Check,
        schema_check: SchemaCheck | None = None,
        update_check: UpdateCheck | None = None,
        delete_check: DeleteCheck | None = None,
    ) -> None:
        self.rule, self.check, self.schema_check = rule, check, schema_check
        self.update_check, self.delete_check = update_check, delete_check

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

    @property
    def gate(self) -> Gate:
        """The gate the rule's findings stand for (on the legacy kinds of ``webhook_kinds``,
        admission)."""
        return self.rule.gate

    @property
    def operation(self) -> Operation:
        """The request the rule judges: create, update or delete."""
        return self.rule.operation

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
