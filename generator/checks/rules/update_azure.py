"""What Azure refuses to change on an existing ASO resource, although every webhook admits it.

CAPZ's ``ValidateUpdate`` webhooks guard the legacy ``AzureManaged*`` kinds (:mod:`.immutable`),
and ASO's own webhook only guards ``azureName`` and ``owner`` (:mod:`.update_aso`). An
``AzureASOManaged*`` object embeds the ASO resources as they are, so nothing at admission stops a
commit that moves a ManagedCluster to another region or gives a node pool another VM size: the
API server stores it, ASO sends the PUT, and Azure Resource Manager or AKS answers with an error
that leaves the resource in a failed ``Ready`` condition. These rules report that change at the
field, gate ``provisioning``.

The fields are the ones CAPZ's legacy webhooks make immutable for the same settings of the same
AKS objects (``internal/webhooks/azuremanagedcontrolplane_webhook.go`` and
``azuremanagedmachinepool_webhook.go``, ``ValidateUpdate``: CAPZ guards them because AKS refuses
them), restricted to those whose ASO field is the AKS property itself, plus ``location``, which
Azure Resource Manager never lets an existing resource change.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.checks.changes import Change
from generator.checks.rules.base import Rule
from generator.findings import Finding, Gate, JsonPath, Operation, Severity
from generator.jsontypes import Json, dig
from generator.model import kinds
from generator.model.manifests import AsoResource

LOCATION = Rule(
    "ASO-UPDATE-LOCATION",
    "on update: an ASO resource keeps its spec.location; Azure Resource Manager does not move an "
    "existing resource to another region (CAPZ guards the same for its legacy kinds: "
    "internal/webhooks/azuremanagedcontrolplane_webhook.go:ValidateUpdate, location)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="the API server and ASO accept it; Azure refuses the PUT and the resource stays failed",
    operation=Operation.UPDATE,
)


def _changed(old: AsoResource, new: AsoResource, path: JsonPath) -> tuple[Json, Json] | None:
    """``(before, after)`` when the value at ``path`` below ``spec`` differs, a value set on one
    side only included; None when equal."""
    before, after = dig(old.obj, "spec", *path), dig(new.obj, "spec", *path)
    zones = path == ("availabilityZones",)
    if zones and isinstance(before, list) and isinstance(after, list):
        before, after = sorted(map(str, before)), sorted(map(str, after))
    return None if before == after else (before, after)


@LOCATION.checks_update
def _check_location(change: Change) -> Iterator[Finding]:
    for old, new in change.resource_pairs():
        moved = _changed(old, new, ("location",))
        if moved is not None and moved[0] is not None:
            before, after = moved
            yield LOCATION.at(
                new,
                ("spec", "location"),
                f"the region cannot change from {before!r} to {after!r}: Azure keeps an existing "
                "resource where it was created; a new region means a new resource (a new name)",
            )


AKS_IMMUTABLE = Rule(
    "CAPZ-UPDATE-AKS-IMMUTABLE",
    "on update: ManagedCluster dnsPrefix, fqdnSubdomain, nodeResourceGroup, "
    "networkProfile.dnsServiceIP and serviceCidr, linuxProfile.adminUsername, and "
    "ManagedClustersAgentPool vmSize, osType, osDiskSizeGB, osDiskType, kubeletDiskType, maxPods, "
    "availabilityZones, vnetSubnetReference, scaleSetPriority keep their values: AKS refuses to "
    "change them (the settings CAPZ's AzureManagedControlPlane and AzureManagedMachinePool "
    "webhooks make immutable, internal/webhooks/azuremanaged*_webhook.go:ValidateUpdate)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="admitted for AzureASOManaged* (no webhook looks inside); AKS refuses the change",
    operation=Operation.UPDATE,
)

_CLUSTER_FIELDS: tuple[JsonPath, ...] = (
    ("dnsPrefix",),
    ("fqdnSubdomain",),
    ("nodeResourceGroup",),
    ("networkProfile", "dnsServiceIP"),
    ("networkProfile", "serviceCidr"),
    ("linuxProfile", "adminUsername"),
)
_POOL_FIELDS: tuple[JsonPath, ...] = (
    ("vmSize",),
    ("osType",),
    ("osDiskSizeGB",),
    ("osDiskType",),
    ("kubeletDiskType",),
    ("maxPods",),
    ("availabilityZones",),
    ("vnetSubnetReference",),
    ("scaleSetPriority",),
)
_FIELDS: dict[tuple[str, str], tuple[JsonPath, ...]] = {
    kinds.MANAGED_CLUSTER: _CLUSTER_FIELDS,
    kinds.AGENT_POOL: _POOL_FIELDS,
}


@AKS_IMMUTABLE.checks_update
def _check_aks_immutable(change: Change) -> Iterator[Finding]:
    for old, new in change.resource_pairs():
        for path in _FIELDS.get((new.group, new.kind), ()):
            moved = _changed(old, new, path)
            # Only a value the stored resource had: AKS fills unset ones itself (a default pool
            # OS disk size, a generated node resource group), and setting that value is no change.
            if moved is None or moved[0] is None:
                continue
            before, after = moved
            now = "unset" if after is None else repr(after)
            yield AKS_IMMUTABLE.at(
                new,
                ("spec", *path),
                f"{'.'.join(map(str, path))} cannot change from {before!r} to {now} on an existing "
                f"{new.kind}: AKS refuses it{_remedy(new)}",
            )


def _remedy(res: AsoResource) -> str:
    """What to do instead, by kind."""
    if (res.group, res.kind) == kinds.AGENT_POOL:
        return "; add a new pool with the new setting, move the workloads, then remove this one"
    return "; a new setting means a new cluster"
