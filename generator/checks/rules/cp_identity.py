"""The legacy AzureManagedControlPlane's own identity: a user-assigned identity names its resource.

CAPZ's ``validateAzureManagedControlPlaneIdentity`` requires ``spec.identity.userAssignedIdentityResourceID``
with ``type: UserAssigned`` and forbids it with any other type. The ASO ManagedCluster writes the
same choice as ``identity.type`` plus ``userAssignedIdentities``, which ASO-IDENTITY-USERASSIGNED
checks; this rule is the legacy shape's half.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.checks.rules.base import Rule
from generator.findings import Finding, Gate, Severity
from generator.jsontypes import dig
from generator.model import kinds
from generator.model.manifests import ManifestSet
from generator.model.values import as_dict, is_templated, known_str

_PATH = ("spec", "identity", "userAssignedIdentityResourceID")


IDENTITY = Rule(
    "CAPZ-MC-IDENTITY",
    "AzureManagedControlPlane identity: userAssignedIdentityResourceID is set with type "
    "UserAssigned and only then (CAPZ validateAzureManagedControlPlaneIdentity; ASO shape: "
    "ASO-IDENTITY-USERASSIGNED; §4.7, §5.3)",
    Severity.ERROR,
    Gate.ADMISSION,
)


@IDENTITY.checks
def _check(ms: ManifestSet) -> Iterator[Finding]:
    for obj in ms.objects_of(kinds.LEGACY_CONTROL_PLANE):
        identity = as_dict(dig(obj.spec, "identity"))
        if identity is None:
            continue
        kind = identity.get("type")
        resource_id = identity.get("userAssignedIdentityResourceID")
        if is_templated(kind) or is_templated(resource_id):
            continue
        if kind == "UserAssigned" and not resource_id:
            yield IDENTITY.at(obj, _PATH, "is required with identity type UserAssigned")
        elif kind != "UserAssigned" and resource_id:
            yield IDENTITY.at(
                obj,
                _PATH,
                f"must be empty with identity type {known_str(kind) or 'SystemAssigned'}",
                hint="set identity.type: UserAssigned to use this identity",
            )
