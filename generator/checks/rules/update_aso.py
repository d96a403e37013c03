"""ASO's write-once properties: a resource keeps its Azure name and its owner.

ASO v2's generated webhooks call ``genruntime.ValidateWriteOnceProperties``
(``v2/pkg/genruntime/validator.go`` in Azure/azure-service-operator) on every update: once the
resource exists in Azure, ``spec.azureName`` cannot change (setting it where it was empty is
allowed), and ``spec.owner`` cannot be added, removed, or point elsewhere (``name`` or
``armId``). ASO applies this only to a resource it has created (one with a resource ID); a
manifest in a repository's history was applied, so capzgen assumes it was. The same holds for an
ASO resource embedded in a CAPZ object: CAPZ applies the new one over the old one, and ASO's
webhook judges the update. ASO's defaulter sets ``azureName`` to ``metadata.name`` when it is
missing, so a rename of an object without ``azureName`` is a change of its Azure name too.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.checks.changes import Change
from generator.checks.rules.base import Rule
from generator.findings import Finding, Gate, Operation, Severity
from generator.jsontypes import Json, dig
from generator.model.manifests import AsoResource

AZURE_NAME = Rule(
    "ASO-UPDATE-AZURENAME",
    "on update: an ASO resource keeps its spec.azureName (metadata.name when unset) "
    "(ASO v2 genruntime ValidateWriteOnceProperties)",
    Severity.ERROR,
    Gate.ADMISSION,
    operation=Operation.UPDATE,
)


def azure_name(res: AsoResource) -> str | None:
    """The resource's name in Azure: ``spec.azureName``, else ``metadata.name``."""
    value = dig(res.obj, "spec", "azureName")
    return value if isinstance(value, str) and value else res.name


@AZURE_NAME.checks_update
def _check_azure_name(change: Change) -> Iterator[Finding]:
    for old, new in change.resource_pairs():
        before, after = azure_name(old), azure_name(new)
        if before and before != after:
            yield AZURE_NAME.at(
                new,
                ("spec", "azureName"),
                f"the Azure name cannot change from {before!r} to {after!r}: ASO refuses the "
                "update; a new name means a new Azure resource (delete and create)",
            )


OWNER = Rule(
    "ASO-UPDATE-OWNER",
    "on update: an ASO resource keeps its spec.owner (name or armId; not added or removed) "
    "(ASO v2 genruntime ValidateWriteOnceProperties)",
    Severity.ERROR,
    Gate.ADMISSION,
    operation=Operation.UPDATE,
)


def _owner(res: AsoResource) -> Json:
    return dig(res.obj, "spec", "owner")


@OWNER.checks_update
def _check_owner(change: Change) -> Iterator[Finding]:
    for old, new in change.resource_pairs():
        before, after = _owner(old), _owner(new)
        if before == after:
            continue
        if before is None:
            message = "an owner cannot be added to an existing resource"
        elif after is None:
            message = "the owner cannot be removed"
        elif dig(before, "name") != dig(after, "name"):
            message = (
                f"the owner cannot change from {dig(before, 'name')!r} to {dig(after, 'name')!r}"
            )
        elif dig(before, "armId") != dig(after, "armId"):
            message = "the owner's armId cannot change"
        else:
            continue  # other keys (group, kind) are not compared by ASO
        yield OWNER.at(new, ("spec", "owner"), message)
